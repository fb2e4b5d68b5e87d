#include "plugins/broker/provider/provider_call.hpp"

#include <fmt/format.h>

#include "plugins/broker/admission/path_rules.hpp"
#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/provider/key_scrubber.hpp"
#include "plugins/broker/relay/client_replies.hpp"

namespace errand::broker {
namespace asio = boost::asio;

std::string ProviderCall::upstream_path() const {
  const std::string base = provider.upstream ? provider.upstream->base_path : std::string();
  return base + (rest_path == "/" && !base.empty() ? std::string() : rest_path);
}

std::string ProviderCall::receipt_path() const {
  std::string decoded = percent_decode_lenient(upstream_path());
  decoded = scrub_whole(decoded, provider.credential);
  decoded = scrub_whole(decoded, session.stand_in(provider.name));
  decoded = session.core().scrub_secrets(decoded);
  return receipt_path_text(decoded);
}

void ProviderCall::record(sdk::ProviderReceipt::Outcome outcome, int status,
                          std::uint64_t unrecorded) const {
  sdk::ProviderReceipt r;
  r.ended_at = session.core().wall_now();
  r.session_id = session.id();
  r.provider = provider.name;
  r.credential_name = provider.credential_name;
  r.host = provider.upstream ? provider.upstream->host : std::string();
  r.method = sdk::receipt_method(method);
  r.path = receipt_path();
  r.query_length = query.size();
  r.status = status;
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  r.bytes_up = bytes_up;
  r.bytes_down = bytes_down;
  r.outcome = outcome;
  r.unrecorded_denials = unrecorded;
  session.core().record(r);
}

std::string ProviderCall::what() const {
  return fmt::format("provider {}: {} {}", provider.name, method, receipt_path());
}

asio::awaitable<bool> ProviderCall::refuse(Connection& connection,
                                           sdk::ProviderReceipt::Outcome outcome, unsigned status,
                                           std::string_view body, bool keep_alive) const {
  record(outcome, static_cast<int>(status));
  co_return co_await send_reply(connection, status, body, keep_alive);
}

}  // namespace errand::broker
