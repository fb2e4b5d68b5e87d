#pragma once

// The check that every configuration key either acts, with a behaviour test proving it, or is
// refused as unsupported. A behaviour test names the key(s) it proves in a Catch2 tag,
// [key:<leaf>], with the leaf written as schema_leaves writes it: "sandbox.egress.mode",
// "agent.providers.<name>.credential".

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/schema_leaves.hpp"

namespace errand::key_coverage {

inline constexpr std::string_view tag_prefix = "key:";

// The keys named by [key:...] tags in what a Catch2 binary prints for
// `--list-tags --reporter json`. Throws std::runtime_error when the text is not that listing.
std::set<std::string> key_tags_in_listing(std::string_view json_listing);

// Every way the leaves and the tags disagree, one sentence each saying which key and how to fix
// it: a supported leaf no test names, an unsupported leaf a test claims to prove, and a tag that
// names no leaf. `tagged` maps a key to the test binaries whose tags name it.
std::vector<std::string> coverage_problems(
    const std::vector<config::SchemaLeaf>& leaves,
    const std::map<std::string, std::set<std::string>>& tagged);

}  // namespace errand::key_coverage
