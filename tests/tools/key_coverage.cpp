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

std::set<std::string> keys_in_awaiting_list(std::string_view text) {
  std::set<std::string> keys;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    line = line.substr(0, line.find('#'));
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line = line.substr(first);
    keys.emplace(line.substr(0, line.find_first_of(" \t\r")));
  }
  return keys;
}

std::vector<std::string> coverage_problems(
    const std::vector<config::SchemaLeaf>& leaves,
    const std::map<std::string, std::set<std::string>>& tagged,
    const std::set<std::string>& awaiting) {
  std::vector<std::string> problems;
  std::set<std::string> known;
  for (const auto& leaf : leaves) {
    known.insert(leaf.key);
    const auto found = tagged.find(leaf.key);
    const bool listed = awaiting.contains(leaf.key);
    if (listed && found != tagged.end()) {
      problems.push_back("`" + leaf.key + "` is proven now (tagged in " +
                         joined_names(found->second) +
                         "): remove it from tests/tools/keys_awaiting_tests.txt");
    } else if (listed && !leaf.unsupported.empty()) {
      problems.push_back("`" + leaf.key +
                         "` is marked unsupported, so it awaits no test: remove it from "
                         "tests/tools/keys_awaiting_tests.txt");
    } else if (listed) {
      continue;
    } else if (leaf.unsupported.empty() && found == tagged.end()) {
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
  for (const auto& key : awaiting) {
    if (known.contains(key)) continue;
    problems.push_back("tests/tools/keys_awaiting_tests.txt names `" + key +
                       "`, which is no key of the composed schema: remove the line");
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
