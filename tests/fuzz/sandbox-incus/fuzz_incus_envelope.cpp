// libFuzzer target for the readers of incusd's answers: whatever bytes come back on the socket,
// the client must take them or refuse them with a sentence naming the request, never crash.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "plugins/sandbox-incus/client/envelope.hpp"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace errand::incus;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const unsigned status = size > 0 ? 100u + data[0] % 5 * 100u : 200u;
  const auto envelope = parse_envelope("GET /fuzz", status, bytes);
  if (envelope) {
    check(envelope->type == Envelope::Type::sync || !envelope->operation_id.empty());
    check(envelope->type == Envelope::Type::sync || envelope->metadata.is_object());
  } else {
    check(envelope.error().message.find("GET /fuzz") != std::string::npos);
  }
  const auto waited = parse_wait_answer("POST /fuzz", "op", status, bytes);
  if (!waited) check(!waited.error().message.empty());
  return 0;
}
