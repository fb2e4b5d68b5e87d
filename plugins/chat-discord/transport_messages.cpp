#include <algorithm>
#include <random>

#include "plugins/chat-discord/message_pieces.hpp"
#include "plugins/chat-discord/reactions.hpp"
#include "plugins/chat-discord/settings.hpp"
#include "plugins/chat-discord/text_split.hpp"
#include "plugins/chat-discord/transport_core.hpp"

namespace errand::discord {

namespace asio = boost::asio;
namespace json = boost::json;
namespace http = boost::beast::http;
using Kind = sdk::Error::Kind;

namespace {

constexpr std::size_t kMaxThreadNameChars = 100;
// A week: threads stay open until errand (or a person) closes them, not after an idle hour.
constexpr int kThreadAutoArchiveMinutes = 10080;

// Discord keeps a nonce for a few minutes and, with enforce_nonce, answers a repeat with the
// message already created, so a retried POST cannot post twice. At most 25 characters.
std::string make_nonce() {
  static thread_local std::mt19937_64 engine{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string nonce;
  for (int i = 0; i < 24; ++i) nonce.push_back(kHex[engine() % 16]);
  return nonce;
}

std::string thread_name(std::string_view wanted) {
  std::string name;
  for (const char c : wanted)
    name.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
  while (!name.empty() && name.front() == ' ') name.erase(name.begin());
  while (!name.empty() && name.back() == ' ') name.pop_back();
  if (name.empty()) name = "errand session";
  name.resize(prefix_bytes(name, kMaxThreadNameChars));
  return name;
}

}  // namespace

asio::awaitable<sdk::Result<std::vector<sdk::MessageRef>>> TransportCore::post(
    const std::string& channel_id, const sdk::OutMessage& message) {
  auto pieces = message_pieces(message, services_.secrets, piece_limits());
  if (!pieces) co_return pieces.error();
  std::vector<sdk::MessageRef> refs;
  for (std::size_t i = 0; i < pieces->size(); ++i) {
    auto& piece = (*pieces)[i];
    json::object payload{{"content", piece.content},
                         {"nonce", make_nonce()},
                         {"enforce_nonce", true},
                         {"allowed_mentions", allowed_mentions(message.mention_user_ids)}};
    auto created =
        co_await send_piece(*rest_, http::verb::post, "/channels/" + channel_id + "/messages",
                            std::move(payload), piece.files, RestClient::Auth::bot);
    if (!created) {
      auto error = created.error();
      if (i > 0)
        error.message += " (after " + std::to_string(i) + " of " + std::to_string(pieces->size()) +
                         " parts were posted)";
      co_return error;
    }
    std::string id;
    if (created->is_object()) {
      if (const auto* v = created->as_object().if_contains("id"); v && v->is_string())
        id = std::string(v->as_string());
    }
    refs.push_back({channel_id, id});
  }
  co_return refs;
}

asio::awaitable<sdk::Result<void>> TransportCore::edit(const sdk::MessageRef& ref,
                                                       const std::string& wanted) {
  const auto text = services_.secrets.scrub(wanted);
  const auto chars = count_code_points(text);
  if (chars > tuning_.limits_reported.max_message_chars)
    co_return sdk::make_error("an edit holds " + std::to_string(chars) + " characters, over " +
                                  "Discord's " +
                                  std::to_string(tuning_.limits_reported.max_message_chars) +
                                  "; post the rest as a new message",
                              Kind::refused);
  json::object payload{{"content", text}, {"allowed_mentions", allowed_mentions({})}};
  auto r = co_await rest_->call(http::verb::patch,
                                "/channels/" + ref.channel_id + "/messages/" + ref.message_id,
                                json::value(std::move(payload)));
  if (!r) co_return r.error();
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<void>> TransportCore::remove(const sdk::MessageRef& ref) {
  auto r = co_await rest_->call(http::verb::delete_,
                                "/channels/" + ref.channel_id + "/messages/" + ref.message_id);
  if (!r) co_return r.error();
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<void>> TransportCore::react(const sdk::MessageRef& ref,
                                                        sdk::Reaction reaction, bool add) {
  const auto path = "/channels/" + ref.channel_id + "/messages/" + ref.message_id + "/reactions/" +
                    percent_encode(reaction_glyph(reaction)) + "/@me";
  const auto method = add ? http::verb::put : http::verb::delete_;
  auto r = co_await rest_->call(method, path);
  if (!r) co_return r.error();
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<sdk::ThreadRef>> TransportCore::open_thread(const sdk::MessageRef& from,
                                                                        const std::string& name) {
  json::object payload{{"name", thread_name(name)},
                       {"auto_archive_duration", kThreadAutoArchiveMinutes}};
  auto r = co_await rest_->call(
      http::verb::post,
      "/channels/" + from.channel_id + "/messages/" + from.message_id + "/threads",
      json::value(std::move(payload)));
  if (!r) co_return r.error();
  if (!r->is_object())
    co_return sdk::make_error("Discord's answer to creating a thread was not a channel");
  const auto& channel = r->as_object();
  sdk::ThreadRef thread;
  if (const auto* v = channel.if_contains("id"); v && v->is_string())
    thread.id = std::string(v->as_string());
  thread.parent_channel_id = from.channel_id;
  if (const auto* v = channel.if_contains("parent_id"); v && v->is_string())
    thread.parent_channel_id = std::string(v->as_string());
  if (thread.id.empty()) co_return sdk::make_error("Discord's new thread came without an id");
  directory_.remember(thread.id, thread.parent_channel_id);
  co_return thread;
}

asio::awaitable<sdk::Result<void>> TransportCore::archive_thread(const std::string& thread_id) {
  json::object payload;
  payload["archived"] = true;
  // Marked before the request: the gateway's echo can arrive before REST's answer.
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(own_archives_,
                [&](const auto& mark) { return now - mark.second >= kOwnArchiveEcho; });
  own_archives_[thread_id] = now;
  auto r = co_await rest_->call(http::verb::patch, "/channels/" + thread_id,
                                json::value(std::move(payload)));
  if (!r) {
    own_archives_.erase(thread_id);
    co_return r.error();
  }
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<std::string>> TransportCore::fetch_attachment(
    const sdk::Attachment& attachment, std::size_t max_bytes) {
  if (attachment.size > max_bytes)
    co_return sdk::make_error("the attachment \"" + attachment.filename + "\" is " +
                                  std::to_string(attachment.size) + " bytes, over the " +
                                  std::to_string(max_bytes) + "-byte limit; it was not fetched",
                              Kind::limit);
  auto endpoint = parse_service_url(attachment.url, UrlRole::download);
  if (!endpoint)
    co_return sdk::make_error("the attachment URL was refused: " + endpoint.error().message,
                              Kind::refused);
  // The CDN signs its URLs in the query (ex, is, hm), so the target keeps it as given.
  auto reply = co_await rest_->fetch(*endpoint, endpoint->target(), max_bytes);
  if (!reply) {
    auto error = reply.error();
    error.message =
        "fetching the attachment \"" + attachment.filename + "\" failed: " + error.message;
    co_return error;
  }
  if (reply->status != 200)
    co_return sdk::make_error("fetching the attachment \"" + attachment.filename +
                                  "\" was answered with HTTP " + std::to_string(reply->status),
                              reply->status == 404 ? Kind::not_found : Kind::unavailable);
  co_return std::move(reply->body);
}

}  // namespace errand::discord
