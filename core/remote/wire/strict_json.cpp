#include "core/remote/wire/strict_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <limits>
#include <set>

#include "common/json_kind_phrase.hpp"
#include "common/json_repeated_keys.hpp"
#include "core/remote/jobs/job_id.hpp"
#include "core/remote/quoted_text.hpp"

namespace errand::remote::wire {

namespace json = boost::json;

sdk::Result<json::object> parse_payload_object(std::string_view payload, std::string_view message) {
  json::error_code ec;
  auto value = json::parse(json::string_view(payload.data(), payload.size()), ec);
  if (ec)
    return sdk::refusal(fmt::format("{}: the payload is not JSON: {}", message, ec.message()));
  if (!value.is_object())
    return sdk::refusal(fmt::format("{}: the payload must be a JSON object, not {}", message,
                                    common::json_kind_phrase(value)));
  if (const auto repeated = common::find_repeated_json_keys(payload, common::JsonDialect::strict);
      !repeated.empty())
    return sdk::refusal(fmt::format("{}: the key {} appears twice in one object", message,
                                    quote_text(repeated.front().key)));
  return std::move(value.as_object());
}

FieldReader::FieldReader(const json::object& object, std::string_view message,
                         std::initializer_list<std::string_view> keys)
    : object_(object), message_(message) {
  for (const auto& entry : object_) {
    const std::string_view key(entry.key().data(), entry.key().size());
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      refuse(fmt::format("unknown key {}", quote_text(key)));
      return;
    }
  }
}

bool FieldReader::has(std::string_view key) const {
  return object_.contains(json::string_view(key.data(), key.size()));
}

void FieldReader::refuse(std::string detail) {
  if (!problem_) problem_ = fmt::format("{}: {}", message_, detail);
}

sdk::Result<void> FieldReader::finish() const {
  if (problem_) return sdk::refusal(*problem_);
  return {};
}

const json::value* FieldReader::field(std::string_view key, std::string_view expected,
                                      KindCheck is_expected) {
  const auto* value = object_.if_contains(json::string_view(key.data(), key.size()));
  if (value == nullptr) {
    refuse(fmt::format("\"{}\" is missing", key));
    return nullptr;
  }
  if (!(value->*is_expected)()) {
    refuse(
        fmt::format("\"{}\" must be {}, not {}", key, expected, common::json_kind_phrase(*value)));
    return nullptr;
  }
  return value;
}

std::string FieldReader::string(std::string_view key) {
  const auto* value = field(key, "a string", &json::value::is_string);
  if (value == nullptr) return {};
  return std::string(value->get_string());
}

bool FieldReader::boolean(std::string_view key) {
  const auto* value = field(key, "a boolean", &json::value::is_bool);
  return value != nullptr && value->get_bool();
}

std::uint64_t FieldReader::unsigned_integer(std::string_view key) {
  const auto* value = field(key, "a number", &json::value::is_number);
  if (value == nullptr) return 0;
  if (value->is_uint64()) return value->get_uint64();
  if (value->is_int64() && value->get_int64() >= 0)
    return static_cast<std::uint64_t>(value->get_int64());
  refuse(fmt::format("\"{}\" must be an integer from 0 to {}, not {}", key,
                     std::numeric_limits<std::uint64_t>::max(), json::serialize(*value)));
  return 0;
}

std::int64_t FieldReader::integer(std::string_view key, std::int64_t min, std::int64_t max) {
  const auto* value = field(key, "a number", &json::value::is_number);
  if (value == nullptr) return 0;
  if (value->is_int64() && value->get_int64() >= min && value->get_int64() <= max)
    return value->get_int64();
  refuse(fmt::format("\"{}\" must be an integer from {} to {}, not {}", key, min, max,
                     json::serialize(*value)));
  return 0;
}

std::string FieldReader::job_id(std::string_view key) {
  auto text = string(key);
  if (failed() || is_job_id(text)) return text;
  refuse(fmt::format("\"{}\" is not a job id: {}", key, quote_text(text)));
  return {};
}

const json::array* FieldReader::array(std::string_view key) {
  const auto* value = field(key, "an array", &json::value::is_array);
  return value == nullptr ? nullptr : &value->get_array();
}

const json::object* FieldReader::object(std::string_view key) {
  const auto* value = field(key, "an object", &json::value::is_object);
  return value == nullptr ? nullptr : &value->get_object();
}

}  // namespace errand::remote::wire
