#include "tests/fakes/github/bare_repository.hpp"
#include "tests/fakes/github/base64_text.hpp"
#include "tests/fakes/github/git_cgi.hpp"
#include "tests/fakes/github/github_impl.hpp"

#include "common/ascii_case.hpp"

#include <sys/wait.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>

namespace errand::fakes {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using asio::experimental::awaitable_operators::operator&&;
using CgiSocket = asio::local::stream_protocol::socket;

namespace {

// A test pushes a few commits; an answer past this is a runaway http-backend.
constexpr std::size_t kCgiOutputLimit = 256u << 20;

struct GitTarget {
  std::string owner, repo;
  std::string path_info;  // /<owner>/<repo>.git/...
  bool push = false;      // receive-pack: needs contents:write
};

std::optional<GitTarget> git_target_of(std::string_view path, std::string_view query) {
  if (path.size() < 2 || path[0] != '/') return std::nullopt;
  const auto owner_end = path.find('/', 1);
  if (owner_end == std::string_view::npos) return std::nullopt;
  auto repo_end = path.find('/', owner_end + 1);
  if (repo_end == std::string_view::npos) return std::nullopt;
  GitTarget target;
  target.owner = std::string(path.substr(1, owner_end - 1));
  target.repo = std::string(path.substr(owner_end + 1, repo_end - owner_end - 1));
  // GitHub serves a repository with and without the .git suffix; the directory has it.
  if (target.repo.size() > 4 && target.repo.compare(target.repo.size() - 4, 4, ".git") == 0)
    target.repo.resize(target.repo.size() - 4);
  if (target.owner.empty() || target.repo.empty() || target.owner.front() == '.' ||
      target.repo.front() == '.')
    return std::nullopt;
  const auto rest = path.substr(repo_end);
  target.path_info = "/" + target.owner + "/" + target.repo + ".git" + std::string(rest);
  target.push = rest == "/git-receive-pack" ||
                query.find("service=git-receive-pack") != std::string_view::npos;
  return target;
}

// The password of a "Basic base64(user:password)" credential, and the user.
std::optional<std::pair<std::string, std::string>> basic_credential(std::string_view header) {
  if (!common::istarts_with(header, "Basic ")) return std::nullopt;
  const auto decoded = decode_base64(header.substr(6));
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return std::pair{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

struct Refusal {
  unsigned status;
  std::string text;
};

using Parser = http::request_parser<http::buffer_body>;

// Streams the rest of the request body into http-backend's stdin, then closes it.
asio::awaitable<void> feed_body(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                Parser& parser, CgiSocket& to_cgi, bool& complete) {
  char chunk[64 * 1024];
  bool child_listening = true;
  while (!parser.is_done()) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof chunk;
    auto [ec, n] =
        co_await http::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
    if (ec == http::error::need_buffer) ec = {};
    if (ec) break;
    const std::size_t got = sizeof chunk - parser.get().body().size;
    if (got > 0 && child_listening) {
      auto [write_error, written] = co_await asio::async_write(to_cgi, asio::buffer(chunk, got),
                                                               asio::as_tuple(asio::use_awaitable));
      // A child that stopped reading has answered already; the rest is read and dropped.
      if (write_error) child_listening = false;
    }
  }
  complete = parser.is_done();
  boost::system::error_code ignored;
  to_cgi.shutdown(CgiSocket::shutdown_send, ignored);
  to_cgi.close(ignored);
}

asio::awaitable<void> collect_output(CgiSocket& from_cgi, std::string& output) {
  char chunk[64 * 1024];
  while (output.size() < kCgiOutputLimit) {
    auto [ec, n] =
        co_await from_cgi.async_read_some(asio::buffer(chunk), asio::as_tuple(asio::use_awaitable));
    if (ec) break;
    output.append(chunk, n);
  }
}

asio::awaitable<void> reap(asio::any_io_executor executor, CgiChild& child) {
  asio::posix::stream_descriptor exit_watch(executor, child.pidfd.release());
  co_await exit_watch.async_wait(asio::posix::stream_descriptor::wait_read,
                                 asio::as_tuple(asio::use_awaitable));
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
}

std::vector<std::pair<std::string, std::string>> cgi_environment(
    const FakeGithub::Impl& impl, const http::request<http::buffer_body>& request,
    const GitTarget& target, std::string_view query, const std::string& user) {
  auto environment = git_environment(impl.home_dir);
  const auto add = [&environment](std::string name, std::string_view value) {
    environment.emplace_back(std::move(name), std::string(value));
  };
  add("GIT_PROJECT_ROOT", impl.repositories_dir.string());
  add("GIT_HTTP_EXPORT_ALL", "1");
  add("GATEWAY_INTERFACE", "CGI/1.1");
  add("SERVER_PROTOCOL", "HTTP/1.1");
  add("REQUEST_METHOD", request.method_string());
  add("PATH_INFO", target.path_info);
  add("QUERY_STRING", query);
  add("REMOTE_USER", user);
  add("REMOTE_ADDR", "127.0.0.1");
  add("CONTENT_TYPE", request[http::field::content_type]);
  if (const auto length = request.find(http::field::content_length); length != request.end())
    add("CONTENT_LENGTH", length->value());
  // http-backend inflates a gzip body itself when told it is one.
  if (const auto encoding = request.find(http::field::content_encoding); encoding != request.end())
    add("HTTP_CONTENT_ENCODING", encoding->value());
  // Protocol v2 is asked for in this header; http-backend takes it from either name.
  if (const auto protocol = request.find("Git-Protocol"); protocol != request.end()) {
    add("HTTP_GIT_PROTOCOL", protocol->value());
    add("GIT_PROTOCOL", protocol->value());
  }
  return environment;
}

std::optional<Refusal> judge(const FakeGithub::Impl& impl, const GitTarget& target,
                             const std::optional<std::pair<std::string, std::string>>& credential) {
  const auto not_found = Refusal{404, "Repository not found.\n"};
  if (!impl.repository_path(target.owner, target.repo)) return not_found;
  const auto grant = credential ? impl.live_grant(credential->second) : std::nullopt;
  if (!grant) return Refusal{401, "Invalid username or token.\n"};
  if (!grant->covers(target.repo)) return not_found;
  if (target.push && !grant->allows("contents", "write"))
    return Refusal{403, "Write access to repository not granted.\n"};
  if (!grant->allows("contents", "read")) return not_found;
  return std::nullopt;
}

template <class Body>
asio::awaitable<bool> answer(beast::tcp_stream& stream, http::response<Body>& response) {
  response.prepare_payload();
  auto [ec, n] = co_await http::async_write(stream, response, asio::as_tuple(asio::use_awaitable));
  co_return !ec;
}

asio::awaitable<void> serve_git(FakeGithub::Impl& impl, beast::tcp_stream stream) {
  beast::flat_buffer buffer;
  while (true) {
    Parser parser;
    parser.body_limit(boost::none);
    auto [read_error, n] = co_await http::async_read_header(stream, buffer, parser,
                                                            asio::as_tuple(asio::use_awaitable));
    if (read_error) break;
    const auto& request = parser.get();
    const std::string target_text(request.target());
    const auto question = target_text.find('?');
    const std::string path = target_text.substr(0, question);
    const std::string query = question == std::string::npos ? "" : target_text.substr(question + 1);

    auto recorded = request_record("git", request);

    const auto target = git_target_of(path, query);
    const auto credential = basic_credential(request[http::field::authorization]);
    const auto refusal = target ? judge(impl, *target, credential)
                                : std::optional<Refusal>(Refusal{404, "Not Found\n"});
    if (refusal) {
      recorded.status = refusal->status;
      impl.record(std::move(recorded));
      http::response<http::string_body> response{static_cast<http::status>(refusal->status),
                                                 request.version()};
      response.set(http::field::server, "GitHub Babel 2.0");
      response.set(http::field::content_type, "text/plain; charset=UTF-8");
      if (refusal->status == 401)
        response.set(http::field::www_authenticate, R"(Basic realm="GitHub")");
      response.body() = refusal->text;
      // The body was not read, so the connection cannot carry another request.
      const bool body_pending = !parser.is_done();
      response.keep_alive(request.keep_alive() && !body_pending);
      const bool answered = co_await answer(stream, response);
      if (!answered || body_pending || !request.keep_alive()) break;
      continue;
    }

    if (beast::iequals(request[http::field::expect], "100-continue")) {
      http::response<http::empty_body> go_on{http::status::continue_, request.version()};
      auto [ec, written] =
          co_await http::async_write(stream, go_on, asio::as_tuple(asio::use_awaitable));
      if (ec) break;
    }

    const auto executor = co_await asio::this_coro::executor;
    auto child = start_cgi(impl.git_backend.string(),
                           cgi_environment(impl, request, *target, query, credential->first));
    CgiSocket to_cgi(executor, asio::local::stream_protocol(), child.stdin_socket.release());
    CgiSocket from_cgi(executor, asio::local::stream_protocol(), child.stdout_socket.release());
    std::string output;
    bool body_complete = false;
    co_await (feed_body(stream, buffer, parser, to_cgi, body_complete) &&
              collect_output(from_cgi, output));
    co_await reap(executor, child);

    auto parsed = parse_cgi_output(output);
    if (!parsed) parsed = CgiAnswer{502, {}, "http-backend gave no CGI answer:\n" + output};
    recorded.status = parsed->status;
    impl.record(std::move(recorded));
    http::response<http::string_body> response{static_cast<http::status>(parsed->status),
                                               request.version()};
    response.set(http::field::server, "GitHub Babel 2.0");
    for (const auto& [name, value] : parsed->headers) response.set(name, value);
    response.body() = std::move(parsed->body);
    const bool keep = request.keep_alive() && body_complete;
    response.keep_alive(keep);
    const bool answered = co_await answer(stream, response);
    if (!answered || !keep) break;
  }
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

asio::awaitable<void> accept_git(FakeGithub::Impl& impl) {
  while (true) {
    auto [ec, socket] =
        co_await impl.git_acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    asio::co_spawn(impl.io, serve_git(impl, beast::tcp_stream(std::move(socket))),
                   [](std::exception_ptr) {});
  }
}

}  // namespace

void start_git_server(FakeGithub::Impl& impl) {
  const auto exec_path = run_git({"--exec-path"}, impl.home_dir);
  if (exec_path.exit_code != 0)
    throw std::runtime_error("fake GitHub: git --exec-path failed: " + exec_path.output);
  impl.git_backend =
      std::filesystem::path(exec_path.output.substr(0, exec_path.output.find('\n'))) /
      "git-http-backend";
  impl.git_port = listen_on_fake_address(impl.git_acceptor);
  asio::co_spawn(impl.io, accept_git(impl), [](std::exception_ptr) {});
}

}  // namespace errand::fakes
