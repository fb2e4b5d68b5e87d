// errand with no chat service, used from its web interface in a real browser: Debian's chromium
// driven by playwright-core (the scenarios in tests/e2e/web) against the real `errand run` with
// bailey, the scripted agent and the fake provider. The scenarios assert what the page shows and
// write a screenshot of each page; these tests assert what the daemon kept and what it refused.

#include "core/sessions/web_identity.hpp"
#include "tests/e2e/browser_run.hpp"
#include "tests/e2e/e2e_harness.hpp"
#include "tests/e2e/web_client.hpp"
#include "tests/support/root_preparation.hpp"
#include "tests/support/temp_dir.hpp"

#include <unistd.h>

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include "tests/support/test_paths.hpp"

namespace errand::e2e {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

// demo_session.mjs names the same project.
constexpr const char* kProject = "webdemo";

// The screenshots stay in the build tree for a person to look at after the run. The tests run
// as the test account, which cannot write there when the build is root's.
fs::path screenshots_root() {
  return errand::test::build_path("tests/e2e/web-screenshots");
}

std::string make_screenshots_root(const errand::test::TestAccount& account) {
  const auto dir = screenshots_root();
  fs::create_directories(dir);
  if (::chown(dir.c_str(), account.uid, account.gid) != 0)
    throw std::runtime_error("cannot give " + dir.string() + " to " + account.name);
  return dir.string();
}

// Nothing to undo: the directory is kept for its screenshots.
const errand::test::RootPreparation screenshots{"web screenshots", make_screenshots_root,
                                                [](const std::string&) {}};

// A directory of its own for one scenario's screenshots, emptied of an earlier run's.
fs::path screenshot_dir(const std::string& scenario) {
  const auto prepared = errand::test::prepared_as_root("web screenshots");
  const auto root = prepared.ok ? fs::path(prepared.value) : screenshots_root();
  const auto dir = root / scenario;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec)
    FAIL("cannot make " << dir.string() << " for the screenshots: " << ec.message()
                        << (prepared.ok ? "" : " (" + prepared.why + ")"));
  return dir;
}

// Runs a scenario as this test's account, with the harness's directory as its home, where
// address is one the daemon printed (with its access secret).
std::string run_scenario(const E2eHarness& h, const std::string& scenario, const fs::path& dir,
                         const std::string& address) {
  return run_browser_scenario(scenario, h.root(), dir, address);
}

void require_screenshots(const fs::path& dir, std::initializer_list<const char*> pages) {
  for (const char* page : pages) {
    const auto file = dir / (std::string(page) + ".png");
    std::ifstream in(file, std::ios::binary);
    std::string signature(8, '\0');
    in.read(signature.data(), 8);
    INFO(file.string());
    CHECK(signature == "\x89PNG\r\n\x1a\n");
  }
}

json::array listed_sessions(const E2eHarness& h) {
  const auto listed = web_request(h.web_door(), WebRequest::get("/api/sessions"));
  INFO(listed.problem << listed.body);
  REQUIRE(listed.status == 200);
  return json::parse(listed.body).as_object().at("sessions").as_array();
}

}  // namespace

TEST_CASE(
    "from the web interface alone a session is started, watched live, browsed and stopped, "
    "and an observer then shows it and changes nothing",
    "[e2e][web][key:web.observer]") {
  require_browser_tools();
  E2eHarness h(Backend::bailey, Front::web_only);
  h.start();
  // What a new user is told to open: the address with the operator's secret, which the browser
  // follows (the scenario fails unless it lands without the secret in the address bar).
  CHECK(h.web_address().starts_with(h.web_url() + "/?access="));
  CHECK(h.web_observer_address().starts_with(h.web_url() + "/?access="));
  CHECK(h.web_address() != h.web_observer_address());
  // The log shows the address alone.
  CHECK(h.daemon_log().find(h.web_door().secret) == npos);

  const auto flow_dir = screenshot_dir("session_flow");
  const auto thread = scenario_thread(run_scenario(h, "session_flow", flow_dir, h.web_address()));
  require_screenshots(flow_dir, {"new", "session", "files", "calls", "sessions"});

  // A thread of the web interface like any other: kept in threads.db, ended by !stop, resumable.
  const auto record = h.threads_db()->find_thread(thread);
  REQUIRE(record.has_value());
  REQUIRE(record->has_value());
  CHECK((*record)->project_name == kProject);
  CHECK((*record)->state == sessions::ThreadState::resumable);
  const auto sessions = h.sessions_of(thread);
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].ended_at.has_value());
  // The page's !stop, written as the web interface's own account.
  CHECK(sessions[0].end_reason == "stopped by " + std::string(sessions::kWebInterfaceUser));
  // The agent wrote the file for real, in the project the page named.
  CHECK(errand::test::read_file(h.project_root() / kProject / "notes.txt") == "from the page\n");

  REQUIRE(h.stop() == 0);
  h.set("web.observer", true);
  h.start();
  // An observer interface prints only the read-only address.
  CHECK(h.web_address().empty());
  const auto observer_dir = screenshot_dir("observer");
  run_scenario(h, "observer", observer_dir, h.web_observer_address());
  require_screenshots(observer_dir, {"observer-sessions", "observer-session", "observer-new"});
  // The start the observer's page asked for left no trace.
  CHECK_FALSE(fs::exists(h.project_root() / "observer-refused"));
  CHECK(listed_sessions(h).size() == 1);
  CHECK(h.sessions_of(thread).size() == 1);
}

TEST_CASE(
    "the web interface refuses a change asked by another site's page, by a form, or without "
    "the operator's access secret, with 403 and the reason, and starts nothing",
    "[e2e][web][key:web.host][key:web.port]") {
  E2eHarness h(Backend::bailey, Front::web_only);
  h.start();
  const std::string body = R"({"prompt": "say never started", "project": "foreign"})";
  const std::string own_origin = h.web_url();
  const WebHeaders own_page{{"Origin", own_origin}, {"Content-Type", "application/json"}};

  // Everything a browser page of the interface would send, without the secret: what any other
  // program on the machine or the network can send (another account's, a sandbox's whose egress
  // reaches the address), since only the daemon's account can read the secret.
  const WebDoor no_secret{h.web_port(), "", h.web_host()};
  const auto bare = web_request(no_secret, WebRequest::post("/api/sessions", own_page, body));
  INFO(bare.problem << bare.body);
  CHECK(bare.status == 403);
  CHECK(bare.body.find("this request carries no access secret") != npos);
  CHECK(web_request(no_secret, WebRequest::get("/api/sessions")).status == 403);
  CHECK(web_request(no_secret, WebRequest::get("/")).status == 403);
  const auto events = web_stream(
      no_secret, "/api/events", [](const std::string& so_far) { return so_far.size() > 12; }, 5s);
  CHECK(events.starts_with("HTTP/1.1 403"));
  const WebDoor wrong{h.web_port(), std::string(36, 'z'), h.web_host()};
  const auto guessed = web_request(wrong, WebRequest::post("/api/sessions", own_page, body));
  CHECK(guessed.status == 403);
  CHECK(guessed.body.find("is not this interface's") != npos);
  // The observer's secret reads and is refused every change.
  const auto observer_secret =
      h.web_observer_address().substr(h.web_observer_address().find('=') + 1);
  const WebDoor observer{h.web_port(), observer_secret, h.web_host()};
  CHECK(web_request(observer, WebRequest::get("/api/sessions")).status == 200);
  const auto watched = web_request(observer, WebRequest::post("/api/sessions", own_page, body));
  CHECK(watched.status == 403);
  CHECK(watched.body.find("the observer's access secret only reads") != npos);

  const auto foreign = web_request(
      h.web_door(),
      WebRequest::post("/api/sessions",
                       {{"Origin", "http://evil.example"}, {"Content-Type", "application/json"}},
                       body));
  INFO(foreign.problem << foreign.body);
  CHECK(foreign.status == 403);
  CHECK(foreign.body.find("http://evil.example") != npos);

  // What an HTML form can send without script: the right Origin, but no JSON.
  const auto form = web_request(
      h.web_door(), WebRequest::post("/api/sessions",
                                     {{"Origin", own_origin},
                                      {"Content-Type", "application/x-www-form-urlencoded"}},
                                     "prompt=say+never+started&project=foreign"));
  INFO(form.problem << form.body);
  CHECK(form.status == 403);
  CHECK(form.body.find("\"error\"") != npos);

  // A page of another site reaching 127.0.0.1 through a name it controls (DNS rebinding).
  const auto rebound =
      web_request(h.web_door(), WebRequest::get("/api/sessions", {{"Host", "evil.example:80"}}));
  INFO(rebound.problem << rebound.body);
  CHECK(rebound.status == 403);
  CHECK(rebound.body.find("evil.example") != npos);

  CHECK_FALSE(fs::exists(h.project_root() / "foreign"));
  CHECK(listed_sessions(h).empty());
  CHECK(h.daemon_log().find("never started") == npos);

  // The same start from the interface's own page is taken: the checks refused the requests
  // above for what they lacked, not every change.
  const auto own =
      web_request(h.web_door(),
                  WebRequest::post(
                      "/api/sessions",
                      {{"Origin", own_origin}, {"Content-Type", "application/json; charset=utf-8"}},
                      R"({"prompt": "say started from the page", "project": "own"})"));
  INFO(own.problem << own.body);
  CHECK(own.status == 202);
  CHECK(own.body.find("\"thread\"") != npos);
}

}  // namespace errand::e2e
