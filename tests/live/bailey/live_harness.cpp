#include "tests/live/bailey/live_harness.hpp"

#include "core/sandbox/policy_from_config.hpp"
#include "tests/support/program_copy.hpp"
#include "tests/support/temp_dir.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <cstring>

#include "plugins/sandbox-bailey/common/host_features.hpp"
#include "plugins/sandbox-bailey/impl/launcher_spawn.hpp"
#include "tests/support/test_paths.hpp"

namespace bailey_live {

namespace asio = boost::asio;
namespace json = boost::json;

void require_full_host() {
  static std::string problems = [] {
    auto doctor = errand::bailey::run_doctor(
        (errand::test::build_path(ERRAND_BAILEY_PLUGIN).parent_path() / "errand-bailey").string(),
        {});
    if (!doctor) return doctor.error().message;
    const auto parsed = errand::bailey::parse_features(*doctor);
    if (!parsed) return parsed.error().message;
    const auto& f = *parsed;
    std::string out;
    if (f.landlock_abi < 6)
      out += "Landlock ABI " + std::to_string(f.landlock_abi) + " (needs 6); ";
    if (!f.userns) out += "user namespaces: " + f.userns_detail + "; ";
    if (!f.seccomp) out += "seccomp: " + f.seccomp_detail + "; ";
    if (f.cgroup.memory.empty() || f.cgroup.pids.empty() || f.cgroup.cpu.empty())
      out += "cgroup delegation is incomplete; ";
    return out;
  }();
  if (problems.empty()) return;
  const char* mode = std::getenv("ERRAND_LIVE_TESTS");
  if (mode != nullptr && std::string(mode) == "skip")
    SKIP("this host cannot run bailey: " + problems);
  FAIL("this host cannot run bailey: " + problems + "(set ERRAND_LIVE_TESTS=skip to skip)");
}

TempRoot::TempRoot(fs::path existing) : path_(std::move(existing)) {
  if (!path_.empty()) return;
  path_ = errand::test::make_temp_dir("/tmp", "bailey-live-");
}

TempRoot::~TempRoot() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

// The probe runs from a copy outside /tmp (see copy_outside_tmp).
fs::path probe_dir() {
  static const fs::path dir =
      errand::test::copy_outside_tmp(errand::test::build_path(ERRAND_ESCAPE_PROBE),
                                     "errand-live-probe")
          .parent_path();
  return dir;
}
std::string probe_path() {
  return (probe_dir() / "escape_probe").string();
}

Harness::Harness(json::object sandbox, fs::path root) : root_(std::move(root)) {
  state_dir_ = root_.path() / "state";
  project_root_ = root_.path() / "projects";
  fs::create_directories(state_dir_);
  fs::create_directories(project_root_);
  json::object sb{{"backend", "bailey"}, {"gracePeriodMs", 2000}, {"diskCheckMs", 2000}};
  for (auto& [k, v] : sandbox) sb[k] = v;
  config_ = json::object{
      {"projectRoot", project_root_.string()},
      {"stateDir", state_dir_.string()},
      {"sandbox", sb},
      {"agent",
       json::object{
           {"provider", "anthropic"},
           {"providers",
            json::object{{"anthropic", json::object{{"credentialName", "ANTHROPIC_API_KEY"}}}}}}}};
  // To stderr for whoever reads a failure, and kept for tests that assert what was logged.
  spdlog::sinks_init_list sinks{std::make_shared<spdlog::sinks::stderr_sink_mt>(), log_lines_};
  auto log = std::make_shared<spdlog::logger>("sandbox-bailey", sinks);
  log->set_level(spdlog::level::warn);
  const auto host = host_parts_.services(
      io_.get_executor(), log, config_, errand::test::build_path(ERRAND_BAILEY_PLUGIN), state_dir_);
  backend_ = std::make_unique<errand::bailey::BaileyBackend>(host);
  broker_ = std::make_unique<UnixEchoServer>(state_dir_ / "brokers" / "echo.sock");
}

std::string Harness::log_text() const {
  std::string text;
  for (const auto& line : log_lines_->last_formatted()) text += line;
  return text;
}

errand::sdk::SandboxPolicy Harness::policy() const {
  auto policy = errand::sandbox::policy_from_config(config_);
  REQUIRE(policy.has_value());
  return *policy;
}

Harness::~Harness() {
  backend_.reset();
  broker_.reset();
}

errand::sdk::LaunchSpec Harness::spec(const std::vector<std::string>& probe_args,
                                      const std::string& session) {
  errand::sdk::LaunchSpec s;
  s.session_id = session.empty()
                     ? "live-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_)
                     : session;
  s.project_dir = project_root_ / s.session_id;
  s.state_dir = state_dir_ / "sessions" / s.session_id;
  s.record_dir = state_dir_ / "records" / s.session_id;
  fs::create_directories(s.project_dir);
  fs::create_directories(s.state_dir);
  s.argv = {"escape_probe"};
  s.argv.insert(s.argv.end(), probe_args.begin(), probe_args.end());
  s.agent_dirs = {probe_dir()};
  s.policy = policy();
  s.broker_socket = broker_->path();
  return s;
}

namespace {

std::string drain(int fd) {
  std::string out;
  char buf[4096];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0) break;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

Outcome Harness::run(
    errand::sdk::LaunchSpec spec,
    std::function<asio::awaitable<errand::sdk::ExitInfo>(errand::sdk::SandboxProcess&)> during) {
  Outcome outcome;
  std::exception_ptr failure;
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        auto launched = co_await backend_->launch(std::move(spec));
        if (!launched) {
          outcome.launch_error = launched.error().message;
          co_return;
        }
        outcome.launched = true;
        auto& process = **launched;
        if (during)
          outcome.exit = co_await during(process);
        else
          outcome.exit = co_await process.wait();
        outcome.out = drain(process.stdout_fd());
        outcome.err = drain(process.stderr_fd());
      },
      [&](std::exception_ptr e) { failure = e; });
  io_.restart();
  io_.run();
  if (failure) std::rethrow_exception(failure);
  return outcome;
}

HostTcpService::HostTcpService(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  socklen_t len = sizeof a;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([fd = fd_] {
    while (true) {
      const int c = ::accept(fd, nullptr, nullptr);
      if (c < 0) return;
      [[maybe_unused]] auto n = ::write(c, "HOST-SERVICE", 12);
      ::close(c);
    }
  });
}

HostTcpService::~HostTcpService() {
  if (fd_ < 0) return;
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  thread_.join();
}

HostUdpEcho::HostUdpEcho() {
  fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([fd = fd_] {
    char buf[512];
    while (true) {
      sockaddr_storage from{};
      socklen_t flen = sizeof from;
      const ssize_t n =
          ::recvfrom(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
      if (n <= 0) return;
      ::sendto(fd, buf, static_cast<std::size_t>(n), 0, reinterpret_cast<sockaddr*>(&from), flen);
    }
  });
}

HostUdpEcho::~HostUdpEcho() {
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  thread_.join();
}

HostAbstractListener::HostAbstractListener(std::string name) {
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  const auto len = static_cast<socklen_t>(sizeof(sa_family_t) + 1 + name.size());
  REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) == 0);
  REQUIRE(::listen(fd_, 4) == 0);
}

HostAbstractListener::~HostAbstractListener() {
  ::close(fd_);
}

UnixEchoServer::UnixEchoServer(fs::path path) : path_(std::move(path)) {
  fs::create_directories(path_.parent_path());
  std::error_code stale;
  fs::remove(path_, stale);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path_.c_str(), sizeof a.sun_path - 1);
  REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(fd_, 16) == 0);
  thread_ = std::thread([fd = fd_] {
    while (true) {
      const int c = ::accept(fd, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      for (ssize_t n; (n = ::read(c, buf, sizeof buf)) > 0;)
        if (::write(c, buf, static_cast<std::size_t>(n)) != n) break;
      ::close(c);
    }
  });
}

UnixEchoServer::~UnixEchoServer() {
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
  thread_.join();
  std::error_code ec;
  fs::remove(path_, ec);
}

std::vector<std::string> host_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (auto* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || std::strcmp(a->ifa_name, "lo") == 0) continue;
    char text[INET6_ADDRSTRLEN] = "";
    if (a->ifa_addr->sa_family == AF_INET)
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text,
                  sizeof text);
    else if (a->ifa_addr->sa_family == AF_INET6)
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, text,
                  sizeof text);
    else
      continue;
    const std::string s = text;
    if (s.rfind("fe80", 0) == 0) continue;
    out.push_back(s);
  }
  ::freeifaddrs(list);
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace bailey_live
