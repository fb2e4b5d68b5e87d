#include "tests/fakes/agent/agent_wire.hpp"

#include <unistd.h>
#include <boost/json/serialize.hpp>
#include <cerrno>

namespace fake_agent {

namespace json = boost::json;

void Wire::write_line(std::string line) {
  line += '\n';
  std::lock_guard lock(write_mutex_);
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDOUT_FILENO, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

void Wire::send(const json::object& message) {
  write_line(json::serialize(message));
}

void Wire::send_raw(std::string_view line) {
  write_line(std::string(line));
}

void Wire::reply(const json::value& id, json::value result) {
  send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Wire::reply_error(const json::value& id, int code, std::string_view message) {
  send({{"jsonrpc", "2.0"},
        {"id", id},
        {"error", json::object{{"code", code}, {"message", message}}}});
}

void Wire::notify(std::string_view method, json::object params) {
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

std::optional<json::object> Wire::request(std::string_view method, json::object params) {
  std::string id;
  {
    std::lock_guard lock(pending_mutex_);
    if (input_closed_) return std::nullopt;
    id = "fake-" + std::to_string(next_id_++);
    pending_.emplace(id, std::nullopt);
  }
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  std::unique_lock lock(pending_mutex_);
  answered_.wait(lock, [&] { return input_closed_ || pending_[id].has_value(); });
  auto answer = std::move(pending_[id]);
  pending_.erase(id);
  return answer;
}

void Wire::deliver(const json::object& response) {
  const auto* id = response.if_contains("id");
  if (id == nullptr || !id->is_string()) return;
  std::lock_guard lock(pending_mutex_);
  const auto found = pending_.find(std::string(id->as_string()));
  if (found == pending_.end()) return;
  found->second = response;
  answered_.notify_all();
}

void Wire::input_closed() {
  std::lock_guard lock(pending_mutex_);
  input_closed_ = true;
  answered_.notify_all();
}

}  // namespace fake_agent
