#pragma once

// A session's ACP conversation with the agent in its sandbox: the client over the sandbox's
// stdio, the handshake (and an auth method when the agent asks for one the environment can
// satisfy), and the agent's own session: a new one, or, for a resumed thread, the earlier
// conversation loaded again when it was recorded and the agent can load one.

#include "core/agent/acp_client.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace errand::sessions {

class AgentConversation {
 public:
  struct Opening {
    std::string session_id;  // errand's, for the log
    // The variables the agent was started with, so an authMethod reading them can be chosen.
    std::vector<std::string> environment_names;
    // Where the agent's session id is kept for a later resume (the session's record directory).
    std::filesystem::path record_dir;
    // A resumed thread: the record directory of the session that ran in it last.
    std::optional<std::filesystem::path> previous_record;
    // Session config options the agent's launch asked for (a model, a thinking level, ...).
    std::vector<std::pair<std::string, std::string>> config_options;
    // Told true while the agent replays a loaded conversation, then false.
    std::function<void(bool)> replaying;
    // A line for the thread: an option the agent did not take.
    std::function<void(std::string)> notice;
  };
  struct Opened {
    bool loaded = false;               // the earlier conversation was loaded
    std::string resume_note;           // a resumed thread: what became of its earlier conversation
    std::optional<std::string> model;  // the model option the agent accepted, if one was set
  };

  // The client over the sandbox's stdio; an error when the descriptors cannot be used.
  sdk::Result<void> connect(boost::asio::any_io_executor strand, agent::AgentStdio stdio,
                            agent::AcpEvents events, agent::AcpClientOptions options,
                            std::shared_ptr<spdlog::logger> log);
  // opening must outlive the call (GCC 12 can destroy an aggregate coroutine parameter twice).
  boost::asio::awaitable<sdk::Result<Opened>> open(const Opening& opening);

  bool connected() const noexcept { return client_ != nullptr; }
  const agent::AgentHello& hello() const { return client_->hello(); }

  boost::asio::awaitable<sdk::Result<agent::TurnEnd>> prompt(
      std::vector<agent::PromptBlock> blocks);
  void cancel();
  boost::asio::awaitable<sdk::Result<void>> set_option(std::string option, std::string value);

  // Ends the conversation; the running prompt, if any, completes with an error.
  void close(const std::string& why);
  // Drops the client once nothing waits on it any more.
  void release() noexcept { client_.reset(); }

 private:
  boost::asio::awaitable<sdk::Result<Opened>> load_or_begin(const Opening& opening);

  std::unique_ptr<agent::AcpClient> client_;
  std::string session_id_;  // the agent's session id
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace errand::sessions
