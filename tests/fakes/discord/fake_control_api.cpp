#include <boost/json/parse.hpp>

#include "fake_impl.hpp"

namespace errand::fake_discord {

namespace json = boost::json;

namespace {

ResponseParts reply(unsigned status, json::value body) {
  ResponseParts r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

std::string text_of(const json::object& o, const char* key, std::string fallback = {}) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : fallback;
}

std::string query_value(const std::string& query, const std::string& key) {
  std::size_t at = 0;
  while (at <= query.size()) {
    const auto end = query.find('&', at);
    const auto pair = query.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (pair.rfind(key + "=", 0) == 0) return percent_decode(pair.substr(key.size() + 1));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return {};
}

double seconds_since(steady::time_point start, steady::time_point t) {
  return std::chrono::duration<double>(t - start).count();
}

}  // namespace

ResponseParts FakeDiscord::Impl::handle_control(const Request& request) {
  const std::string target(request.target());
  const auto q = target.find('?');
  const auto path = target.substr(0, q);
  const auto query = q == std::string::npos ? std::string() : target.substr(q + 1);
  json::object body;
  if (!request.body().empty()) {
    boost::system::error_code ec;
    auto parsed = json::parse(request.body(), ec);
    if (ec || !parsed.is_object())
      return reply(400, json::object{{"error", "the control API takes a JSON object body"}});
    body = std::move(parsed.as_object());
  }
  const auto get = request.method() == http::verb::get;
  const auto origin = connections_.empty() ? steady::now() : connections_.front().opened;

  if (get && path == "/_control/info")
    return reply(
        200, json::object{
                 {"apiBase", scheme(false) + "://127.0.0.1:" + std::to_string(port_) + "/api/v10"},
                 {"gatewayUrl", shaped_url(port_, "/gateway")},
                 {"token", options_.token},
                 {"channelId", options_.channel_id},
                 {"guildId", options_.guild_id},
                 {"botUserId", options_.bot_user_id},
                 {"applicationId", options_.application_id}});
  if (get && path == "/_control/requests") {
    json::array out;
    for (const auto& r : requests_) {
      json::array files;
      for (const auto& f : r.files)
        files.push_back(
            json::object{{"field", f.field}, {"filename", f.filename}, {"size", f.bytes.size()}});
      json::object headers;
      for (const auto& [k, v] : r.headers)
        if (k != "authorization") headers[k] = v;
      out.push_back(json::object{{"method", r.method},
                                 {"path", r.path},
                                 {"query", r.query},
                                 {"status", r.status},
                                 {"headers", std::move(headers)},
                                 {"json", r.json},
                                 {"files", std::move(files)}});
    }
    return reply(200, std::move(out));
  }
  if (get && path == "/_control/messages") {
    const auto channel = query_value(query, "channel_id");
    json::array out;
    for (const auto& id : message_order_) {
      const auto& m = messages_.at(id);
      if (channel.empty() || m.channel_id == channel) {
        auto o = message_object(m);
        o["deleted"] = m.deleted;
        json::array reactions;
        for (const auto& r : m.reactions) reactions.push_back(json::value(r));
        o["bot_reactions"] = std::move(reactions);
        out.push_back(std::move(o));
      }
    }
    return reply(200, std::move(out));
  }
  if (get && path == "/_control/gateway") {
    json::array out;
    for (const auto& f : frames_)
      out.push_back(json::object{{"connection", f.connection},
                                 {"from_client", f.from_client},
                                 {"at", seconds_since(origin, f.at)},
                                 {"payload", f.payload}});
    return reply(200, std::move(out));
  }
  if (get && path == "/_control/connections") {
    json::array out;
    for (const auto& c : connections_) {
      json::object o{{"index", c.index},
                     {"requestLine", c.request_line},
                     {"target", c.target},
                     {"atResumeUrl", c.at_resume_url},
                     {"open", c.open}};
      if (c.client_close_code) o["client_close_code"] = *c.client_close_code;
      if (c.server_close_code) o["server_close_code"] = *c.server_close_code;
      out.push_back(std::move(o));
    }
    return reply(200, std::move(out));
  }
  if (get && path == "/_control/interactions") {
    json::array out;
    for (const auto& [id, r] : interactions_) {
      json::array followups;
      for (const auto& f : r.followups) followups.push_back(json::value(f));
      out.push_back(json::object{{"id", r.id},
                                 {"name", r.name},
                                 {"acknowledged", r.acknowledged},
                                 {"ephemeral", r.ephemeral},
                                 {"original", r.original_content},
                                 {"followups", std::move(followups)}});
    }
    return reply(200, std::move(out));
  }
  if (get && path == "/_control/commands") return reply(200, commands_);
  if (get) return reply(404, json::object{{"error", "no such control route: " + path}});

  if (path == "/_control/post") {
    UserPost post;
    post.channel_id = text_of(body, "channel_id");
    post.thread_id = text_of(body, "thread_id");
    post.author_id = text_of(body, "author_id", post.author_id);
    post.username = text_of(body, "username", post.username);
    post.content = text_of(body, "content");
    if (const auto* m = body.if_contains("mention_bot"); m && m->is_bool())
      post.mention_bot = m->as_bool();
    if (const auto* b = body.if_contains("author_is_bot"); b && b->is_bool())
      post.author_is_bot = b->as_bool();
    if (const auto* list = body.if_contains("attachments"); list && list->is_array())
      for (const auto& a : list->as_array())
        if (a.is_object())
          post.attachments.push_back({"", text_of(a.as_object(), "filename", "file.txt"),
                                      text_of(a.as_object(), "content_type", "text/plain"),
                                      text_of(a.as_object(), "content")});
    return reply(200, json::object{{"id", do_post_user_message(post)}});
  }
  if (path == "/_control/delete") {
    do_delete_message(text_of(body, "channel_id", options_.channel_id),
                      text_of(body, "message_id"));
    return reply(200, json::object{});
  }
  if (path == "/_control/thread")
    return reply(200, json::object{{"id", do_create_thread(text_of(body, "name", "thread"),
                                                           text_of(body, "parent_id"), "")}});
  if (path == "/_control/archive") {
    do_archive_thread(text_of(body, "thread_id"));
    return reply(200, json::object{});
  }
  if (path == "/_control/delete_thread") {
    do_delete_thread(text_of(body, "thread_id"));
    return reply(200, json::object{});
  }
  if (path == "/_control/interaction") {
    std::map<std::string, std::string> options;
    if (const auto* o = body.if_contains("options"); o && o->is_object())
      for (const auto& [k, v] : o->as_object())
        if (v.is_string()) options[std::string(k)] = std::string(v.as_string());
    const auto record =
        do_send_interaction(text_of(body, "name"), options, text_of(body, "channel_id"),
                            text_of(body, "user_id", "500000000000000005"));
    return reply(200, json::object{{"id", record.id}, {"token", record.token}});
  }
  if (path == "/_control/op") {
    const auto* op = body.if_contains("op");
    if (!op || !op->is_int64()) return reply(400, json::object{{"error", "op must be an integer"}});
    const auto* d = body.if_contains("d");
    if (op->as_int64() == 9 && d && d->is_bool() && !d->as_bool())
      for (auto& [id, log] : sessions_) log.valid = false;
    for (auto& peer : peers_)
      if (!peer->dead) push(peer, {{"op", op->as_int64()}, {"d", d ? *d : json::value(nullptr)}});
    return reply(200, json::object{});
  }
  if (path == "/_control/close") {
    const auto* code = body.if_contains("code");
    const auto value =
        code && code->is_int64() ? static_cast<std::uint16_t>(code->as_int64()) : 4000;
    for (auto& peer : peers_) close_peer(peer, value);
    return reply(200, json::object{});
  }
  if (path == "/_control/drop_acks") {
    const auto* drop = body.if_contains("drop");
    drop_acks_ = !drop || !drop->is_bool() || drop->as_bool();
    return reply(200, json::object{});
  }
  if (path == "/_control/rate_limit") {
    InjectedLimit limit;
    limit.method = text_of(body, "method");
    limit.path_prefix = text_of(body, "path_prefix", "/");
    if (const auto* v = body.if_contains("retry_after"); v && v->is_number())
      limit.retry_after = v->to_number<double>();
    if (const auto* v = body.if_contains("global"); v && v->is_bool()) limit.global = v->as_bool();
    if (const auto* v = body.if_contains("count"); v && v->is_int64())
      limit.count = static_cast<int>(v->as_int64());
    injected_.push_back(limit);
    return reply(200, json::object{});
  }
  if (path == "/_control/revoke_token") {
    token_revoked_ = true;
    return reply(200, json::object{});
  }
  return reply(404, json::object{{"error", "no such control route: " + path}});
}

}  // namespace errand::fake_discord
