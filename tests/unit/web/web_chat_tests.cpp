// The chat service errand has without one configured: threads opened from the page's messages,
// and what the core posts in them kept, in order of change, for the page to read.

#include "core/sessions/web_identity.hpp"
#include "core/web/web_chat.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch_test_macros.hpp>
#include <set>

namespace errand::web {
namespace {

namespace asio = boost::asio;

class RecordingEvents final : public sdk::ChatEvents {
 public:
  void on_message(const sdk::InboundMessage&) noexcept override {}
  void on_message_deleted(const sdk::MessageDeleted&) noexcept override {}
  void on_thread_closed(const sdk::ThreadClosed&) noexcept override {}
  void on_command(const sdk::CommandCall&) noexcept override {}
  void on_reaction(const sdk::ReactionEvent&) noexcept override {}
  void on_connection(sdk::ConnectionState state, const std::string&) noexcept override {
    states.push_back(state);
  }
  std::vector<sdk::ConnectionState> states;
};

template <class T>
T run(asio::io_context& io, asio::awaitable<T> work) {
  auto future = asio::co_spawn(io, std::move(work), asio::use_future);
  io.restart();
  io.run();
  return future.get();
}

}  // namespace

TEST_CASE("the web chat is ready at once, and only starts once", "[web][web-chat]") {
  WebChat chat;
  RecordingEvents events;
  REQUIRE(chat.start(events).has_value());
  REQUIRE(events.states.size() == 1);
  CHECK(events.states.front() == sdk::ConnectionState::ready);
  CHECK_FALSE(chat.start(events).has_value());
}

TEST_CASE("message ids are fresh every time, and a thread has its opening message's id",
          "[web][web-chat]") {
  asio::io_context io;
  WebChat chat;
  std::set<std::string> ids;
  for (int i = 0; i < 200; ++i) {
    const auto ref = chat.new_message(std::string(sessions::kWebChannelId));
    CHECK(ref.channel_id == sessions::kWebChannelId);
    CHECK(ref.message_id.starts_with("web-"));
    ids.insert(ref.message_id);
  }
  CHECK(ids.size() == 200);
  const auto opening = chat.new_message(std::string(sessions::kWebChannelId));
  auto thread = run(io, chat.open_thread(opening, "a name"));
  REQUIRE(thread.has_value());
  CHECK(thread->id == opening.message_id);
  CHECK(thread->parent_channel_id == sessions::kWebChannelId);
}

TEST_CASE("what is posted, edited and removed in a thread is read back in order of change",
          "[web][web-chat]") {
  asio::io_context io;
  WebChat chat;
  sdk::OutMessage first;
  first.text = "<@web-interface> stopping the session";
  auto posted = run(io, chat.post("t1", first));
  REQUIRE(posted.has_value());
  REQUIRE(posted->size() == 1);
  sdk::OutMessage second;
  second.text = "second";
  second.files.push_back({"notes.txt", "text/plain", "bytes"});
  auto posted_second = run(io, chat.post("t1", second));
  REQUIRE(posted_second.has_value());
  auto other = run(io, chat.post("t2", second));
  REQUIRE(other.has_value());

  auto all = chat.messages_after("t1", 0);
  REQUIRE(all.size() == 2);
  // The mention of the web interface is the core addressing the page's own account.
  CHECK(all[0].text == "stopping the session");
  CHECK(all[1].file_names == std::vector<std::string>{"notes.txt"});
  const auto seen = all[1].sequence;
  CHECK(chat.messages_after("t1", seen).empty());

  REQUIRE(run(io, chat.edit(posted->front(), "stopped")).has_value());
  auto changed = chat.messages_after("t1", seen);
  REQUIRE(changed.size() == 1);
  CHECK(changed[0].id == posted->front().message_id);
  CHECK(changed[0].text == "stopped");
  CHECK(changed[0].edited);

  REQUIRE(run(io, chat.remove(posted_second->front())).has_value());
  auto removed = chat.messages_after("t1", changed[0].sequence);
  REQUIRE(removed.size() == 1);
  CHECK(removed[0].removed);
  CHECK(removed[0].text.empty());

  auto missing = run(io, chat.edit(sdk::MessageRef{"t1", "web-none"}, "x"));
  CHECK_FALSE(missing.has_value());
  CHECK(chat.messages_after("nowhere", 0).empty());
}

TEST_CASE("a thread keeps its newest messages only", "[web][web-chat]") {
  asio::io_context io;
  WebChat chat;
  std::string first_id;
  for (std::size_t i = 0; i < WebChat::kKeptPerThread + 5; ++i) {
    sdk::OutMessage message;
    message.text = "line " + std::to_string(i);
    auto posted = run(io, chat.post("t", message));
    REQUIRE(posted.has_value());
  }
  const auto kept = chat.messages_after("t", 0);
  REQUIRE(kept.size() == WebChat::kKeptPerThread);
  CHECK(kept.front().text == "line 5");
}

TEST_CASE("the web chat has no slash commands and no attachments", "[web][web-chat]") {
  asio::io_context io;
  WebChat chat;
  auto answered = run(io, chat.answer(sdk::CommandCall{}, sdk::OutMessage{}));
  REQUIRE_FALSE(answered.has_value());
  CHECK(answered.error().message.find("type the ! command") != std::string::npos);
  auto fetched = run(io, chat.fetch_attachment(sdk::Attachment{}, 10));
  CHECK_FALSE(fetched.has_value());
}

}  // namespace errand::web
