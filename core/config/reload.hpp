#pragma once

// What a reload of the configuration reaches, decided here and nowhere else. A field a reload
// does not reach was committed to before the daemon served (the chat connection and who may use
// it, the sandbox backend, the egress broker and its provider routes, the plugins, the state
// directory), so the daemon keeps its start-up value everywhere until a restart: the
// configuration a reload applies is the new file with those fields put back as they were.

#include <boost/json/object.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/problem.hpp"

namespace errand::config {

// One row of the reach table: a dotted field or section ("*" stands for any name under
// agent.providers), whether a reload reaches it, and why. The most specific row that covers a
// field decides; a field no row covers is reached.
struct ReloadReach {
  std::string_view field;
  bool reached;
  std::string_view why;
};

// Every row, in the order docs/configuration.md lists them.
std::span<const ReloadReach> reload_reach_table();

// Whether a reload reaches the field at `path` (its segments, a provider's name as one segment).
bool reached_by_reload(const std::vector<std::string>& path);

// The written configuration a reload applies: `file_written` with every field a reload does not
// reach replaced by its value in `startup_written` (or removed, when the daemon started without
// it). The result still has to pass validation, since a held field can conflict with a new one.
boost::json::object hold_unreached(const boost::json::object& startup_written,
                                   const boost::json::object& file_written);

// What to say about fields a reload does not reach, comparing effective configurations: each
// field whose value in the new file differs from start-up, and from the file the last accepted
// reload read, so that one edit is said once ("held", each Problem's path the dotted field and
// its message why and what to do); and each field that differed before and matches start-up
// again ("in_step", dotted). Secret values never appear.
struct HeldChanges {
  std::vector<Problem> held;
  std::vector<std::string> in_step;
};
HeldChanges held_changes(const boost::json::object& startup_effective,
                         const boost::json::object& previous_file_effective,
                         const boost::json::object& file_effective);

}  // namespace errand::config
