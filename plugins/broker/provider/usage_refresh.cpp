#include "plugins/broker/provider/usage_refresh.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "plugins/broker/broker_core.hpp"
#include "plugins/broker/provider/answer_stream.hpp"
#include "plugins/broker/provider/dialect_requests.hpp"
#include "plugins/broker/provider/own_provider_call.hpp"

namespace errand::broker {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using steady = std::chrono::steady_clock;
using ReceiptOutcome = sdk::ProviderReceipt::Outcome;
using Kind = sdk::Error::Kind;

namespace {

// The settings the probe's addresses are judged by: the egress the core decided, as a
// session's would be, since the broker reads no sandbox.* key itself.
sdk::Result<std::shared_ptr<const BrokerSettings>> egress_for_probe(
    BrokerCore& core, const sdk::BrokerSessionSpec& egress) {
  auto settings = settings_for_session(*core.settings(), egress);
  if (!settings) return settings.error();
  return std::make_shared<const BrokerSettings>(std::move(*settings));
}

// What the probe's answer body held, for an error's message; bounded.
asio::awaitable<std::string> answer_body(OwnProviderCall& call) {
  std::string body;
  while (body.size() < 16 * 1024) {
    auto piece = co_await call.read_some();
    body += piece.bytes;
    if (piece.done || !piece.failure.empty()) break;
  }
  co_return body;
}

asio::awaitable<sdk::Result<sdk::ProviderUsage>> probe(std::shared_ptr<BrokerCore> core,
                                                       std::string name,
                                                       sdk::BrokerSessionSpec spec) {
  if (core->stopped()) co_return sdk::make_error("the broker is stopping", Kind::cancelled);
  auto egress = egress_for_probe(*core, spec);
  if (!egress) co_return egress.error();
  const auto found = (*egress)->providers.find(name);
  if (found == (*egress)->providers.end())
    co_return sdk::make_error(
        fmt::format("provider {} is not one the broker holds a key for, so it cannot be asked "
                    "for its usage",
                    name),
        Kind::not_found);
  const ProviderSettings& provider = found->second;
  if (!provider.upstream)
    co_return sdk::make_error(fmt::format("provider {} is not called: {}", name, provider.refusal),
                              Kind::refused);
  if (provider.dialect == Dialect::unknown)
    co_return sdk::make_error(
        fmt::format("provider {} has neither a kind nor a placement, so the broker cannot tell "
                    "which API to ask it in; set agent.providers.{}.kind",
                    name, name),
        Kind::refused);
  const auto& settings = *core->settings();
  const std::string model = !settings.start_model.empty() ? settings.start_model
                            : settings.delegate           ? settings.delegate->model
                                                          : std::string();
  if (model.empty())
    co_return sdk::make_error(
        fmt::format("there is no model to ask provider {} with; set agent.model", name),
        Kind::refused);

  const auto deadline_at = steady::now() + kUsageProbeDeadline;
  asio::steady_timer timer(co_await asio::this_coro::executor, deadline_at);
  auto waited = co_await (core->pacer().acquire(name, provider.max_concurrent) ||
                          timer.async_wait(asio::as_tuple(asio::use_awaitable)));
  const auto request = probe_request(provider.dialect, model);
  // Under no session: its receipt's empty session is the daemon's own.
  OwnProviderCall call(*core, provider, **egress, std::string(), request);
  const std::string timed_out =
      fmt::format("provider {} did not answer within {} s", name, kUsageProbeDeadline.count());
  if (waited.index() == 1) {
    call.record(ReceiptOutcome::interrupted, 0);
    co_return sdk::make_error(timed_out, Kind::unavailable);
  }
  const auto slot = std::move(std::get<0>(waited));
  call.close_when(timer);
  if (auto failure = co_await call.send(deadline_at)) {
    call.record(ReceiptOutcome::upstream_unreachable, 0);
    co_return sdk::make_error(call.deadline_passed() ? timed_out : *failure, Kind::unavailable);
  }
  if (auto failure = co_await call.read_head()) {
    call.record(call.status() == 0 ? ReceiptOutcome::upstream_unreachable : ReceiptOutcome::refused,
                static_cast<int>(call.status()));
    co_return sdk::make_error(call.deadline_passed() ? timed_out : *failure, Kind::unavailable);
  }
  const auto body = co_await answer_body(call);
  timer.cancel();
  call.close();
  const unsigned status = call.status();
  call.record(ReceiptOutcome::completed, static_cast<int>(status));
  if (status < 200 || status >= 300)
    co_return sdk::make_error(
        fmt::format("provider {} answered {}: {}", name, status, provider_error_message(body)),
        status == 429 ? Kind::limit : Kind::refused);
  if (!call.usage())
    co_return sdk::make_error(
        fmt::format("provider {} answered without any limit headers the broker reads, so "
                    "there is nothing to show",
                    name),
        Kind::not_found);
  core->log().info("provider {}: usage refreshed with one call to {}", name, model);
  co_return *call.usage();
}

}  // namespace

asio::awaitable<sdk::Result<sdk::ProviderUsage>> refresh_provider_usage(
    std::shared_ptr<BrokerCore> core, std::string provider, sdk::BrokerSessionSpec egress) {
  auto strand = core->strand();
  co_return co_await asio::co_spawn(
      strand, probe(std::move(core), std::move(provider), std::move(egress)), asio::use_awaitable);
}

}  // namespace errand::broker
