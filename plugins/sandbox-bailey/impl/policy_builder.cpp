#include "plugins/sandbox-bailey/impl/policy_builder.hpp"

#include <algorithm>
#include <filesystem>

#include "plugins/sandbox-bailey/impl/agent_program.hpp"
#include "plugins/sandbox-bailey/impl/environment.hpp"

namespace errand::bailey {

using sdk::make_error;
namespace fs = std::filesystem;

// Of /etc/ssl and Red Hat's /etc/pki only the certificate store and OpenSSL's configuration:
// their private/ directories hold the host's keys.
const std::vector<std::string>& system_read_paths() {
  static const std::vector<std::string> paths = {"/usr",
                                                 "/lib",
                                                 "/lib64",
                                                 "/lib32",
                                                 "/bin",
                                                 "/sbin",
                                                 "/etc/ld.so.cache",
                                                 "/etc/ld.so.conf",
                                                 "/etc/ld.so.conf.d",
                                                 "/etc/ssl/certs",
                                                 "/etc/ssl/openssl.cnf",
                                                 "/etc/ca-certificates.conf",
                                                 "/etc/ca-certificates",
                                                 "/var/lib/ca-certificates",
                                                 "/etc/pki/ca-trust",
                                                 "/etc/pki/tls/certs",
                                                 "/etc/pki/tls/cert.pem",
                                                 "/etc/pki/tls/openssl.cnf",
                                                 "/etc/nsswitch.conf",
                                                 "/etc/passwd",
                                                 "/etc/group",
                                                 "/etc/services",
                                                 "/etc/protocols",
                                                 "/etc/hosts",
                                                 "/etc/host.conf",
                                                 "/etc/gai.conf",
                                                 "/etc/localtime",
                                                 "/etc/timezone",
                                                 "/etc/alternatives",
                                                 "/etc/mime.types"};
  return paths;
}

const std::vector<std::string>& system_execute_paths() {
  static const std::vector<std::string> paths = {"/usr",   "/lib", "/lib64",
                                                 "/lib32", "/bin", "/sbin"};
  return paths;
}

namespace {

// Paths the sandbox places itself; a grant may not cover or sit inside them.
const std::vector<std::string>& placed_paths() {
  static const std::vector<std::string> paths = {
      kWorkspace, kState, "/tmp", "/dev", "/proc", "/run/errand", "/etc/resolv.conf"};
  return paths;
}

bool path_within(const std::string& inner, const std::string& outer) {
  if (outer == "/") return true;
  return inner == outer ||
         (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
          inner[outer.size()] == '/');
}

bool overlaps(const std::string& a, const std::string& b) {
  return path_within(a, b) || path_within(b, a);
}

std::size_t depth(const std::string& path) {
  return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
}

std::string parent_of(const std::string& path) {
  return fs::path(path).parent_path().string();
}

void add_unique(std::vector<std::string>& list, const std::string& path) {
  if (std::find(list.begin(), list.end(), path) == list.end()) list.push_back(path);
}

}  // namespace

sdk::Result<void> check_grant(const std::string& path, const std::string& what,
                              const std::string& daemon_state_dir,
                              const std::string& project_root) {
  auto refuse = [&](const std::string& why) -> sdk::Result<void> {
    return make_error(what + " \"" + path + "\" is refused: " + why, sdk::Error::Kind::refused);
  };
  if (path.empty() || path[0] != '/')
    return refuse(
        "paths must be absolute, since after the pivot there is no working directory "
        "to resolve a relative one against");
  const auto normal = fs::path(path).lexically_normal().string();
  if (normal != path && normal + "/" != path)
    return refuse("write it in normal form, without . or .. segments or doubled slashes (\"" +
                  normal + "\")");
  if (path == "/") return refuse("granting the whole filesystem would leave nothing confined");
  if (!daemon_state_dir.empty() && overlaps(path, daemon_state_dir))
    return refuse("it overlaps stateDir (" + daemon_state_dir +
                  "), which holds every session's records and broker sockets");
  if (!project_root.empty() && overlaps(path, project_root))
    return refuse("it overlaps projectRoot (" + project_root +
                  "); each session sees only its own project, at /workspace");
  for (const auto& placed : placed_paths())
    if (overlaps(path, placed)) return refuse("the sandbox places " + placed + " itself");
  return {};
}

NetworkPlan plan_network(const sdk::LaunchSpec& spec, bool pasta_available) {
  if (spec.policy.network == sdk::NetworkMode::none) return NetworkPlan::none;
  const bool direct =
      spec.policy.network == sdk::NetworkMode::open || spec.policy.egress == sdk::EgressMode::open;
  if (!direct) return NetworkPlan::broker;
  if (spec.policy.hide_host_address && pasta_available) return NetworkPlan::pasta;
  return NetworkPlan::host;
}

sdk::Result<BuiltPolicy> build_policy(const sdk::LaunchSpec& spec, const PolicyContext& ctx) {
  BuiltPolicy out;
  Policy& p = out.policy;
  p.session_id = spec.session_id;
  p.landlock_abi = ctx.landlock_abi;
  p.resolv_conf = ctx.resolv_conf;
  p.cgroup_join = ctx.cgroup_join;
  if (spec.argv.empty())
    return make_error("the session has no agent command to run", sdk::Error::Kind::refused);
  if (auto ok = check_agent_program(spec.argv.front(), spec); !ok) return ok.error();
  p.argv = spec.argv;

  for (const auto* dir : {&spec.project_dir, &spec.state_dir})
    if (!dir->is_absolute())
      return make_error("the session's directories must be absolute paths",
                        sdk::Error::Kind::refused);

  struct Grant {
    std::string path;
    bool read, write, execute;
    const char* what;
  };
  std::vector<Grant> grants;
  for (const auto& d : spec.agent_dirs)
    grants.push_back({d.string(), true, false, true, "the agent directory"});
  // errand's own programs for the agent (delegate): run, never written.
  if (spec.tools_dir)
    grants.push_back({spec.tools_dir->string(), true, false, true, "the tools directory"});
  for (const auto& d : spec.policy.extra_read)
    grants.push_back({d.string(), true, false, false, "sandbox.policyExtra.read"});
  for (const auto& d : spec.policy.extra_write)
    grants.push_back({d.string(), false, true, false, "sandbox.policyExtra.write"});
  for (const auto& d : spec.policy.extra_execute)
    grants.push_back({d.string(), false, false, true, "sandbox.policyExtra.execute"});
  for (const auto& g : grants)
    if (auto ok = check_grant(g.path, g.what, ctx.daemon_state_dir, ctx.project_root); !ok)
      return ok.error();
  for (const auto& d : spec.policy.path_extra)
    if (auto ok =
            check_grant(d.string(), "sandbox.pathExtra", ctx.daemon_state_dir, ctx.project_root);
        !ok)
      return ok.error();

  // Listing the new root's skeleton ("ls /") shows only what was placed there.
  add_unique(p.list, "/");
  for (const auto& path : system_read_paths()) add_unique(p.read, path);
  add_unique(p.read, "/etc/resolv.conf");
  add_unique(p.read, "/proc");
  add_unique(p.read, "/dev");
  // What the session owns: read, write and run what it builds. An agent that can write and
  // interpret code gains nothing from being unable to execve a binary it compiled, so the
  // boundary is what it can reach, not whether it may run its own output.
  for (const char* own : {kWorkspace, kState, "/tmp", "/dev/shm"}) {
    add_unique(p.read, own);
    add_unique(p.write, own);
    if (std::string(own) != "/dev/shm") add_unique(p.execute, own);
  }
  // tmux, gpg-agent, an X server or a test's own server put their sockets in these; the
  // socket files are the session's, so connecting to them reaches nothing outside.
  for (const char* own : {kWorkspace, kState, "/tmp"}) add_unique(p.unix_connect, own);
  for (const char* device : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
                             "/dev/tty", "/dev/pts", "/dev/ptmx"})
    add_unique(p.write, device);
  for (const auto& path : system_execute_paths()) add_unique(p.execute, path);
  for (const auto& g : grants) {
    if (g.read) add_unique(p.read, g.path);
    if (g.write) add_unique(p.write, g.path);
    if (g.execute) add_unique(p.execute, g.path);
  }

  // Mounts: the system floor read-only, the session's own directories writable, and every
  // grant at the same path it has on the host.
  std::vector<BindMount> binds;
  for (const auto& path : system_read_paths()) binds.push_back({path, path, false});
  binds.push_back({spec.project_dir.string(), kWorkspace, true});
  binds.push_back({spec.state_dir.string(), kState, true});
  for (const auto& g : grants) {
    bool merged = false;
    for (auto& b : binds)
      if (b.target == g.path) {
        b.writable = b.writable || g.write;
        merged = true;
      }
    if (!merged) binds.push_back({g.path, g.path, g.write});
  }
  std::stable_sort(binds.begin(), binds.end(), [](const BindMount& a, const BindMount& b) {
    return depth(a.target) < depth(b.target);
  });
  for (const auto& b : binds) {
    // A grant inside something already bound the same way adds nothing to the mount tree.
    const bool redundant = std::any_of(p.binds.begin(), p.binds.end(), [&](const BindMount& a) {
      return path_within(b.target, a.target) && a.writable == b.writable && a.source == a.target &&
             b.source == b.target;
    });
    if (!redundant) p.binds.push_back(b);
  }

  p.network = plan_network(spec, !ctx.pasta_path.empty());
  switch (p.network) {
    case NetworkPlan::none: break;
    case NetworkPlan::broker:
      if (!spec.broker_socket || !spec.broker_socket->is_absolute())
        return make_error(
            "egress.mode proxy needs the session's broker socket, and none was "
            "given; the sandbox will not start without its one way out",
            sdk::Error::Kind::refused);
      p.broker_socket = spec.broker_socket->string();
      add_unique(p.unix_connect, parent_of(kBrokerSocketInside));
      break;
    case NetworkPlan::pasta: p.pasta_path = ctx.pasta_path; [[fallthrough]];
    case NetworkPlan::host:
      p.connect_ports = spec.policy.egress_ports;
      p.bind_ports = spec.policy.listen_ports;
      break;
  }
  if (spec.policy.hide_host_address && p.network == NetworkPlan::host)
    out.warnings.push_back(
        "sandbox.hideHostAddress is set but " +
        (ctx.pasta_problem.empty() ? std::string("pasta is not installed") : ctx.pasta_problem) +
        ": the session shares the host's network and can read its address");

  p.file_max = spec.policy.limits.file_max_bytes;
  // tmpfs reads size=0 as unbounded, so an unset size takes the documented default instead.
  p.tmp_size = spec.policy.limits.tmp_bytes > 0 ? spec.policy.limits.tmp_bytes : 512ull << 20;
  p.shm_size = spec.policy.limits.shm_bytes > 0 ? spec.policy.limits.shm_bytes : 256ull << 20;
  p.memory = spec.policy.limits.memory_bytes;
  p.pids = spec.policy.limits.pids;
  p.cpu_millis = static_cast<std::uint64_t>(spec.policy.limits.cpus * 1000.0 + 0.5);
  p.disk = spec.policy.limits.disk_bytes;

  auto env = build_environment(spec, ctx.credential_names);
  if (!env) return env.error();
  p.env_set = env->fixed;
  for (const auto& [name, value] : env->passed) p.env_pass.push_back(name);
  out.passed_env = std::move(env->passed);
  return out;
}

}  // namespace errand::bailey
