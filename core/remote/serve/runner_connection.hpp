#pragma once

// The runner's side of one caller's connection: who it is (SO_PEERCRED, then runner.allowUsers,
// before anything but its hello is read), then one of: an admission (with its snapshot's
// blobs) followed by the job's stream; an attach to a job's stream; or one request (ps, show,
// kill, df, gc). Every coroutine runs on the scheduler's strand.
//
// Admission order, for at-most-once without burning ids: a known id is answered at once from
// jobs.db (same request: admitted, existing; else conflict) without asking for blobs; a new one
// is admitted only after every blob it needs is stored, so a failed upload leaves no row.
//
// The caller going away never stops a job: it runs on and an attach picks its output up again.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/remote/serve/frame_socket.hpp"
#include "core/remote/serve/job_scheduler.hpp"
#include "core/remote/serve/peer_identity.hpp"

namespace errand::remote {

inline constexpr const char* kRunnerProgram = "errand runner";

class RunnerConnection : public std::enable_shared_from_this<RunnerConnection> {
 public:
  // Serves the connection on the scheduler's strand until it is over.
  static void start(JobScheduler& scheduler, boost::asio::local::stream_protocol::socket socket);

 private:
  RunnerConnection(JobScheduler& scheduler, boost::asio::local::stream_protocol::socket socket);

  boost::asio::awaitable<void> serve();
  // Hello both ways and the caller's identity; false when the connection is refused.
  boost::asio::awaitable<bool> greet();
  boost::asio::awaitable<void> refuse(wire::RefusalCode code, std::string message);

  // connection_admit.cpp
  boost::asio::awaitable<void> admit(wire::Admit admit);
  boost::asio::awaitable<std::optional<Manifest>> read_manifest();
  boost::asio::awaitable<sdk::Result<void>> receive_blobs(const Manifest& manifest,
                                                          std::set<std::string> needed);

  // connection_stream.cpp
  boost::asio::awaitable<void> attach(wire::Attach attach);
  boost::asio::awaitable<void> stream(std::string id, std::uint64_t after);
  boost::asio::awaitable<void> read_while_streaming(std::string id);
  void stop_streaming();

  // connection_requests.cpp
  boost::asio::awaitable<void> answer(wire::Request request);

  JobScheduler& scheduler_;
  FrameSocket socket_;
  PeerIdentity peer_;
  std::shared_ptr<boost::asio::steady_timer> wake_;
  bool stop_ = false;
  std::optional<wire::Refused> late_refusal_;  // found by the reader while streaming
};

}  // namespace errand::remote
