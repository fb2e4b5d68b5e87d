#include "plugins/broker/provider/answer_stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace errand::broker {
namespace json = boost::json;

namespace {

// A bound on one event: an answer's pieces are small, so a longer line is not a stream the
// broker understands, and holding it would let a provider grow the broker's memory.
constexpr std::size_t kLongestEvent = 1 << 20;

const json::value* at_path(const json::value& root, std::initializer_list<std::string_view> keys) {
  const json::value* at = &root;
  for (const auto key : keys) {
    if (!at->is_object()) return nullptr;
    at = at->as_object().if_contains(key);
    if (at == nullptr) return nullptr;
  }
  return at;
}

std::optional<std::uint64_t> count_at(const json::value& root,
                                      std::initializer_list<std::string_view> keys) {
  const auto* v = at_path(root, keys);
  if (v == nullptr) return std::nullopt;
  if (v->is_uint64()) return v->as_uint64();
  if (v->is_int64() && v->as_int64() >= 0) return static_cast<std::uint64_t>(v->as_int64());
  return std::nullopt;
}

std::string string_at(const json::value& root, std::initializer_list<std::string_view> keys) {
  const auto* v = at_path(root, keys);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

void AnswerStream::feed(std::string_view bytes, std::vector<std::string>& texts) {
  for (const char c : bytes) {
    if (c != '\n') {
      if (line_.size() < kLongestEvent) line_.push_back(c);
      continue;
    }
    std::string_view line = line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      if (!data_.empty()) event(data_, texts);
      data_.clear();
    } else if (line.starts_with("data:")) {
      line.remove_prefix(5);
      if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      if (!data_.empty()) data_.push_back('\n');
      if (data_.size() + line.size() < kLongestEvent) data_.append(line);
    }
    line_.clear();
  }
}

void AnswerStream::event(std::string_view data, std::vector<std::string>& texts) {
  if (data == "[DONE]") {
    ended_ = true;
    return;
  }
  boost::system::error_code ec;
  const auto root = json::parse(data, ec);
  if (ec || !root.is_object()) return;
  if (const auto message = string_at(root, {"error", "message"}); !message.empty()) {
    error_ = message;
    return;
  }
  if (dialect_ == Dialect::anthropic) {
    const auto type = string_at(root, {"type"});
    if (type == "content_block_delta" && string_at(root, {"delta", "type"}) == "text_delta") {
      if (auto text = string_at(root, {"delta", "text"}); !text.empty())
        texts.push_back(std::move(text));
    } else if (type == "message_start") {
      if (auto n = count_at(root, {"message", "usage", "input_tokens"})) input_tokens = n;
      if (auto n = count_at(root, {"message", "usage", "output_tokens"})) output_tokens = n;
    } else if (type == "message_delta") {
      if (auto n = count_at(root, {"usage", "input_tokens"})) input_tokens = n;
      if (auto n = count_at(root, {"usage", "output_tokens"})) output_tokens = n;
    } else if (type == "message_stop") {
      ended_ = true;
    }
    return;
  }
  if (const auto* choices = root.as_object().if_contains("choices");
      choices && choices->is_array()) {
    for (const auto& choice : choices->as_array()) {
      if (auto text = string_at(choice, {"delta", "content"}); !text.empty())
        texts.push_back(std::move(text));
    }
  }
  if (const auto* usage = root.as_object().if_contains("usage"); usage && usage->is_object()) {
    if (auto n = count_at(*usage, {"prompt_tokens"})) input_tokens = n;
    if (auto n = count_at(*usage, {"completion_tokens"})) output_tokens = n;
    if (const auto* c = usage->as_object().if_contains("cost"); c && c->is_number())
      cost = c->to_number<double>();
  }
}

std::string provider_error_message(std::string_view body) {
  boost::system::error_code ec;
  const auto root = json::parse(body, ec);
  std::string message = ec ? std::string() : string_at(root, {"error", "message"});
  if (message.empty() && !ec && root.is_object()) message = string_at(root, {"message"});
  if (message.empty()) message = std::string(body.substr(0, 300));
  for (auto& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

}  // namespace errand::broker
