#include "core/remote/call/hello_exchange.hpp"

#include <fmt/format.h>

#include <string>
#include <variant>

#include "core/remote/call/runner_errors.hpp"
#include "core/remote/call/runner_waits.hpp"

namespace errand::remote {

namespace {

constexpr std::string_view kSameProtocolAdvice =
    "the caller and the runner need errand versions that speak the same protocol";

}  // namespace

sdk::Result<void> exchange_hello(RunnerChannel& channel, std::string_view program,
                                 int interrupts_fd) {
  channel.send(wire::Hello{.protocol = wire::kProtocolVersion,
                           .program = program.empty() ? "errand" : std::string(program)});
  if (auto waited = await_runner_message(channel, interrupts_fd, "before the runner said hello");
      !waited)
    return waited;
  auto frame = channel.take_frame();
  auto message = wire::decode_message(*frame);
  if (!message) {
    // The runner's hello naming another protocol version is refused by the decoder itself,
    // which says which versions the two sides speak.
    if (frame->type == wire::FrameType::hello)
      return sdk::make_error(fmt::format("the runner's hello cannot be taken ({}); {}",
                                         message.error().message, kSameProtocolAdvice));
    return sdk::make_error("the runner sent a message this errand cannot read: " +
                           message.error().message);
  }
  if (std::holds_alternative<wire::Hello>(*message)) return {};
  if (const auto* refused = std::get_if<wire::Refused>(&*message)) {
    auto error = refusal_error("this errand's hello", *refused);
    if (refused->code == wire::RefusalCode::protocol)
      error.message += fmt::format("; {}", kSameProtocolAdvice);
    return error;
  }
  return unexpected_message(*message, "instead of hello");
}

}  // namespace errand::remote
