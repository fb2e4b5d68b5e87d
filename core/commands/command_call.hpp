#pragma once

// What a chat command's handler is given: the parsed command, whom to answer, the thread it was
// used in (none in the channel), and the daemon it acts on. Each command's definition and its
// handler sit together in one file of this folder; command_table.cpp lists them in the order
// !help shows them. The session manager checks who may use a command before it calls the
// handler, so a handler never checks access again.

#include "core/chat/command_access.hpp"
#include "core/chat/message_classifier.hpp"
#include "core/sessions/chat_reply.hpp"
#include "core/sessions/known_thread.hpp"
#include "core/sessions/provider_answers.hpp"
#include "core/sessions/session.hpp"
#include "core/sessions/session_services.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace errand::commands {

// !shutdown's switch: the daemon's hook (absent when it takes no shutdown from chat), and
// whether it was pulled already.
struct ShutdownSwitch {
  std::function<void()> hook;
  bool pulled = false;
};

// What a handler may ask of the daemon. The session manager answers, and every call is made on
// its strand, so none of this needs a lock.
class CommandHost {
 public:
  virtual const sessions::SessionServices& services() const = 0;
  // The configuration as the last reload left it.
  virtual const boost::json::object& config() const = 0;
  // Who may use what, as chat.* and the web interface say (a reload leaves these as they were).
  virtual const chat::AccessLists& access_lists() const = 0;
  virtual const std::string& served_channel_id() const = 0;
  virtual spdlog::logger& log() = 0;
  // Every session that runs now, by session id.
  virtual const std::map<std::string, std::shared_ptr<sessions::Session>>& running_sessions()
      const = 0;
  virtual sessions::ProviderAnswers& providers() = 0;
  virtual ShutdownSwitch& shutdown_switch() = 0;
  // The answer to `to`; refuse also keeps the sentence as the web interface's verdict on the
  // message it wrote.
  virtual void reply(const sessions::ReplyTo& to, std::string text) = 0;
  virtual void refuse(const sessions::ReplyTo& to, const std::string& sentence) = 0;
  // For work that answers later, off the manager's queue: the strand to run it on, and the host
  // kept alive until it has answered.
  virtual boost::asio::any_io_executor strand() const = 0;
  virtual std::shared_ptr<CommandHost> shared_host() = 0;

 protected:
  ~CommandHost() = default;
};

struct CommandCall {
  const chat::ParsedCommand& command;
  const sessions::ReplyTo& to;
  const std::optional<sessions::KnownThread>& thread;
  CommandHost& host;

  // The running session of the thread, or null.
  const std::shared_ptr<sessions::Session>& live() const;
};

// The answer of a command that needs a running session, in a thread whose session has ended.
inline constexpr std::string_view kNoSession =
    "no session is running in this thread; writing a prompt here resumes it";

}  // namespace errand::commands
