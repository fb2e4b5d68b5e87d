/* Runs inside a bailey sandbox and tries one thing, then says what the kernel answered.
 *
 *   escape_probe <check> [args...]
 *
 * Prints one line: "ok ..." when the attempt succeeded, or "errno=<NAME> <n>" when the kernel
 * refused it, and exits 0 on success, 1 on refusal (2 on misuse). The live tests assert on the
 * errno, never on what the probe was asked. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/kcmp.h>
#include <linux/tiocl.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/quota.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static int refused(int err) {
  printf("errno=%s %d\n", strerrorname_np(err) ? strerrorname_np(err) : "?", err);
  return 1;
}

static int result(long rc) {
  if (rc < 0) return refused(errno);
  printf("ok %ld\n", rc);
  return 0;
}

static int do_read(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return refused(errno);
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf);
  int err = errno;
  close(fd);
  if (n < 0) return refused(err);
  printf("ok %zd\n", n);
  return 0;
}

static int do_list(const char* path) {
  DIR* d = opendir(path);
  if (d == NULL) return refused(errno);
  int count = 0;
  while (readdir(d) != NULL) ++count;
  closedir(d);
  printf("ok %d\n", count);
  return 0;
}

static int do_write(const char* path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return refused(errno);
  ssize_t n = write(fd, "x", 1);
  int err = errno;
  close(fd);
  if (n != 1) return refused(err);
  printf("ok 1\n");
  return 0;
}

/* Exit 0 and "clean" when no environ readable here holds the needle. */
static int environ_scan(const char* needle) {
  DIR* proc = opendir("/proc");
  if (proc == NULL) return refused(errno);
  struct dirent* e;
  int readable = 0;
  while ((e = readdir(proc)) != NULL) {
    char path[300];
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
    int fd = open(path, O_RDONLY);
    if (fd < 0) continue;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) continue;
    ++readable;
    for (ssize_t i = 0; i < n; ++i)
      if (buf[i] == '\0') buf[i] = '\n';
    buf[n] = '\0';
    if (strstr(buf, needle) != NULL) {
      printf("found in %s\n", path);
      return 1;
    }
  }
  closedir(proc);
  printf("clean %d\n", readable);
  return 0;
}

static int connect_tcp(const char* ip, int port, int* out) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t len;
  int family = strchr(ip, ':') ? AF_INET6 : AF_INET;
  if (family == AF_INET) {
    struct sockaddr_in* a = (struct sockaddr_in*)&ss;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, ip, &a->sin_addr);
    len = sizeof *a;
  } else {
    struct sockaddr_in6* a = (struct sockaddr_in6*)&ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((uint16_t)port);
    inet_pton(AF_INET6, ip, &a->sin6_addr);
    len = sizeof *a;
  }
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return errno;
  if (connect(fd, (struct sockaddr*)&ss, len) != 0) {
    if (errno != EINPROGRESS) {
      int err = errno;
      close(fd);
      return err;
    }
    struct pollfd p = {fd, POLLOUT, 0};
    if (poll(&p, 1, 3000) <= 0) {
      close(fd);
      return ETIMEDOUT;
    }
    int err = 0;
    socklen_t el = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
    if (err != 0) {
      close(fd);
      return err;
    }
  }
  fcntl(fd, F_SETFL, 0);
  *out = fd;
  return 0;
}

static int do_tcp(const char* ip, int port) {
  int fd;
  int err = connect_tcp(ip, port, &fd);
  if (err) return refused(err);
  /* Print whatever the other side says first, so a test can tell who answered. */
  struct pollfd p = {fd, POLLIN, 0};
  char buf[128] = {0};
  ssize_t n = 0;
  if (poll(&p, 1, 500) > 0) n = read(fd, buf, sizeof buf - 1);
  close(fd);
  printf("ok banner=%s\n", n > 0 ? buf : "");
  return 0;
}

static int do_tcp_echo(const char* ip, int port, const char* message) {
  int fd;
  int err = connect_tcp(ip, port, &fd);
  if (err) return refused(err);
  size_t len = strlen(message);
  if (write(fd, message, len) != (ssize_t)len) return refused(errno);
  shutdown(fd, SHUT_WR);
  char buf[4096];
  size_t got = 0;
  struct pollfd p = {fd, POLLIN, 0};
  while (got < sizeof buf - 1 && poll(&p, 1, 3000) > 0) {
    ssize_t n = read(fd, buf + got, sizeof buf - 1 - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  buf[got] = '\0';
  close(fd);
  printf("ok echo=%s\n", buf);
  return strcmp(buf, message) == 0 ? 0 : 1;
}

/* Sends n bytes through and checks the same n bytes come back, reading while writing so no
 * buffer along the way can fill and stall both ends. */
static int do_tcp_bulk(const char* ip, int port, long n) {
  int fd;
  int err = connect_tcp(ip, port, &fd);
  if (err) return refused(err);
  fcntl(fd, F_SETFL, O_NONBLOCK);
  long sent = 0, got = 0;
  char out[8192], in[8192];
  while (got < n) {
    struct pollfd p = {fd, (short)(POLLIN | (sent < n ? POLLOUT : 0)), 0};
    if (poll(&p, 1, 5000) <= 0) return refused(ETIMEDOUT);
    if ((p.revents & POLLOUT) && sent < n) {
      long chunk = n - sent < (long)sizeof out ? n - sent : (long)sizeof out;
      for (long i = 0; i < chunk; ++i) out[i] = (char)((sent + i) % 251);
      ssize_t w = write(fd, out, (size_t)chunk);
      if (w > 0) sent += w;
      if (sent == n) shutdown(fd, SHUT_WR);
    }
    if (p.revents & (POLLIN | POLLHUP)) {
      ssize_t r = read(fd, in, sizeof in);
      if (r <= 0) break;
      for (ssize_t i = 0; i < r; ++i)
        if (in[i] != (char)((got + i) % 251)) {
          printf("corrupt at %ld\n", got + i);
          return 1;
        }
      got += r;
    }
  }
  close(fd);
  printf("ok bulk=%ld\n", got);
  return got == n ? 0 : 1;
}

static int do_udp(const char* ip, int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  inet_pton(AF_INET, ip, &a.sin_addr);
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return refused(errno);
  if (connect(fd, (struct sockaddr*)&a, sizeof a) != 0) return refused(errno);
  if (send(fd, "ping", 4, 0) < 0) return refused(errno);
  struct pollfd p = {fd, POLLIN, 0};
  int ready = poll(&p, 1, 1000);
  if (ready <= 0) return refused(ETIMEDOUT);
  char buf[64];
  ssize_t n = recv(fd, buf, sizeof buf, 0);
  if (n < 0) return refused(errno);
  printf("ok reply=%zd\n", n);
  return 0;
}

#ifndef ESCAPE_PROBE_WITHOUT_NAME_LOOKUP
static int do_dns(const char* name) {
  struct addrinfo* res = NULL;
  int rc = getaddrinfo(name, "443", NULL, &res);
  if (rc != 0) {
    printf("errno=EAI %d %s\n", rc, gai_strerror(rc));
    return 1;
  }
  freeaddrinfo(res);
  printf("ok resolved\n");
  return 0;
}
#endif

static int do_abstract(const char* name) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  size_t len = strlen(name);
  memcpy(a.sun_path + 1, name, len);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return refused(errno);
  return result(connect(fd, (struct sockaddr*)&a, (socklen_t)(sizeof(sa_family_t) + 1 + len)));
}

static int do_syscall(const char* name) {
  errno = 0;
  if (!strcmp(name, "ptrace")) return result(ptrace(PTRACE_TRACEME, 0, NULL, NULL));
  if (!strcmp(name, "mount")) return result(mount("none", "/tmp", "tmpfs", 0, NULL));
  if (!strcmp(name, "unshare-user")) return result(unshare(CLONE_NEWUSER));
  if (!strcmp(name, "unshare-net")) return result(unshare(CLONE_NEWNET));
  if (!strcmp(name, "keyctl")) return result(syscall(SYS_keyctl, 0, -3, 0));
  if (!strcmp(name, "add_key")) return result(syscall(SYS_add_key, "user", "errand", "x", 1, -3));
  if (!strcmp(name, "bpf")) return result(syscall(SYS_bpf, 0, NULL, 0));
  if (!strcmp(name, "perf_event_open"))
    return result(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
  if (!strcmp(name, "userfaultfd")) return result(syscall(SYS_userfaultfd, 0));
  if (!strcmp(name, "io_uring_setup")) return result(syscall(425, 1, NULL));
  if (!strcmp(name, "kexec_load")) return result(syscall(SYS_kexec_load, 0, 0, NULL, 0));
  if (!strcmp(name, "init_module")) return result(syscall(SYS_init_module, NULL, 0, ""));
  if (!strcmp(name, "setns")) return result(setns(-1, 0));
  if (!strcmp(name, "pivot_root")) return result(syscall(SYS_pivot_root, "/tmp", "/tmp"));
  if (!strcmp(name, "process_vm_readv"))
    return result(syscall(SYS_process_vm_readv, 1, NULL, 0, NULL, 0, 0));
  if (!strcmp(name, "kcmp")) return result(syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, 0, 0));
  if (!strcmp(name, "pidfd_getfd")) return result(syscall(438, -1, 0, 0));
  if (!strcmp(name, "tiocsti")) {
    char c = 'x';
    return result(ioctl(0, TIOCSTI, &c));
  }
  if (!strcmp(name, "clone3")) return result(syscall(435, NULL, 0));
  if (!strcmp(name, "clone-newns")) {
    long pid = syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, NULL);
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid((pid_t)pid, NULL, 0);
    return result(pid);
  }
  if (!strcmp(name, "personality")) return result(personality(0x0400000));
  if (!strcmp(name, "personality-query")) return result(personality(0xffffffff));
  if (!strcmp(name, "chroot")) return result(chroot("/tmp"));
  if (!strcmp(name, "modify_ldt")) {
    char table[16];
    return result(syscall(SYS_modify_ldt, 0, table, sizeof table));
  }
  if (!strcmp(name, "vmsplice")) {
    int fds[2];
    if (pipe(fds) != 0) return refused(errno);
    char byte = 'x';
    struct iovec iov = {&byte, 1};
    return result(vmsplice(fds[1], &iov, 1, 0));
  }
  if (!strcmp(name, "quotactl")) {
    struct dqblk quota;
    return result(quotactl(QCMD(Q_GETQUOTA, USRQUOTA), "/dev/null", 0, (caddr_t)&quota));
  }
  if (!strcmp(name, "name_to_handle_at")) {
    struct {
      struct file_handle head;
      unsigned char bytes[128];
    } handle;
    handle.head.handle_bytes = sizeof handle.bytes;
    int mount_id;
    return result(name_to_handle_at(AT_FDCWD, "/workspace", &handle.head, &mount_id, 0));
  }
  if (!strcmp(name, "tioclinux")) {
    /* A read-only subcode: refused or not, the attempt changes no console. */
    char subcode = TIOCL_GETSHIFTSTATE;
    return result(ioctl(0, TIOCLINUX, &subcode));
  }
  if (!strcmp(name, "tiocsetd")) {
    int discipline = 0;
    return result(ioctl(0, TIOCSETD, &discipline));
  }
  fprintf(stderr, "unknown syscall check %s\n", name);
  return 2;
}

/* socket() and socketpair() of a family given by name. */
static int do_socket(const char* family_name, int pair) {
  static const struct {
    const char* name;
    int family, type;
  } families[] = {{"unix", AF_UNIX, SOCK_STREAM},    {"inet", AF_INET, SOCK_STREAM},
                  {"inet6", AF_INET6, SOCK_STREAM},  {"netlink", AF_NETLINK, SOCK_RAW},
                  {"vsock", AF_VSOCK, SOCK_STREAM},  {"packet", AF_PACKET, SOCK_DGRAM},
                  {"alg", AF_ALG, SOCK_SEQPACKET},   {"bluetooth", AF_BLUETOOTH, SOCK_STREAM},
                  {"unspec", AF_UNSPEC, SOCK_STREAM}};
  for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i) {
    if (strcmp(families[i].name, family_name) != 0) continue;
    if (pair) {
      int fds[2];
      return result(socketpair(families[i].family, families[i].type | SOCK_CLOEXEC, 0, fds));
    }
    return result(socket(families[i].family, families[i].type | SOCK_CLOEXEC, 0));
  }
  fprintf(stderr, "unknown family %s\n", family_name);
  return 2;
}

/* A server inside the sandbox and a client in a child process: the child connects and prints
 * what the server greets it with. */
static int serve_one(int listener, int (*dial)(void*), void* address) {
  if (listen(listener, 4) != 0) return refused(errno);
  pid_t child = fork();
  if (child < 0) return refused(errno);
  if (child == 0) _exit(dial(address));
  struct pollfd p = {listener, POLLIN, 0};
  if (poll(&p, 1, 5000) <= 0) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    printf("no client arrived\n");
    return 1;
  }
  int c = accept(listener, NULL, NULL);
  if (c < 0) return refused(errno);
  if (write(c, "INSIDE-SERVICE", 14) != 14) return refused(errno);
  close(c);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int dial_tcp(void* address) {
  const struct sockaddr_in* a = address;
  char ip[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
  return do_tcp(ip, ntohs(a->sin_port));
}

static int do_tcp_serve(const char* ip, int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  inet_pton(AF_INET, ip, &a.sin_addr);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return refused(errno);
  if (bind(fd, (struct sockaddr*)&a, sizeof a) != 0) return refused(errno);
  socklen_t len = sizeof a;
  getsockname(fd, (struct sockaddr*)&a, &len);
  printf("listening %d\n", ntohs(a.sin_port));
  return serve_one(fd, dial_tcp, &a);
}

static int dial_unix(void* address) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return refused(errno);
  if (connect(fd, address, sizeof(struct sockaddr_un)) != 0) return refused(errno);
  char buf[64] = {0};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  printf("ok banner=%s\n", n > 0 ? buf : "");
  return 0;
}

static int do_unix_serve(const char* path) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  strncpy(a.sun_path, path, sizeof a.sun_path - 1);
  unlink(path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return refused(errno);
  if (bind(fd, (struct sockaddr*)&a, sizeof a) != 0) return refused(errno);
  printf("listening %s\n", path);
  return serve_one(fd, dial_unix, &a);
}

static int do_fsize(long bytes, const char* path, int ignore_signal) {
  if (ignore_signal) signal(SIGXFSZ, SIG_IGN);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return refused(errno);
  static char chunk[65536];
  long written = 0;
  while (written < bytes) {
    ssize_t n = write(fd, chunk, sizeof chunk);
    if (n < 0) {
      int err = errno;
      close(fd);
      unlink(path);
      return refused(err);
    }
    written += n;
  }
  close(fd);
  printf("ok %ld\n", written);
  return 0;
}

static int do_fork_until(int limit) {
  pid_t kids[4096];
  int count = 0;
  int err = 0;
  while (count < limit && count < 4096) {
    pid_t pid = fork();
    if (pid < 0) {
      err = errno;
      break;
    }
    if (pid == 0) {
      pause();
      _exit(0);
    }
    kids[count++] = pid;
  }
  for (int i = 0; i < count; ++i) kill(kids[i], SIGKILL);
  for (int i = 0; i < count; ++i) waitpid(kids[i], NULL, 0);
  if (err) {
    printf("errno=%s %d after %d\n", strerrorname_np(err), err, count);
    return 1;
  }
  printf("ok %d\n", count);
  return 0;
}

static int do_memory(long mib) {
  for (long i = 0; i < mib; ++i) {
    char* block = malloc(1 << 20);
    if (block == NULL) return refused(ENOMEM);
    memset(block, 0x5a, 1 << 20);
  }
  printf("ok %ld\n", mib);
  return 0;
}

static int do_addrs(void) {
  struct ifaddrs* list;
  if (getifaddrs(&list) != 0) return refused(errno);
  for (struct ifaddrs* a = list; a != NULL; a = a->ifa_next) {
    if (a->ifa_addr == NULL) continue;
    char text[INET6_ADDRSTRLEN] = "";
    if (a->ifa_addr->sa_family == AF_INET)
      inet_ntop(AF_INET, &((struct sockaddr_in*)a->ifa_addr)->sin_addr, text, sizeof text);
    else if (a->ifa_addr->sa_family == AF_INET6)
      inet_ntop(AF_INET6, &((struct sockaddr_in6*)a->ifa_addr)->sin6_addr, text, sizeof text);
    else
      continue;
    printf("%s %s\n", a->ifa_name, text);
  }
  freeifaddrs(list);
  return 0;
}

/* The lines of /proc/self/status that say how this process is confined. */
static int do_status(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (f == NULL) return refused(errno);
  char line[512];
  while (fgets(line, sizeof line, f) != NULL)
    if (!strncmp(line, "Cap", 3) || !strncmp(line, "NoNewPrivs", 10) ||
        !strncmp(line, "Seccomp:", 8))
      fputs(line, stdout);
  fclose(f);
  return 0;
}

static int do_fds(void) {
  DIR* d = opendir("/proc/self/fd");
  if (d == NULL) return refused(errno);
  struct dirent* e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d)) printf("fd %s\n", e->d_name);
  closedir(d);
  return 0;
}

/* A number from a "Key:\tN" line of /proc/<pid>/status, or -1 when there is none. */
static long status_number(const char* pid, const char* key) {
  char path[320];
  snprintf(path, sizeof path, "/proc/%s/status", pid);
  FILE* f = fopen(path, "r");
  if (f == NULL) return -1;
  char line[512];
  long value = -1;
  const size_t n = strlen(key);
  while (fgets(line, sizeof line, f) != NULL)
    if (!strncmp(line, key, n) && line[n] == ':') value = atol(line + n + 1);
  fclose(f);
  return value;
}

/* One process's memory, written: the first byte of its first mapping read through
 * /proc/<pid>/mem and written back unchanged. Prints "written" or the step the kernel refused
 * and its errno; returns 1 when the write went through. */
static int write_back_one_byte(const char* pid) {
  char path[320];
  snprintf(path, sizeof path, "/proc/%s/mem", pid);
  int mem = open(path, O_RDWR | O_CLOEXEC);
  if (mem < 0) {
    printf("open errno=%s\n", strerrorname_np(errno));
    return 0;
  }
  snprintf(path, sizeof path, "/proc/%s/maps", pid);
  FILE* maps = fopen(path, "r");
  unsigned long address = 0;
  if (maps == NULL || fscanf(maps, "%lx", &address) != 1) {
    printf("maps errno=%s\n", strerrorname_np(maps == NULL ? errno : EIO));
    if (maps != NULL) fclose(maps);
    close(mem);
    return 0;
  }
  fclose(maps);
  unsigned char byte;
  int written = 0;
  if (pread(mem, &byte, 1, (off_t)address) != 1)
    printf("read errno=%s\n", strerrorname_np(errno));
  else if (pwrite(mem, &byte, 1, (off_t)address) != 1)
    printf("write errno=%s\n", strerrorname_np(errno));
  else
    written = printf("written\n") > 0;
  close(mem);
  return written;
}

/* Every other process this one can see, tried in turn: one line each, "pid=N filters=F uid=U
 * <what write_back_one_byte said>", then "own-filters=F less-confined=L written-less-confined=W
 * written=A", where a less-confined process is one under fewer seccomp filters than this one. */
static int do_proc_mem(void) {
  const long own = status_number("self", "Seccomp_filters");
  DIR* d = opendir("/proc");
  if (d == NULL) return refused(errno);
  int less = 0, written_less = 0, written = 0;
  char self[32];
  snprintf(self, sizeof self, "%d", (int)getpid());
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9' || !strcmp(e->d_name, self)) continue;
    const long filters = status_number(e->d_name, "Seccomp_filters");
    if (filters < 0) continue; /* gone meanwhile */
    const long uid = status_number(e->d_name, "Uid");
    printf("pid=%s filters=%ld uid=%ld ", e->d_name, filters, uid);
    const int w = write_back_one_byte(e->d_name);
    written += w;
    if (filters < own) {
      ++less;
      written_less += w;
    }
  }
  closedir(d);
  printf("own-filters=%ld less-confined=%d written-less-confined=%d written=%d\n", own, less,
         written_less, written);
  return 0;
}

static void ignore_term(int sig) {
  (void)sig;
}

/* One check, as the command line names it: argv[1] is the check, argv[2...] its arguments. */
static int run_check(int argc, char** argv) {
  const char* check = argv[1];
  if (!strcmp(check, "whoami")) {
    char cwd[512];
    printf("uid=%d home=%s path=%s cwd=%s\n", (int)getuid(), getenv("HOME"), getenv("PATH"),
           getcwd(cwd, sizeof cwd) ? cwd : "?");
    return 0;
  }
  if (!strcmp(check, "env") && argc == 3) {
    const char* v = getenv(argv[2]);
    printf("%s=%s\n", argv[2], v ? v : "(unset)");
    return v ? 0 : 1;
  }
  if (!strcmp(check, "read") && argc == 3) return do_read(argv[2]);
  if (!strcmp(check, "list") && argc == 3) return do_list(argv[2]);
  if (!strcmp(check, "write") && argc == 3) return do_write(argv[2]);
  if (!strcmp(check, "exec") && argc >= 3) {
    execv(argv[2], argv + 2);
    return refused(errno);
  }
  if (!strcmp(check, "environ-scan") && argc == 3) return environ_scan(argv[2]);
  if (!strcmp(check, "tcp") && argc == 4) return do_tcp(argv[2], atoi(argv[3]));
  if (!strcmp(check, "tcp-echo") && argc == 5) return do_tcp_echo(argv[2], atoi(argv[3]), argv[4]);
  if (!strcmp(check, "tcp-bulk") && argc == 5)
    return do_tcp_bulk(argv[2], atoi(argv[3]), atol(argv[4]));
  if (!strcmp(check, "udp") && argc == 4) return do_udp(argv[2], atoi(argv[3]));
#ifndef ESCAPE_PROBE_WITHOUT_NAME_LOOKUP
  if (!strcmp(check, "dns") && argc == 3) return do_dns(argv[2]);
#endif
  if (!strcmp(check, "abstract") && argc == 3) return do_abstract(argv[2]);
  if (!strcmp(check, "syscall") && argc == 3) return do_syscall(argv[2]);
  if (!strcmp(check, "syscall-nr") && argc == 3)
    return result(syscall(atol(argv[2]), 0, 0, 0, 0, 0, 0));
  if (!strcmp(check, "socket") && argc == 3) return do_socket(argv[2], 0);
  if (!strcmp(check, "socketpair") && argc == 3) return do_socket(argv[2], 1);
  if (!strcmp(check, "tcp-serve") && argc == 4) return do_tcp_serve(argv[2], atoi(argv[3]));
  if (!strcmp(check, "unix-serve") && argc == 3) return do_unix_serve(argv[2]);
  if (!strcmp(check, "chmod") && argc == 3) return result(chmod(argv[2], 0600));
  if (!strcmp(check, "rlimit-core")) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_CORE, &limit) != 0) return refused(errno);
    printf("ok soft=%llu hard=%llu\n", (unsigned long long)limit.rlim_cur,
           (unsigned long long)limit.rlim_max);
    return 0;
  }
  if (!strcmp(check, "kill") && argc == 4) return result(kill(atoi(argv[2]), atoi(argv[3])));
  if (!strcmp(check, "fsize") && argc == 4) return do_fsize(atol(argv[2]), argv[3], 1);
  if (!strcmp(check, "fsize-signal") && argc == 4) return do_fsize(atol(argv[2]), argv[3], 0);
  if (!strcmp(check, "fork-until") && argc == 3) return do_fork_until(atoi(argv[2]));
  if (!strcmp(check, "memory") && argc == 3) return do_memory(atol(argv[2]));
  if (!strcmp(check, "addrs")) return do_addrs();
  if (!strcmp(check, "status")) return do_status();
  if (!strcmp(check, "fds")) return do_fds();
  if (!strcmp(check, "proc-mem")) return do_proc_mem();
  if (!strcmp(check, "sleep") && argc >= 3) {
    if (argc == 4 && !strcmp(argv[3], "--ignore-term")) signal(SIGTERM, ignore_term);
    printf("sleeping\n");
    int seconds = atoi(argv[2]);
    for (int i = 0; i < seconds * 10; ++i) usleep(100000);
    return 0;
  }
  if (!strcmp(check, "grow") && argc == 4) {
    /* Writes the given number of MiB, then sleeps, so only the disk budget can end it. */
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return refused(errno);
    static char chunk[1 << 20];
    memset(chunk, 1, sizeof chunk);
    for (long i = 0; i < atol(argv[3]); ++i)
      if (write(fd, chunk, sizeof chunk) < 0) return refused(errno);
    fsync(fd);
    close(fd);
    printf("grown\n");
    sleep(60);
    return 0;
  }
  fprintf(stderr, "unknown check %s\n", check);
  return 2;
}

/* batch "CHECK ARG..." ...: each check in a child of its own, forked from the sandbox's first
   process, so it is under the same confinement and what one check does (a new user namespace,
   PTRACE_TRACEME) cannot change what the next one meets; a session per check costs a sandbox's
   start and end each. Prints, for each, "== <check>", what it printed, then "== exit <code>" or
   "== signal <number>". */
enum { kBatchWords = 8 };

static int run_batch(int count, char** checks) {
  for (int i = 0; i < count; ++i) {
    char words[512];
    snprintf(words, sizeof words, "%s", checks[i]);
    static char program[] = "escape_probe";
    char* argv[kBatchWords + 2] = {program};
    int argc = 1;
    for (char* w = strtok(words, " "); w != NULL && argc <= kBatchWords; w = strtok(NULL, " "))
      argv[argc++] = w;
    if (argc < 2) return 2;
    int out[2];
    if (pipe(out) != 0) return refused(errno);
    printf("== %s\n", checks[i]);
    pid_t child = fork();
    if (child < 0) return refused(errno);
    if (child == 0) {
      close(out[0]);
      dup2(out[1], STDOUT_FILENO);
      dup2(out[1], STDERR_FILENO);
      close(out[1]);
      _exit(run_check(argc, argv));
    }
    close(out[1]);
    char buf[4096];
    ssize_t n;
    while ((n = read(out[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) fwrite(buf, 1, (size_t)n, stdout);
    close(out[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0)
      if (errno != EINTR) return refused(errno);
    if (WIFSIGNALED(status))
      printf("== signal %d\n", WTERMSIG(status));
    else
      printf("== exit %d\n", WEXITSTATUS(status));
  }
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 2) return 2;
  if (!strcmp(argv[1], "batch")) return run_batch(argc - 2, argv + 2);
  return run_check(argc, argv);
}
