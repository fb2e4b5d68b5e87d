#pragma once

// A client of Incus's REST API over its unix socket. Every request is bounded by a deadline,
// carries the client's project, and has its envelope read: a sync answer gives its metadata, an
// async one is waited on and gives the finished operation's metadata. Errors say what was asked
// and what Incus answered. Coroutines run on the executor given, which must be a strand (or a
// single-threaded context) when one client is shared.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plugins/sandbox-incus/client/exec_session.hpp"
#include "plugins/sandbox-incus/client/unix_http.hpp"

namespace errand::incus {

// Long enough for a create from an image that has not been unpacked yet, or an instance's
// shutdown; short enough that a stuck incusd is reported rather than waited on forever.
inline constexpr std::chrono::milliseconds kDefaultDeadline{120000};

struct ExecRequest {
  std::vector<std::string> command;
  // Non-secret variables only: incusd passes these in the argv of a helper process on the host,
  // readable by every host account for as long as the command runs.
  std::vector<std::pair<std::string, std::string>> environment;
  std::optional<std::uint32_t> user;
  std::optional<std::uint32_t> group;
  std::string cwd;  // empty: Incus's default (the user's home)
};

class IncusClient {
 public:
  IncusClient(boost::asio::any_io_executor executor, std::filesystem::path socket,
              std::string project);

  // verb path (from "/1.0", may carry a query) with body as JSON. An async answer is waited on
  // (/1.0/operations/<id>/wait, on its own connection) within the same deadline.
  boost::asio::awaitable<sdk::Result<boost::json::value>> request(
      boost::beast::http::verb verb, std::string path,
      std::optional<boost::json::value> body = std::nullopt,
      std::chrono::milliseconds deadline = kDefaultDeadline) const;

  // request() from a thread that runs no io_context (the probe): runs one of its own.
  sdk::Result<boost::json::value> request_blocking(
      boost::beast::http::verb verb, std::string path,
      std::optional<boost::json::value> body = std::nullopt,
      std::chrono::milliseconds deadline = kDefaultDeadline) const;

  // The finished operation's metadata. With no deadline it waits as long as the operation runs.
  boost::asio::awaitable<sdk::Result<boost::json::value>> wait_operation(
      std::string operation_id, std::string what,
      std::optional<std::chrono::milliseconds> deadline) const;

  // Runs request.command in instance, non-interactive, its stdio on local sockets (see
  // ExecSession). deadline bounds the start: the POST and the four websocket connections, which
  // incusd wants within 5 s of its answer.
  boost::asio::awaitable<sdk::Result<std::unique_ptr<ExecSession>>> exec(
      std::string instance, ExecRequest request,
      std::chrono::milliseconds deadline = kDefaultDeadline) const;

  const std::filesystem::path& socket() const noexcept { return socket_; }
  const std::string& project() const noexcept { return project_; }
  const boost::asio::any_io_executor& executor() const noexcept { return executor_; }

 private:
  boost::asio::awaitable<sdk::Result<boost::json::value>> perform(
      boost::asio::any_io_executor executor, boost::beast::http::verb verb, std::string path,
      std::optional<boost::json::value> body, std::chrono::milliseconds deadline) const;

  boost::asio::awaitable<sdk::Result<boost::json::value>> wait_on(
      boost::asio::any_io_executor executor, std::string operation_id, std::string what,
      Deadline deadline) const;

  boost::asio::any_io_executor executor_;
  std::filesystem::path socket_;
  std::string project_;
};

// The body of POST /1.0/instances/<name>/exec for request: non-interactive, waiting for the
// websockets, output not recorded.
boost::json::value exec_body(const ExecRequest& request);

}  // namespace errand::incus
