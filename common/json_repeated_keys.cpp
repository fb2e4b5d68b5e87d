#include "common/json_repeated_keys.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <set>

namespace errand::common {

namespace json = boost::json;

namespace {

// A Boost.JSON parser handler that builds nothing; it only follows where it is.
class RepeatedKeyFinder {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_array_begin(json::error_code&) {
    open_.push_back({false, {}, {}, 0});
    return true;
  }
  bool on_array_end(std::size_t, json::error_code&) { return close_value(); }
  bool on_object_begin(json::error_code&) {
    open_.push_back({true, {}, {}, 0});
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) { return close_value(); }
  bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, json::error_code&) { return value_done(); }
  bool on_key_part(json::string_view part, std::size_t, json::error_code&) {
    key_.append(part.data(), part.size());
    return true;
  }
  bool on_key(json::string_view part, std::size_t, json::error_code&) {
    key_.append(part.data(), part.size());
    auto& object = open_.back();
    if (!object.keys.insert(key_).second) repeated_.push_back({parents(), key_});
    object.key = std::move(key_);
    key_.clear();
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, json::error_code&) { return value_done(); }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code&) { return value_done(); }
  bool on_double(double, json::string_view, json::error_code&) { return value_done(); }
  bool on_bool(bool, json::error_code&) { return value_done(); }
  bool on_null(json::error_code&) { return value_done(); }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

  std::vector<RepeatedJsonKey> take_repeated() { return std::move(repeated_); }

 private:
  struct OpenValue {
    bool object;
    std::set<std::string> keys;
    std::string key;    // the member being read, in an object
    std::size_t index;  // the element being read, in an array
  };

  bool value_done() {
    if (!open_.empty() && !open_.back().object) ++open_.back().index;
    return true;
  }

  bool close_value() {
    open_.pop_back();
    return value_done();
  }

  // The values around the innermost open object, which is where the repeated key is.
  std::vector<std::variant<std::string, std::size_t>> parents() const {
    std::vector<std::variant<std::string, std::size_t>> steps;
    for (std::size_t i = 0; i + 1 < open_.size(); ++i) {
      if (open_[i].object)
        steps.emplace_back(open_[i].key);
      else
        steps.emplace_back(open_[i].index);
    }
    return steps;
  }

  std::vector<OpenValue> open_;
  std::string key_;
  std::vector<RepeatedJsonKey> repeated_;
};

}  // namespace

std::vector<RepeatedJsonKey> find_repeated_json_keys(std::string_view text, JsonDialect dialect) {
  json::parse_options options;
  if (dialect == JsonDialect::jsonc) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    options.allow_comments = true;
    options.allow_trailing_commas = true;
  }
  json::basic_parser<RepeatedKeyFinder> parser(options);
  json::error_code ec;
  parser.write_some(false, text.data(), text.size(), ec);
  if (ec) return {};
  return parser.handler().take_repeated();
}

}  // namespace errand::common
