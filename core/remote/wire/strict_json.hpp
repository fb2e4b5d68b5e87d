#pragma once

// Strict reading of a JSON message payload: one object, no key twice at any depth, only the
// keys the message has, each field of the type it must be. Every refusal starts with the
// message's name and names the field.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::remote::wire {

// The payload as a JSON object, refusing text that is not JSON (or nests deeper than Boost.JSON's
// default 32 levels), is not an object, or repeats a key in any object: which of two values a
// reader keeps is not something to leave open.
sdk::Result<boost::json::object> parse_payload_object(std::string_view payload,
                                                      std::string_view message);

// Reads one message's fields. A read that finds a problem records it (only the first one is
// kept) and returns an empty value, so a decoder reads all its fields and then asks finish().
class FieldReader {
 public:
  // Refuses (as the first problem) a key not among `keys`.
  FieldReader(const boost::json::object& object, std::string_view message,
              std::initializer_list<std::string_view> keys);

  bool has(std::string_view key) const;

  std::string string(std::string_view key);
  bool boolean(std::string_view key);
  std::uint64_t unsigned_integer(std::string_view key);
  // An integer in [min, max].
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
  // A job id (is_job_id).
  std::string job_id(std::string_view key);
  // The element is null when the field is missing or not of the kind.
  const boost::json::array* array(std::string_view key);
  const boost::json::object* object(std::string_view key);

  // Records a problem the decoder found itself: "<message>: <detail>".
  void refuse(std::string detail);
  bool failed() const noexcept { return problem_.has_value(); }
  // The first problem, if any.
  sdk::Result<void> finish() const;

 private:
  using KindCheck = bool (boost::json::value::*)() const noexcept;
  // The field's value if it is present and of the expected kind, else null (problem recorded).
  const boost::json::value* field(std::string_view key, std::string_view expected,
                                  KindCheck is_expected);

  const boost::json::object& object_;
  std::string message_;
  std::optional<std::string> problem_;
};

}  // namespace errand::remote::wire
