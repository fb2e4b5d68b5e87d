#pragma once

// The fake agent's side of ACP's stdio: whole lines out under one lock, and requests of its own
// (session/request_permission, ...) whose answers the reading thread hands back.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace fake_agent {

class Wire {
 public:
  void send(const boost::json::object& message);
  // Exactly these bytes and a newline, for scripts that test how the client treats bad input.
  void send_raw(std::string_view line);

  void reply(const boost::json::value& id, boost::json::value result);
  void reply_error(const boost::json::value& id, int code, std::string_view message);
  void notify(std::string_view method, boost::json::object params);

  // Sends a request and blocks until its answer: the whole response object (with "result" or
  // "error"), or nothing when stdin closed first.
  std::optional<boost::json::object> request(std::string_view method, boost::json::object params);
  // Called by the reading thread for every response line.
  void deliver(const boost::json::object& response);
  void input_closed();

 private:
  void write_line(std::string line);

  std::mutex write_mutex_;
  std::mutex pending_mutex_;
  std::condition_variable answered_;
  std::map<std::string, std::optional<boost::json::object>> pending_;
  std::uint64_t next_id_ = 0;
  bool input_closed_ = false;
};

}  // namespace fake_agent
