#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <optional>

#include "fake_impl.hpp"

namespace errand::fake_discord {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxContent = 2000;
constexpr std::size_t kMaxNonce = 25;

ResponseParts answer(unsigned status, json::value body = nullptr) {
  ResponseParts r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

std::string string_of(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Discord refuses the whole message when allowed_mentions.users names something that is not a
// snowflake.
std::optional<json::object> mentions_problem(const json::object& body) {
  const auto* mentions = body.if_contains("allowed_mentions");
  const auto* users =
      mentions && mentions->is_object() ? mentions->as_object().if_contains("users") : nullptr;
  if (users == nullptr || !users->is_array()) return std::nullopt;
  for (const auto& user : users->as_array()) {
    const std::string id = user.is_string() ? std::string(user.as_string()) : std::string();
    const bool snowflake = !id.empty() && std::all_of(id.begin(), id.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
    if (!snowflake)
      return form_error(
          "allowed_mentions", "NUMBER_TYPE_COERCE",
          "Value \"" + (user.is_string() ? id : json::serialize(user)) + "\" is not snowflake.");
  }
  return std::nullopt;
}

}  // namespace

ResponseParts FakeDiscord::Impl::handle_rest(const Request& request, RecordedRequest& record) {
  const std::string target(request.target());
  const auto q = target.find('?');
  record.method = std::string(request.method_string());
  record.path = target.substr(0, q);
  record.query = q == std::string::npos ? "" : target.substr(q + 1);
  record.at = steady::now();
  for (const auto& field : request) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    record.headers[name] = std::string(field.value());
  }
  const auto content_type = record.header("content-type");
  if (content_type.rfind("multipart/form-data", 0) == 0) {
    std::vector<UploadedFile> parts;
    if (!parse_multipart(content_type, request.body(), parts))
      return answer(400, discord_error(50035, "Invalid multipart body"));
    for (auto& part : parts) {
      if (part.field == "payload_json") {
        boost::system::error_code ec;
        record.json = json::parse(part.bytes, ec);
        if (ec) return answer(400, discord_error(50109, "The request body contains invalid JSON."));
      } else {
        record.files.push_back(std::move(part));
      }
    }
  } else if (!request.body().empty()) {
    boost::system::error_code ec;
    record.json = json::parse(request.body(), ec);
    if (ec) return answer(400, discord_error(50109, "The request body contains invalid JSON."));
  }

  // Attachments are served by the CDN, without authentication.
  if (record.path.rfind("/attachments/", 0) == 0) {
    const auto s = split_path(record.path);
    if (s.size() == 4 && record.query == attachment_signature(s[2], s[3]))
      if (auto it = messages_.find(s[2]); it != messages_.end())
        for (const auto& f : it->second.files)
          if (f.filename == s[3]) {
            ResponseParts r;
            r.headers.emplace_back("Content-Type", "application/octet-stream");
            r.body = json::string(f.bytes);
            return r;
          }
    return answer(404, discord_error(0, "This content is no longer available."));
  }

  const std::string prefix = "/api/v10";
  if (record.path.rfind(prefix, 0) != 0) return answer(404, discord_error(0, "404: Not Found"));
  const auto path = record.path.substr(prefix.size());
  const auto s = split_path(path);
  const auto& method = record.method;

  if (record.header("user-agent").rfind("DiscordBot (", 0) != 0)
    return answer(403, discord_error(40333,
                                     "Requests need a User-Agent of the form "
                                     "'DiscordBot ($url, $versionNumber)'"));
  const bool token_route = !s.empty() && (s[0] == "interactions" || s[0] == "webhooks");
  if (!token_route && (token_revoked_ || record.header("authorization") != "Bot " + options_.token))
    return answer(401, discord_error(0, "401: Unauthorized"));

  if (auto failed = injected_server_error(method, path)) return *failed;
  std::vector<std::pair<std::string, std::string>> bucket_headers;
  if (auto limited = check_limits(method, path, s, bucket_headers)) return *limited;
  auto ok = [&](unsigned status, json::value body) {
    auto r = answer(status, std::move(body));
    r.headers = bucket_headers;
    return r;
  };
  const json::object empty_object;
  const auto& body = record.json.is_object() ? record.json.as_object() : empty_object;

  if (method == "GET" && path == "/gateway/bot")
    return ok(200, json::object{{"url", shaped_url(port_, "/gateway")},
                                {"shards", 1},
                                {"session_start_limit",
                                 {{"total", 1000},
                                  {"remaining", 999},
                                  {"reset_after", 14400000},
                                  {"max_concurrency", 1}}}});
  if (method == "GET" && path == "/oauth2/applications/@me")
    return ok(200, json::object{{"id", options_.application_id}, {"name", "errand"}});

  if (s.size() >= 2 && s[0] == "channels") {
    const auto channel = channels_.find(s[1]);
    if (channel == channels_.end()) return ok(404, discord_error(10003, "Unknown Channel"));
    if (s.size() == 2 && method == "GET") return ok(200, channel_object(channel->second));
    if (s.size() == 2 && method == "PATCH") {
      if (channel->second.type != 11)
        return ok(400, discord_error(50024, "Cannot execute action on this channel type"));
      if (const auto* a = body.if_contains("archived"); a && a->is_bool() && a->as_bool())
        do_archive_thread(s[1]);
      return ok(200, channel_object(channels_.at(s[1])));
    }
    if (s.size() == 3 && s[2] == "messages" && method == "POST") {
      const auto content = string_of(body, "content");
      if (code_points(content) > kMaxContent)
        return ok(
            400, form_error("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length."));
      if (content.empty() && record.files.empty())
        return ok(400, discord_error(50006, "Cannot send an empty message"));
      if (auto problem = mentions_problem(body)) return ok(400, std::move(*problem));
      const auto nonce = string_of(body, "nonce");
      if (nonce.size() > kMaxNonce)
        return ok(400,
                  form_error("nonce", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."));
      const auto* enforce = body.if_contains("enforce_nonce");
      const auto nonce_key = s[1] + "/" + nonce;
      if (!nonce.empty() && enforce && enforce->is_bool() && enforce->as_bool())
        if (auto it = nonce_message_.find(nonce_key); it != nonce_message_.end())
          return ok(200, message_object(messages_.at(it->second)));
      StoredMessage m;
      m.id = new_id();
      m.channel_id = s[1];
      m.author_id = options_.bot_user_id;
      m.by_bot = true;
      m.content = content;
      m.files = record.files;
      m.nonce = nonce;
      messages_[m.id] = m;
      message_order_.push_back(m.id);
      if (!nonce.empty()) nonce_message_[nonce_key] = m.id;
      // Posting into an archived thread unarchives it, as Discord does.
      if (channel->second.archived) channel->second.archived = false;
      dispatch("MESSAGE_CREATE", message_object(m));
      if (options_.on_bot_message) options_.on_bot_message(m);
      return ok(200, message_object(m));
    }
    if (s.size() >= 4 && s[2] == "messages") {
      auto message = messages_.find(s[3]);
      if (message == messages_.end() || message->second.channel_id != s[1] ||
          message->second.deleted)
        return ok(404, discord_error(10008, "Unknown Message"));
      if (s.size() == 4 && method == "PATCH") {
        if (message->second.author_id != options_.bot_user_id)
          return ok(403, discord_error(50005, "Cannot edit a message authored by another user"));
        const auto content = string_of(body, "content");
        if (code_points(content) > kMaxContent)
          return ok(400, form_error("content", "BASE_TYPE_MAX_LENGTH",
                                    "Must be 2000 or fewer in length."));
        message->second.content = content;
        dispatch("MESSAGE_UPDATE", message_object(message->second));
        if (options_.on_bot_message) options_.on_bot_message(message->second);
        return ok(200, message_object(message->second));
      }
      if (s.size() == 4 && method == "DELETE") {
        do_delete_message(s[1], s[3]);
        return ok(204, nullptr);
      }
      if (s.size() == 7 && s[4] == "reactions" && s[6] == "@me" &&
          (method == "PUT" || method == "DELETE")) {
        const auto emoji = percent_decode(s[5]);
        auto& reactions = message->second.reactions;
        if (method == "PUT") {
          if (std::find(reactions.begin(), reactions.end(), emoji) == reactions.end())
            reactions.push_back(emoji);
        } else {
          std::erase(reactions, emoji);
        }
        return ok(204, nullptr);
      }
      if (s.size() == 5 && s[4] == "threads" && method == "POST") {
        const auto name = string_of(body, "name");
        if (name.empty() || code_points(name) > 100)
          return ok(400, form_error("name", "BASE_TYPE_BAD_LENGTH",
                                    "Must be between 1 and 100 in length."));
        if (channels_.count(s[3]))
          return ok(400,
                    discord_error(160004, "A thread has already been created for this message"));
        do_create_thread(name, s[1], s[3]);
        return ok(201, channel_object(channels_.at(s[3])));
      }
    }
    return ok(404, discord_error(0, "404: Not Found"));
  }

  if (s.size() == 5 && s[0] == "applications" && s[2] == "guilds" && s[4] == "commands" &&
      method == "PUT") {
    if (s[1] != options_.application_id) return ok(403, discord_error(50001, "Missing Access"));
    if (s[3] != options_.guild_id) return ok(404, discord_error(10004, "Unknown Guild"));
    if (!record.json.is_array()) return ok(400, discord_error(50035, "Invalid Form Body"));
    json::array stored;
    for (const auto& c : record.json.as_array()) {
      auto command = c.as_object();
      command["id"] = new_id();
      command["application_id"] = options_.application_id;
      command["guild_id"] = options_.guild_id;
      stored.push_back(std::move(command));
    }
    commands_ = stored;
    return ok(200, stored);
  }

  if (s.size() == 4 && s[0] == "interactions" && s[3] == "callback" && method == "POST") {
    auto it = interactions_.find(s[1]);
    if (it == interactions_.end() || it->second.token != s[2])
      return ok(404, discord_error(10062, "Unknown interaction"));
    const auto age = steady::now() - interaction_created_.at(s[1]);
    if (age > options_.interaction_deadline)
      return ok(404, discord_error(10062, "Unknown interaction"));
    if (it->second.acknowledged)
      return ok(400, discord_error(40060, "Interaction has already been acknowledged."));
    it->second.acknowledged = true;
    it->second.acknowledged_after = std::chrono::duration_cast<std::chrono::milliseconds>(age);
    const auto* type = body.if_contains("type");
    it->second.callback_type = type && type->is_int64() ? static_cast<int>(type->as_int64()) : 0;
    if (const auto* data = body.if_contains("data"); data && data->is_object()) {
      if (const auto* flags = data->as_object().if_contains("flags"); flags && flags->is_int64())
        it->second.ephemeral = (flags->as_int64() & 64) != 0;
      it->second.original_content = string_of(data->as_object(), "content");
    }
    return ok(204, nullptr);
  }

  if (s.size() >= 3 && s[0] == "webhooks") {
    if (s[1] != options_.application_id) return ok(404, discord_error(10015, "Unknown Webhook"));
    InteractionRecord* interaction = nullptr;
    for (auto& [id, record_of] : interactions_)
      if (record_of.token == s[2]) interaction = &record_of;
    if (interaction == nullptr || !interaction->acknowledged)
      return ok(404, discord_error(10015, "Unknown Webhook"));
    const auto content = string_of(body, "content");
    if (code_points(content) > kMaxContent)
      return ok(400,
                form_error("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length."));
    if (auto problem = mentions_problem(body)) return ok(400, std::move(*problem));
    if (s.size() == 5 && s[3] == "messages" && s[4] == "@original" && method == "PATCH") {
      interaction->original_content = content;
      return ok(200, json::object{{"id", interaction->id}, {"content", content}});
    }
    if (s.size() == 3 && method == "POST") {
      interaction->followups.push_back(content);
      return ok(200, json::object{{"id", new_id()}, {"content", content}});
    }
  }
  return ok(404, discord_error(0, "404: Not Found"));
}

}  // namespace errand::fake_discord
