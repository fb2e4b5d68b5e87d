#include "tests/unit/agent/acp_harness.hpp"

#include <spdlog/sinks/base_sink.h>
#include <cstdlib>
#include "tests/support/test_paths.hpp"

namespace errand::agent::test {

std::string fake_agent_path() {
  return errand::test::build_path(FAKE_ACP_AGENT);
}

struct CapturedLog::Sink final : spdlog::sinks::base_sink<std::mutex> {
  std::vector<std::string> lines;
  mutable std::mutex read_mutex;

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::lock_guard lock(read_mutex);
    lines.emplace_back(msg.payload.data(), msg.payload.size());
  }
  void flush_() override {}
};

CapturedLog::CapturedLog()
    : sink_(std::make_shared<Sink>()),
      logger_(std::make_shared<spdlog::logger>("agent-test", sink_)) {
  logger_->set_level(spdlog::level::trace);
}

bool CapturedLog::contains(std::string_view needle) const {
  return all().find(needle) != std::string::npos;
}

std::string CapturedLog::all() const {
  std::lock_guard lock(sink_->read_mutex);
  std::string text;
  for (const auto& line : sink_->lines) text += line + "\n";
  return text;
}

AgentUnderTest::AgentUnderTest(const std::filesystem::path& state_dir, AgentOptions options)
    : working_dir_(state_dir / "workspace") {
  std::filesystem::create_directories(working_dir_);
  EnvironmentList env{{"PATH", "/usr/bin:/bin"},
                      {"HOME", state_dir.string()},
                      {"FAKE_AGENT_STATE_DIR", state_dir.string()}};
  for (auto& entry : options.environment) env.push_back(std::move(entry));
  auto process = HostProcess::spawn({fake_agent_path()}, env, working_dir_);
  REQUIRE(process);
  process_ = std::move(*process);
  AcpEvents events;
  events.on_update = [this](const SessionUpdate& u) { updates.push_back(u); };
  events.on_closed = [this](const std::string& reason) { closed_reason = reason; };
  events.on_permission = std::move(options.on_permission);
  auto client = AcpClient::start(loop_.strand(), process_->stdio(), std::move(events),
                                 options.client, log_.logger());
  REQUIRE(client);
  client_ = std::move(*client);
}

AgentUnderTest::~AgentUnderTest() {
  client_.reset();
  process_.reset();
}

std::string AgentUnderTest::open_session() {
  auto hello = loop_.run(client_->initialize());
  REQUIRE(hello);
  auto session = loop_.run(client_->new_session());
  REQUIRE(session);
  return session->session_id;
}

sdk::Result<TurnEnd> AgentUnderTest::prompt(const std::string& session_id,
                                            const std::string& script) {
  return loop_.run(client_->prompt(session_id, {PromptBlock::of_text(script)}));
}

std::string AgentUnderTest::message_text() const {
  std::string text;
  for (const auto& u : updates)
    if (const auto* m = std::get_if<AgentMessageChunk>(&u.update)) text += m->content.text;
  return text;
}

std::string AgentUnderTest::thought_text() const {
  std::string text;
  for (const auto& u : updates)
    if (const auto* m = std::get_if<AgentThoughtChunk>(&u.update)) text += m->content.text;
  return text;
}

std::size_t AgentUnderTest::message_chunks() const {
  std::size_t count = 0;
  for (const auto& u : updates) count += std::holds_alternative<AgentMessageChunk>(u.update);
  return count;
}

}  // namespace errand::agent::test
