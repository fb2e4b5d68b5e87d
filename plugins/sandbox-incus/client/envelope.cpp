#include "plugins/sandbox-incus/client/envelope.hpp"

#include <fmt/format.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace errand::incus {

namespace json = boost::json;

namespace {

constexpr std::size_t kQuotedBodyLimit = 200;

// A body quoted in an error message is cut short: an HTML page or a megabyte of garbage says
// no more in full than in its first line.
std::string quoted(std::string_view body) {
  if (body.size() <= kQuotedBodyLimit) return fmt::format("\"{}\"", body);
  return fmt::format("\"{}…\" ({} bytes)", body.substr(0, kQuotedBodyLimit), body.size());
}

std::string string_member(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

std::int64_t integer_member(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr) return 0;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) return static_cast<std::int64_t>(value->get_uint64());
  return 0;
}

sdk::Error::Kind kind_of_http_error(std::int64_t code) {
  if (code == 404) return sdk::Error::Kind::not_found;
  if (code == 403 || code == 400 || code == 409) return sdk::Error::Kind::refused;
  if (code == 503) return sdk::Error::Kind::unavailable;
  return sdk::Error::Kind::failed;
}

}  // namespace

std::string operation_id_of(std::string_view operation_url) {
  constexpr std::string_view prefix = "/1.0/operations/";
  if (operation_url.substr(0, prefix.size()) != prefix) return {};
  const auto id = operation_url.substr(prefix.size());
  if (id.find_first_of("/?") != std::string_view::npos) return {};
  return std::string(id);
}

namespace {

sdk::Result<json::object> read_envelope(std::string_view what, unsigned http_status,
                                        std::string_view body) {
  boost::system::error_code ec;
  json::value document = json::parse(body, ec);
  if (ec)
    return sdk::make_error(
        fmt::format("Incus answered {} with HTTP {} and a body that is not JSON "
                    "({}): {}",
                    what, http_status, ec.message(), quoted(body)));
  if (!document.is_object())
    return sdk::make_error(
        fmt::format("Incus answered {} with HTTP {} and JSON that is not an envelope object: {}",
                    what, http_status, quoted(body)));
  return std::move(document.get_object());
}

struct ErrorEnvelope {
  std::int64_t code = 0;
  std::string text;
};

ErrorEnvelope error_of(const json::object& object) {
  auto text = string_member(object, "error");
  if (text.empty()) text = "it gave no reason";
  return {integer_member(object, "error_code"), std::move(text)};
}

}  // namespace

sdk::Result<Envelope> parse_envelope(std::string_view what, unsigned http_status,
                                     std::string_view body) {
  auto read = read_envelope(what, http_status, body);
  if (!read) return read.error();
  auto& object = *read;
  const auto type = string_member(object, "type");
  if (type == "error") {
    const auto error = error_of(object);
    return sdk::make_error(fmt::format("Incus refused {}: {} (error {}, HTTP {})", what, error.text,
                                       error.code, http_status),
                           kind_of_http_error(error.code != 0 ? error.code : http_status));
  }
  if (type != "sync" && type != "async")
    return sdk::make_error(
        fmt::format("Incus answered {} with HTTP {} and an envelope of unknown type \"{}\": {}",
                    what, http_status, type, quoted(body)));
  if (http_status >= 400)
    return sdk::make_error(fmt::format("Incus answered {} with HTTP {} but a {} envelope: {}", what,
                                       http_status, type, quoted(body)));
  Envelope envelope;
  envelope.type = type == "sync" ? Envelope::Type::sync : Envelope::Type::async;
  if (auto* metadata = object.if_contains("metadata")) envelope.metadata = std::move(*metadata);
  if (envelope.type == Envelope::Type::async) {
    envelope.operation_id = operation_id_of(string_member(object, "operation"));
    if (envelope.operation_id.empty())
      return sdk::make_error(fmt::format(
          "Incus answered {} with an operation but no /1.0/operations/<id> to wait on: {}", what,
          quoted(body)));
    if (!envelope.metadata.is_object())
      return sdk::make_error(
          fmt::format("Incus answered {} with an operation whose description is not an object: {}",
                      what, quoted(body)));
  }
  return envelope;
}

sdk::Result<json::value> finished_operation_metadata(std::string_view what,
                                                     const json::value& operation) {
  if (!operation.is_object())
    return sdk::make_error(
        fmt::format("Incus described the operation of {} with something that is not an object: {}",
                    what, quoted(json::serialize(operation))));
  const auto& object = operation.get_object();
  const auto code = integer_member(object, "status_code");
  const auto status = string_member(object, "status");
  const auto id = string_member(object, "id");
  if (code == 200) {
    const auto* metadata = object.if_contains("metadata");
    return metadata ? *metadata : json::value();
  }
  if (code == 400) {
    const auto err = string_member(object, "err");
    return sdk::make_error(fmt::format("Incus could not carry out {}: {} (operation {} failed)",
                                       what, err.empty() ? std::string("it gave no reason") : err,
                                       id));
  }
  if (code == 401)
    return sdk::make_error(fmt::format("the operation {} of {} was cancelled", id, what),
                           sdk::Error::Kind::cancelled);
  // Below 200 are the states of an operation under way (created, running, cancelling, ...).
  if (code > 0 && code < 200)
    return sdk::make_error(
        fmt::format("the operation {} of {} had not finished when the wait ended (status {})", id,
                    what, status),
        sdk::Error::Kind::unavailable);
  return sdk::make_error(fmt::format("the operation {} of {} ended with an unknown status {} ({})",
                                     id, what, code, status));
}

sdk::Result<json::value> parse_wait_answer(std::string_view what, std::string_view operation_id,
                                           unsigned http_status, std::string_view body) {
  const auto waited = fmt::format("the wait on operation {} of {}", operation_id, what);
  auto read = read_envelope(waited, http_status, body);
  if (!read) return read.error();
  auto& object = *read;
  const auto type = string_member(object, "type");
  if (type == "error") {
    const auto error = error_of(object);
    // The wait's own timeout ends it with Go's context error, not the operation's.
    if (error.text.find("context deadline exceeded") != std::string::npos)
      return sdk::make_error(fmt::format("the operation {} of {} had not finished by its deadline",
                                         operation_id, what),
                             sdk::Error::Kind::unavailable);
    if (error.code == 404)
      return sdk::make_error(fmt::format("Incus no longer knows the operation {} of {}: {}",
                                         operation_id, what, error.text),
                             sdk::Error::Kind::not_found);
    return sdk::make_error(fmt::format("Incus could not carry out {}: {} (operation {})", what,
                                       error.text, operation_id));
  }
  if (type != "sync")
    return sdk::make_error(fmt::format("Incus answered {} with HTTP {} and a {} envelope: {}",
                                       waited, http_status, type.empty() ? "typeless" : type,
                                       quoted(body)));
  auto* operation = object.if_contains("metadata");
  if (operation == nullptr)
    return sdk::make_error(
        fmt::format("Incus answered {} without the operation: {}", waited, quoted(body)));
  return finished_operation_metadata(what, *operation);
}

}  // namespace errand::incus
