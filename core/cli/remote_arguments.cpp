#include "core/cli/remote_arguments.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "core/remote/jobs/job_id.hpp"

namespace errand::cli {

namespace {

constexpr std::array<std::string_view, 3> kRunFlags = {"--no-snapshot", "--include-all",
                                                       "--detach"};
constexpr std::array<std::string_view, 3> kRunValueOptions = {"--on", "--socket", "--workdir"};

// "--name=value" or "--name value" at args[i]; advances i past what it used. nullopt: args[i]
// is not this option. An option without its value is a refusal.
sdk::Result<std::optional<std::string>> take_option_value(const std::vector<std::string>& args,
                                                          std::size_t& i, std::string_view name) {
  const std::string& word = args[i];
  if (word.size() > name.size() && word.starts_with(name) && word[name.size()] == '=')
    return std::optional<std::string>(word.substr(name.size() + 1));
  if (word != name) return std::optional<std::string>();
  if (i + 1 >= args.size()) return sdk::refusal(std::string(name) + " needs a value");
  ++i;
  return std::optional<std::string>(args[i]);
}

// Takes --on or --socket at args[i] into where; false when args[i] is neither.
sdk::Result<bool> take_peer_option(const std::vector<std::string>& args, std::size_t& i,
                                   PeerChoice& where) {
  auto on = take_option_value(args, i, "--on");
  if (!on) return on.error();
  if (*on) {
    where.peer = **on;
    where.peer_given = true;
    return true;
  }
  auto socket = take_option_value(args, i, "--socket");
  if (!socket) return socket.error();
  if (*socket) {
    where.socket = **socket;
    return true;
  }
  return false;
}

// "." and "a/./b/" as the root-relative "a/b"; absolute paths and ones that climb out refused.
sdk::Result<std::string> normal_workdir(const std::string& text) {
  const std::filesystem::path given(text);
  if (given.is_absolute())
    return sdk::refusal("--workdir " + text + ": give a path relative to the directory sent");
  auto normal = given.lexically_normal().generic_string();
  while (!normal.empty() && normal.back() == '/') normal.pop_back();
  if (normal == ".") normal.clear();
  if (normal == ".." || normal.starts_with("../"))
    return sdk::refusal("--workdir " + text + ": the path leaves the directory sent");
  return normal;
}

}  // namespace

bool is_remote_run_command_line(const std::vector<std::string>& args) {
  if (args.empty()) return false;
  const std::string_view first = args.front();
  if (first == "--") return true;
  if (std::ranges::find(kRunFlags, first) != kRunFlags.end()) return true;
  return std::ranges::any_of(kRunValueOptions, [&](std::string_view option) {
    return first == option || (first.starts_with(option) && first.size() > option.size() &&
                               first[option.size()] == '=');
  });
}

sdk::Result<RemoteRunArguments> parse_remote_run_arguments(const std::vector<std::string>& args) {
  RemoteRunArguments out;
  std::optional<std::string> workdir;
  std::size_t i = 0;
  bool separated = false;
  for (; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      separated = true;
      ++i;
      break;
    }
    if (word == "--no-snapshot") {
      out.no_snapshot = true;
      continue;
    }
    if (word == "--include-all") {
      out.include_all = true;
      continue;
    }
    if (word == "--detach") {
      out.detach = true;
      continue;
    }
    auto peer = take_peer_option(args, i, out.where);
    if (!peer) return peer.error();
    if (*peer) continue;
    auto dir = take_option_value(args, i, "--workdir");
    if (!dir) return dir.error();
    if (*dir) {
      workdir = **dir;
      continue;
    }
    if (word.starts_with("-")) return sdk::refusal("unknown option \"" + word + "\" before `--`");
    return sdk::refusal("missing `--` before the command: errand [OPTIONS] -- CMD [ARG...]");
  }
  if (!separated)
    return sdk::refusal("missing `--` before the command: errand [OPTIONS] -- CMD [ARG...]");
  out.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (out.command.empty()) return sdk::refusal("no command after `--`");
  if (out.include_all && out.no_snapshot)
    return sdk::refusal("--include-all chooses what is sent; with --no-snapshot nothing is");
  if (workdir) {
    auto normal = normal_workdir(*workdir);
    if (!normal) return normal.error();
    out.workdir = std::move(*normal);
  }
  if (out.no_snapshot && !out.workdir.empty())
    return sdk::refusal("--workdir " + out.workdir +
                        ": with --no-snapshot the job starts in an empty workspace, which has "
                        "no such directory");
  return out;
}

sdk::Result<JobCommandArguments> parse_job_command_arguments(const std::vector<std::string>& args,
                                                             const JobCommandShape& shape) {
  JobCommandArguments out;
  const std::string name(shape.name);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    auto peer = take_peer_option(args, i, out.where);
    if (!peer) return peer.error();
    if (*peer) continue;
    if (shape.takes_json && word == "--json") {
      out.json = true;
      continue;
    }
    if (word.starts_with("-")) return sdk::refusal(name + ": unknown option \"" + word + "\"");
    if (!shape.takes_handle || out.handle)
      return sdk::refusal(name + ": unexpected argument \"" + word + "\"");
    out.handle = word;
  }
  if (shape.takes_handle && !out.handle)
    return sdk::refusal(name + ": name the job: PEER/ID, or ID with --on PEER");
  return out;
}

sdk::Result<JobHandle> resolve_job_handle(std::string_view handle, const PeerChoice& where) {
  JobHandle out{.peer = where.peer, .job = std::string(handle)};
  // A job id has no '/', an ssh:// peer may: the id is what follows the last one.
  if (const auto slash = handle.rfind('/'); slash != std::string_view::npos) {
    out.peer = std::string(handle.substr(0, slash));
    out.job = std::string(handle.substr(slash + 1));
    if (where.peer_given && out.peer != where.peer)
      return sdk::refusal("the handle " + std::string(handle) + " names peer " + out.peer +
                          ", not " + where.peer + " (--on)");
  }
  if (!remote::is_job_id(out.job))
    return sdk::refusal("\"" + out.job +
                        "\" is not a job id (26 characters, as errand printed it)");
  return out;
}

}  // namespace errand::cli
