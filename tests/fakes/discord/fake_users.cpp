#include <boost/json/serialize.hpp>
#include <cstdio>

#include "fake_impl.hpp"

namespace errand::fake_discord {

namespace json = boost::json;

std::string FakeDiscord::Impl::new_id() {
  // Snowflake-shaped: a time part above bit 22 so clients can read a creation time from it.
  const auto ms =
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
  const std::uint64_t discord_ms = ms > 1420070400000ULL ? ms - 1420070400000ULL : 0;
  const std::uint64_t candidate = (discord_ms << 22) | (next_id_++ & 0x3FFFFF);
  return std::to_string(candidate);
}

std::string FakeDiscord::Impl::attachment_url(const std::string& channel_id,
                                              const std::string& message_id,
                                              const std::string& filename) const {
  return scheme(false) + "://127.0.0.1:" + std::to_string(port_) + "/attachments/" + channel_id +
         "/" + message_id + "/" + filename + "?" + attachment_signature(message_id, filename);
}

std::string FakeDiscord::Impl::attachment_signature(const std::string& message_id,
                                                    const std::string& filename) const {
  // Not a real HMAC: a value the client cannot guess, so only the URL as handed out works.
  char hm[17];
  std::snprintf(hm, sizeof hm, "%016zx",
                std::hash<std::string>{}(options_.token + "/" + message_id + "/" + filename));
  return std::string("ex=6790c4f2&is=678f7372&hm=") + hm;
}

json::object FakeDiscord::Impl::user_object(const std::string& id, const std::string& name,
                                            bool bot) const {
  json::object user{{"id", id}, {"username", name}, {"global_name", name}, {"discriminator", "0"}};
  if (bot) user["bot"] = true;
  return user;
}

json::object FakeDiscord::Impl::message_object(const StoredMessage& m) const {
  json::array attachments;
  std::size_t n = 0;
  for (const auto& f : m.files)
    attachments.push_back(json::object{{"id", m.id + std::to_string(n++)},
                                       {"filename", f.filename},
                                       {"content_type", f.content_type},
                                       {"size", f.bytes.size()},
                                       {"url", attachment_url(m.channel_id, m.id, f.filename)}});
  const bool is_bot_user = m.by_bot && m.author_id == options_.bot_user_id;
  json::object o{{"id", m.id},
                 {"channel_id", m.channel_id},
                 {"guild_id", options_.guild_id},
                 {"type", 0},
                 {"content", m.content},
                 {"author", user_object(m.author_id, is_bot_user ? "errand" : "user", m.by_bot)},
                 {"attachments", std::move(attachments)},
                 {"mentions", json::array{}},
                 {"timestamp", "2024-01-01T00:00:00.000000+00:00"}};
  if (!m.nonce.empty()) o["nonce"] = m.nonce;
  return o;
}

json::object FakeDiscord::Impl::channel_object(const ChannelInfo& c) const {
  json::object o{{"id", c.id}, {"type", c.type}, {"guild_id", options_.guild_id}, {"name", c.name}};
  if (!c.parent_id.empty()) {
    o["parent_id"] = c.parent_id;
    o["thread_metadata"] = {{"archived", c.archived}, {"auto_archive_duration", 10080}};
  }
  return o;
}

std::string FakeDiscord::Impl::do_post_user_message(const UserPost& post) {
  StoredMessage m;
  m.id = new_id();
  m.channel_id = !post.thread_id.empty()    ? post.thread_id
                 : !post.channel_id.empty() ? post.channel_id
                                            : options_.channel_id;
  m.author_id = post.author_id;
  m.by_bot = post.author_is_bot;
  m.content = post.content;
  if (post.mention_bot) m.content = "<@" + options_.bot_user_id + "> " + m.content;
  m.files = post.attachments;
  messages_[m.id] = m;
  message_order_.push_back(m.id);
  auto event = message_object(m);
  event["author"] = user_object(post.author_id, post.username, post.author_is_bot);
  event["member"] = {{"nick", nullptr}, {"roles", json::array{}}};
  if (!options_.message_content_allowed) event["content"] = "";
  if (post.mention_bot)
    event["mentions"] = json::array{user_object(options_.bot_user_id, "errand", true)};
  dispatch("MESSAGE_CREATE", std::move(event));
  return m.id;
}

void FakeDiscord::Impl::do_delete_message(const std::string& channel_id,
                                          const std::string& message_id) {
  if (auto it = messages_.find(message_id); it != messages_.end()) it->second.deleted = true;
  dispatch("MESSAGE_DELETE",
           {{"id", message_id}, {"channel_id", channel_id}, {"guild_id", options_.guild_id}});
}

std::string FakeDiscord::Impl::do_create_thread(const std::string& name,
                                                const std::string& parent_id,
                                                const std::string& from_message) {
  ChannelInfo c;
  c.id = from_message.empty() ? new_id() : from_message;
  c.type = 11;
  c.parent_id = parent_id.empty() ? options_.channel_id : parent_id;
  c.name = name;
  channels_[c.id] = c;
  auto event = channel_object(c);
  event["newly_created"] = true;
  dispatch("THREAD_CREATE", std::move(event));
  return c.id;
}

void FakeDiscord::Impl::do_archive_thread(const std::string& thread_id) {
  auto it = channels_.find(thread_id);
  if (it == channels_.end()) return;
  it->second.archived = true;
  dispatch("THREAD_UPDATE", channel_object(it->second));
}

void FakeDiscord::Impl::do_delete_thread(const std::string& thread_id) {
  auto it = channels_.find(thread_id);
  if (it == channels_.end()) return;
  dispatch("THREAD_DELETE", {{"id", thread_id},
                             {"guild_id", options_.guild_id},
                             {"parent_id", it->second.parent_id},
                             {"type", 11}});
  channels_.erase(it);
}

InteractionRecord FakeDiscord::Impl::do_send_interaction(
    const std::string& name, const std::map<std::string, std::string>& options,
    const std::string& channel_id, const std::string& user_id) {
  InteractionRecord record;
  record.id = new_id();
  record.token = "interaction-token-" + record.id;
  record.name = name;
  interactions_[record.id] = record;
  interaction_created_[record.id] = steady::now();
  const auto where = channel_id.empty() ? options_.channel_id : channel_id;
  json::array option_list;
  for (const auto& [key, value] : options)
    option_list.push_back(json::object{{"name", key}, {"type", 3}, {"value", value}});
  json::object channel{{"id", where}, {"type", 0}};
  if (auto it = channels_.find(where); it != channels_.end()) channel = channel_object(it->second);
  dispatch("INTERACTION_CREATE", {{"id", record.id},
                                  {"application_id", options_.application_id},
                                  {"type", 2},
                                  {"token", record.token},
                                  {"version", 1},
                                  {"guild_id", options_.guild_id},
                                  {"channel_id", where},
                                  {"channel", std::move(channel)},
                                  {"member",
                                   {{"user", user_object(user_id, "alice", false)},
                                    {"nick", nullptr},
                                    {"roles", json::array{}}}},
                                  {"data",
                                   {{"id", "600000000000000006"},
                                    {"name", name},
                                    {"type", 1},
                                    {"options", std::move(option_list)}}}});
  return record;
}

}  // namespace errand::fake_discord
