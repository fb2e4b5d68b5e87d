// fake-discord-server: the fake Discord as a process, for shell-driven end-to-end tests. It
// prints one JSON line with its URLs and ids, then serves until SIGINT or SIGTERM. Drive it
// through http://127.0.0.1:<port>/_control/... (see docs/discord.md).

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

#include <boost/json/serialize.hpp>

#include "fake_discord.hpp"

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_signal(int) {
  stop_requested = 1;
}

void usage() {
  std::cerr << "usage: fake-discord-server [--port N] [--token T] [--channel-id ID] "
               "[--guild-id ID] [--hello-interval-ms N] [--channel-window-ms N] "
               "[--no-message-content] [--url-shape no-path|trailing-slash|path|own-query]\n";
}

}  // namespace

int main(int argc, char** argv) {
  errand::fake_discord::FakeOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (arg == "--port")
        options.port = static_cast<std::uint16_t>(std::stoi(next()));
      else if (arg == "--token")
        options.token = next();
      else if (arg == "--channel-id")
        options.channel_id = next();
      else if (arg == "--guild-id")
        options.guild_id = next();
      else if (arg == "--hello-interval-ms")
        options.hello_interval = std::chrono::milliseconds(std::stoll(next()));
      else if (arg == "--channel-window-ms")
        options.channel_window = std::chrono::milliseconds(std::stoll(next()));
      else if (arg == "--no-message-content")
        options.message_content_allowed = false;
      else if (arg == "--url-shape") {
        const auto shape = next();
        if (shape == "no-path")
          options.url_shape = errand::fake_discord::UrlShape::no_path;
        else if (shape == "trailing-slash")
          options.url_shape = errand::fake_discord::UrlShape::trailing_slash;
        else if (shape == "path")
          options.url_shape = errand::fake_discord::UrlShape::path;
        else if (shape == "own-query")
          options.url_shape = errand::fake_discord::UrlShape::own_query;
        else {
          usage();
          return 2;
        }
      } else {
        usage();
        return 2;
      }
    } catch (const std::exception&) {
      std::cerr << "fake-discord-server: " << arg << " needs a number\n";
      return 2;
    }
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  errand::fake_discord::FakeDiscord fake(options);
  const std::string control = "http://127.0.0.1:" + std::to_string(fake.port()) + "/_control";
  std::cout << boost::json::serialize(
                   boost::json::object{{"apiBase", fake.api_base()},
                                       {"gatewayUrl", fake.gateway_url()},
                                       {"control", control},
                                       {"port", fake.port()},
                                       {"token", options.token},
                                       {"channelId", options.channel_id},
                                       {"guildId", options.guild_id},
                                       {"botUserId", options.bot_user_id},
                                       {"applicationId", options.application_id}})
            << std::endl;
  while (!stop_requested) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return 0;
}
