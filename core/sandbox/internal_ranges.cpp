#include "core/sandbox/internal_ranges.hpp"

#include <errand/sdk/config_values.hpp>

#include "common/address_ranges.hpp"

namespace errand::sandbox {

sdk::Result<std::vector<std::string>> allow_internal_setting(const boost::json::object& config) {
  std::vector<std::string> ranges;
  const auto* internal = sdk::find_setting(config, "sandbox.egress.allowInternal");
  if (internal == nullptr) return ranges;
  const auto refuse = [](std::string message) {
    return sdk::make_error(std::move(message), sdk::Error::Kind::refused);
  };
  if (internal->is_bool())
    return refuse(
        "sandbox.egress.allowInternal is a boolean, which it no longer takes: true let every "
        "internal literal through, cloud metadata included. List the ranges sessions may "
        "reach instead, such as [\"10.1.2.0/24\"], or [\"127.0.0.1/32\"] for a provider on "
        "this host; leave the key out for none");
  if (!internal->is_array())
    return refuse(
        "sandbox.egress.allowInternal must be a list of address ranges, such as "
        "[\"10.1.2.0/24\"]");
  for (const auto& entry : internal->as_array()) {
    if (!entry.is_string())
      return refuse(
          "sandbox.egress.allowInternal holds something that is not a string; write each range "
          "as text, such as \"10.1.2.0/24\"");
    auto range = common::parse_address_range(entry.as_string());
    if (!range) return refuse("sandbox.egress.allowInternal: " + range.error().message);
    ranges.emplace_back(entry.as_string());
  }
  return ranges;
}

}  // namespace errand::sandbox
