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
#include <optional>
#include <string>
#include <string_view>

namespace errand::web {

class WebApi final : public Router {
 public:
  WebApi(WebInterface::Context context, bool observer);
  boost::asio::awaitable<RouteReply> handle(const HttpRequest& request, Access access) override;

 private:
  // A thread as threads.db records it and as it runs now; at least one of the two is there.
  struct KnownThread {
    std::string id;
    std::optional<sessions::ThreadRecord> record;
    std::optional<sessions::LiveSession> live;
  };

  boost::asio::awaitable<RouteReply> handle_thread(const HttpRequest& request,
                                                   const KnownThread& thread,
                                                   const std::string& what);
  boost::asio::awaitable<boost::json::object> sessions_body();
  // Nothing when neither threads.db nor the session manager knows the thread.
  boost::asio::awaitable<std::optional<KnownThread>> known_thread(const std::string& thread_id);
  boost::json::object row_of(const KnownThread& thread) const;
  boost::asio::awaitable<HttpResponse> start_session(const HttpRequest& request);
  boost::asio::awaitable<HttpResponse> send(const HttpRequest& request,
                                            const std::string& thread_id);
  // Writes the message where a person would have (the channel, or the thread) and hands it to
  // the manager as the web interface's; answers with its id or the manager's refusal.
  boost::asio::awaitable<sdk::Result<std::string>> write(const std::string& thread_id,
                                                         const std::string& text);
  boost::asio::awaitable<void> stream_sessions(EventStream& out);
  boost::asio::awaitable<void> stream_thread(EventStream& out, std::string thread_id);
  // tree, file or download, with the path named in the request's target.
  boost::asio::awaitable<HttpResponse> project(const KnownThread& thread, const std::string& what,
                                               std::string_view target);
  boost::asio::awaitable<HttpResponse> receipts(const KnownThread& thread);

  WebInterface::Context context_;
  bool observer_;
};

}  // namespace errand::web
