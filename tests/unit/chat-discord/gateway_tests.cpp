#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include "test_support.hpp"

using namespace errand::discord;
using namespace errand::discord::testing;
using errand::sdk::ConnectionState;
namespace fd = errand::fake_discord;

namespace {

std::size_t identifies(const fd::FakeDiscord& fake) {
  return client_frames(fake, 2).size();
}
std::size_t resumes(const fd::FakeDiscord& fake) {
  return client_frames(fake, 6).size();
}

bool halted_with(RecordingEvents& events, const std::string& words) {
  return events.wait([&](auto& e) {
    for (const auto& [s, detail] : e.states)
      if (s == ConnectionState::halted && detail.find(words) != std::string::npos) return true;
    return false;
  });
}

}  // namespace

TEST_CASE("identify carries the token, the intents and the properties") {
  Harness h;
  REQUIRE(h.wait_ready());
  const auto frames = client_frames(h.fake, 2);
  REQUIRE(frames.size() == 1);
  const auto& d = frames[0].payload.at("d").as_object();
  CHECK(d.at("token").as_string() == h.fake.options().token);
  CHECK(d.at("intents").as_int64() == (1 | (1 << 9) | (1 << 10) | (1 << 15)));
  CHECK(d.at("properties").as_object().contains("os"));
  CHECK(h.transport->self_id() == h.fake.options().bot_user_id);
  // The fake named its gateway "ws://127.0.0.1:<port>", with no path, as Discord does.
  const auto connections = h.fake.gateway_connections();
  REQUIRE(!connections.empty());
  CHECK(connections[0].request_line == "GET /?v=10&encoding=json HTTP/1.1");
  CHECK_FALSE(connections[0].at_resume_url);
  const auto bot = requests_to(h.fake, "GET", "/gateway/bot");
  REQUIRE(bot.size() == 1);
  CHECK(bot[0].header("authorization") == "Bot " + h.fake.options().token);
  CHECK(bot[0].header("user-agent").rfind("DiscordBot (https://github.com/errand, ", 0) == 0);
}

TEST_CASE("every gateway URL shape Discord may hand out becomes a request line starting with /") {
  struct Shape {
    fd::UrlShape shape;
    const char* connect_line;
    const char* resume_line;
  };
  const auto [shape, connect_line, resume_line] =
      GENERATE(Shape{fd::UrlShape::no_path, "GET /?v=10&encoding=json HTTP/1.1",
                     "GET /?v=10&encoding=json HTTP/1.1"},
               Shape{fd::UrlShape::trailing_slash, "GET /?v=10&encoding=json HTTP/1.1",
                     "GET /?v=10&encoding=json HTTP/1.1"},
               Shape{fd::UrlShape::path, "GET /gateway?v=10&encoding=json HTTP/1.1",
                     "GET /resume?v=10&encoding=json HTTP/1.1"},
               Shape{fd::UrlShape::own_query, "GET /?region=fake&v=10&encoding=json HTTP/1.1",
                     "GET /?region=fake&v=10&encoding=json HTTP/1.1"});
  auto options = fast_fake();
  options.url_shape = shape;
  Harness h(options);
  INFO(h.fake.gateway_url());
  REQUIRE(h.wait_ready());
  h.fake.request_reconnect();
  REQUIRE(fd::FakeDiscord::wait_until([&] { return resumes(h.fake) == 1; }, 5s));
  const auto connections = h.fake.gateway_connections();
  REQUIRE(connections.size() == 2);
  CHECK(connections[0].request_line == connect_line);
  CHECK_FALSE(connections[0].at_resume_url);
  CHECK(connections[1].request_line == resume_line);
  CHECK(connections[1].at_resume_url);
}

TEST_CASE("chat.gatewayUrl with a path of its own is used instead of /gateway/bot's") {
  auto options = fast_fake();
  options.url_shape = fd::UrlShape::path;
  fd::FakeDiscord elsewhere(options);
  Harness h(fast_fake(), fast_tuning(), true,
            {{"gatewayUrl", "ws://127.0.0.1:" + std::to_string(elsewhere.port()) + "/ws/"}});
  REQUIRE(
      fd::FakeDiscord::wait_until([&] { return !elsewhere.gateway_connections().empty(); }, 5s));
  CHECK(elsewhere.gateway_connections()[0].request_line == "GET /ws/?v=10&encoding=json HTTP/1.1");
  CHECK(h.fake.gateway_connections().empty());
}

TEST_CASE("the first heartbeat waits interval times the jitter, then one per interval") {
  // Every bound is read off the fake server's own clock, from the moment it sent HELLO: a beat
  // may not come before its turn (jitter, then one interval each), and must come before the
  // next turn, which is Discord's own deadline for it. The interval is long enough that a
  // loaded machine's delays stay far inside it.
  constexpr auto interval = 1000ms;
  constexpr double jitter = 0.25;
  auto tuning = fast_tuning();
  tuning.gateway.jitter = [] { return jitter; };
  auto options = fast_fake();
  options.hello_interval = interval;
  Harness h(options, tuning);
  REQUIRE(h.wait_ready());
  REQUIRE(fd::FakeDiscord::wait_until([&] { return client_frames(h.fake, 1).size() >= 3; }, 20s));
  const auto hello = *h.fake.gateway_connections().at(0).hello_sent;
  const auto beats = client_frames(h.fake, 1);
  for (std::size_t k = 0; k < 3; ++k) {
    CAPTURE(k);
    const auto turn = std::chrono::duration_cast<std::chrono::milliseconds>(
        interval * (jitter + static_cast<double>(k)));
    const auto at = beats[k].at - hello;
    CHECK(at >= turn);
    CHECK(at < turn + interval);
  }
  // Heartbeats carry the last sequence number seen (READY and GUILD_CREATE were 1 and 2).
  CHECK(beats[0].payload.at("d").as_int64() >= 2);
  // Every beat was acknowledged, so the connection stayed up.
  CHECK(h.fake.gateway_connections().size() == 1);
}

TEST_CASE("a heartbeat request from the server (op 1) is answered at once") {
  auto options = fast_fake();
  options.hello_interval = 5000ms;
  auto tuning = fast_tuning();
  tuning.gateway.jitter = [] { return 0.9; };  // the scheduled beat is 4.5 s away
  Harness h(options, tuning);
  REQUIRE(h.wait_ready());
  CHECK(client_frames(h.fake, 1).empty());
  h.fake.request_heartbeat();
  CHECK(fd::FakeDiscord::wait_until([&] { return client_frames(h.fake, 1).size() == 1; }, 1s));
}

TEST_CASE("no ACK before the next beat: close with a resumable code and resume") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.set_drop_acks(true);
  REQUIRE(fd::FakeDiscord::wait_until([&] { return resumes(h.fake) >= 1; }, 5s));
  const auto connections = h.fake.gateway_connections();
  REQUIRE(connections.size() >= 2);
  // The zombie connection was closed with a code that keeps the session alive, or dropped.
  if (connections[0].client_close_code) {
    CHECK(*connections[0].client_close_code != 1000);
    CHECK(*connections[0].client_close_code != 1001);
  }
  CHECK(connections[1].at_resume_url);
  const auto resume = client_frames(h.fake, 6).at(0).payload.at("d").as_object();
  CHECK(std::string(resume.at("session_id").as_string()).rfind("session-", 0) == 0);
  CHECK(identifies(h.fake) == 1);
  CHECK(h.core().gateway_stats().zombie_closes >= 1);
  h.fake.set_drop_acks(false);
}

TEST_CASE("op 7 reconnect resumes at the resume_gateway_url") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.request_reconnect();
  REQUIRE(fd::FakeDiscord::wait_until([&] { return resumes(h.fake) == 1; }, 5s));
  REQUIRE(h.events.wait([](auto& e) {
    for (auto& [s, d] : e.states)
      if (s == ConnectionState::ready && d == "resumed") return true;
    return false;
  }));
  const auto connections = h.fake.gateway_connections();
  CHECK(connections.back().at_resume_url);
  CHECK(connections.back().request_line == "GET /?v=10&encoding=json HTTP/1.1");
  CHECK(identifies(h.fake) == 1);
  if (connections[0].client_close_code) CHECK(*connections[0].client_close_code == 4000);
}

TEST_CASE("op 9 with d true resumes, with d false identifies again after a wait") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.invalidate_session(true);
  REQUIRE(fd::FakeDiscord::wait_until([&] { return resumes(h.fake) == 1; }, 5s));
  CHECK(identifies(h.fake) == 1);

  const auto before = std::chrono::steady_clock::now();
  h.fake.invalidate_session(false);
  REQUIRE(fd::FakeDiscord::wait_until([&] { return identifies(h.fake) == 2; }, 5s));
  const auto identify_frames = client_frames(h.fake, 2);
  const auto second = identify_frames.at(1).at;
  // The harness waits 150 to 400 ms (Discord's advice is 1 to 5 s, the default).
  CHECK(second - before >= 140ms);
  // Identifies are paced: one per identify window (200 ms here, 5 s by default).
  CHECK(second - identify_frames.at(0).at >= 200ms);
  CHECK(resumes(h.fake) == 1);
  const GatewayTuning defaults;
  CHECK(defaults.invalid_session_wait_min == 1000ms);
  CHECK(defaults.invalid_session_wait_max == 5000ms);
}

TEST_CASE("close 4000 and a connection lost without a close frame both resume") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.close_gateway(4000);
  REQUIRE(fd::FakeDiscord::wait_until([&] { return resumes(h.fake) == 1; }, 5s));
  REQUIRE(
      fd::FakeDiscord::wait_until([&] { return h.fake.gateway_connections().size() == 2; }, 2s));
  h.fake.drop_gateway();
  REQUIRE(fd::FakeDiscord::wait_until([&] { return resumes(h.fake) == 2; }, 5s));
  CHECK(identifies(h.fake) == 1);
}

TEST_CASE("close 4004 halts with the token named and never reconnects") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.close_gateway(4004);
  REQUIRE(halted_with(h.events, "chat.token"));
  std::this_thread::sleep_for(300ms);
  CHECK(h.fake.gateway_connections().size() == 1);
  // REST is halted too: an invalid token is invalid everywhere.
  const auto before = h.fake.requests().size();
  auto posted = h.run(h.transport->post(h.fake.options().channel_id, {.text = "hello"}));
  CHECK_FALSE(posted);
  CHECK(h.fake.requests().size() == before);
}

TEST_CASE("4014 halts and says to enable the Message Content intent in the developer portal") {
  auto options = fast_fake();
  options.message_content_allowed = false;
  Harness h(options);
  REQUIRE(halted_with(h.events, "Message Content"));
  const auto detail = h.events.read([](auto& e) { return e.states.back().second; });
  CHECK(detail.find("developer portal") != std::string::npos);
  CHECK(h.events.read([](auto& e) { return e.count_state(ConnectionState::ready); }) == 0);
  std::this_thread::sleep_for(300ms);
  CHECK(h.fake.gateway_connections().size() == 1);
}

TEST_CASE("a MESSAGE_CREATE replayed after a resume reaches the core once") {
  Harness h;
  REQUIRE(h.wait_ready());
  const auto first = h.fake.post_user_message({.content = "first"});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 1; }));
  // The server replays everything from before the client's sequence number.
  h.fake.set_replay_overlap(100);
  h.fake.request_reconnect();
  REQUIRE(fd::FakeDiscord::wait_until([&] { return resumes(h.fake) == 1; }, 5s));
  const auto second = h.fake.post_user_message({.content = "second"});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() >= 2; }));
  std::this_thread::sleep_for(200ms);
  const auto ids = h.events.read([](auto& e) {
    std::vector<std::string> out;
    for (auto& m : e.messages) out.push_back(m.ref.message_id);
    return out;
  });
  CHECK(ids == std::vector<std::string>{first, second});
  // The replayed frame did arrive on the wire; the transport dropped it.
  std::size_t first_sent = 0;
  for (const auto& f : h.fake.gateway_frames())
    if (!f.from_client && f.payload.contains("t") && f.payload.at("t") == "MESSAGE_CREATE" &&
        f.payload.at("d").at("id").as_string() == first)
      ++first_sent;
  CHECK(first_sent == 2);
}

TEST_CASE("messages posted while the connection is down arrive after the resume") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.drop_gateway();
  const auto gap = h.fake.post_user_message({.content = "sent while disconnected"});
  REQUIRE(h.events.wait([](auto& e) { return e.messages.size() == 1; }));
  CHECK(h.events.read([](auto& e) { return e.messages[0].ref.message_id; }) == gap);
  CHECK(identifies(h.fake) == 1);
}

TEST_CASE("the token never appears in the transport's log") {
  Harness h;
  REQUIRE(h.wait_ready());
  h.fake.request_reconnect();
  REQUIRE(fd::FakeDiscord::wait_until([&] { return resumes(h.fake) == 1; }, 5s));
  h.fake.revoke_token();
  (void)h.run(h.transport->post(h.fake.options().channel_id, {.text = "refused"}));
  h.fake.close_gateway(4004);
  REQUIRE(h.events.wait([](auto& e) { return e.count_state(ConnectionState::halted) > 0; }));
  h.transport->stop();
  std::this_thread::sleep_for(200ms);
  const auto log = h.log_text.str();
  CHECK(log.find("401") != std::string::npos);  // the log did record what happened
  CHECK(log.find(h.fake.options().token) == std::string::npos);
}
