// libFuzzer target for the request-head parser: whatever bytes a sandboxed process sends, the
// broker must classify or refuse them without crashing, and what it accepts must be
// self-consistent.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "plugins/broker/admission/host_names.hpp"
#include "plugins/broker/admission/path_rules.hpp"
#include "plugins/broker/relay/request_head.hpp"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace errand::broker;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto parsed = parse_request_head(bytes);
  if (!parsed) return 0;
  const auto* request = std::get_if<ClassifiedRequest>(&*parsed);
  if (request == nullptr) {
    check(!std::get<RequestRefusal>(*parsed).reason.empty());
    return 0;
  }
  switch (request->form) {
    case RequestForm::connect:
    case RequestForm::absolute_http: {
      check(!request->host.empty());
      check(request->port != 0);
      // A normalised host normalises to itself, so the allowlist and the dialler agree.
      const auto again = normalise_host(request->host);
      check(again.has_value() && *again == request->host);
      check(request->host_is_literal == is_ip_literal(request->host));
      if (request->form == RequestForm::absolute_http)
        check(request->origin_target.starts_with("/"));
      break;
    }
    case RequestForm::origin: {
      check(request->origin_target.starts_with("/"));
      const auto split = split_target(request->origin_target);
      if (check_forwardable_path(split.path)) {
        // An accepted path never decodes to a traversal or a new separator.
        check(split.path.find("/../") == std::string_view::npos);
        check(split.path.find("//") == std::string_view::npos);
      }
      check(receipt_path_text(percent_decode_lenient(split.path)).size() <= 256);
      break;
    }
  }
  return 0;
}
