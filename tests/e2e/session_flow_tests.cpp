// A message in the served channel opens a thread and starts a confined session; replies in the
// thread are prompts; what the agent says and runs comes back to the thread.

#include "common/cgroups/cgroups.hpp"
#include "core/chat/render/transcript.hpp"
#include "core/sessions/session_paths.hpp"
#include "tests/e2e/e2e_harness.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>
#include <boost/json/serialize.hpp>

#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using sessions::ThreadState;
using sessions::TurnOutcome;

std::string mention(std::string_view user) {
  return "<@" + std::string(user) + ">";
}

void opening_message_scenario(Backend backend) {
  E2eHarness h(backend);
  h.start();
  const auto opening = h.post(
      "demo: say hello from inside the sandbox\nrun echo computed-$((40+2)) in $(pwd)\n"
      "write notes.txt first line\\n");
  // A thread opened from a message has the message's id.
  const auto& thread = opening;
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto text = h.bot_text(thread);
  INFO(text);
  CHECK(text.find("hello from inside the sandbox") != npos);
  CHECK(text.find("ran `run echo computed-$((40+2)) in $(pwd)`: exit 0") != npos);
  // The shell really ran, in the project as the sandbox shows it.
  CHECK(text.find("computed-42 in /workspace") != npos);
  CHECK(text.find("created `notes.txt` (+1)") != npos);
  CHECK(text.find(mention(kOwner)) != npos);

  const auto project = h.project_root() / "demo";
  CHECK(errand::test::read_file(project / "notes.txt") == "first line\n");
  // The project errand made is the daemon account's alone: another account on the host cannot
  // list it, nor reach the file the agent wrote in it, whatever that file's mode.
  struct stat made {};
  REQUIRE(::stat(project.c_str(), &made) == 0);
  CHECK((made.st_mode & 07777) == 0700);

  // The daemon reached the fake over TLS at the URL /gateway/bot handed out, which has no
  // path, and asked for the gateway's root with the query Discord expects.
  CHECK(h.discord().gateway_url() == "wss://127.0.0.1:" + std::to_string(h.discord().port()));
  const auto connections = h.discord().gateway_connections();
  REQUIRE_FALSE(connections.empty());
  CHECK(connections.front().request_line == "GET /?v=10&encoding=json HTTP/1.1");

  bool named = false;
  for (const auto& r : h.discord().requests())
    if (r.method == "POST" && r.path.find("/messages/" + opening + "/threads") != npos)
      named = r.json.as_object().at("name").as_string().starts_with("demo: say hello");
  CHECK(named);

  auto turn = h.turn(opening);
  REQUIRE(turn);
  CHECK(turn->outcome == TurnOutcome::completed);
  CHECK(turn->thread_id == thread);
  CHECK(turn->started_at.has_value());
  const auto sessions = h.sessions_of(thread);
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].backend == backend_name(backend));

  // A reply in the thread is the next prompt of the same session.
  const auto second = h.post("say the second turn", thread);
  REQUIRE(h.wait_for_text(thread, "the second turn"));
  REQUIRE(h.wait_for_text(thread, "done in", 60s, 2));
  CHECK(h.sessions_of(thread).size() == 1);
  CHECK(h.turn(second)->session_id == sessions[0].session_id);
  // Under incus the agent runs in a system container: the guest's systemd is its PID 1, and the
  // agent is sandbox.incus.guestUid there.
  if (backend == Backend::incus) {
    h.post("run echo pid1-$(cat /proc/1/comm) uid-$(id -u)", thread);
    REQUIRE(h.wait_for_text(thread, "done in", 60s, 3));
    CHECK(h.bot_text(thread).find("pid1-systemd uid-1000") != npos);
  }

  CHECK(h.stop() == 0);
  // The daemon's stop ends the session in order: the broker session, then the sandbox, then the
  // record.
  const auto log = h.daemon_log();
  const auto broker_closed = log.find("broker closed");
  const auto sandbox_stopped = log.find(sessions[0].session_id + ": sandbox stopped");
  const auto session_ended = log.find(sessions[0].session_id + ": ended");
  REQUIRE(broker_closed != npos);
  REQUIRE(sandbox_stopped != npos);
  REQUIRE(session_ended != npos);
  // The broker bounds a person's sessions together by the account that opened the thread.
  CHECK(log.find("session " + sessions[0].session_id + ": opened for account " +
                 std::string(kOwner)) != npos);
  CHECK(broker_closed < sandbox_stopped);
  CHECK(sandbox_stopped < session_ended);
  // Rootless podman applies no cgroup limit on a v1 host: the harness accepts those gaps, and
  // the daemon says so rather than running quietly (on a v2 host with the controllers delegated
  // podman applies them, and that line is not owed). incus keeps every guarantee the
  // configuration asks for, so the daemon runs with full enforcement.
  const bool unenforced =
      log.find("unenforced guarantee(s) because sandbox.requireFullEnforcement is false") != npos;
  if (backend == Backend::podman && !cgroups::on_cgroup2("/sys/fs/cgroup")) CHECK(unenforced);
  if (backend == Backend::incus) CHECK_FALSE(unenforced);
  const auto ended = h.sessions_of(thread);
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].ended_at.has_value());
  CHECK(h.threads_db()->find_thread(thread).value()->state == ThreadState::resumable);
}

TEST_CASE("a channel message opens a thread; the agent's reply and the command it ran come back",
          "[e2e][sanitized]"
          "[key:chat.channelId]"
          "[key:chat.apiBase]"
          "[key:chat.gatewayUrl]"
          "[key:agent.command]"
          "[key:projectRoot]") {
  opening_message_scenario(Backend::bailey);
}

TEST_CASE(
    "a channel message opens a thread; the agent's reply and the command it ran come back (podman)",
    "[e2e][podman]") {
  opening_message_scenario(Backend::podman);
}

TEST_CASE(
    "a channel message opens a thread; the agent's reply and the command it ran come back (incus)",
    "[e2e][incus]") {
  opening_message_scenario(Backend::incus);
}

void stop_and_resume_scenario(Backend backend) {
  E2eHarness h(backend);
  h.start();
  const auto thread = h.post("resumable: say the first session");
  REQUIRE(h.wait_for_text(thread, "done in"));

  h.post("!stop", thread);
  REQUIRE(h.wait_for_text(thread, "the session stopped"));
  REQUIRE(eventually([&] {
    const auto s = h.sessions_of(thread);
    return s.size() == 1 && s[0].ended_at.has_value();
  }));
  CHECK(eventually([&] {
    for (const auto& r : h.discord().requests())
      if (r.method == "PATCH" && r.path.ends_with("/channels/" + thread)) return true;
    return false;
  }));
  CHECK(h.threads_db()->find_thread(thread).value()->state == ThreadState::resumable);
  // Recorded as archived, which `errand threads collect` looks for.
  CHECK(eventually(
      [&] { return h.threads_db()->find_thread(thread).value()->archived_at.has_value(); }));

  h.post("say back again", thread);
  const bool back = h.wait_for_text(thread, "back again");
  INFO(h.bot_text(thread) << "\n--- daemon log ---\n" << h.daemon_log());
  REQUIRE(back);
  CHECK(h.wait_for_text(thread, "the agent has its earlier conversation"));
  REQUIRE(h.wait_for_text(thread, "done in", 60s, 2));
  const auto sessions = h.sessions_of(thread);
  REQUIRE(sessions.size() == 2);
  CHECK(sessions[0].session_id != sessions[1].session_id);
  CHECK(h.threads_db()->find_thread(thread).value()->project_name == "resumable");
  CHECK(!h.threads_db()->find_thread(thread).value()->archived_at);
}

TEST_CASE("!stop ends the session and archives the thread; a new reply resumes it",
          "[e2e][sanitized]") {
  stop_and_resume_scenario(Backend::bailey);
}

TEST_CASE("!stop ends the session and archives the thread; a new reply resumes it (podman)",
          "[e2e][podman]") {
  stop_and_resume_scenario(Backend::podman);
}

TEST_CASE("!stop ends the session and archives the thread; a new reply resumes it (incus)",
          "[e2e][incus]") {
  stop_and_resume_scenario(Backend::incus);
}

// Under podman the container's whole filesystem is the image plus the two mounts, so every
// file the agent can read is searched for each secret. Under incus the agent has sudo in its
// guest, so the search runs as the guest's root and also reads the environment of every process
// in the guest. The prompt names each needle in two halves the searching shell joins, so the
// needle itself is written nowhere the search would find it, nor in sudo's command line, which
// sudo logs to the guest's journal. A needle that env.txt (and the agent's own environment)
// holds shows the search reaches the project (and the environments).
void no_file_in_sandbox_holds(E2eHarness& h, const std::string& thread,
                              const std::filesystem::path& project,
                              const std::vector<std::string>& secrets) {
  const bool incus = h.backend() == Backend::incus;
  std::string script =
      "grep -rlsF -D skip --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev "
      "\"$(printf %s \"$1\" \"$2\")\" /";
  if (incus) script += "; grep -lsF \"$(printf %s \"$1\" \"$2\")\" /proc/[0-9]*/environ";
  const auto search = [&](const std::string& needle, const std::string& into) {
    const auto half = needle.size() / 2;
    return std::string(incus ? "sudo -n " : "") + "sh -c '" + script + "' sh " +
           needle.substr(0, half) + " " + needle.substr(half) + " >> " + into;
  };
  std::string command = "run : > found.txt; " + search("ANTHROPIC_BASE_URL=", "control.txt");
  for (const auto& secret : secrets) command += "; " + search(secret, "found.txt");
  const auto before = h.count_text(thread, "done in");
  h.post(command + "; true", thread);
  REQUIRE(h.wait_for_text(thread, "done in", 240s, before + 1));
  INFO(h.bot_text(thread));
  const auto control = errand::test::read_file(project / "control.txt");
  INFO(control);
  CHECK(control.find("/workspace/env.txt") != npos);
  if (incus) CHECK(control.find("/environ") != npos);
  CHECK(errand::test::read_file(project / "found.txt").empty());
}

void secrets_absent_scenario(Backend backend) {
  E2eHarness h(backend);
  h.start();
  const auto config_path = (h.root() / "config.json").string();
  const auto thread = h.post("secrets: run env > env.txt; cat " + config_path +
                             " > config-read.txt 2>&1; true\nenv\nprovider say hi");
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto token = h.chat_token();
  const std::string key = h.provider_key();

  const auto project = h.project_root() / "secrets";
  const auto env = errand::test::read_file(project / "env.txt");
  INFO(env);
  CHECK(env.find("ANTHROPIC_API_KEY=errand-session-") != npos);
  CHECK(env.find("HTTPS_PROXY=http://errand:errand-session-") != npos);
  CHECK(env.find(token) == npos);
  CHECK(env.find(key) == npos);
  // The configuration file, which holds both, cannot be read from inside.
  const auto config_read = errand::test::read_file(project / "config-read.txt");
  CHECK(config_read.find(token) == npos);
  CHECK(config_read.find(key) == npos);
  CHECK(!config_read.empty());

  // The agent reached its provider with a stand-in; the broker presented the real key.
  const auto calls = h.provider().requests();
  REQUIRE(!calls.empty());
  CHECK(calls.back().header("x-api-key") == key);
  CHECK(h.bot_text(thread).find("Hello from the fake provider.") != npos);

  // The stand-in the agent printed was scrubbed on its way out.
  const auto begin = env.find("ANTHROPIC_API_KEY=") + std::string("ANTHROPIC_API_KEY=").size();
  const auto stand_in = env.substr(begin, env.find('\n', begin) - begin);
  REQUIRE(stand_in.size() == std::string("errand-session-").size() + 64);
  CHECK(h.bot_text(thread).find("[redacted]") != npos);
  // Incus hands exec's environment to a host helper in its argv, readable by every account:
  // neither the secrets nor the stand-in may be in any host process's command line while the
  // session runs (checked before the search below puts the needles in grep's).
  if (backend == Backend::incus)
    for (const auto& secret : {token, key, stand_in}) CHECK(processes_with(secret).empty());
  if (backend != Backend::bailey) no_file_in_sandbox_holds(h, thread, project, {token, key});
  for (const auto& r : h.discord().requests()) {
    const auto body = boost::json::serialize(r.json);
    CHECK(body.find(token) == npos);
    CHECK(body.find(key) == npos);
    CHECK(body.find(stand_in) == npos);
  }
  CHECK(h.stop() == 0);
  const auto log = h.daemon_log();
  CHECK(log.find(key) == npos);
  CHECK(log.find(stand_in) == npos);
}

TEST_CASE("neither the chat token nor the provider key reaches the sandbox or outbound text",
          "[e2e]"
          "[key:chat.token]"
          "[key:agent.providers.<name>.credential]") {
  secrets_absent_scenario(Backend::bailey);
}

TEST_CASE(
    "neither the chat token nor the provider key reaches the sandbox or outbound text (podman)",
    "[e2e][podman]") {
  secrets_absent_scenario(Backend::podman);
}

TEST_CASE(
    "neither the chat token nor the provider key reaches the sandbox or outbound text (incus)",
    "[e2e][incus]") {
  secrets_absent_scenario(Backend::incus);
}

TEST_CASE("a message replayed after a gateway resume starts nothing twice", "[e2e][sanitized]") {
  E2eHarness h;
  h.start();
  h.discord().set_replay_overlap(20);
  const auto thread = h.post("replayed: say only once");
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto connections = h.discord().gateway_connections().size();
  h.discord().request_reconnect();
  REQUIRE(eventually([&] {
    for (const auto& frame : h.discord().gateway_frames())
      if (frame.from_client && frame.payload.contains("op") && frame.payload.at("op").is_int64() &&
          frame.payload.at("op").as_int64() == 6)
        return h.discord().gateway_connections().size() > connections;
    return false;
  }));
  // The replay really happened: the opening message was dispatched a second time.
  std::size_t dispatched = 0;
  for (const auto& frame : h.discord().gateway_frames()) {
    const auto* type = frame.payload.if_contains("t");
    const auto* data = frame.payload.if_contains("d");
    if (!frame.from_client && type != nullptr && type->is_string() &&
        type->as_string() == "MESSAGE_CREATE" && data != nullptr && data->is_object() &&
        data->as_object().contains("id") && data->as_object().at("id") == thread.c_str())
      ++dispatched;
  }
  CHECK(dispatched >= 2);
  // The daemon handles gateway events in the order they came: once a message sent after the
  // replay has had its turn, the replayed one has been handled too.
  const auto marker = h.post("after the resume: say marker turn");
  REQUIRE(h.wait_for_text(marker, "done in"));
  std::size_t threads_opened = 0;
  for (const auto& r : h.discord().requests())
    if (r.method == "POST" && r.path.ends_with("/messages/" + thread + "/threads"))
      ++threads_opened;
  CHECK(threads_opened == 1);
  CHECK(h.count_text(thread, "only once") == 1);
  CHECK(h.count_text(thread, "done in") == 1);
  CHECK(h.sessions_of(thread).size() == 1);
}

}  // namespace
}  // namespace errand::e2e
