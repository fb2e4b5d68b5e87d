#include "plugins/chat-discord/transport_core.hpp"

#include <spdlog/sinks/null_sink.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <stdexcept>

#include "plugins/chat-discord/event_translate.hpp"
#include "plugins/chat-discord/tls_client.hpp"

namespace errand::discord {

namespace asio = boost::asio;
namespace json = boost::json;
namespace http = boost::beast::http;
using Place = ChannelDirectory::Place;

namespace {

std::shared_ptr<spdlog::logger> logger_or_silent(const std::shared_ptr<spdlog::logger>& log) {
  if (log) return log;
  return std::make_shared<spdlog::logger>("chat-discord",
                                          std::make_shared<spdlog::sinks::null_sink_mt>());
}

Endpoint api_endpoint(const DiscordSettings& settings) {
  auto endpoint = parse_service_url(settings.api_base, UrlRole::rest_base);
  if (!endpoint) throw std::runtime_error("chat.apiBase: " + endpoint.error().message);
  return *endpoint;
}

std::shared_ptr<asio::ssl::context> tls_context(const DiscordSettings& settings) {
  auto context = make_client_tls_context(settings.ca_file);
  if (!context) throw std::runtime_error("chat.caFile: " + context.error().message);
  return *context;
}

}  // namespace

TransportCore::TransportCore(const sdk::HostServices& services, DiscordSettings settings,
                             TransportTuning tuning)
    : services_(services),
      log_(logger_or_silent(services.log)),
      settings_(std::move(settings)),
      tuning_(std::move(tuning)),
      strand_(asio::make_strand(services.executor)),
      tls_(tls_context(settings_)),
      rest_(std::make_shared<RestClient>(strand_, api_endpoint(settings_), tls_, settings_.token,
                                         log_, tuning_.rest, tuning_.limits)),
      gateway_(
          std::make_shared<GatewayClient>(strand_, rest_, tls_, settings_, log_, tuning_.gateway)),
      directory_(settings_.channel_id),
      delivered_(tuning_.delivered_capacity),
      pump_wake_(strand_),
      slash_(rest_, gateway_, settings_, services_.secrets, piece_limits(), log_) {}

TransportCore::~TransportCore() = default;

sdk::Result<void> TransportCore::start(sdk::ChatEvents& events) {
  if (start_requested_.exchange(true))
    return sdk::make_error("the transport was already started; its events go to the first sink",
                           sdk::Error::Kind::refused);
  asio::post(strand_, [self = shared_from_this(), ev = &events] { self->begin_on_strand(ev); });
  return {};
}

void TransportCore::begin_on_strand(sdk::ChatEvents* events) {
  if (started_ || stopped_) return;
  started_ = true;
  events_ = events;
  rest_->on_halt([weak = weak_from_this()](const std::string& reason) {
    if (auto self = weak.lock()) self->on_rest_halt(reason);
  });
  GatewayEvents gateway_events;
  gateway_events.dispatch = [weak = weak_from_this()](const std::string& type, json::object d,
                                                      bool replayed) {
    auto self = weak.lock();
    if (!self || self->stopped_) return;
    self->queue_.push_back({type, std::move(d), replayed});
    self->pump_wake_.wake_all();
  };
  gateway_events.state = [weak = weak_from_this()](sdk::ConnectionState state,
                                                   const std::string& detail) {
    if (auto self = weak.lock()) self->on_gateway_state(state, detail);
  };
  gateway_->start(std::move(gateway_events));
  asio::co_spawn(strand_, pump(), asio::detached);
}

void TransportCore::stop() {
  asio::post(strand_, [self = shared_from_this()] {
    if (self->stopped_) return;
    self->stopped_ = true;
    self->gateway_->stop();
    self->rest_->stop();
    self->pump_wake_.close();
  });
}

std::string TransportCore::self_id() const {
  std::lock_guard lock(self_mutex_);
  return self_id_copy_;
}

void TransportCore::on_gateway_state(sdk::ConnectionState state, const std::string& detail) {
  if (state == sdk::ConnectionState::ready) {
    std::lock_guard lock(self_mutex_);
    self_id_copy_ = gateway_->self_id();
  }
  // Close 4004 means Discord rejected the token: REST would only collect 401s with it.
  if (state == sdk::ConnectionState::halted && detail.find("with 4004") != std::string::npos)
    rest_->halt(detail);
  if (events_ != nullptr && !stopped_) events_->on_connection(state, detail);
}

void TransportCore::on_rest_halt(const std::string& reason) {
  // An invalid token is invalid for the gateway too.
  gateway_->stop();
  if (events_ != nullptr && !stopped_) events_->on_connection(sdk::ConnectionState::halted, reason);
}

asio::awaitable<void> TransportCore::pump() {
  auto self = shared_from_this();
  while (!stopped_) {
    if (queue_.empty()) {
      co_await pump_wake_.wait();
      continue;
    }
    auto next = std::move(queue_.front());
    queue_.pop_front();
    try {
      co_await handle(std::move(next));
    } catch (const std::exception& e) {
      log_->error("a gateway event could not be handled: {}", e.what());
    }
  }
}

void TransportCore::learn_thread(const json::object& channel) {
  const auto id = string_member(channel, "id");
  if (!id.empty()) directory_.remember(id, string_member(channel, "parent_id"));
}

bool TransportCore::is_own_archive_echo(const std::string& thread_id) {
  const auto it = own_archives_.find(thread_id);
  if (it == own_archives_.end()) return false;
  const bool recent = std::chrono::steady_clock::now() - it->second < kOwnArchiveEcho;
  own_archives_.erase(it);
  return recent;
}

asio::awaitable<Place> TransportCore::place_of(const std::string& channel_id) {
  auto place = directory_.place_of(channel_id);
  if (place != Place::unknown) co_return place;
  auto channel = co_await rest_->call(http::verb::get, "/channels/" + channel_id);
  if (channel && channel->is_object()) {
    learn_thread(channel->as_object());
  } else {
    // Not readable by the bot: certainly not a thread it serves.
    directory_.remember(channel_id, "");
  }
  co_return directory_.place_of(channel_id);
}

asio::awaitable<void> TransportCore::handle(Dispatch dispatch) {
  auto& d = dispatch.data;
  const auto& type = dispatch.type;
  if (type == "GUILD_CREATE") {
    for (const auto& place : guild_channels(d)) {
      directory_.remember(place.id, place.parent_id);
      if (place.id == settings_.channel_id && !place.listed_as_thread)
        slash_.learn_guild(string_member(d, "id"));
    }
    co_return;
  }
  if (type == "THREAD_CREATE" || type == "THREAD_LIST_SYNC") {
    if (type == "THREAD_CREATE") learn_thread(d);
    if (const auto* list = d.if_contains("threads"); list && list->is_array())
      for (const auto& c : list->as_array())
        if (c.is_object()) learn_thread(c.as_object());
    co_return;
  }
  if (type == "THREAD_UPDATE") {
    learn_thread(d);
    const auto id = string_member(d, "id");
    bool archived = false;
    if (const auto* meta = d.if_contains("thread_metadata"); meta && meta->is_object())
      if (const auto* a = meta->as_object().if_contains("archived"); a && a->is_bool())
        archived = a->as_bool();
    if (archived && is_own_archive_echo(id)) co_return;
    if (archived && directory_.place_of(id) == Place::served_thread && events_ != nullptr)
      events_->on_thread_closed({id, false});
    co_return;
  }
  if (type == "THREAD_DELETE") {
    const auto id = string_member(d, "id");
    const auto parent = string_member(d, "parent_id");
    const bool served = parent.empty() ? directory_.place_of(id) == Place::served_thread
                                       : parent == settings_.channel_id;
    if (served && events_ != nullptr) events_->on_thread_closed({id, true});
    co_return;
  }
  if (type == "MESSAGE_CREATE") {
    const auto self_id = gateway_->self_id();
    auto message = parse_message(d, self_id);
    if (!message || message->author.id == self_id) co_return;
    const auto place = co_await place_of(message->ref.channel_id);
    if (place != Place::served_channel && place != Place::served_thread) co_return;
    // A replay after a resume repeats what was already delivered: drop it here, so the core
    // sees each message once.
    if (!delivered_.insert(message->ref.message_id)) co_return;
    if (place == Place::served_thread) message->thread_id = message->ref.channel_id;
    if (events_ != nullptr && !stopped_) events_->on_message(*message);
    co_return;
  }
  if (type == "MESSAGE_DELETE") {
    sdk::MessageDeleted deleted{{string_member(d, "channel_id"), string_member(d, "id")}};
    const auto place = co_await place_of(deleted.ref.channel_id);
    if ((place == Place::served_channel || place == Place::served_thread) && events_ != nullptr &&
        !stopped_)
      events_->on_message_deleted(deleted);
    co_return;
  }
  if (type == "MESSAGE_REACTION_ADD" || type == "MESSAGE_REACTION_REMOVE") {
    auto reaction = parse_reaction(d, type == "MESSAGE_REACTION_ADD");
    if (reaction.user.id == gateway_->self_id()) co_return;
    const auto place = co_await place_of(reaction.ref.channel_id);
    if ((place == Place::served_channel || place == Place::served_thread) && events_ != nullptr &&
        !stopped_)
      events_->on_reaction(reaction);
    co_return;
  }
  if (type == "INTERACTION_CREATE") {
    auto call = parse_command(d);
    if (!call) co_return;
    slash_.remember(*call, string_member(d, "application_id"));
    if (const auto* channel = d.if_contains("channel"); channel && channel->is_object())
      learn_thread(channel->as_object());
    const auto place = co_await place_of(call->channel_id);
    if (place != Place::served_channel && place != Place::served_thread) {
      co_await slash_.refuse_elsewhere(*call);
      co_return;
    }
    if (events_ != nullptr && !stopped_) events_->on_command(*call);
  }
}

}  // namespace errand::discord
