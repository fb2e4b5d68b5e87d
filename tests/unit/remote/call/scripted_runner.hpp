#pragma once

// A runner played by a script, for the caller's tests: it speaks the real protocol (frames cut
// by wire::FrameReader, typed wire messages) on a thread at the other end of a socketpair, and
// does nothing but what the test's script says. Catch's assertions stay on the test's thread:
// the script notes what went wrong, and the test checks the notes after finish().

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/unique_fd.hpp"
#include "core/remote/call/call_endpoints.hpp"
#include "core/remote/wire/frame_reader.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::test {

// The runner's end of the conversation, as the script sees it.
class RunnerEnd {
 public:
  explicit RunnerEnd(int fd) : fd_(fd) {}

  // The next message from the caller; nothing once the caller hangs up, after ten seconds
  // without one, or when what came cannot be read (the last two noted as problems).
  std::optional<remote::wire::Message> receive();

  // The next message, which must be a T (anything else is noted as a problem).
  template <class T>
  std::optional<T> receive_a(std::string_view what) {
    auto message = receive();
    if (!message) {
      note(std::string(what) + ": the caller sent nothing more");
      return std::nullopt;
    }
    if (auto* wanted = std::get_if<T>(&*message)) return std::move(*wanted);
    note(std::string(what) + ": the caller sent another message");
    return std::nullopt;
  }

  void send(const remote::wire::Message& message);
  void send_bytes(std::string_view bytes);
  // The runner hangs up.
  void hang_up();

  void note(std::string problem) { problems_.push_back(std::move(problem)); }
  const std::vector<std::string>& problems() const noexcept { return problems_; }

 private:
  int fd_;
  remote::wire::FrameReader reader_;
  std::vector<std::string> problems_;
};

class ScriptedRunner {
 public:
  explicit ScriptedRunner(std::function<void(RunnerEnd&)> script);
  ScriptedRunner(const ScriptedRunner&) = delete;
  ScriptedRunner& operator=(const ScriptedRunner&) = delete;
  ~ScriptedRunner() { finish(); }

  // The caller's end: the socket, both ways, as a local runner's.
  remote::RunnerLink link() const;

  // Hangs up the caller's end and waits for the script to be over; after it, problems() holds
  // everything the script noted.
  void finish();
  const std::vector<std::string>& problems() const noexcept { return end_.problems(); }

 private:
  common::UniqueFd caller_;
  common::UniqueFd runner_;
  RunnerEnd end_;
  std::thread thread_;
};

// A new job id, as the CLI makes one before it connects.
std::string fresh_job_id();

// The hellos, then the caller's admit (nothing if something else came, noted).
std::optional<remote::wire::Admit> greet_and_take_admit(RunnerEnd& runner);
// Just the hellos, for an attach.
bool greet(RunnerEnd& runner);

}  // namespace errand::test
