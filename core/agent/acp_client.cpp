#include "core/agent/acp_client.hpp"

#include "core/agent/acp_connection.hpp"
#include "core/agent/acp_requests.hpp"
#include "core/agent/auth_method_choice.hpp"

#include <algorithm>

namespace errand::agent {

namespace asio = boost::asio;
namespace json = boost::json;

struct AcpClient::Core : std::enable_shared_from_this<AcpClient::Core> {
  std::shared_ptr<AcpConnection> connection;
  AcpEvents events;
  AcpClientOptions options;
  std::shared_ptr<spdlog::logger> log;
  AgentHello hello;
  std::string authenticated_with;  // the method authenticate succeeded with, if any
  std::vector<std::weak_ptr<PermissionResponder::State>> open_questions;

  void on_request(rpc::Request request);
  void on_notification(rpc::Notification notification);
  void ask_permission(rpc::Request request);
};

void AcpClient::Core::on_request(rpc::Request request) {
  if (request.method == "session/request_permission") return ask_permission(std::move(request));
  log->info("the agent asked for {}, which errand does not offer; answered method not found",
            rpc::excerpt(request.method));
  connection->reply_error(request.id, rpc::method_not_found,
                          "errand does not offer " + request.method +
                              ": the agent gets no file system, terminal or other client "
                              "service from errand");
}

void AcpClient::Core::ask_permission(rpc::Request request) {
  auto parsed = parse_permission_request(request.params);
  if (!parsed) {
    log->warn("the agent's session/request_permission was refused: {}", parsed.error().message);
    connection->reply_error(request.id, rpc::invalid_params, parsed.error().message);
    return;
  }
  if (options.permissions == PermissionPolicy::allow) {
    const auto choice = choose_allow_option(parsed->options);
    if (choice)
      log->info("allowed \"{}\" for the agent ({}): agent.permissions is allow",
                rpc::excerpt(parsed->title), *choice);
    else
      log->warn(
          "the agent asked to run \"{}\" but offered no option that allows it; answered "
          "cancelled",
          rpc::excerpt(parsed->title));
    connection->reply(request.id, permission_outcome(choice));
    return;
  }
  auto state = std::make_shared<PermissionResponder::State>(connection, request.id,
                                                            parsed->session_id, parsed->options);
  std::erase_if(open_questions, [](const auto& weak) { return weak.expired(); });
  open_questions.push_back(state);
  if (!events.on_permission) {
    log->warn(
        "agent.permissions is ask but nothing in errand takes the question; answered "
        "cancelled");
    PermissionResponder(state).cancel();
    return;
  }
  // A copy, so a handler that ends the session (destroying the client) does not destroy the
  // function it is running in.
  auto handler = events.on_permission;
  handler(std::move(*parsed), PermissionResponder(std::move(state)));
}

void AcpClient::Core::on_notification(rpc::Notification notification) {
  if (notification.method != "session/update") {
    log->debug("the agent sent the notification {}, which errand does not use",
               rpc::excerpt(notification.method));
    return;
  }
  auto update = decode_session_update(notification.params);
  if (!update) {
    log->warn("skipped a session/update from the agent because {}", update.error().message);
    return;
  }
  if (const auto* other = std::get_if<OtherUpdate>(&update->update))
    log->debug("session/update of kind {} passed on as is", rpc::excerpt(other->kind));
  if (!events.on_update) return;
  auto handler = events.on_update;
  handler(*update);
}

sdk::Result<std::unique_ptr<AcpClient>> AcpClient::start(asio::any_io_executor strand,
                                                         const AgentStdio& stdio, AcpEvents events,
                                                         AcpClientOptions options,
                                                         std::shared_ptr<spdlog::logger> log) {
  AcpConnection::Limits limits{options.max_line_bytes, options.dying_words_bytes,
                               options.stderr_drain};
  auto connection = AcpConnection::open(strand, stdio, limits, log);
  if (!connection) return connection.error();
  auto core = std::make_shared<Core>();
  core->connection = *connection;
  core->events = std::move(events);
  core->options = std::move(options);
  core->log = std::move(log);
  std::weak_ptr<Core> weak = core;
  AcpConnection::Handlers handlers;
  handlers.on_request = [weak](rpc::Request r) {
    if (auto c = weak.lock()) c->on_request(std::move(r));
  };
  handlers.on_notification = [weak](rpc::Notification n) {
    if (auto c = weak.lock()) c->on_notification(std::move(n));
  };
  handlers.on_closed = [weak](const std::string& reason) {
    auto c = weak.lock();
    if (!c || !c->events.on_closed) return;
    auto handler = c->events.on_closed;
    handler(reason);
  };
  core->connection->start(std::move(handlers));
  return std::unique_ptr<AcpClient>(new AcpClient(std::move(core)));
}

AcpClient::~AcpClient() {
  core_->events = {};
  core_->connection->drop_handlers();
  core_->connection->close("errand ended the session");
}

asio::awaitable<sdk::Result<AgentHello>> AcpClient::initialize() {
  auto core = core_;
  auto connection = core->connection;
  auto answer = co_await connection->call(
      "initialize", initialize_params(core->options.client_name, core->options.client_version),
      core->options.setup_timeout);
  if (!answer) co_return answer.error();
  auto hello = parse_initialize_result(*answer);
  if (!hello) co_return hello.error();
  core->hello = *hello;
  co_return std::move(*hello);
}

asio::awaitable<sdk::Result<void>> AcpClient::authenticate(std::string method_id) {
  auto core = core_;
  auto connection = core->connection;
  json::object params{{"methodId", method_id}};
  auto answer =
      co_await connection->call("authenticate", std::move(params), core->options.setup_timeout);
  if (!answer)
    co_return sdk::make_error("the agent refused to authenticate with its method " + method_id +
                                  " (" + answer.error().message + ")",
                              answer.error().kind);
  core->authenticated_with = method_id;
  core->log->info("authenticated with the agent's method {}", rpc::excerpt(method_id));
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<OpenedSession>> AcpClient::new_session(std::string cwd) {
  auto core = core_;
  auto connection = core->connection;
  auto answer = co_await connection->call("session/new", session_params({}, cwd),
                                          core->options.setup_timeout);
  if (!answer) {
    if (answer.error().kind != sdk::Error::Kind::failed || core->hello.auth_methods.empty() ||
        !core->authenticated_with.empty())
      co_return answer.error();
    co_return sdk::make_error(
        answer.error().message + "; errand did not authenticate, since the agent offers " +
            describe_auth_methods(core->hello.auth_methods) +
            " and the session's environment carries the variables of none of them: set the "
            "provider's credentialName (or agent.credentialVariable) to a variable one of them "
            "reads",
        answer.error().kind);
  }
  co_return parse_opened_session(*answer, {});
}

asio::awaitable<sdk::Result<OpenedSession>> AcpClient::load_session(std::string session_id,
                                                                    std::string cwd) {
  auto core = core_;
  if (!core->hello.load_session)
    co_return sdk::make_error(
        "the agent did not offer loadSession when it started, so errand "
        "cannot resume session " +
            session_id + "; start a new session instead",
        sdk::Error::Kind::refused);
  auto connection = core->connection;
  auto answer = co_await connection->call("session/load", session_params(session_id, cwd),
                                          core->options.setup_timeout);
  if (!answer) co_return answer.error();
  co_return parse_opened_session(*answer, session_id);
}

asio::awaitable<sdk::Result<TurnEnd>> AcpClient::prompt(std::string session_id,
                                                        std::vector<PromptBlock> blocks) {
  auto core = core_;
  const bool has_image = std::any_of(blocks.begin(), blocks.end(), [](const PromptBlock& b) {
    return b.type == PromptBlock::Type::image;
  });
  if (has_image && !core->hello.image_prompts)
    co_return sdk::make_error(
        "the agent does not take images in a prompt (it did not offer "
        "promptCapabilities.image); send the text alone",
        sdk::Error::Kind::refused);
  auto connection = core->connection;
  auto answer =
      co_await connection->call("session/prompt", prompt_params(session_id, blocks), std::nullopt);
  if (!answer) co_return answer.error();
  co_return parse_turn_end(*answer);
}

void AcpClient::cancel(const std::string& session_id) {
  core_->connection->notify("session/cancel", json::object{{"sessionId", session_id}});
  auto& questions = core_->open_questions;
  for (const auto& weak : questions)
    if (auto state = weak.lock(); state && state->session_id == session_id)
      PermissionResponder(state).cancel();
  std::erase_if(questions, [&](const auto& weak) {
    const auto state = weak.lock();
    return !state || state->session_id == session_id;
  });
}

asio::awaitable<sdk::Result<json::array>> AcpClient::set_config_option(std::string session_id,
                                                                       std::string config_id,
                                                                       std::string value) {
  auto core = core_;
  auto connection = core->connection;
  json::object params{{"sessionId", session_id}, {"configId", config_id}, {"value", value}};
  auto answer = co_await connection->call("session/set_config_option", std::move(params),
                                          core->options.control_timeout);
  if (!answer) co_return answer.error();
  if (answer->is_object())
    if (const auto* options = answer->as_object().if_contains("configOptions");
        options != nullptr && options->is_array())
      co_return options->as_array();
  co_return json::array{};
}

asio::awaitable<sdk::Result<json::value>> AcpClient::call_extension(std::string method,
                                                                    json::object params) {
  if (method.empty() || method.front() != '_')
    co_return sdk::make_error("\"" + method +
                                  "\" is not an extension method: ACP extension methods start "
                                  "with an underscore",
                              sdk::Error::Kind::refused);
  auto core = core_;
  auto connection = core->connection;
  co_return co_await connection->call(std::move(method), std::move(params),
                                      core->options.control_timeout);
}

void AcpClient::close(const std::string& why) {
  core_->connection->close(why);
}
bool AcpClient::closed() const {
  return core_->connection->closed();
}
std::string AcpClient::close_reason() const {
  return core_->connection->close_reason();
}
std::string AcpClient::dying_words() const {
  return core_->connection->dying_words();
}
const AgentHello& AcpClient::hello() const {
  return core_->hello;
}

}  // namespace errand::agent
