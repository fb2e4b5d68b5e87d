#include "plugins/broker/relay/upstream_dial.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <set>

namespace errand::broker {
namespace asio = boost::asio;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;

namespace {

std::string endpoint_text(const tcp::endpoint& ep) {
  if (ep.address().is_v6()) return fmt::format("[{}]:{}", ep.address().to_string(), ep.port());
  return fmt::format("{}:{}", ep.address().to_string(), ep.port());
}

}  // namespace

asio::awaitable<DialResult> connect_upstream(Resolver& resolver, const UpstreamTarget& target,
                                             const DialDeadlines& deadlines) {
  DialResult out;
  std::vector<asio::ip::address> judged;
  if (target.host_is_literal) {
    const auto address = asio::ip::make_address(target.host);
    const auto admission = target.policy.admit(address);
    if (!admission.admitted) {
      out.failure = DialFailure::not_public;
      out.detail = fmt::format("{} is {}", target.host, admission.category);
      out.liftable = admission.liftable;
      co_return out;
    }
    judged.push_back(address);
  } else {
    LookupRequest request{target.host, target.session_id, target.lane,
                          std::chrono::steady_clock::now() + deadlines.lookup, target.owner};
    auto looked_up = co_await resolve_within(resolver, std::move(request));
    if (looked_up.timed_out) {
      out.failure = DialFailure::lookup_timeout;
      out.detail = fmt::format("the lookup of {} took longer than {} ms", target.host,
                               deadlines.lookup.count());
      co_return out;
    }
    if (looked_up.resolution.refused) {
      out.failure = DialFailure::lookup_refused;
      out.detail = looked_up.resolution.failure;
      co_return out;
    }
    if (looked_up.resolution.addresses.empty()) {
      out.failure = DialFailure::lookup_failed;
      out.detail = looked_up.resolution.failure;
      co_return out;
    }
    std::set<std::string> refused;
    bool all_liftable = true;
    for (const auto& address : looked_up.resolution.addresses) {
      const auto admission = target.policy.admit(address);
      if (admission.admitted) {
        judged.push_back(address);
      } else {
        all_liftable = all_liftable && admission.liftable;
        refused.insert(fmt::format("{} ({})", address.to_string(), admission.category));
      }
    }
    if (judged.empty()) {
      out.failure = DialFailure::not_public;
      out.liftable = all_liftable;
      std::string list;
      for (const auto& r : refused) list += (list.empty() ? "" : ", ") + r;
      out.detail = fmt::format("{} resolves only to {}", target.host, list);
      co_return out;
    }
  }

  auto executor = co_await asio::this_coro::executor;
  const auto deadline = std::chrono::steady_clock::now() + deadlines.dial;
  std::string errors;
  for (const auto& address : judged) {
    // Judged again as it is dialled, so the check and the connection are about one address
    // (the host's own addresses may have changed since).
    const auto admission = target.policy.admit(address);
    if (!admission.admitted) continue;
    const tcp::endpoint endpoint(address, target.port);
    tcp::socket socket(executor);
    asio::steady_timer timer(executor);
    timer.expires_at(deadline);
    auto outcome = co_await (socket.async_connect(endpoint, asio::as_tuple(asio::use_awaitable)) ||
                             timer.async_wait(asio::as_tuple(asio::use_awaitable)));
    if (outcome.index() == 1) {
      errors +=
          fmt::format("{}{}: no answer before the {} ms dial deadline", errors.empty() ? "" : "; ",
                      endpoint_text(endpoint), deadlines.dial.count());
      break;
    }
    const auto [ec] = std::get<0>(outcome);
    if (!ec) {
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      out.socket.emplace(std::move(socket));
      out.endpoint = endpoint;
      if (admission.lifted_by != nullptr) out.lifted_by = admission.lifted_by->text;
      co_return out;
    }
    errors +=
        fmt::format("{}{}: {}", errors.empty() ? "" : "; ", endpoint_text(endpoint), ec.message());
  }
  out.failure = DialFailure::unreachable;
  out.detail = errors.empty() ? "no address could be dialled" : errors;
  co_return out;
}

}  // namespace errand::broker
