// libFuzzer target for one text frame from Discord's gateway: the frame is read as the gateway
// client reads it, and its data goes through every reader the transport applies to a dispatch
// (READY, messages, commands, reactions, a guild's channels, users). Whatever a server sends, the
// transport must neither crash nor throw out of a reader, which would drop the event.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "plugins/chat-discord/event_translate.hpp"
#include "plugins/chat-discord/gateway_frames.hpp"
#include "plugins/chat-discord/gateway_protocol.hpp"
#include "plugins/chat-discord/service_url.hpp"

namespace {

namespace json = boost::json;
using namespace errand::discord;

constexpr const char* kSelfId = "1100000000000000001";

void check(bool condition) {
  if (!condition) std::abort();
}

void read_dispatch(const json::object& d) {
  const auto ready = read_ready(d);
  // A resume URL READY keeps is one a resume can connect to: a target that starts with '/' and
  // asks for errand's own version and encoding last.
  if (ready.resume_url) {
    const auto endpoint = parse_service_url(*ready.resume_url, UrlRole::gateway);
    check(endpoint.has_value());
    check(endpoint->target().starts_with("/"));
    check(gateway_query(endpoint->query).ends_with("v=10&encoding=json"));
  }
  if (const auto message = parse_message(d, kSelfId)) {
    check(!message->ref.message_id.empty() && !message->ref.channel_id.empty());
    (void)snowflake_time(message->ref.message_id);
  }
  if (const auto command = parse_command(d)) check(!command->id.empty() && !command->token.empty());
  (void)parse_reaction(d, true);
  for (const auto& place : guild_channels(d)) check(!place.id.empty());
  for (const auto* key : {"author", "user"})
    if (const auto* user = d.if_contains(key); user && user->is_object())
      (void)parse_user(user->as_object(), nullptr);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto frame = read_gateway_frame(text);
  if (!frame) return 0;
  const auto interval = heartbeat_interval_of(frame->data);
  check(interval >= std::chrono::milliseconds(1));
  // The heartbeat loop adds the interval, scaled by its jitter, to the clock.
  (void)(std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval * 0.999999));
  read_dispatch(frame->data);
  return 0;
}
