#pragma once

// The small part of TOML the bailey policy uses: tables, arrays of tables, basic strings,
// integers, booleans and one-line or multi-line arrays of strings or integers. The policy is
// written and read by the same code, so anything outside this subset is refused rather than
// guessed at.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace errand::bailey::toml {

using Scalar = std::variant<std::string, std::int64_t, bool>;
using Value = std::variant<std::string, std::int64_t, bool, std::vector<Scalar>>;

// A parsed document, flattened: "network.mode" names a key in [network]; the n-th table of an
// array [[filesystem.bind]] is addressed as "filesystem.bind.<n>".
class Document {
 public:
  const Value* find(const std::string& dotted) const;
  std::optional<std::string> string(const std::string& dotted) const;
  std::optional<std::int64_t> integer(const std::string& dotted) const;
  std::optional<bool> boolean(const std::string& dotted) const;
  // An absent key reads as an empty list; a list of another type is nullopt.
  std::optional<std::vector<std::string>> strings(const std::string& dotted) const;
  std::optional<std::vector<std::int64_t>> integers(const std::string& dotted) const;
  std::size_t table_count(const std::string& dotted) const;
  // Every key directly inside a table, in file order, e.g. the variables of [env.set].
  std::vector<std::string> keys_of(const std::string& table) const;

  // Used by the parser.
  bool insert(const std::string& dotted, Value value);
  std::size_t open_table_array(const std::string& dotted);

 private:
  std::map<std::string, Value> entries_;
  std::vector<std::string> order_;
  std::map<std::string, std::size_t> table_arrays_;
};

struct ParseResult {
  std::optional<Document> document;
  std::string error;  // "line N: what is wrong", when document is empty
};

ParseResult parse(std::string_view text);

// Writing: a basic string with every control character escaped, and arrays of them.
std::string quote(std::string_view text);
std::string string_array(const std::vector<std::string>& items);
std::string integer_array(const std::vector<std::int64_t>& items);
// A key written bare when it can be, quoted otherwise.
std::string key(std::string_view name);

}  // namespace errand::bailey::toml
