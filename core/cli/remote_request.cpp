#include "core/cli/remote_request.hpp"

#include <variant>

#include "core/remote/call/hello_exchange.hpp"
#include "core/remote/call/runner_channel.hpp"
#include "core/remote/call/runner_waits.hpp"

namespace errand::cli {

sdk::Result<boost::json::object> ask_runner(const remote::RunnerLink& link,
                                            const remote::wire::Request& request,
                                            int interrupts_fd) {
  auto channel = remote::RunnerChannel::open(link.read_fd, link.write_fd);
  if (!channel) return channel.error();
  if (auto greeted = remote::exchange_hello(*channel, link.program, interrupts_fd); !greeted)
    return greeted.error();
  channel->send(request);
  constexpr std::string_view kBefore = "before the runner answered";
  if (auto arrived = remote::await_runner_message(*channel, interrupts_fd, kBefore); !arrived)
    return arrived.error();
  auto message = channel->take();
  if (!message) return message.error();
  if (!*message)
    return sdk::make_error(std::string("the connection ended ") + std::string(kBefore));
  if (auto* answer = std::get_if<remote::wire::Answer>(&**message)) return std::move(answer->body);
  if (auto* refused = std::get_if<remote::wire::Refused>(&**message)) {
    const auto kind = refused->code == remote::wire::RefusalCode::unknown_job
                          ? sdk::Error::Kind::not_found
                          : sdk::Error::Kind::refused;
    return sdk::make_error("the runner refused: " + refused->message, kind);
  }
  return sdk::make_error("the runner answered with a message other than an answer or a refusal");
}

}  // namespace errand::cli
