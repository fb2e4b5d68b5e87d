// bench_chat: how long 10,000 lines of agent output take to reach one Discord thread through
// the fake server, which enforces Discord's per-channel limit (5 messages per 5 s by default).
// The transport's post() packs lines into messages of up to 2000 characters and paces them by
// the bucket headers; the naive peer posts one message per line through the same transport.
// The naive run is measured over the first --naive-lines lines (31) and extrapolated from its
// rate, because at one message a second the full run would take hours. Not a test: it
// prints figures.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "fake_discord.hpp"
#include "plugins/chat-discord/discord_transport.hpp"
#include "tests/support/host_parts.hpp"

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

class IgnoreEvents final : public errand::sdk::ChatEvents {
 public:
  void on_message(const errand::sdk::InboundMessage&) noexcept override {}
  void on_message_deleted(const errand::sdk::MessageDeleted&) noexcept override {}
  void on_thread_closed(const errand::sdk::ThreadClosed&) noexcept override {}
  void on_command(const errand::sdk::CommandCall&) noexcept override {}
  void on_reaction(const errand::sdk::ReactionEvent&) noexcept override {}
  void on_connection(errand::sdk::ConnectionState, const std::string&) noexcept override {}
};

double seconds(clock_type::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::size_t number_after(int& i, int argc, char** argv) {
  if (i + 1 >= argc) {
    std::cerr << "bench_chat: " << argv[i] << " needs a number\n";
    std::exit(2);
  }
  return static_cast<std::size_t>(std::stoull(argv[++i]));
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t lines = 10000;
  std::size_t naive_lines = 31;
  std::size_t window_ms = 5000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--lines")
      lines = number_after(i, argc, argv);
    else if (arg == "--naive-lines")
      naive_lines = number_after(i, argc, argv);
    else if (arg == "--window-ms")
      window_ms = number_after(i, argc, argv);
    else {
      std::cerr << "usage: bench_chat [--lines N] [--naive-lines N] [--window-ms N]\n";
      return 2;
    }
  }

  errand::fake_discord::FakeOptions options;
  options.channel_window = std::chrono::milliseconds(window_ms);
  errand::fake_discord::FakeDiscord fake(options);

  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  errand::test::HostParts parts;
  const auto services = parts.services(io.get_executor(), nullptr,
                                       boost::json::object{{"chat",
                                                            {{"token", options.token},
                                                             {"channelId", options.channel_id},
                                                             {"apiBase", fake.api_base()},
                                                             {"gatewayUrl", fake.gateway_url()}}}});
  errand::discord::DiscordTransport transport(services);
  IgnoreEvents events;
  (void)transport.start(events);
  std::thread runner([&] { io.run(); });
  auto post = [&](const std::string& channel, std::string text) {
    errand::sdk::OutMessage message;
    message.text = std::move(text);
    return boost::asio::co_spawn(io, transport.post(channel, std::move(message)),
                                 boost::asio::use_future)
        .get();
  };

  std::string output;
  for (std::size_t i = 1; i <= lines; ++i) {
    char line[96];
    std::snprintf(line, sizeof line, "[%05zu] cc -c src/module_%05zu.c -o build/module_%05zu.o\n",
                  i, i % 997, i % 997);
    output += line;
  }

  const auto packed_thread = fake.create_thread("packed output");
  const auto start = clock_type::now();
  const auto packed = post(packed_thread, output);
  const auto packed_time = clock_type::now() - start;
  const auto packed_429 = fake.rate_limited_responses();
  if (!packed) {
    std::cerr << "bench_chat: posting failed: " << packed.error().message << "\n";
    return 1;
  }

  // Messages leave in bursts of one window's allowance, so the rate is taken from the first
  // message of the first window to the first of a later one: 31 lines span six whole windows of
  // five messages. The full run is extrapolated from that rate.
  const auto naive_thread = fake.create_thread("one message per line");
  std::vector<clock_type::time_point> sent;
  const auto naive_start = clock_type::now();
  std::size_t at = 0;
  for (std::size_t i = 0; i < naive_lines && at < output.size(); ++i) {
    const auto end = output.find('\n', at);
    if (!post(naive_thread, output.substr(at, end - at))) return 1;
    sent.push_back(clock_type::now());
    at = end + 1;
  }
  const auto naive_time = sent.back() - naive_start;
  const auto naive_429 = fake.rate_limited_responses() - packed_429;
  const double steady_rate =
      static_cast<double>(sent.size() - 1) / seconds(sent.back() - sent.front());
  const double naive_total = static_cast<double>(lines) / steady_rate;

  transport.stop();
  work.reset();
  std::this_thread::sleep_for(50ms);
  io.stop();
  runner.join();

  std::printf(
      "bench_chat: %zu lines (%zu bytes) into one thread; fake limit 5 messages per %zu ms\n",
      lines, output.size(), window_ms);
  std::printf(
      "errand post() (lines packed into <=2000-char messages): %zu messages, %zu x 429, %.1f s\n",
      packed->size(), packed_429, seconds(packed_time));
  std::printf(
      "naive, one message per line: %zu lines in %.1f s (%zu x 429), %.2f lines/s over whole "
      "windows; "
      "extrapolated to %zu lines: %.0f s\n",
      sent.size(), seconds(naive_time), naive_429, steady_rate, lines, naive_total);
  std::printf("ratio naive/errand: %.1fx the time, %.1fx the messages\n",
              naive_total / seconds(packed_time),
              static_cast<double>(lines) / static_cast<double>(packed->size()));
  return 0;
}
