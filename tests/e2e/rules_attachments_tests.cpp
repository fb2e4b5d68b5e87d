// The agent's context from the daemon's side: house rules (agent.rulesPath) reach the scripted
// agent and are refused in uploads, and a message's attachments reach it as files it reads
// inside the sandbox, within output.maxAttachmentBytes and output.maxAttachmentsPerMessage.

#include "core/chat/render/transcript.hpp"
#include "core/sessions/session_paths.hpp"
#include "tests/e2e/e2e_harness.hpp"
#include "tests/support/result_printing.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

namespace errand::e2e {
namespace {

using Catch::Matchers::ContainsSubstring;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// The house_rules entries of the session that ran in thread.
std::vector<boost::json::object> house_rules_entries(const E2eHarness& h,
                                                     const std::string& thread) {
  std::vector<boost::json::object> found;
  for (const auto& session : h.sessions_of(thread)) {
    const auto record = sessions::SessionPaths::of(h.state_dir(), session.session_id).record;
    auto transcript = chat::read_transcript(record);
    REQUIRE(transcript.has_value());
    for (const auto& line : transcript->lines)
      if (line.entry.is_object() && line.entry.as_object().contains("type") &&
          line.entry.as_object().at("type") == "house_rules")
        found.push_back(line.entry.as_object());
  }
  return found;
}

}  // namespace

TEST_CASE(
    "house rules reach the agent ahead of its first prompt, are refused in uploads, and "
    "each new session reads the file again",
    "[e2e][key:agent.rulesPath]") {
  E2eHarness h;
  const auto rules_path = h.root() / "house-rules.md";
  const std::string rules = "Sign every commit as rules-e2e-first-version.\n";
  write_text(rules_path, rules);
  h.set("agent.rulesPath", boost::json::string(rules_path.string()));
  h.start();
  CHECK_THAT(h.daemon_log(), ContainsSubstring("house rules from " + rules_path.string()));

  const auto thread = h.post("rules: blocks");
  REQUIRE(h.wait_for_text(thread, "done in"));
  auto text = h.bot_text(thread);
  INFO(text);
  // The fake agent lists the blocks it got: the rules, marked off, then the person's script.
  CHECK(text.find("<house-rules>") != npos);
  CHECK(text.find("rules-e2e-first-version") != npos);
  CHECK(text.find("text: blocks") != npos);
  CHECK(text.find("<house-rules>") < text.find("text: blocks"));
  // Only the first prompt carries them.
  h.post("blocks", thread);
  REQUIRE(h.wait_for_text(thread, "done in", 60s, 2));
  CHECK(h.count_text(thread, "rules-e2e-first-version") == 1);

  // Recorded as given, once, and never posted as a notice.
  const auto entries = house_rules_entries(h, thread);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].at("path").as_string() == rules_path.string());
  CHECK(entries[0].at("text").as_string() == rules);

  // A project file holding the rules is not uploaded; the reason says why.
  write_text(h.project_root() / "rules" / "copied.md", "# notes\n" + rules + "end\n");
  h.post("!file copied.md", thread);
  REQUIRE(h.wait_for_text(thread, "`copied.md` was not uploaded"));
  CHECK(h.bot_text(thread).find("house rules (agent.rulesPath)") != npos);
  for (const auto& m : h.bot_messages(thread)) CHECK(m.files.empty());

  // An edit reaches the next session; the first version stays refused in uploads.
  write_text(rules_path, "Sign every commit as rules-e2e-second-version.\n");
  const auto second = h.post("rules-two: blocks");
  REQUIRE(h.wait_for_text(second, "done in"));
  CHECK(h.bot_text(second).find("rules-e2e-second-version") != npos);
  CHECK(h.bot_text(second).find("rules-e2e-first-version") == npos);
  h.post("!file copied.md", thread);
  REQUIRE(h.wait_for_text(thread, "`copied.md` was not uploaded", 60s, 2));

  // A file gone by the time a session starts: it does not start, and its thread says why.
  fs::remove(rules_path);
  const auto third = h.post("rules-three: say should not run");
  REQUIRE(h.wait_for_text(third, "could not start"));
  const auto told = h.bot_text(third);
  CHECK(told.find("agent.rulesPath names " + rules_path.string()) != npos);
  CHECK(told.find("No such file or directory") != npos);
  CHECK(told.find("should not run") == npos);
}

TEST_CASE(
    "a resumed session whose agent loads its conversation is given the house rules again only "
    "once they have changed",
    "[e2e]") {
  E2eHarness h;
  const auto rules_path = h.root() / "house-rules.md";
  write_text(rules_path, "Answer as rules-e2e-resume-one.\n");
  h.set("agent.rulesPath", boost::json::string(rules_path.string()));
  h.start();
  const auto thread = h.post("resume-rules: blocks");
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto stop = [&](std::size_t sessions) {
    h.post("!stop", thread);
    REQUIRE(eventually([&] {
      const auto s = h.sessions_of(thread);
      return s.size() == sessions && s.back().ended_at.has_value();
    }));
  };
  // A prompt that arrives while the stopped session is still letting go is refused with "send
  // the message again"; the person would, so the test does.
  const auto resume = [&](std::size_t turns) {
    const std::string again = "send the message again";
    for (std::size_t attempt = 0; attempt < 5; ++attempt) {
      const auto refused_before = h.count_text(thread, again);
      h.post("blocks", thread);
      REQUIRE(eventually([&] {
        return h.count_text(thread, "done in") >= turns ||
               h.count_text(thread, again) > refused_before;
      }));
      if (h.count_text(thread, "done in") >= turns) return;
      std::this_thread::sleep_for(500ms);
    }
    FAIL(h.bot_text(thread));
  };
  stop(1);
  // The conversation the agent loads began with these rules: not given twice.
  resume(2);
  CHECK(h.count_text(thread, "<house-rules>") == 1);
  stop(2);
  // Edited meanwhile: the resumed agent is told the new rules.
  write_text(rules_path, "Answer as rules-e2e-resume-two.\n");
  resume(3);
  INFO(h.bot_text(thread));
  CHECK(h.count_text(thread, "<house-rules>") == 2);
  CHECK(h.count_text(thread, "rules-e2e-resume-two") == 1);
  CHECK(h.sessions_of(thread).size() == 3);
}

TEST_CASE("errand run stops with exit 2 when agent.rulesPath cannot be read",
          "[e2e][key:agent.rulesPath]") {
  E2eHarness h;
  const auto missing = h.root() / "no-such-rules.md";
  h.set("agent.rulesPath", boost::json::string(missing.string()));
  CHECK(h.start_expecting_refusal() == 2);
  CHECK_THAT(h.daemon_log(), ContainsSubstring("agent.rulesPath names " + missing.string()));
  CHECK_THAT(h.daemon_log(), ContainsSubstring("No such file or directory"));

  const auto directory = h.root() / "rules-dir";
  fs::create_directories(directory);
  h.set("agent.rulesPath", boost::json::string(directory.string()));
  CHECK(h.start_expecting_refusal() == 2);
  CHECK_THAT(h.daemon_log(), ContainsSubstring("it is a directory"));
}

TEST_CASE("a text attachment reaches the agent as a file it reads; over-limit ones are refused",
          "[e2e][key:output.maxAttachmentBytes][key:output.maxAttachmentsPerMessage]") {
  E2eHarness h;
  h.set("output.maxAttachmentBytes", 64);
  h.set("output.maxAttachmentsPerMessage", 2);
  h.start();
  fake_discord::UserPost post;
  post.author_id = std::string(kOwner);
  post.content = "inbox: blocks\nlinks";
  post.attachments = {{"", "results.csv", "text/csv", "name,score\nada,42\n"},
                      {"", "big.log", "text/plain", std::string(100, 'x')},
                      {"", "third.txt", "text/plain", "one too many"}};
  const auto thread = h.discord().post_user_message(post);
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto text = h.bot_text(thread);
  INFO(text);
  const std::string uri = "file:///state/inbox/" + thread + "/results.csv";
  // Named to the agent as a resource link, and read by it inside the sandbox.
  CHECK(text.find("resource_link " + uri + " name=results.csv mimeType=text/csv size=18") != npos);
  CHECK(text.find(uri + ":\nname,score\nada,42") != npos);
  // Each refusal names the file, its size and the limit.
  CHECK(text.find("`big.log` was not passed on: it is 100 bytes, more than "
                  "output.maxAttachmentBytes allows (64 bytes)") != npos);
  CHECK(text.find("`third.txt` (12 bytes) was not passed on: a message may carry at most 2 "
                  "attachments (output.maxAttachmentsPerMessage)") != npos);
  // The rest of the prompt ran.
  CHECK(text.find("text: blocks") != npos);
  const auto session = h.sessions_of(thread).at(0).session_id;
  const auto saved = sessions::SessionPaths::of(h.state_dir(), session).state / "inbox" / thread;
  CHECK(fs::exists(saved / "results.csv"));
  CHECK_FALSE(fs::exists(saved / "big.log"));
  CHECK_FALSE(fs::exists(saved / "third.txt"));
}

}  // namespace errand::e2e
