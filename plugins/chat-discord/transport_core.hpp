#pragma once

// Everything the Discord transport does, on one strand. DiscordTransport (the plugin class)
// hands each call to this object with co_spawn, so whatever executor the core calls from, the
// work runs here in order with the gateway's events; coroutines hold a shared_ptr to it, so it
// outlives the plugin object until the last one has finished. It is implemented in two files:
// the gateway's events (transport_core.cpp) and what the core asks it to post, edit, react,
// open, archive and fetch (transport_messages.cpp); slash commands are SlashCommands', and how
// a message is cut into Discord's pieces is message_pieces'.

#include <spdlog/logger.h>
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/strand.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <deque>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/host_services.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "plugins/chat-discord/channel_directory.hpp"
#include "plugins/chat-discord/delivered_ids.hpp"
#include "plugins/chat-discord/gateway_client.hpp"
#include "plugins/chat-discord/rest_client.hpp"
#include "plugins/chat-discord/settings.hpp"
#include "plugins/chat-discord/slash_commands.hpp"
#include "plugins/chat-discord/wake_list.hpp"

namespace errand::discord {

struct TransportTuning {
  GatewayTuning gateway;
  RestTuning rest;
  RateLimitTuning limits;
  std::size_t delivered_capacity = 10000;
  // Text needing more messages than this goes as a file when long_text_as_file is set.
  std::size_t max_messages_before_file = 3;
  sdk::TransportLimits limits_reported;
};

class TransportCore : public std::enable_shared_from_this<TransportCore> {
 public:
  TransportCore(const sdk::HostServices& services, DiscordSettings settings,
                TransportTuning tuning = {});
  ~TransportCore();

  boost::asio::any_io_executor strand() const { return strand_; }
  const TransportTuning& tuning() const noexcept { return tuning_; }

  // Thread-safe; both hop onto the strand.
  sdk::Result<void> start(sdk::ChatEvents& events);
  void stop();
  std::string self_id() const;

  // Strand-only from here on. Parameters are references: DiscordTransport keeps the values
  // alive until the coroutine ends (GCC 12 can destroy a by-value aggregate parameter of a
  // coroutine twice).
  boost::asio::awaitable<sdk::Result<sdk::ThreadRef>> open_thread(const sdk::MessageRef& from,
                                                                  const std::string& name);
  boost::asio::awaitable<sdk::Result<std::vector<sdk::MessageRef>>> post(
      const std::string& channel_id, const sdk::OutMessage& message);
  boost::asio::awaitable<sdk::Result<void>> edit(const sdk::MessageRef& ref,
                                                 const std::string& text);
  boost::asio::awaitable<sdk::Result<void>> remove(const sdk::MessageRef& ref);
  boost::asio::awaitable<sdk::Result<void>> react(const sdk::MessageRef& ref,
                                                  sdk::Reaction reaction, bool add);
  boost::asio::awaitable<sdk::Result<void>> archive_thread(const std::string& thread_id);
  SlashCommands& slash() noexcept { return slash_; }
  boost::asio::awaitable<sdk::Result<std::string>> fetch_attachment(
      const sdk::Attachment& attachment, std::size_t max_bytes);

  // For tests and the benchmark.
  const RateLimitStats& rate_stats() const noexcept { return rest_->rate_stats(); }
  const GatewayStats& gateway_stats() const noexcept { return gateway_->stats(); }

 private:
  struct Dispatch {
    std::string type;
    boost::json::object data;
    bool replayed = false;
  };

  void begin_on_strand(sdk::ChatEvents* events);
  void on_gateway_state(sdk::ConnectionState state, const std::string& detail);
  void on_rest_halt(const std::string& reason);
  boost::asio::awaitable<void> pump();
  boost::asio::awaitable<void> handle(Dispatch dispatch);
  boost::asio::awaitable<ChannelDirectory::Place> place_of(const std::string& channel_id);
  void learn_thread(const boost::json::object& channel);
  // Whether an archived THREAD_UPDATE is the echo of this transport's own archive_thread (which
  // it then forgets), rather than a person's.
  bool is_own_archive_echo(const std::string& thread_id);
  PieceLimits piece_limits() const {
    return {tuning_.limits_reported, tuning_.max_messages_before_file};
  }

  sdk::HostServices services_;
  std::shared_ptr<spdlog::logger> log_;
  DiscordSettings settings_;
  TransportTuning tuning_;
  boost::asio::any_io_executor strand_;
  std::shared_ptr<boost::asio::ssl::context> tls_;  // shared by REST, gateway and downloads
  std::shared_ptr<RestClient> rest_;
  std::shared_ptr<GatewayClient> gateway_;
  ChannelDirectory directory_;
  DeliveredIds delivered_;
  WakeList pump_wake_;
  std::deque<Dispatch> queue_;
  // Threads this transport archived itself, and when it asked: Discord echoes the archive as a
  // THREAD_UPDATE, which is not a person closing the thread. The core has recorded the archive
  // already, and the echo may come after a reply in the thread has resumed it, whose session a
  // close would stop. An echo kOwnArchiveEcho or more after the request is taken as someone
  // else's, and marks that old are dropped at the next archive, so echoes that never come (a
  // gateway down meanwhile) do not pile up.
  static constexpr std::chrono::minutes kOwnArchiveEcho{1};
  std::map<std::string, std::chrono::steady_clock::time_point> own_archives_;
  SlashCommands slash_;
  sdk::ChatEvents* events_ = nullptr;
  bool started_ = false;
  // Set by the first start(), on the caller's thread, so a second one is refused there.
  std::atomic<bool> start_requested_{false};
  bool stopped_ = false;

  mutable std::mutex self_mutex_;
  std::string self_id_copy_;
};

}  // namespace errand::discord
