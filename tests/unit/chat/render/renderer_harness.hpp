#pragma once

#include "core/chat/render/thread_renderer.hpp"
#include "core/daemon/system_clock.hpp"
#include "tests/support/scrub_witness.hpp"
#include "tests/unit/chat/render/recording_transport.hpp"

#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <functional>
#include <memory>

namespace errand::test {

inline constexpr std::string_view kConfiguredSecret = "configured-secret-value";
// Shaped like a broker's stand-in: errand-session- and 64 hex digits.
inline const std::string kStandIn =
    "errand-session-" + std::string(64, 'a').replace(10, 6, "0123ff");

// A renderer on a strand of its own io_context, writing to a recording transport, with one
// configured secret and one minted stand-in to scrub by the daemon's scrubber, watched.
struct RendererHarness {
  explicit RendererHarness(chat::RenderSettings settings = {}, std::size_t max_chars = 2000,
                           std::chrono::milliseconds min_edit = std::chrono::milliseconds(1000))
      : strand(boost::asio::make_strand(io)), secrets({std::string(kConfiguredSecret)}) {
    secrets.add(kStandIn);
    transport.limits_value.max_message_chars = max_chars;
    transport.limits_value.min_edit_interval = min_edit;
    renderer = chat::ThreadRenderer::create(
        strand,
        chat::RendererDeps{transport, secrets, clock,
                           std::make_shared<spdlog::logger>(
                               "render", std::make_shared<spdlog::sinks::null_sink_mt>()),
                           nullptr},
        "thread-1", settings);
  }

  // Runs body on the renderer's strand, then drains the renderer, then returns.
  void run(std::function<boost::asio::awaitable<void>(chat::ThreadRenderer&)> body) {
    boost::asio::co_spawn(
        strand,
        [this, body]() -> boost::asio::awaitable<void> {
          co_await body(*renderer);
          co_await renderer->drain();
        },
        boost::asio::detached);
    io.restart();
    io.run();
  }

  boost::asio::awaitable<void> pause(std::chrono::milliseconds for_how_long) {
    boost::asio::steady_timer timer(strand, for_how_long);
    co_await timer.async_wait(boost::asio::use_awaitable);
  }

  boost::asio::io_context io;
  boost::asio::strand<boost::asio::io_context::executor_type> strand;
  RecordingTransport transport;
  ScrubWitness secrets;
  daemon::SystemClock clock;
  std::shared_ptr<chat::ThreadRenderer> renderer;
};

}  // namespace errand::test
