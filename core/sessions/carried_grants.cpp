#include "core/sessions/carried_grants.hpp"

#include "core/agent/state_files.hpp"
#include "core/config/read_text_file.hpp"

#include <boost/json.hpp>

namespace errand::sessions {

namespace json = boost::json;

namespace {

constexpr std::string_view kFile = "carried-grants.json";

}  // namespace

sdk::Result<std::vector<CarriedGrant>> read_carried_grants(
    const std::filesystem::path& record_dir) {
  std::vector<CarriedGrant> grants;
  std::error_code ec;
  const auto file = record_dir / kFile;
  if (!std::filesystem::exists(file, ec)) return grants;
  auto text = config::read_text_file(file);
  if (!text) return sdk::make_error(file.string() + " cannot be read: " + text.error().message);
  json::error_code parse_error;
  const auto parsed = json::parse(*text, parse_error);
  if (parse_error || !parsed.is_array())
    return sdk::make_error(file.string() + " is not a list of grants");
  for (const auto& entry : parsed.as_array()) {
    const auto* object = entry.if_object();
    const auto* host = object ? object->if_contains("host") : nullptr;
    const auto* by = object ? object->if_contains("by") : nullptr;
    if (host == nullptr || !host->is_string() || by == nullptr || !by->is_string())
      return sdk::make_error(file.string() + " holds an entry without a host and who granted it");
    grants.push_back({std::string(host->as_string()), std::string(by->as_string())});
  }
  return grants;
}

sdk::Result<void> write_carried_grants(const std::filesystem::path& record_dir,
                                       const std::vector<CarriedGrant>& grants) {
  json::array list;
  for (const auto& grant : grants)
    list.push_back(json::object{{"host", grant.host}, {"by", grant.granted_by}});
  return agent::write_beneath(record_dir, std::filesystem::path(kFile),
                              json::serialize(list) + "\n", 0600);
}

}  // namespace errand::sessions
