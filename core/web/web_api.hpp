#pragma once

// The web interface's JSON API (docs/web.md lists it): what the page reads (sessions, a
// thread's transcript and errand's answers, the project, provider calls) and what it asks
// (start a session, send a prompt or a command). Requests reach it only after the server's
// checks, so a request that changes something here came from the interface's own page and the
// interface is not an observer. Every text it returns passed the scrubbing door: the transcript
// was scrubbed when written, and everything else is scrubbed here.

#include "core/web/http/web_http.hpp"
#include "core/web/web_interface.hpp"

#include <boost/json/object.hpp>
#include <string>

namespace errand::web {

class WebApi final : public Router {
 public:
  WebApi(WebInterface::Context context, bool observer);
  boost::asio::awaitable<RouteReply> handle(const HttpRequest& request) override;

 private:
  boost::asio::awaitable<RouteReply> handle_thread(const HttpRequest& request,
                                                   const std::string& thread_id,
                                                   const std::string& what,
                                                   const std::string& path_parameter);
  boost::asio::awaitable<boost::json::object> sessions_body();
  boost::asio::awaitable<std::optional<boost::json::object>> row_of(const std::string& thread_id);
  boost::asio::awaitable<HttpResponse> start_session(const HttpRequest& request);
  boost::asio::awaitable<HttpResponse> send(const HttpRequest& request,
                                            const std::string& thread_id);
  // Writes the message where a person would have (the channel, or the thread) and hands it to
  // the manager as the web interface's; answers with its id or the manager's refusal.
  boost::asio::awaitable<sdk::Result<std::string>> write(const std::string& thread_id,
                                                         const std::string& text);
  boost::asio::awaitable<void> stream_sessions(EventStream& out);
  boost::asio::awaitable<void> stream_thread(EventStream& out, std::string thread_id);
  boost::asio::awaitable<HttpResponse> project(const std::string& thread_id,
                                               const std::string& what,
                                               const std::string& path_parameter);
  boost::asio::awaitable<HttpResponse> receipts(const std::string& thread_id);

  WebInterface::Context context_;
  bool observer_;
};

}  // namespace errand::web
