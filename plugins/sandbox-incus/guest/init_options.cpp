#include "plugins/sandbox-incus/guest/init_options.hpp"

#include <charconv>
#include <string_view>

namespace errand::incus::guest {

namespace {

constexpr const char* kUsage =
    "usage: errand-guest-init --uid UID --home DIR --cwd DIR --tmp-size BYTES --shm-size BYTES "
    "[--file-max BYTES] [--broker SOCKET] [--check-syscall-policy] [--await-network | --ipv4 "
    "IFACE=ADDR/PREFIX... --gateway ADDR [--nameserver ADDR]] -- PROGRAM [ARGS...]";

sdk::Error refused(const std::string& why) {
  return sdk::make_error(why + "\n" + kUsage, sdk::Error::Kind::refused);
}

template <class Number>
std::optional<Number> whole_number(std::string_view text) {
  Number n{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

sdk::Result<InitOptions> parse_options(int argc, char** argv) {
  InitOptions options;
  bool uid = false;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--") break;
    if (flag == "--check-syscall-policy" || flag == "--await-network") {
      (flag == "--await-network" ? options.await_network : options.check_syscall_policy) = true;
      continue;
    }
    if (i + 1 >= argc) return refused(std::string(flag) + " needs a value");
    const std::string_view value = argv[++i];
    if (flag == "--uid") {
      const auto n = whole_number<uid_t>(value);
      if (!n) return refused("--uid takes a number, not '" + std::string(value) + "'");
      options.uid = *n;
      uid = true;
    } else if (flag == "--tmp-size" || flag == "--shm-size") {
      const auto n = whole_number<std::uint64_t>(value);
      if (!n || *n == 0)
        return refused(std::string(flag) + " takes a size in bytes above 0, not '" +
                       std::string(value) + "'");
      (flag == "--tmp-size" ? options.tmp_bytes : options.shm_bytes) = *n;
    } else if (flag == "--file-max") {
      // 0 would make every write to a regular file fail; no limit is said by leaving it out.
      const auto n = whole_number<std::uint64_t>(value);
      if (!n || *n == 0)
        return refused("--file-max takes a size in bytes above 0, not '" + std::string(value) +
                       "'");
      options.file_max = *n;
    } else if (flag == "--ipv4") {
      auto address = parse_interface_address(value);
      if (!address) return refused("--ipv4: " + address.error().message);
      options.network.addresses.push_back(std::move(*address));
    } else if (flag == "--gateway" || flag == "--nameserver") {
      const auto address = parse_ipv4(value);
      if (!address)
        return refused(std::string(flag) + " takes an IPv4 address, not '" + std::string(value) +
                       "'");
      (flag == "--gateway" ? options.network.gateway : options.network.nameserver) = *address;
    } else if (flag == "--home" || flag == "--cwd" || flag == "--broker") {
      if (value.empty() || value.front() != '/')
        return refused(std::string(flag) + " takes an absolute path, not '" + std::string(value) +
                       "'");
      if (flag == "--home")
        options.home = value;
      else if (flag == "--cwd")
        options.cwd = value;
      else
        options.broker_socket = std::string(value);
    } else {
      return refused("unknown option '" + std::string(flag) + "'");
    }
  }
  if (!uid) return refused("--uid is missing");
  if (options.home.empty()) return refused("--home is missing");
  if (options.cwd.empty()) return refused("--cwd is missing");
  if (options.tmp_bytes == 0) return refused("--tmp-size is missing");
  if (options.shm_bytes == 0) return refused("--shm-size is missing");
  const bool addressed = !options.network.addresses.empty();
  if (addressed && !options.network.gateway) return refused("--ipv4 needs a --gateway");
  if (!addressed && (options.network.gateway || options.network.nameserver))
    return refused("--gateway and --nameserver need an --ipv4 to route and resolve through");
  if (addressed && options.await_network)
    return refused("--await-network is for a nic the guest configures, --ipv4 for one errand does");
  if (i + 1 >= argc) return refused("no program after --");
  options.program.assign(argv + i + 1, argv + argc);
  return options;
}

}  // namespace errand::incus::guest
