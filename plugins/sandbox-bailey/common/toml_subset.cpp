#include "plugins/sandbox-bailey/common/toml_subset.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>

namespace errand::bailey::toml {

const Value* Document::find(const std::string& dotted) const {
  const auto it = entries_.find(dotted);
  return it == entries_.end() ? nullptr : &it->second;
}

std::optional<std::string> Document::string(const std::string& dotted) const {
  const auto* v = find(dotted);
  if (v == nullptr || !std::holds_alternative<std::string>(*v)) return std::nullopt;
  return std::get<std::string>(*v);
}

std::optional<std::int64_t> Document::integer(const std::string& dotted) const {
  const auto* v = find(dotted);
  if (v == nullptr || !std::holds_alternative<std::int64_t>(*v)) return std::nullopt;
  return std::get<std::int64_t>(*v);
}

std::optional<bool> Document::boolean(const std::string& dotted) const {
  const auto* v = find(dotted);
  if (v == nullptr || !std::holds_alternative<bool>(*v)) return std::nullopt;
  return std::get<bool>(*v);
}

template <class T>
static std::optional<std::vector<T>> list_of(const Value* v) {
  if (v == nullptr) return std::vector<T>{};
  if (!std::holds_alternative<std::vector<Scalar>>(*v)) return std::nullopt;
  std::vector<T> out;
  for (const auto& item : std::get<std::vector<Scalar>>(*v)) {
    if (!std::holds_alternative<T>(item)) return std::nullopt;
    out.push_back(std::get<T>(item));
  }
  return out;
}

std::optional<std::vector<std::string>> Document::strings(const std::string& dotted) const {
  return list_of<std::string>(find(dotted));
}

std::optional<std::vector<std::int64_t>> Document::integers(const std::string& dotted) const {
  return list_of<std::int64_t>(find(dotted));
}

std::size_t Document::table_count(const std::string& dotted) const {
  const auto it = table_arrays_.find(dotted);
  return it == table_arrays_.end() ? 0 : it->second;
}

std::vector<std::string> Document::keys_of(const std::string& table) const {
  std::vector<std::string> out;
  const std::string prefix = table + ".";
  for (const auto& full : order_) {
    if (full.compare(0, prefix.size(), prefix) != 0) continue;
    const auto rest = full.substr(prefix.size());
    if (rest.find('.') == std::string::npos) out.push_back(rest);
  }
  return out;
}

bool Document::insert(const std::string& dotted, Value value) {
  if (!entries_.emplace(dotted, std::move(value)).second) return false;
  order_.push_back(dotted);
  return true;
}

std::size_t Document::open_table_array(const std::string& dotted) {
  return table_arrays_[dotted]++;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  ParseResult run() {
    Document doc;
    std::string table;
    while (true) {
      skip_blank_lines();
      if (at_end()) break;
      if (peek() == '[') {
        const bool array = peek(1) == '[';
        pos_ += array ? 2 : 1;
        auto name = dotted_key();
        if (!name) return fail(error_);
        skip_spaces();
        if (!consume(']') || (array && !consume(']')))
          return fail("a table header must end with ]" + std::string(array ? "]" : ""));
        table = *name;
        if (array) table += "." + std::to_string(doc.open_table_array(*name));
      } else {
        auto name = dotted_key();
        if (!name) return fail(error_);
        skip_spaces();
        if (!consume('=')) return fail("expected = after the key " + *name);
        skip_spaces();
        auto value = parse_value();
        if (!value) return fail(error_);
        const auto full = table.empty() ? *name : table + "." + *name;
        if (!doc.insert(full, std::move(*value))) return fail("the key " + full + " is set twice");
      }
      skip_spaces();
      skip_comment();
      if (!at_end() && !consume('\n')) return fail("unexpected text after a value");
      ++line_;
    }
    ParseResult r;
    r.document = std::move(doc);
    return r;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool consume(char c) {
    if (peek() != c || at_end()) return false;
    ++pos_;
    return true;
  }
  void skip_spaces() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\r')) ++pos_;
  }
  void skip_comment() {
    if (peek() != '#') return;
    while (!at_end() && peek() != '\n') ++pos_;
  }
  void skip_blank_lines() {
    while (!at_end()) {
      skip_spaces();
      skip_comment();
      if (!consume('\n')) return;
      ++line_;
    }
  }
  // Inside arrays newlines and comments are whitespace.
  void skip_array_space() {
    while (!at_end()) {
      skip_spaces();
      skip_comment();
      if (peek() != '\n') return;
      ++pos_;
      ++line_;
    }
  }

  ParseResult fail(const std::string& what) {
    ParseResult r;
    r.error = "line " + std::to_string(line_) + ": " + what;
    return r;
  }

  std::optional<std::string> one_key() {
    if (peek() == '"') return basic_string();
    std::string out;
    while (!at_end() &&
           (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-'))
      out.push_back(text_[pos_++]);
    if (out.empty()) {
      error_ = "expected a key";
      return std::nullopt;
    }
    return out;
  }

  std::optional<std::string> dotted_key() {
    skip_spaces();
    auto first = one_key();
    if (!first) return std::nullopt;
    std::string out = *first;
    while (true) {
      skip_spaces();
      if (!consume('.')) break;
      skip_spaces();
      auto next = one_key();
      if (!next) return std::nullopt;
      out += "." + *next;
    }
    return out;
  }

  std::optional<std::string> basic_string() {
    if (!consume('"')) {
      error_ = "expected a string";
      return std::nullopt;
    }
    std::string out;
    while (true) {
      if (at_end() || peek() == '\n') {
        error_ = "a string is not closed on its line";
        return std::nullopt;
      }
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      const char e = at_end() ? '\0' : text_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'u': {
          if (pos_ + 4 > text_.size()) {
            error_ = "a \\u escape needs four hex digits";
            return std::nullopt;
          }
          unsigned code = 0;
          const auto hex = text_.substr(pos_, 4);
          const auto [end, ec] = std::from_chars(hex.data(), hex.data() + 4, code, 16);
          if (ec != std::errc{} || end != hex.data() + 4) {
            error_ = "a \\u escape needs four hex digits";
            return std::nullopt;
          }
          pos_ += 4;
          append_utf8(out, code);
          break;
        }
        default: error_ = "an unknown escape in a string"; return std::nullopt;
      }
    }
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (code >> 6)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xE0 | (code >> 12)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  std::optional<Scalar> scalar() {
    if (peek() == '"') {
      auto s = basic_string();
      if (!s) return std::nullopt;
      return Scalar{std::move(*s)};
    }
    if (text_.substr(pos_, 4) == "true") {
      pos_ += 4;
      return Scalar{true};
    }
    if (text_.substr(pos_, 5) == "false") {
      pos_ += 5;
      return Scalar{false};
    }
    const auto start = pos_;
    if (peek() == '-' || peek() == '+') ++pos_;
    while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    std::int64_t number = 0;
    const char* first = text_.data() + start + (text_[start] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(first, text_.data() + pos_, number);
    if (pos_ == start || ec != std::errc{} || end != text_.data() + pos_) {
      error_ = "expected a string, an integer, true or false";
      return std::nullopt;
    }
    return Scalar{number};
  }

  std::optional<Value> parse_value() {
    if (!consume('[')) {
      auto s = scalar();
      if (!s) return std::nullopt;
      return std::visit([](auto&& v) -> Value { return v; }, std::move(*s));
    }
    std::vector<Scalar> items;
    while (true) {
      skip_array_space();
      if (consume(']')) return Value{std::move(items)};
      auto item = scalar();
      if (!item) return std::nullopt;
      items.push_back(std::move(*item));
      skip_array_space();
      if (consume(']')) return Value{std::move(items)};
      if (!consume(',')) {
        error_ = "expected , or ] in an array";
        return std::nullopt;
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::string error_;
};

}  // namespace

ParseResult parse(std::string_view text) {
  return Parser(text).run();
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20 || u == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

std::string string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + quote(items[i]);
  return out + "]";
}

std::string integer_array(const std::vector<std::int64_t>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + std::to_string(items[i]);
  return out + "]";
}

std::string key(std::string_view name) {
  bool bare = !name.empty();
  for (const char c : name)
    bare = bare && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  return bare ? std::string(name) : quote(name);
}

}  // namespace errand::bailey::toml
