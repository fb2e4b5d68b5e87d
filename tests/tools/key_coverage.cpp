#include "tests/tools/key_coverage.hpp"

#include <boost/json/parse.hpp>
#include <stdexcept>

namespace errand::key_coverage {

namespace json = boost::json;

namespace {

std::string joined_names(const std::set<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

std::set<std::string> key_tags_in_listing(std::string_view json_listing) {
  json::error_code ec;
  const json::value parsed = json::parse(json_listing, ec);
  const json::value* tags = nullptr;
  if (!ec && parsed.is_object()) {
    if (const auto* listings = parsed.as_object().if_contains("listings");
        listings != nullptr && listings->is_object())
      tags = listings->as_object().if_contains("tags");
  }
  if (tags == nullptr || !tags->is_array())
    throw std::runtime_error("not a Catch2 tag listing (expected `--list-tags --reporter json`)");
  std::set<std::string> keys;
  for (const auto& tag : tags->as_array()) {
    const auto* aliases = tag.is_object() ? tag.as_object().if_contains("aliases") : nullptr;
    if (aliases == nullptr || !aliases->is_array()) continue;
    for (const auto& alias : aliases->as_array()) {
      if (!alias.is_string()) continue;
      std::string_view spelled = alias.as_string();
      if (spelled.starts_with('[') && spelled.ends_with(']'))
        spelled = spelled.substr(1, spelled.size() - 2);
      if (spelled.starts_with(tag_prefix)) keys.emplace(spelled.substr(tag_prefix.size()));
    }
  }
  return keys;
}

std::vector<std::string> coverage_problems(
    const std::vector<config::SchemaLeaf>& leaves,
    const std::map<std::string, std::set<std::string>>& tagged) {
  std::vector<std::string> problems;
  std::set<std::string> known;
  for (const auto& leaf : leaves) {
    known.insert(leaf.key);
    const auto found = tagged.find(leaf.key);
    if (leaf.unsupported.empty() && found == tagged.end()) {
      problems.push_back("`" + leaf.key + "` has no behaviour test: add the tag [key:" + leaf.key +
                         "] to the TEST_CASE that proves what the key does (write one if "
                         "none does), or mark the key unsupported in its schema "
                         "(schema_nodes::unsupported, \"x-errand-unsupported\") so that "
                         "writing it is refused");
    } else if (!leaf.unsupported.empty() && found != tagged.end()) {
      problems.push_back("`" + leaf.key + "` is marked unsupported (\"" + leaf.unsupported +
                         "\") but tests in " + joined_names(found->second) +
                         " carry [key:" + leaf.key +
                         "]: once a test proves the key acts, remove the mark; otherwise "
                         "remove the tag");
    }
  }
  for (const auto& [key, binaries] : tagged) {
    if (known.contains(key)) continue;
    problems.push_back("the tag [key:" + key + "] in " + joined_names(binaries) +
                       " names no key of the composed schema (`errand config schema`): "
                       "correct it to a leaf's dotted path, with <name> for a name the "
                       "operator chooses (e.g. [key:agent.providers.<name>.credential]), or "
                       "remove it");
  }
  return problems;
}

}  // namespace errand::key_coverage
