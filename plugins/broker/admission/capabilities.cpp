#include "plugins/broker/admission/capabilities.hpp"

#include <fmt/format.h>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

namespace errand::broker {
namespace {

std::vector<std::string_view> segments_of(std::string_view path) {
  std::vector<std::string_view> out;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (path.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const auto slash = path.find('/', start);
    out.push_back(path.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) return out;
    start = slash + 1;
  }
}

}  // namespace

bool path_pattern_matches(std::string_view pattern, std::string_view path) {
  const auto want = segments_of(pattern);
  const auto have = segments_of(path);
  // matches[i][j]: pattern segments from i match path segments from j.
  std::vector<std::vector<char>> matches(want.size() + 1, std::vector<char>(have.size() + 1, 0));
  matches[want.size()][have.size()] = 1;
  for (std::size_t i = want.size(); i-- > 0;) {
    for (std::size_t j = have.size() + 1; j-- > 0;) {
      if (want[i] == "**") {
        matches[i][j] = matches[i + 1][j] || (j < have.size() && matches[i][j + 1]);
      } else if (j < have.size() && (want[i] == "*" || want[i] == have[j])) {
        matches[i][j] = matches[i + 1][j + 1];
      }
    }
  }
  return matches[0][0] != 0;
}

std::string capability_entry(std::string_view method, std::string_view path) {
  return fmt::format(R"({{"method": {}, "path": {}}})",
                     boost::json::serialize(boost::json::string(method)),
                     boost::json::serialize(boost::json::string(path)));
}

sdk::Result<CapabilityList> CapabilityList::parse(const boost::json::value& value) {
  if (value.is_string() && value.as_string() == "*") return everything();
  if (!value.is_array())
    return sdk::make_error("capabilities is \"*\" or a list of {\"method\", \"path\"} entries");
  const auto& list = value.as_array();
  if (list.empty())
    return sdk::make_error("capabilities is an empty list, which would refuse every call");
  CapabilityList out;
  for (const auto& item : list) {
    if (item.is_string() && item.as_string() == "*") {
      out.everything_ = true;
      continue;
    }
    const auto* object = item.if_object();
    const auto* method = object ? object->if_contains("method") : nullptr;
    const auto* path = object ? object->if_contains("path") : nullptr;
    if (!method || !path || !method->is_string() || !path->is_string())
      return sdk::make_error(
          "each capabilities entry is {\"method\": \"POST\", \"path\": \"/v1/...\"}");
    out.entries_.push_back({std::string(method->as_string()), std::string(path->as_string())});
  }
  return out;
}

CapabilityList CapabilityList::everything() {
  CapabilityList out;
  out.everything_ = true;
  return out;
}

bool CapabilityList::permits(std::string_view method, std::string_view raw_path) const {
  if (everything_) return true;
  for (const auto& entry : entries_) {
    if ((entry.method == "*" || entry.method == method) &&
        path_pattern_matches(entry.path, raw_path))
      return true;
  }
  return false;
}

std::string CapabilityList::describe() const {
  if (everything_) return "*";
  std::string out;
  for (const auto& entry : entries_) {
    if (!out.empty()) out += ", ";
    out += entry.method + " " + entry.path;
  }
  return out;
}

}  // namespace errand::broker
