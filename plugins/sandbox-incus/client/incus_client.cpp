#include "plugins/sandbox-incus/client/incus_client.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/serialize.hpp>

#include "plugins/sandbox-incus/client/envelope.hpp"
#include "plugins/sandbox-incus/client/request_target.hpp"

namespace errand::incus {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;

IncusClient::IncusClient(asio::any_io_executor executor, std::filesystem::path socket,
                         std::string project)
    : executor_(std::move(executor)), socket_(std::move(socket)), project_(std::move(project)) {}

asio::awaitable<sdk::Result<json::value>> IncusClient::request(
    http::verb verb, std::string path, std::optional<json::value> body,
    std::chrono::milliseconds deadline) const {
  co_return co_await perform(executor_, verb, std::move(path), std::move(body), deadline);
}

sdk::Result<json::value> IncusClient::request_blocking(http::verb verb, std::string path,
                                                       std::optional<json::value> body,
                                                       std::chrono::milliseconds deadline) const {
  asio::io_context context;
  auto answer = asio::co_spawn(
      context, perform(context.get_executor(), verb, std::move(path), std::move(body), deadline),
      asio::use_future);
  context.run();
  return answer.get();
}

asio::awaitable<sdk::Result<json::value>> IncusClient::perform(
    asio::any_io_executor executor, http::verb verb, std::string path,
    std::optional<json::value> body, std::chrono::milliseconds deadline) const {
  const Deadline until = std::chrono::steady_clock::now() + deadline;
  auto target = with_project(path, project_);
  const auto what = fmt::format("{} {}", std::string(http::to_string(verb)), target);
  // Named, not temporaries: GCC 12 destroys a temporary that lives across a co_await twice.
  std::string text = body ? json::serialize(*body) : std::string();
  auto answer =
      co_await http_exchange(executor, socket_, verb, target, std::move(text), until, what);
  if (!answer) co_return answer.error();
  auto envelope = parse_envelope(what, answer->status, answer->body);
  if (!envelope) co_return envelope.error();
  if (envelope->type == Envelope::Type::sync) co_return std::move(envelope->metadata);
  co_return co_await wait_on(executor, envelope->operation_id, what, until);
}

asio::awaitable<sdk::Result<json::value>> IncusClient::wait_operation(
    std::string operation_id, std::string what,
    std::optional<std::chrono::milliseconds> deadline) const {
  const Deadline until = deadline ? std::chrono::steady_clock::now() + *deadline : Deadline::max();
  co_return co_await wait_on(executor_, std::move(operation_id), std::move(what), until);
}

asio::awaitable<sdk::Result<json::value>> IncusClient::wait_on(asio::any_io_executor executor,
                                                               std::string operation_id,
                                                               std::string what,
                                                               Deadline deadline) const {
  // incusd's own timeout ends the wait a second before ours, so a slow operation is reported
  // by incusd as unfinished rather than by a broken connection.
  const std::string timeout = deadline == Deadline::max()
                                  ? "-1"
                                  : std::to_string(std::max(1L, seconds_until(deadline) - 1));
  const auto target = with_project(
      fmt::format("/1.0/operations/{}/wait?timeout={}", path_segment(operation_id), timeout),
      project_);
  std::string waiting = fmt::format("the wait on operation {} of {}", operation_id, what);
  std::string no_body;
  auto answer = co_await http_exchange(executor, socket_, http::verb::get, target,
                                       std::move(no_body), deadline, std::move(waiting));
  if (!answer) co_return answer.error();
  co_return parse_wait_answer(what, operation_id, answer->status, answer->body);
}

json::value exec_body(const ExecRequest& request) {
  json::array command;
  for (const auto& word : request.command) command.emplace_back(word);
  json::object environment;
  for (const auto& [name, value] : request.environment) environment[name] = value;
  json::object body{{"command", std::move(command)},
                    {"environment", std::move(environment)},
                    {"interactive", false},
                    {"wait-for-websocket", true},
                    {"record-output", false}};
  if (request.user) body["user"] = *request.user;
  if (request.group) body["group"] = *request.group;
  if (!request.cwd.empty()) body["cwd"] = request.cwd;
  return body;
}

}  // namespace errand::incus
