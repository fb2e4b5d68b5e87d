#include "plugins/sandbox-podman/impl/seccomp_profile.hpp"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fstream>
#include <sstream>

#include "common/syscall_denylist/syscall_denylist.hpp"

namespace errand::podman {

namespace fs = std::filesystem;
namespace json = boost::json;
using sdk::make_error;

sdk::Result<std::string> errand_seccomp_profile(std::string_view podman_default,
                                                const std::vector<std::string>& refused) {
  boost::system::error_code ec;
  auto root = json::parse(podman_default, ec);
  if (ec || !root.is_object())
    return make_error("podman's default seccomp profile is not a JSON object");
  auto* rules = root.as_object().if_contains("syscalls");
  if (rules == nullptr || !rules->is_array())
    return make_error("podman's default seccomp profile has no \"syscalls\" list");
  const auto is_refused = [&](const json::value& name) {
    return name.is_string() && std::find(refused.begin(), refused.end(),
                                         std::string_view(name.as_string())) != refused.end();
  };
  json::array kept;
  for (auto& rule : rules->as_array()) {
    if (!rule.is_object()) continue;
    auto* names = rule.as_object().if_contains("names");
    if (names == nullptr || !names->is_array()) continue;
    auto& list = names->as_array();
    list.erase(std::remove_if(list.begin(), list.end(), is_refused), list.end());
    if (!list.empty()) kept.push_back(std::move(rule));
  }
  json::array names;
  for (const auto& name : refused) names.emplace_back(name);
  json::object refusal{{"names", std::move(names)},
                       {"action", "SCMP_ACT_ERRNO"},
                       {"errnoRet", 1},
                       {"comment", "errand: refused to every session"}};
  kept.insert(kept.begin(), json::value(std::move(refusal)));
  *rules = std::move(kept);
  return json::serialize(root);
}

sdk::Result<fs::path> write_seccomp_profile(const fs::path& default_path, const fs::path& dir) {
  std::ifstream in(default_path);
  if (!in) return make_error("could not read podman's seccomp profile " + default_path.string());
  std::stringstream text;
  text << in.rdbuf();
  auto profile = errand_seccomp_profile(text.str(), sandbox_rules::denied_syscall_names());
  if (!profile) return make_error(profile.error().message + " (" + default_path.string() + ")");
  std::error_code ec;
  fs::create_directories(dir, ec);
  const auto path = dir / "seccomp.json";
  const auto partial = dir / "seccomp.json.partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << *profile;
    if (!out.flush()) return make_error("could not write " + partial.string());
  }
  if (fs::rename(partial, path, ec); ec)
    return make_error("could not write " + path.string() + ": " + ec.message());
  return path;
}

}  // namespace errand::podman
