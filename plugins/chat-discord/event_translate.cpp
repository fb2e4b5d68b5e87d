#include "plugins/chat-discord/event_translate.hpp"

#include <boost/json/serialize.hpp>
#include <charconv>

namespace errand::discord {

namespace json = boost::json;

std::string string_member(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::chrono::system_clock::time_point snowflake_time(std::string_view id) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), value);
  if (ec != std::errc() || end != id.data() + id.size()) return {};
  constexpr std::uint64_t kDiscordEpochMs = 1420070400000ULL;
  return std::chrono::system_clock::time_point(
      std::chrono::milliseconds((value >> 22) + kDiscordEpochMs));
}

sdk::UserRef parse_user(const json::object& user, const json::object* member) {
  sdk::UserRef ref;
  ref.id = string_member(user, "id");
  if (const auto* bot = user.if_contains("bot"); bot && bot->is_bool()) ref.is_bot = bot->as_bool();
  if (member != nullptr) ref.display_name = string_member(*member, "nick");
  if (ref.display_name.empty()) ref.display_name = string_member(user, "global_name");
  if (ref.display_name.empty()) ref.display_name = string_member(user, "username");
  return ref;
}

std::optional<sdk::InboundMessage> parse_message(const json::object& d,
                                                 const std::string& self_id) {
  sdk::InboundMessage m;
  m.ref.message_id = string_member(d, "id");
  m.ref.channel_id = string_member(d, "channel_id");
  const auto* author = d.if_contains("author");
  if (m.ref.message_id.empty() || m.ref.channel_id.empty() || author == nullptr ||
      !author->is_object())
    return std::nullopt;
  const auto* member = d.if_contains("member");
  m.author = parse_user(author->as_object(),
                        member != nullptr && member->is_object() ? &member->as_object() : nullptr);
  m.text = string_member(d, "content");
  if (const auto* list = d.if_contains("attachments"); list && list->is_array()) {
    for (const auto& a : list->as_array()) {
      if (!a.is_object()) continue;
      const auto& o = a.as_object();
      sdk::Attachment att;
      att.id = string_member(o, "id");
      att.filename = string_member(o, "filename");
      att.content_type = string_member(o, "content_type");
      att.url = string_member(o, "url");
      // A size that is no whole byte count (18.5, -1) stays unknown (0) rather than throwing,
      // which would lose the whole message; the download is bounded either way.
      if (const auto* size = o.if_contains("size"); size && size->is_number()) {
        json::error_code ec;
        const auto bytes = size->to_number<std::uint64_t>(ec);
        if (!ec) att.size = bytes;
      }
      m.attachments.push_back(std::move(att));
    }
  }
  if (!self_id.empty()) {
    if (const auto* list = d.if_contains("mentions"); list && list->is_array())
      for (const auto& u : list->as_array())
        if (u.is_object() && string_member(u.as_object(), "id") == self_id) m.mentions_bot = true;
    if (m.text.find("<@" + self_id + ">") != std::string::npos ||
        m.text.find("<@!" + self_id + ">") != std::string::npos)
      m.mentions_bot = true;
  }
  m.sent_at = snowflake_time(m.ref.message_id);
  return m;
}

std::optional<sdk::CommandCall> parse_command(const json::object& d) {
  const auto* type = d.if_contains("type");
  if (type == nullptr || !type->is_number()) return std::nullopt;
  json::error_code ec;
  if (type->to_number<int>(ec) != 2 || ec) return std::nullopt;
  sdk::CommandCall call;
  call.id = string_member(d, "id");
  call.token = string_member(d, "token");
  call.channel_id = string_member(d, "channel_id");
  const auto* data = d.if_contains("data");
  if (call.id.empty() || call.token.empty() || data == nullptr || !data->is_object())
    return std::nullopt;
  call.name = string_member(data->as_object(), "name");
  if (const auto* options = data->as_object().if_contains("options");
      options && options->is_array()) {
    for (const auto& option : options->as_array()) {
      if (!option.is_object()) continue;
      const auto& o = option.as_object();
      const auto* value = o.if_contains("value");
      if (value == nullptr) continue;
      call.options[string_member(o, "name")] =
          value->is_string() ? std::string(value->as_string()) : json::serialize(*value);
    }
  }
  const json::object* member = nullptr;
  if (const auto* m = d.if_contains("member"); m && m->is_object()) member = &m->as_object();
  const json::value* user = member != nullptr ? member->if_contains("user") : d.if_contains("user");
  if (user != nullptr && user->is_object()) call.user = parse_user(user->as_object(), member);
  return call;
}

sdk::ReactionEvent parse_reaction(const json::object& d, bool added) {
  sdk::ReactionEvent reaction;
  reaction.ref = {string_member(d, "channel_id"), string_member(d, "message_id")};
  reaction.user.id = string_member(d, "user_id");
  reaction.added = added;
  if (const auto* member = d.if_contains("member"); member && member->is_object())
    if (const auto* user = member->as_object().if_contains("user"); user && user->is_object())
      reaction.user = parse_user(user->as_object(), &member->as_object());
  if (const auto* emoji = d.if_contains("emoji"); emoji && emoji->is_object()) {
    const auto name = string_member(emoji->as_object(), "name");
    const auto id = string_member(emoji->as_object(), "id");
    reaction.glyph = id.empty() ? name : name + ":" + id;
  }
  return reaction;
}

std::vector<ChannelPlace> guild_channels(const json::object& d) {
  std::vector<ChannelPlace> places;
  for (const auto* key : {"channels", "threads"})
    if (const auto* list = d.if_contains(key); list && list->is_array())
      for (const auto& c : list->as_array())
        if (c.is_object())
          if (auto id = string_member(c.as_object(), "id"); !id.empty())
            places.push_back({std::move(id), string_member(c.as_object(), "parent_id"),
                              std::string_view(key) == "threads"});
  return places;
}

}  // namespace errand::discord
