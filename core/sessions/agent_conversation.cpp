#include "core/sessions/agent_conversation.hpp"

#include "core/agent/auth_method_choice.hpp"
#include "core/agent/state_files.hpp"

#include <fstream>

// GCC 12 reports asio's coroutine frame allocator as a new/delete mismatch in long coroutines
// (a known false positive, as in core/sessions/session.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace errand::sessions {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kAgentSessionFile = "agent-session";
// The agent sees the project here in every backend.
constexpr std::string_view kWorkspace = "/workspace";

std::optional<std::string> read_agent_session(const fs::path& record_dir) {
  std::ifstream in(record_dir / kAgentSessionFile);
  std::string id;
  if (!in || !std::getline(in, id) || id.empty()) return std::nullopt;
  return id;
}

}  // namespace

sdk::Result<void> AgentConversation::connect(asio::any_io_executor strand, agent::AgentStdio stdio,
                                             agent::AcpEvents events,
                                             agent::AcpClientOptions options,
                                             std::shared_ptr<spdlog::logger> log) {
  log_ = log;
  auto client = agent::AcpClient::start(std::move(strand), stdio, std::move(events),
                                        std::move(options), std::move(log));
  if (!client)
    return sdk::make_error("the agent's stdio could not be used: " + client.error().message);
  client_ = std::move(*client);
  return {};
}

asio::awaitable<sdk::Result<AgentConversation::Opened>> AgentConversation::open(
    const Opening& opening) {
  auto hello = co_await client_->initialize();
  if (!hello)
    co_return sdk::make_error("the agent did not complete the ACP handshake: " +
                              hello.error().message);
  if (auto method = agent::choose_auth_method(hello->auth_methods, opening.environment_names)) {
    auto authenticated = co_await client_->authenticate(method->id);
    if (!authenticated) co_return authenticated.error();
  }
  auto opened = co_await load_or_begin(opening);
  if (!opened) co_return opened.error();
  if (auto written = agent::write_beneath(opening.record_dir, fs::path(kAgentSessionFile),
                                          session_id_ + "\n", 0600);
      !written)
    log_->warn("session {}: the agent's session id could not be recorded: {}", opening.session_id,
               written.error().message);
  for (const auto& [config_id, value] : opening.config_options) {
    const std::string option = config_id;
    const std::string chosen = value;
    auto set = co_await set_option(option, chosen);
    if (!set) {
      opening.notice("the agent did not accept " + option + " `" + chosen +
                     "`: " + set.error().message);
    } else if (option == "model") {
      opened->model = chosen;
    }
  }
  co_return opened;
}

asio::awaitable<sdk::Result<AgentConversation::Opened>> AgentConversation::load_or_begin(
    const Opening& opening) {
  Opened result;
  if (opening.previous_record) {
    const auto previous = read_agent_session(*opening.previous_record);
    if (!previous) {
      result.resume_note = "the earlier conversation was not recorded, so the agent starts afresh";
    } else if (!client_->hello().load_session) {
      result.resume_note = "the agent cannot load an earlier conversation, so it starts afresh";
    } else {
      const std::string previous_id = *previous;
      const std::string cwd(kWorkspace);
      opening.replaying(true);
      auto loaded = co_await client_->load_session(previous_id, cwd);
      opening.replaying(false);
      if (loaded) {
        session_id_ = loaded->session_id.empty() ? previous_id : loaded->session_id;
        result.loaded = true;
        result.resume_note = "the agent has its earlier conversation";
        co_return result;
      }
      result.resume_note = "the agent could not load its earlier conversation (" +
                           loaded.error().message + "), so it starts afresh";
    }
  }
  const std::string cwd(kWorkspace);
  auto begun = co_await client_->new_session(cwd);
  if (!begun)
    co_return sdk::make_error("the agent did not open a session: " + begun.error().message);
  session_id_ = begun->session_id;
  co_return result;
}

asio::awaitable<sdk::Result<agent::TurnEnd>> AgentConversation::prompt(
    std::vector<agent::PromptBlock> blocks) {
  const std::string session_id = session_id_;
  co_return co_await client_->prompt(session_id, std::move(blocks));
}

void AgentConversation::cancel() {
  client_->cancel(session_id_);
}

asio::awaitable<sdk::Result<void>> AgentConversation::set_option(std::string option,
                                                                 std::string value) {
  const std::string session_id = session_id_;
  auto set = co_await client_->set_config_option(session_id, std::move(option), std::move(value));
  if (!set) co_return set.error();
  co_return sdk::Result<void>{};
}

void AgentConversation::close(const std::string& why) {
  if (client_) client_->close(why);
}

}  // namespace errand::sessions
