#include "core/config/duplicate_keys.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <set>

#include "core/config/schema_validator.hpp"

namespace errand::config {

namespace json = boost::json;

namespace {

// A Boost.JSON parser handler that builds nothing; it only follows where it is.
class DuplicateFinder {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_array_begin(json::error_code&) {
    frames_.push_back({false, {}, {}, 0});
    return true;
  }
  bool on_array_end(std::size_t, json::error_code&) { return close_frame(); }
  bool on_object_begin(json::error_code&) {
    frames_.push_back({true, {}, {}, 0});
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) { return close_frame(); }
  bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, json::error_code&) { return value_done(); }
  bool on_key_part(json::string_view part, std::size_t, json::error_code&) {
    key_.append(part.data(), part.size());
    return true;
  }
  bool on_key(json::string_view part, std::size_t, json::error_code&) {
    key_.append(part.data(), part.size());
    auto& frame = frames_.back();
    if (!frame.keys.insert(key_).second) duplicates_.push_back(path_to(key_));
    frame.key = std::move(key_);
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

  std::vector<std::string> take_duplicates() { return std::move(duplicates_); }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;    // the key being read, in an object
    std::size_t index;  // the entry being read, in a list
  };

  bool value_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }

  bool close_frame() {
    frames_.pop_back();
    return value_done();
  }

  std::string path_to(const std::string& key) const {
    std::string path;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const auto& frame = frames_[i];
      path = frame.object ? child_path(path, frame.key)
                          : path + "[" + std::to_string(frame.index) + "]";
    }
    return child_path(path, key);
  }

  std::vector<Frame> frames_;
  std::string key_;
  std::vector<std::string> duplicates_;
};

}  // namespace

std::vector<std::string> find_duplicate_keys(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // as parse_jsonc skips it
  json::parse_options options;
  options.allow_comments = true;
  options.allow_trailing_commas = true;
  json::basic_parser<DuplicateFinder> parser(options);
  json::error_code ec;
  parser.write_some(false, text.data(), text.size(), ec);
  if (ec) return {};
  return parser.handler().take_duplicates();
}

}  // namespace errand::config
