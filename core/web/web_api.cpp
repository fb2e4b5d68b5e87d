#include "core/web/web_api.hpp"

#include "core/sessions/session_naming.hpp"
#include "core/sessions/web_identity.hpp"
#include "core/web/api/api_errors.hpp"
#include "core/web/api/api_ids.hpp"
#include "core/web/api/project_browse.hpp"
#include "core/web/api/receipts_json.hpp"
#include "core/web/api/session_rows.hpp"
#include "core/web/api/transcript_follower.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>

namespace errand::web {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

// How often a stream looks for what changed, and how often it says it is still there.
constexpr auto kSessionsEvery = std::chrono::milliseconds(500);
constexpr auto kThreadEvery = std::chrono::milliseconds(250);
constexpr auto kKeepAliveEvery = std::chrono::seconds(15);
// Longer than any prompt a person types; the chat service splits what it posts anyway.
constexpr std::size_t kMaxPromptBytes = 32 * 1024;

asio::awaitable<void> pause(std::chrono::milliseconds for_how_long) {
  asio::steady_timer timer(co_await asio::this_coro::executor, for_how_long);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

HttpResponse error_response(const sdk::Error& error) {
  return json_error(status_for(error), error.message);
}

// The request's body as a JSON object with the string fields asked for, or the refusal.
sdk::Result<json::object> body_object(const HttpRequest& request) {
  boost::system::error_code ec;
  auto parsed = json::parse(request.body(), ec);
  if (ec || !parsed.is_object())
    return sdk::Error{sdk::Error::Kind::refused,
                      "the request's body is not a JSON object; send {\"text\": \"...\"} or "
                      "{\"prompt\": \"...\", \"project\": \"...\"}"};
  return std::move(parsed.as_object());
}

sdk::Result<std::string> string_field(const json::object& body, std::string_view name,
                                      bool required) {
  const auto* value = body.if_contains(name);
  if (value == nullptr || value->is_null()) {
    if (!required) return std::string();
    return sdk::Error{sdk::Error::Kind::refused,
                      "the request has no \"" + std::string(name) + "\"; it is required"};
  }
  if (!value->is_string())
    return sdk::Error{sdk::Error::Kind::refused, "\"" + std::string(name) + "\" must be a string"};
  std::string text(value->as_string());
  if (text.size() > kMaxPromptBytes)
    return sdk::Error{sdk::Error::Kind::limit, "\"" + std::string(name) + "\" is longer than " +
                                                   std::to_string(kMaxPromptBytes / 1024) +
                                                   " KiB; shorten it"};
  return text;
}

bool blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// A field of the request's body that is missing, of the wrong type or too long.
HttpResponse bad_field(const sdk::Error& error) {
  return json_error(error.kind == sdk::Error::Kind::limit ? http::status::payload_too_large
                                                          : http::status::bad_request,
                    error.message);
}

HttpResponse refused_by_manager(const sdk::Error& error) {
  // The manager's refusals are about the state of things (a project with a live session, a
  // full queue), so they answer 409; the page shows the sentence.
  if (error.kind == sdk::Error::Kind::refused)
    return json_error(http::status::conflict, error.message);
  return error_response(error);
}

}  // namespace

WebApi::WebApi(WebInterface::Context context, bool observer)
    : context_(std::move(context)), observer_(observer) {}

asio::awaitable<RouteReply> WebApi::handle(const HttpRequest& request, Access access) {
  auto target = boost::urls::parse_origin_form(request.target());
  if (!target)
    co_return json_error(http::status::bad_request, "the request's target is unreadable");
  std::vector<std::string> segments;
  for (auto segment : target->segments()) segments.emplace_back(segment);
  const bool get = request.method() == http::verb::get || request.method() == http::verb::head;
  const bool post = request.method() == http::verb::post;
  auto wrong_method = [&](std::string_view allowed) {
    return json_error(http::status::method_not_allowed,
                      "this address answers " + std::string(allowed) + " only");
  };
  // segments[0] is "api": the server only routes /api/ here.
  if (segments.size() == 2 && segments[1] == "interface") {
    if (!get) co_return wrong_method("GET");
    json::value chat =
        context_.chat_name.empty() ? json::value(nullptr) : json::value(context_.chat_name);
    // An observer's secret makes the page an observer's too, on an interface that is not one.
    const bool observer = observer_ || access == Access::observer;
    co_return json_ok(page_json(
        json::object{{"observer", observer}, {"chat", chat}, {"version", ERRAND_VERSION}}));
  }
  if (segments.size() == 2 && segments[1] == "events") {
    if (!get) co_return wrong_method("GET");
    co_return EventStreamWriter(
        [this](EventStream& out) -> asio::awaitable<void> { co_await stream_sessions(out); });
  }
  if (segments.size() == 2 && segments[1] == "sessions") {
    if (get) {
      auto body = co_await sessions_body();
      co_return json_ok(page_json(body));
    }
    if (post) {
      auto started = co_await start_session(request);
      co_return started;
    }
    co_return wrong_method("GET and POST");
  }
  if (segments.size() >= 3 && segments.size() <= 4 && segments[1] == "sessions") {
    const std::string& thread_id = segments[2];
    if (!is_api_id(thread_id))
      co_return json_error(http::status::not_found, "no session thread has the id given");
    auto known = co_await known_thread(thread_id);
    if (!known)
      co_return json_error(http::status::not_found,
                           "no session thread " + thread_id + " is known to this daemon");
    const std::string what = segments.size() == 4 ? segments[3] : std::string();
    auto reply = co_await handle_thread(request, *known, what);
    co_return reply;
  }
  co_return json_error(http::status::not_found, "no such address in the web interface's API: " +
                                                    std::string(target->path()));
}

asio::awaitable<RouteReply> WebApi::handle_thread(const HttpRequest& request,
                                                  const KnownThread& thread,
                                                  const std::string& what) {
  const bool get = request.method() == http::verb::get || request.method() == http::verb::head;
  const bool post = request.method() == http::verb::post;
  if (what.empty()) {
    if (!get)
      co_return json_error(http::status::method_not_allowed, "this address answers GET only");
    co_return json_ok(page_json(row_of(thread)));
  }
  if (what == "send") {
    if (!post)
      co_return json_error(http::status::method_not_allowed, "this address answers POST only");
    auto sent = co_await send(request, thread.id);
    co_return sent;
  }
  if (!get) co_return json_error(http::status::method_not_allowed, "this address answers GET only");
  if (what == "events") {
    co_return EventStreamWriter([this, id = thread.id](EventStream& out) -> asio::awaitable<void> {
      co_await stream_thread(out, id);
    });
  }
  if (what == "tree" || what == "file" || what == "download") {
    auto answer = co_await project(thread, what, request.target());
    co_return answer;
  }
  if (what == "receipts") {
    auto answer = co_await receipts(thread);
    co_return answer;
  }
  co_return json_error(http::status::not_found,
                       "a session thread has no address \"" + what + "\" in the API");
}

asio::awaitable<json::object> WebApi::sessions_body() {
  auto list = [](sessions::ThreadsDb& db) { return db.list_threads(); };
  auto threads = co_await context_.threads.run(list);
  auto live = co_await context_.manager->live_sessions();
  if (!threads) {
    context_.log->warn("threads.db could not be read for the web interface: {}",
                       threads.error().message);
    threads = std::vector<sessions::ThreadSummary>{};
  }
  co_return session_list(*threads, live, context_.secrets, context_.default_model());
}

asio::awaitable<std::optional<WebApi::KnownThread>> WebApi::known_thread(
    const std::string& thread_id) {
  auto find = [thread_id](sessions::ThreadsDb& db) { return db.find_thread(thread_id); };
  auto record = co_await context_.threads.run(find);
  if (!record) context_.log->warn("threads.db: {}", record.error().message);
  auto live = co_await context_.manager->live_sessions();
  KnownThread known{thread_id, record ? std::move(*record) : std::nullopt, std::nullopt};
  // A stop still finishing while the next session starts: the newest is the one that runs.
  for (auto& one : live)
    if (one.thread_id == thread_id && (!known.live || one.started_at > known.live->started_at))
      known.live = std::move(one);
  if (!known.record && !known.live) co_return std::nullopt;
  co_return known;
}

json::object WebApi::row_of(const KnownThread& thread) const {
  return session_row(thread.record ? &*thread.record : nullptr,
                     thread.live ? &*thread.live : nullptr, context_.secrets,
                     context_.default_model());
}

asio::awaitable<HttpResponse> WebApi::start_session(const HttpRequest& request) {
  auto body = body_object(request);
  if (!body) co_return json_error(http::status::bad_request, body.error().message);
  auto prompt = string_field(*body, "prompt", true);
  if (!prompt) co_return bad_field(prompt.error());
  auto project = string_field(*body, "project", false);
  if (!project) co_return bad_field(project.error());
  if (blank(*prompt))
    co_return json_error(http::status::bad_request,
                         "a session starts from a prompt; write what the agent should do");
  std::string text = *prompt;
  if (!project->empty()) {
    if (!sessions::is_project_name(*project))
      co_return json_error(
          http::status::bad_request,
          "the project name \"" + context_.secrets.scrub(*project) +
              "\" is not one errand makes a directory for: lower-case letters, digits, '-', '_' "
              "and '.', starting with a letter or a digit, at most " +
              std::to_string(sessions::kMaxProjectNameChars) + " characters");
    text = *project + ": " + *prompt;
  }
  auto written = co_await write(std::string(), text);
  if (!written) co_return refused_by_manager(written.error());
  // A thread opened from a message has that message's id.
  co_return json_ok(page_json(json::object{{"thread", *written}}), http::status::accepted);
}

asio::awaitable<HttpResponse> WebApi::send(const HttpRequest& request,
                                           const std::string& thread_id) {
  auto body = body_object(request);
  if (!body) co_return json_error(http::status::bad_request, body.error().message);
  auto text = string_field(*body, "text", true);
  if (!text) co_return bad_field(text.error());
  if (blank(*text))
    co_return json_error(http::status::bad_request,
                         "the message is empty; write a prompt, a ! command or an option");
  auto written = co_await write(thread_id, *text);
  if (!written) co_return refused_by_manager(written.error());
  co_return json_ok(page_json(json::object{{"message", *written}}), http::status::accepted);
}

asio::awaitable<sdk::Result<std::string>> WebApi::write(const std::string& thread_id,
                                                        const std::string& text) {
  const std::string channel = thread_id.empty() ? context_.channel_id : thread_id;
  sdk::MessageRef ref;
  if (context_.web_chat != nullptr) {
    ref = context_.web_chat->new_message(channel);
  } else {
    // With a chat service the people in the channel see what the page wrote, as the web
    // interface's, and the thread opens from that message.
    sdk::OutMessage shown;
    shown.text = context_.secrets.scrub("**web interface:** " + text);
    auto posted = co_await context_.chat.post(channel, std::move(shown));
    if (!posted)
      co_return sdk::Error{sdk::Error::Kind::unavailable,
                           "the chat service did not take the message: " + posted.error().message};
    if (posted->empty())
      co_return sdk::Error{sdk::Error::Kind::unavailable,
                           "the chat service took the message but gave no reference for it"};
    ref = posted->front();
  }
  sdk::InboundMessage message;
  message.ref = ref;
  message.thread_id = thread_id;
  message.author = sdk::UserRef{std::string(sessions::kWebInterfaceUser), "web interface", false};
  message.text = text;
  message.sent_at = std::chrono::system_clock::now();
  auto handled = co_await context_.manager->handle_from_web(std::move(message));
  if (!handled) co_return handled.error();
  co_return ref.message_id;
}

asio::awaitable<void> WebApi::stream_sessions(EventStream& out) {
  std::string last;
  auto quiet_since = std::chrono::steady_clock::now();
  while (true) {
    auto body = co_await sessions_body();
    auto now_text = page_json(body);
    if (now_text != last) {
      const bool sent = co_await out.send("sessions", now_text);
      if (!sent) co_return;
      last = std::move(now_text);
      quiet_since = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - quiet_since > kKeepAliveEvery) {
      const bool kept = co_await out.keep_alive();
      if (!kept) co_return;
      quiet_since = std::chrono::steady_clock::now();
    }
    co_await pause(kSessionsEvery);
  }
}

asio::awaitable<void> WebApi::stream_thread(EventStream& out, std::string thread_id) {
  auto sessions_of = [thread_id](sessions::ThreadsDb& db) { return db.sessions_of(thread_id); };
  std::optional<TranscriptFollower> follower;
  std::uint64_t message_sequence = 0;
  std::string last_row;
  auto quiet_since = std::chrono::steady_clock::now();
  std::size_t round = 0;
  while (true) {
    bool said = false;
    // New sessions of the thread are looked for every fourth round: a resumed thread gets one.
    if (!follower || round % 4 == 0) {
      auto recorded = co_await context_.threads.run(sessions_of);
      if (recorded) {
        std::vector<std::string> ids;
        for (const auto& session : *recorded)
          if (is_api_id(session.session_id)) ids.push_back(session.session_id);
        if (!follower) {
          auto opened = TranscriptFollower::open(context_.state_dir, ids);
          if (!opened) {
            context_.log->warn("thread {}: its transcript cannot be followed: {}", thread_id,
                               opened.error().message);
            co_return;
          }
          follower.emplace(std::move(*opened));
        } else {
          for (const auto& id : ids)
            if (auto added = follower->add_session(id); !added)
              context_.log->warn("thread {}: {}", thread_id, added.error().message);
        }
      }
    }
    // The files are read on the database's worker, off the io thread.
    auto& tail = *follower;
    auto read = [&tail](sessions::ThreadsDb&) { return tail.next(); };
    auto lines = co_await context_.threads.run(read);
    if (!lines) {
      context_.log->warn("thread {}: {}", thread_id, lines.error().message);
    } else {
      for (const auto& line : *lines) {
        const bool sent = co_await out.send("entry", page_json(line));
        if (!sent) co_return;
        said = true;
      }
    }
    if (context_.web_chat != nullptr) {
      for (const auto& message : context_.web_chat->messages_after(thread_id, message_sequence)) {
        message_sequence = std::max(message_sequence, message.sequence);
        json::array files;
        for (const auto& name : message.file_names) files.push_back(json::value(name));
        const json::object data{{"id", message.id},
                                {"text", context_.secrets.scrub(message.text)},
                                {"files", std::move(files)},
                                {"edited", message.edited},
                                {"removed", message.removed}};
        const bool sent = co_await out.send("message", page_json(data));
        if (!sent) co_return;
        said = true;
      }
    }
    if (round % 2 == 0) {
      auto known = co_await known_thread(thread_id);
      if (known) {
        auto row_text = page_json(row_of(*known));
        if (row_text != last_row) {
          const bool sent = co_await out.send("state", row_text);
          if (!sent) co_return;
          last_row = std::move(row_text);
          said = true;
        }
      }
    }
    if (said) {
      quiet_since = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - quiet_since > kKeepAliveEvery) {
      const bool kept = co_await out.keep_alive();
      if (!kept) co_return;
      quiet_since = std::chrono::steady_clock::now();
    }
    ++round;
    co_await pause(kThreadEvery);
  }
}

asio::awaitable<HttpResponse> WebApi::project(const KnownThread& thread, const std::string& what,
                                              std::string_view target) {
  auto path = path_parameter(target);
  if (!path) co_return json_error(http::status::bad_request, path.error().message);
  if (!thread.record)
    co_return json_error(http::status::not_found, "the thread " + thread.id +
                                                      " has no project yet; wait until its "
                                                      "session has started");
  const std::filesystem::path project_dir = thread.record->project_path;
  const std::string& thread_id = thread.id;
  const auto& secrets = context_.secrets;
  const std::string requested = *path;
  if (what == "tree") {
    auto read = [&](sessions::ThreadsDb&) { return project_tree(project_dir, requested, secrets); };
    auto tree = co_await context_.threads.run(read);
    if (!tree) co_return error_response(tree.error());
    co_return json_ok(page_json(*tree));
  }
  if (what == "file") {
    auto read = [&](sessions::ThreadsDb&) {
      return project_file(project_dir, thread_id, requested, secrets);
    };
    auto file = co_await context_.threads.run(read);
    if (!file) co_return error_response(file.error());
    if (const auto* instead = std::get_if<DownloadInstead>(&*file))
      co_return json_ok(page_json(to_json(*instead)), DownloadInstead::kStatus);
    co_return json_ok(page_json(std::get<json::object>(*file)));
  }
  auto read = [&](sessions::ThreadsDb&) {
    return project_download(project_dir, requested, secrets);
  };
  auto download = co_await context_.threads.run(read);
  if (!download) co_return error_response(download.error());
  HttpResponse response;
  response.content_type = "application/octet-stream";
  response.body = std::move(download->bytes);
  response.headers.emplace_back("Content-Disposition", content_disposition(download->name));
  co_return response;
}

asio::awaitable<HttpResponse> WebApi::receipts(const KnownThread& thread) {
  // The session that runs now, else the thread's last one.
  const std::string session_id = thread.live     ? thread.live->session_id
                                 : thread.record ? thread.record->last_session_id
                                                 : std::string();
  if (session_id.empty()) co_return json_ok(page_json(json::object{{"receipts", json::array{}}}));
  auto& db = context_.receipts;
  const auto& secrets = context_.secrets;
  auto read = [&](sessions::ThreadsDb&) { return newest_receipts_json(db, session_id, secrets); };
  auto rows = co_await context_.threads.run(read);
  if (!rows) co_return error_response(rows.error());
  co_return json_ok(page_json(*rows));
}

}  // namespace errand::web
