#include "core/config/reload.hpp"

#include <algorithm>
#include <array>
#include <set>

namespace errand::config {

namespace json = boost::json;

namespace {

using Path = std::vector<std::string>;

constexpr std::array<ReloadReach, 21> kTable{{
    {"chat", false,
     "the chat connection, its token and who may use the bot (allowedUserIds, blockedUserIds, "
     "operatorUserIds, startOnMention) are fixed when the daemon connects"},
    {"plugins", false, "plugins are found and loaded once, at startup"},
    {"web", false, "the web interface binds its address and port once, at startup"},
    {"stateDir", false, "the daemon's lock and databases are opened there at startup"},
    {"projectRoot", true,
     "a new thread's project is made under the new root; a resumed thread keeps its project"},
    {"logging", true, "the new level applies at once"},
    {"agent", true,
     "the next session runs the agent, provider and model the file names, and the daemon's "
     "answers (!model, !usage) use it"},
    {"agent.providers.*", false,
     "the egress broker holds each provider's route, key and limits as they were at startup: "
     "a provider added is not routed and one removed stays routed"},
    {"agent.providers.*.models", true, "!model lists the new list at once"},
    // Whole, since holding part of the block would apply the rest without its model.
    {"agent.delegate", false,
     "the egress broker, which makes delegate calls, reads the delegate model and deadline once, "
     "at startup, and a session's allowance goes with them"},
    {"sandbox", true,
     "the next session is launched with the new limits, grants, paths and environment, and the "
     "enforcement report is checked and logged again"},
    {"sandbox.backend", false, "the sandbox backend is created once, at startup"},
    {"sandbox.network", false,
     "whether sessions have a network, and meet it through the broker, was settled at startup"},
    {"sandbox.egress", false,
     "the egress broker enforces the mode and allowlist it was started with"},
    {"sandbox.egressPorts", false, "the egress broker opens the ports it was started with"},
    {"sandbox.hideHostAddress", false, "how sessions meet the network was settled at startup"},
    {"broker", false, "the egress broker is created once, at startup"},
    {"limits", true, "the queue takes the new limits at once"},
    {"timeouts", true, "sessions started after the reload use them"},
    {"output", true, "sessions started after the reload use them"},
    // Sessions read github when they start, so a reload could reach it; it does not, because
    // the App's key file is judged (and read) once at startup, and a reload must not hand
    // sessions a key or an identity that skipped that judgement.
    {"github", false,
     "the App's key is checked and read once, at startup, and sessions get the identity the "
     "daemon started with"},
}};

constexpr std::string_view kHeldWhy = "part of it was committed to at startup";

Path split(std::string_view dotted) {
  Path out;
  while (true) {
    const auto dot = dotted.find('.');
    out.emplace_back(dotted.substr(0, dot));
    if (dot == std::string_view::npos) return out;
    dotted.remove_prefix(dot + 1);
  }
}

std::string dotted(const Path& path) {
  std::string out;
  for (const auto& segment : path) out += (out.empty() ? "" : ".") + segment;
  return out;
}

// Whether `pattern` (with "*" for any name) covers `path`: the pattern is a prefix of it.
bool covers(const Path& pattern, const Path& path) {
  if (pattern.size() > path.size()) return false;
  for (std::size_t i = 0; i < pattern.size(); ++i)
    if (pattern[i] != "*" && pattern[i] != path[i]) return false;
  return true;
}

// The most specific row that covers `path`, or null.
const ReloadReach* deciding_row(const Path& path) {
  const ReloadReach* best = nullptr;
  std::size_t best_depth = 0;
  for (const auto& row : kTable) {
    const auto pattern = split(row.field);
    if (covers(pattern, path) && pattern.size() >= best_depth) {
      best = &row;
      best_depth = pattern.size();
    }
  }
  return best;
}

// A part that holds a field a reload does not reach, such as a whole provider, is not reached
// either, even when the row deciding it says otherwise.
bool holds_unreached(const Path& path) {
  for (const auto& row : kTable) {
    if (row.reached) continue;
    const auto pattern = split(row.field);
    if (pattern.size() > path.size() &&
        covers(Path(pattern.begin(), pattern.begin() + static_cast<long>(path.size())), path))
      return true;
  }
  return false;
}

const json::value* at(const json::object& config, const Path& path) {
  const json::object* object = &config;
  const json::value* found = nullptr;
  for (const auto& segment : path) {
    if (object == nullptr) return nullptr;
    found = object->if_contains(segment);
    if (found == nullptr) return nullptr;
    object = found->is_object() ? &found->as_object() : nullptr;
  }
  return found;
}

bool same(const json::value* a, const json::value* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return *a == *b;
}

// Sets (or, for null, removes) the value at `path`. Missing parents are made only when
// create_parents holds.
void put(json::object& config, const Path& path, const json::value* value, bool create_parents) {
  json::object* object = &config;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    auto* next = object->if_contains(path[i]);
    if (next == nullptr) {
      if (value == nullptr || !create_parents) return;
      next = &object->emplace(path[i], json::object{}).first->value();
    }
    if (!next->is_object()) return;
    object = &next->as_object();
  }
  if (value == nullptr)
    object->erase(path.back());
  else
    (*object)[path.back()] = *value;
}

// Every concrete path the pattern names in either configuration, "*" taking each name found.
void expand(const Path& pattern, std::size_t from, Path& prefix, const json::object& a,
            const json::object& b, std::vector<Path>& out) {
  if (from == pattern.size()) {
    out.push_back(prefix);
    return;
  }
  if (pattern[from] != "*") {
    prefix.push_back(pattern[from]);
    expand(pattern, from + 1, prefix, a, b, out);
    prefix.pop_back();
    return;
  }
  std::set<std::string> names;
  for (const auto* side : {at(a, prefix), at(b, prefix)})
    if (side != nullptr && side->is_object())
      for (const auto& entry : side->as_object()) names.emplace(entry.key());
  for (const auto& name : names) {
    prefix.push_back(name);
    expand(pattern, from + 1, prefix, a, b, out);
    prefix.pop_back();
  }
}

// Every leaf whose value differs, objects descended into; a part present on one side only is
// one leaf.
void changed_leaves(const json::value* before, const json::value* after, Path& path,
                    std::vector<Path>& changed) {
  if (same(before, after)) return;
  if (!(before && after && before->is_object() && after->is_object())) {
    changed.push_back(path);
    return;
  }
  std::set<std::string> keys;
  for (const auto& entry : before->as_object()) keys.emplace(entry.key());
  for (const auto& entry : after->as_object()) keys.emplace(entry.key());
  for (const auto& key : keys) {
    path.push_back(key);
    changed_leaves(before->as_object().if_contains(key), after->as_object().if_contains(key), path,
                   changed);
    path.pop_back();
  }
}

std::vector<Path> changed_between(const json::object& before, const json::object& after) {
  const json::value a = before;
  const json::value b = after;
  Path path;
  std::vector<Path> changed;
  changed_leaves(&a, &b, path, changed);
  return changed;
}

std::string_view why_held(const Path& path) {
  const auto* row = deciding_row(path);
  return row != nullptr && !row->reached ? row->why : kHeldWhy;
}

}  // namespace

std::span<const ReloadReach> reload_reach_table() {
  return kTable;
}

bool reached_by_reload(const std::vector<std::string>& path) {
  const auto* row = deciding_row(path);
  if (row != nullptr && !row->reached) return false;
  return !holds_unreached(path);
}

json::object hold_unreached(const json::object& startup_written, const json::object& file_written) {
  std::vector<const ReloadReach*> rows;
  for (const auto& row : kTable) rows.push_back(&row);
  // From the least specific row to the most, so the row deciding a field is applied last.
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return split(a->field).size() < split(b->field).size();
  });
  json::object applied = file_written;
  for (const auto* row : rows) {
    const auto pattern = split(row->field);
    Path prefix;
    std::vector<Path> paths;
    expand(pattern, 0, prefix, startup_written, file_written, paths);
    for (const auto& path : paths) {
      if (row->reached)
        put(applied, path, at(file_written, path), false);
      else
        put(applied, path, at(startup_written, path), true);
    }
  }
  return applied;
}

HeldChanges held_changes(const json::object& startup_effective,
                         const json::object& previous_file_effective,
                         const json::object& file_effective) {
  HeldChanges out;
  for (const auto& path : changed_between(startup_effective, file_effective)) {
    if (reached_by_reload(path)) continue;
    if (same(at(previous_file_effective, path), at(file_effective, path))) continue;
    const auto name = dotted(path);
    out.held.push_back({name, "a change to `" + name +
                                  "` is not applied by a reload: " + std::string(why_held(path)) +
                                  "; the daemon keeps the value it started with until a "
                                  "restart"});
  }
  for (const auto& path : changed_between(startup_effective, previous_file_effective)) {
    if (reached_by_reload(path)) continue;
    if (same(at(startup_effective, path), at(file_effective, path)))
      out.in_step.push_back(dotted(path));
  }
  return out;
}

}  // namespace errand::config
