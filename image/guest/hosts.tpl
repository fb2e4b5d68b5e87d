127.0.0.1 localhost
127.0.1.1 {{ instance.name }}
::1 localhost ip6-localhost ip6-loopback
