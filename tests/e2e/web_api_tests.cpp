// The web interface's API against the real `errand run` with no chat service, as a program on
// the machine sees it: what the page is shown passes the scrubbing door, the project browser
// reaches only the project, the agent's question is answered from the page, and an address the
// interface must not serve on stops errand at start.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/e2e/web_client.hpp"
#include "tests/e2e/web_session.hpp"
#include "tests/support/temp_dir.hpp"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <map>
#include <sstream>

namespace errand::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;

WebReply get(const E2eHarness& h, const std::string& target) {
  return web_request(h.web_door(), WebRequest::get(target));
}

}  // namespace

TEST_CASE("a configured secret the agent prints reaches the page only as [redacted]",
          "[e2e][web]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  h.start();
  const std::string key = h.provider_key();
  const auto thread = start_web_session(
      h, "scrub", "say the provider key is " + key + "\nwrite leak.txt " + key + "\\n\nsay done");
  const auto stream = first_turn_events(h, thread);
  INFO(stream);
  REQUIRE(stream.find("\"turn_end\"") != npos);
  CHECK(stream.find(key) == npos);
  CHECK_THAT(stream, ContainsSubstring("the provider key is [redacted]"));

  // The file really holds the key; the page is shown it scrubbed, and never downloads it.
  CHECK(errand::test::read_file(h.project_root() / "scrub" / "leak.txt") == key + "\n");
  const auto shown = get(h, "/api/sessions/" + thread + "/file?path=leak.txt");
  CHECK(shown.status == 200);
  CHECK(shown.body.find(key) == npos);
  CHECK_THAT(shown.body, ContainsSubstring("[redacted]"));
  const auto download = get(h, "/api/sessions/" + thread + "/download?path=leak.txt");
  CHECK(download.status == 403);
  CHECK(download.body.find(key) == npos);

  for (const auto& target : {std::string("/api/sessions"), "/api/sessions/" + thread}) {
    const auto listed = get(h, target);
    INFO(target << ": " << listed.body);
    CHECK(listed.status == 200);
    CHECK(listed.body.find(key) == npos);
  }
}

TEST_CASE("the project browser reaches the session's project and nothing else", "[e2e][web]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  h.start();
  const auto thread = start_web_session(
      h, "browse",
      "run mkdir -p src && echo 'int main() {}' > src/main.cpp && ln -s /etc/passwd passwd-link "
      "&& head -c 13000 /dev/zero | tr '\\0' a > big.txt && head -c 9000000 /dev/zero > huge.bin"
      "\nsay files made");
  REQUIRE(first_turn_events(h, thread).find("\"turn_end\"") != npos);
  const std::string base = "/api/sessions/" + thread;

  const auto top = get(h, base + "/tree");
  INFO(top.body);
  REQUIRE(top.status == 200);
  const auto tree = json::parse(top.body).as_object();
  CHECK(tree.at("path") == ".");
  std::map<std::string, std::string> types;
  for (const auto& entry : tree.at("entries").as_array())
    types[std::string(entry.at("name").as_string())] = std::string(entry.at("type").as_string());
  CHECK(types["src"] == "directory");
  CHECK(types["passwd-link"] == "symlink");
  CHECK(types["big.txt"] == "file");

  const auto source = get(h, base + "/file?path=src%2Fmain.cpp");
  CHECK(source.status == 200);
  CHECK_THAT(source.body, ContainsSubstring("int main() {}"));
  // The path the agent sees works too.
  CHECK(get(h, base + "/file?path=/workspace/src/main.cpp").status == 200);

  // Out of the project, through a link the agent planted, or by climbing: refused, with a reason.
  for (const auto* outside :
       {"/file?path=passwd-link", "/file?path=..%2F..%2Fetc%2Fpasswd", "/tree?path=..",
        "/file?path=/etc/passwd", "/download?path=passwd-link"}) {
    const auto refused = get(h, base + outside);
    INFO(outside << " -> " << refused.status << " " << refused.body);
    CHECK(refused.status >= 400);
    CHECK(refused.status < 500);
    CHECK(refused.body.find("root:") == npos);
    CHECK_THAT(refused.body, ContainsSubstring("\"error\""));
  }

  // Too big to show: offered as a download, which works up to the upload limit.
  const auto big = get(h, base + "/file?path=big.txt");
  CHECK(big.status == 415);
  const auto offered = json::parse(big.body).as_object();
  const std::string link(offered.at("download").as_string());
  CHECK(link == base + "/download?path=big.txt");
  const auto bytes = get(h, link);
  CHECK(bytes.status == 200);
  CHECK(bytes.body == std::string(13000, 'a'));
  CHECK(get(h, base + "/download?path=huge.bin").status == 413);

  CHECK(get(h, "/api/sessions/no-such-thread/tree").status == 404);
  CHECK(get(h, "/api/sessions/..%2F..%2Fstate/tree").status == 404);
}

TEST_CASE("the agent's question is answered from the page with the option's id",
          "[e2e][sanitized][web]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  h.set("agent.permissions", "ask");
  h.start();
  const auto thread = start_web_session(h, "asking", "ask touch asked.txt\nsay after the question");
  const std::string base = "/api/sessions/" + thread;
  std::string option;
  REQUIRE(eventually([&] {
    const auto row = get(h, base);
    if (row.status != 200) return false;
    const auto question = json::parse(row.body).at("question");
    if (!question.is_object()) return false;
    CHECK_THAT(std::string(question.at("text").as_string()), ContainsSubstring("touch asked.txt"));
    option = std::string(question.at("options").as_array().at(0).at("id").as_string());
    return true;
  }));
  CHECK(option == "allow-once");
  const auto answered = web_request(
      h.web_door(), WebRequest::post(base + "/send", own_origin(h), R"({"text": "allow-once"})"));
  CHECK(answered.status == 202);
  const auto stream = first_turn_events(h, thread);
  CHECK_THAT(stream, ContainsSubstring("\"permission_asked\""));
  CHECK_THAT(stream, ContainsSubstring("\"option\":\"allow-once\""));
  CHECK_THAT(stream, ContainsSubstring("after the question"));
  // The agent was given the option the page sent.
  CHECK_THAT(stream, ContainsSubstring("permission: selected allow-once"));
}

TEST_CASE("a prompt the manager refuses gets 409 with its reason, and a bad body 400",
          "[e2e][sanitized][web]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  h.start();
  const auto thread = start_web_session(h, "busy", "sleep 20000");
  // One live session per project: the second start is refused with the manager's sentence.
  const auto again =
      web_request(h.web_door(), WebRequest::post("/api/sessions", own_origin(h),
                                                 R"({"prompt": "say hi", "project": "busy"})"));
  CHECK(again.status == 409);
  CHECK_THAT(again.body, ContainsSubstring("already has a live session"));
  for (const auto* body : {R"(not json)", R"({"prompt": 5})", R"({"prompt": "  "})",
                           R"({"prompt": "x", "project": "../up"})"}) {
    const auto refused =
        web_request(h.web_door(), WebRequest::post("/api/sessions", own_origin(h), body));
    INFO(body << " -> " << refused.body);
    CHECK(refused.status == 400);
    CHECK_THAT(refused.body, ContainsSubstring("\"error\""));
  }
  const auto stop = web_request(
      h.web_door(),
      WebRequest::post("/api/sessions/" + thread + "/send", own_origin(h), R"({"text": "!stop"})"));
  CHECK(stop.status == 202);
  REQUIRE(eventually([&] {
    const auto row = get(h, "/api/sessions/" + thread);
    return row.body.find("\"state\":\"resumable\"") != npos;
  }));
  // The refused project name made no directory anywhere.
  CHECK_FALSE(std::filesystem::exists(h.root() / "up"));
}

TEST_CASE("a public address, one this host lacks, or a taken port stop errand run with exit 2",
          "[e2e][web][key:web.host][key:web.port]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  h.set("web.port", 18787);
  h.set("web.host", "8.8.8.8");
  CHECK(h.start_expecting_refusal() == 2);
  CHECK_THAT(h.daemon_log(), ContainsSubstring("`web.host` is refused: "));
  CHECK_THAT(h.daemon_log(), ContainsSubstring("8.8.8.8"));

  h.set("web.host", "0.0.0.0");
  CHECK(h.start_expecting_refusal() == 2);
  CHECK_THAT(h.daemon_log(), ContainsSubstring("wildcard"));

  // A private address this machine does not have.
  h.set("web.host", "10.255.255.77");
  CHECK(h.start_expecting_refusal() == 2);
  CHECK_THAT(h.daemon_log(), ContainsSubstring("the web interface could not start"));
  CHECK_THAT(h.daemon_log(), ContainsSubstring("10.255.255.77"));

  // A port another program holds.
  h.set("web.host", "127.0.0.1");
  h.start();
  const auto taken = h.web_port();
  E2eHarness second(Backend::bailey, Front::web_only);
  second.set("web.port", taken);
  CHECK(second.start_expecting_refusal() == 2);
  CHECK_THAT(second.daemon_log(), ContainsSubstring("in use"));
}

TEST_CASE("with a chat service as well, a session started from the page opens its thread there",
          "[e2e][web]") {
  E2eHarness h;
  h.set("web", json::object{{"host", "127.0.0.1"}});
  h.start();
  const auto thread = start_web_session(h, "both", "say hello from the page to the channel");
  const auto& channel = h.discord().options().channel_id;
  // The page's message is in the channel, as the web interface's, and the thread opened from it
  // (a thread opened from a message has its id).
  CHECK_THAT(h.bot_text(channel),
             ContainsSubstring("**web interface:** both: say hello from the page to the channel"));
  REQUIRE(h.wait_for_text(thread, "hello from the page to the channel"));
  REQUIRE(h.wait_for_text(thread, "done in"));
  bool opened = false;
  for (const auto& r : h.discord().requests())
    opened =
        opened || (r.method == "POST" && r.path.find("/messages/" + thread + "/threads") != npos);
  CHECK(opened);

  // A prompt from the page is posted in the thread first, then run.
  const auto sent =
      web_request(h.web_door(), WebRequest::post("/api/sessions/" + thread + "/send", own_origin(h),
                                                 R"({"text": "say second from the page"})"));
  CHECK(sent.status == 202);
  REQUIRE(h.wait_for_text(thread, "**web interface:** say second from the page"));
  REQUIRE(h.wait_for_text(thread, "done in", std::chrono::seconds(60), 2));
  const auto row = get(h, "/api/sessions/" + thread);
  CHECK_THAT(row.body, ContainsSubstring("\"owner\":\"web-interface\""));
  CHECK_THAT(row.body, ContainsSubstring("\"project\":\"both\""));
  const auto about = get(h, "/api/interface");
  CHECK_THAT(about.body, ContainsSubstring("\"chat\":\"discord\""));
}

TEST_CASE("a thread of the web interface is resumed from the page after a restart",
          "[e2e][sanitized][web]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  h.start();
  const auto thread = start_web_session(h, "again", "say before the restart");
  REQUIRE(first_turn_events(h, thread).find("\"turn_end\"") != npos);
  REQUIRE(h.stop() == 0);
  h.start();
  const auto row = get(h, "/api/sessions/" + thread);
  CHECK_THAT(row.body, ContainsSubstring("\"state\":\"resumable\""));
  const auto sent =
      web_request(h.web_door(), WebRequest::post("/api/sessions/" + thread + "/send", own_origin(h),
                                                 R"({"text": "say after the restart"})"));
  CHECK(sent.status == 202);
  const auto stream = web_stream(
      h.web_door(), "/api/sessions/" + thread + "/events", [](const std::string& so_far) {
        return so_far.find("after the restart\"") != npos &&
               so_far.rfind("\"turn_end\"") > so_far.find("after the restart\"");
      });
  // The history of both sessions, oldest first, in one stream.
  const auto before = stream.find("before the restart");
  const auto after = stream.find("after the restart\"");
  REQUIRE(before != npos);
  REQUIRE(after != npos);
  CHECK(before < after);
  const auto sessions = h.sessions_of(thread);
  REQUIRE(sessions.size() == 2);
  CHECK(sessions[0].end_reason == "the daemon stopped");
  CHECK_FALSE(sessions[1].end_reason == "the daemon stopped");
}

TEST_CASE("errand runs from an agent, two directories and a web block, and nothing else",
          "[e2e][web]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  // The quickest way to try errand, as the README shows it: every other key takes its default.
  for (const auto* key : {"sandbox", "limits", "timeouts", "output", "logging"})
    h.config().erase(key);
  std::vector<std::string> keys;
  for (const auto& [key, value] : h.config()) keys.emplace_back(key);
  std::sort(keys.begin(), keys.end());
  REQUIRE(keys == std::vector<std::string>{"agent", "projectRoot", "stateDir", "web"});
  h.start();
  const auto thread = start_web_session(h, "", "say tried with nothing else\nrun echo minimal");
  const auto stream = first_turn_events(h, thread);
  CHECK_THAT(stream, ContainsSubstring("tried with nothing else"));
  CHECK_THAT(stream, ContainsSubstring("\"outcome\":\"completed\""));
  // With no project named, the session's directory is named after it.
  const auto sessions = h.sessions_of(thread);
  REQUIRE(sessions.size() == 1);
  CHECK(std::filesystem::is_directory(h.project_root() / sessions[0].session_id));
}

namespace {

// A shell script for the agent to write and run: two requests to the web interface at
// host:port as a program inside the sandbox can make them, with the bound address as Host and
// Origin (which any client may send) and no access secret, each answered with its status line and
// the body's line naming the secret. Backslashes are doubled for the fake agent's unescaping, so
// printf sees \r and \n.
std::string intruder_script(const std::string& host, std::uint16_t port) {
  const auto address = host + ":" + std::to_string(port);
  const std::string request =
      "printf '%s /api/sessions HTTP/1.1\\\\r\\\\nHost: " + address + "\\\\r\\\\nOrigin: http://" +
      address +
      "\\\\r\\\\nContent-Type: application/json\\\\r\\\\nContent-Length: %s\\\\r\\\\nConnection: "
      "close\\\\r\\\\n\\\\r\\\\n%s' \"$1\" \"${#2}\" \"$2\"";
  return "ask() {\\n"
         "  exec 3<>/dev/tcp/" +
         host + "/" + std::to_string(port) +
         " || { echo web-unreachable; return; }\\n"
         "  " +
         request +
         " >&3\\n"
         "  tr -d '\\\\r' <&3 | grep -E '^HTTP/|secret'\\n"
         "  exec 3>&-\\n"
         "}\\n"
         "ask POST '{\"prompt\":\"say intruder\",\"project\":\"intruded\"}'\\n"
         "ask GET ''\\n";
}

// The output of the finished tool call titled `title` in an event stream, or empty.
std::string tool_output(const std::string& stream, const std::string& title) {
  std::istringstream lines(stream);
  std::string line;
  std::string output;
  while (std::getline(lines, line)) {
    if (!line.starts_with("data: ")) continue;
    boost::system::error_code ec;
    const auto event = json::parse(line.substr(6), ec);
    if (ec || !event.is_object()) continue;
    const auto* entry = event.as_object().if_contains("entry");
    if (entry == nullptr || !entry->is_object()) continue;
    const auto& e = entry->as_object();
    const auto* named = e.if_contains("title");
    const auto* text = e.if_contains("output");
    if (named != nullptr && named->is_string() && named->as_string() == title && text != nullptr &&
        text->is_string())
      output = std::string(text->as_string());
  }
  return output;
}

// The private address scripts/setup gives this host's loopback interface for the tests, so the
// web interface can be bound where a podman session's network (slirp4netns, which cuts off the
// host's loopback range) reaches it.
constexpr const char* kPrivateTestAddress = "10.254.213.1";

// Whether this host holds address: a socket can be bound to it.
bool is_local_address(const std::string& address) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(io);
  boost::system::error_code ec;
  const boost::asio::ip::tcp::endpoint endpoint(boost::asio::ip::make_address(address, ec), 0);
  if (ec) return false;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  return !ec;
}

void web_from_sandbox_scenario(Backend backend, const std::string& web_host) {
  E2eHarness h(backend, Front::web_only);
  h.set("web.host", json::string(web_host));
  const auto port = h.fix_web_port();
  h.set("sandbox.egress.mode", "open");
  h.set("sandbox.egressPorts", json::array{443, port});
  h.start();
  const auto thread = start_web_session(
      h, "poke", "write ask.sh " + intruder_script(web_host, port) + "\nrun bash ask.sh\nsay done");
  const auto stream = first_turn_events(h, thread);
  INFO(stream);
  REQUIRE(stream.find("\"turn_end\"") != npos);
  const auto answered = tool_output(stream, "run bash ask.sh");
  INFO(answered);
  // Both requests reached the interface and were refused, each naming the missing secret.
  CHECK(answered.find("web-unreachable") == npos);
  const auto first = answered.find("HTTP/1.1 403 Forbidden\n");
  REQUIRE(first != npos);
  CHECK(answered.find("HTTP/1.1 403 Forbidden\n", first + 1) != npos);
  CHECK(answered.find("HTTP/1.1 2") == npos);
  CHECK_THAT(answered, ContainsSubstring("this request carries no access secret"));
  // Nothing was started: the interface lists the one session the test began, and no project
  // "intruded" was made.
  const auto sessions = get(h, "/api/sessions");
  REQUIRE(sessions.status == 200);
  INFO(sessions.body);
  const auto listed = json::parse(sessions.body).at("sessions").as_array();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].at("project") == "poke");
  CHECK_FALSE(std::filesystem::exists(h.project_root() / "intruded"));
}

}  // namespace

TEST_CASE(
    "a session with egress open that reaches the web interface is refused without the access "
    "secret, and starts or lists nothing",
    "[e2e][web][key:web.port]") {
  // bailey under egress open is the host's network, held by Landlock to sandbox.egressPorts:
  // with the web port among them the agent's requests reach the interface, so the refusal
  // below is the access secret's, not the network's.
  web_from_sandbox_scenario(Backend::bailey, "127.0.0.1");
}

namespace {

// A podman or Incus session whose network reaches the host's private address: podman's network
// reaches it as it would a private or tailnet bind on a real host (the loopback range it does
// not), and an Incus guest through its bridge, with the address the plugin pinned on its nic and
// errand-guest-init configured.
void web_from_sandbox_on_private_address(Backend backend) {
  INFO("scripts/setup adds " << kPrivateTestAddress << "/32 to lo for this test");
  REQUIRE(is_local_address(kPrivateTestAddress));
  web_from_sandbox_scenario(backend, kPrivateTestAddress);
}

}  // namespace

TEST_CASE(
    "a podman session with egress open that reaches the web interface on a private address is "
    "refused without the access secret, and starts or lists nothing",
    "[e2e][web][podman][key:web.host]") {
  web_from_sandbox_on_private_address(Backend::podman);
}

TEST_CASE(
    "an incus session with egress open that reaches the web interface on a private address is "
    "refused without the access secret, and starts or lists nothing",
    "[e2e][web][incus][key:web.host]") {
  web_from_sandbox_on_private_address(Backend::incus);
}

}  // namespace errand::e2e
