#include "plugins/chat-discord/discord_transport.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <stdexcept>

namespace errand::discord {

namespace asio = boost::asio;

namespace {

DiscordSettings settings_or_throw(const sdk::HostServices& services) {
  auto settings = read_discord_settings(services.config);
  if (!settings) throw std::runtime_error(settings.error().message);
  return *settings;
}

// Runs work on the transport's strand and hands the result back to the caller's executor.
// Nothing thrown there reaches the core. work owns the call's arguments and lives inside
// co_spawn until the coroutine it starts has finished, so the core's coroutines take them by
// reference.
template <class T, class Work>
asio::awaitable<sdk::Result<T>> on_strand(std::shared_ptr<TransportCore> core, Work work) {
  try {
    auto strand = core->strand();
    // A named task, not a lambda temporary inside the co_await: GCC 12 destroys such a
    // temporary's captures twice.
    auto task = [core = std::move(core), work = std::move(work)]() mutable { return work(*core); };
    co_return co_await asio::co_spawn(strand, std::move(task), asio::use_awaitable);
  } catch (const std::exception& e) {
    co_return sdk::make_error(std::string("the Discord transport failed: ") + e.what());
  }
}

}  // namespace

DiscordTransport::DiscordTransport(const sdk::HostServices& services)
    : DiscordTransport(services, TransportTuning{}) {}

DiscordTransport::DiscordTransport(const sdk::HostServices& services, TransportTuning tuning)
    : core_(std::make_shared<TransportCore>(services, settings_or_throw(services),
                                            std::move(tuning))) {}

DiscordTransport::~DiscordTransport() {
  core_->stop();
}

sdk::Result<void> DiscordTransport::start(sdk::ChatEvents& events) noexcept {
  try {
    return core_->start(events);
  } catch (const std::exception& e) {
    return sdk::make_error(std::string("the Discord transport could not start: ") + e.what());
  }
}

void DiscordTransport::stop() noexcept {
  try {
    core_->stop();
  } catch (...) {
  }
}

sdk::TransportLimits DiscordTransport::limits() const noexcept {
  return core_->tuning().limits_reported;
}

std::string DiscordTransport::self_id() const noexcept {
  try {
    return core_->self_id();
  } catch (...) {
    return {};
  }
}

asio::awaitable<sdk::Result<sdk::ThreadRef>> DiscordTransport::open_thread(sdk::MessageRef from,
                                                                           std::string name) {
  return on_strand<sdk::ThreadRef>(
      core_, [from = std::move(from), name = std::move(name)](TransportCore& c) mutable {
        return c.open_thread(from, name);
      });
}

asio::awaitable<sdk::Result<std::vector<sdk::MessageRef>>> DiscordTransport::post(
    std::string channel_id, sdk::OutMessage message) {
  return on_strand<std::vector<sdk::MessageRef>>(
      core_, [channel_id = std::move(channel_id), message = std::move(message)](
                 TransportCore& c) mutable { return c.post(channel_id, message); });
}

asio::awaitable<sdk::Result<void>> DiscordTransport::edit(sdk::MessageRef ref, std::string text) {
  return on_strand<void>(core_, [ref = std::move(ref), text = std::move(text)](
                                    TransportCore& c) mutable { return c.edit(ref, text); });
}

asio::awaitable<sdk::Result<void>> DiscordTransport::remove(sdk::MessageRef ref) {
  return on_strand<void>(
      core_, [ref = std::move(ref)](TransportCore& c) mutable { return c.remove(ref); });
}

asio::awaitable<sdk::Result<void>> DiscordTransport::react(sdk::MessageRef ref,
                                                           sdk::Reaction reaction, bool add) {
  return on_strand<void>(core_, [ref = std::move(ref), reaction, add](TransportCore& c) mutable {
    return c.react(ref, reaction, add);
  });
}

asio::awaitable<sdk::Result<void>> DiscordTransport::register_commands(
    std::vector<sdk::CommandSpec> commands) {
  return on_strand<void>(core_, [commands = std::move(commands)](TransportCore& c) mutable {
    return c.slash().register_commands(commands);
  });
}

asio::awaitable<sdk::Result<void>> DiscordTransport::acknowledge(sdk::CommandCall call,
                                                                 sdk::Visibility visibility) {
  return on_strand<void>(core_, [call = std::move(call), visibility](TransportCore& c) mutable {
    return c.slash().acknowledge(call, visibility);
  });
}

asio::awaitable<sdk::Result<void>> DiscordTransport::answer(sdk::CommandCall call,
                                                            sdk::OutMessage message) {
  return on_strand<void>(
      core_, [call = std::move(call), message = std::move(message)](TransportCore& c) mutable {
        return c.slash().answer(call, message);
      });
}

asio::awaitable<sdk::Result<std::string>> DiscordTransport::fetch_attachment(
    sdk::Attachment attachment, std::size_t max_bytes) {
  return on_strand<std::string>(
      core_, [attachment = std::move(attachment), max_bytes](TransportCore& c) mutable {
        return c.fetch_attachment(attachment, max_bytes);
      });
}

asio::awaitable<sdk::Result<void>> DiscordTransport::close_thread(std::string thread_id) {
  return on_strand<void>(core_, [thread_id = std::move(thread_id)](TransportCore& c) mutable {
    return c.archive_thread(thread_id);
  });
}

}  // namespace errand::discord
