#pragma once

// Which calls a provider key may make: a list of method and path patterns, or "*" for all.

#include <boost/json/value.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::broker {

struct Capability {
  std::string method;  // upper case, or "*"
  std::string path;    // "/v1/messages"; "*" is one segment, "**" any number, none included
};

// Matches a path as sent (before decoding, without its query) against a pattern.
bool path_pattern_matches(std::string_view pattern, std::string_view path);

// The list entry that would name a call, as the operator writes it in the configuration.
std::string capability_entry(std::string_view method, std::string_view path);

class CapabilityList {
 public:
  // "*" or an array of {"method", "path"} objects.
  static sdk::Result<CapabilityList> parse(const boost::json::value& value);
  static CapabilityList everything();

  bool permits(std::string_view method, std::string_view raw_path) const;
  bool allows_everything() const noexcept { return everything_; }
  const std::vector<Capability>& entries() const noexcept { return entries_; }
  // "POST /v1/messages, GET /v1/models", for refusals and logs.
  std::string describe() const;

 private:
  bool everything_ = false;
  std::vector<Capability> entries_;
};

}  // namespace errand::broker
