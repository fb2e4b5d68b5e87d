// Serving the built front-end from a real folder: content types, the page's own routes falling
// back to index.html, and crafted paths (encoded "..", a symbolic link out) refused.

#include "core/web/http/static_files.hpp"
#include "tests/support/temp_dir.hpp"

#include <boost/json/parse.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <filesystem>

using Catch::Matchers::ContainsSubstring;
using errand::test::TempDir;
using errand::test::write_file;
using namespace errand::web;
namespace http = boost::beast::http;

namespace {

struct FrontEnd {
  FrontEnd() {
    write_file(dir() / "index.html", "<!doctype html><title>errand</title>");
    write_file(dir() / "assets" / "app-1a2b.js", "console.log(1)");
    write_file(dir() / "assets" / "app-1a2b.css", "body{}");
    write_file(dir() / "assets" / "app-1a2b.js.map", "{}");
    write_file(dir() / "logo.svg", "<svg/>");
    write_file(dir() / "icon.png", "\x89PNG");
    write_file(dir() / "favicon.ico", "ico");
    write_file(dir() / "manifest.json", "{}");
    write_file(dir() / "font.woff2", "wOF2");
    write_file(dir() / "notes.txt", "plain");
    write_file(dir() / "about.html", "<p>about</p>");
    write_file(root.path() / "outside.txt", "not for the page");
    std::filesystem::create_symlink("/etc/passwd", dir() / "passwd.txt");
    std::filesystem::create_symlink(root.path(), dir() / "up");
  }
  std::filesystem::path dir() const { return root.path() / "front-end"; }
  TempDir root;
};

std::string static_error_of(const HttpResponse& response) {
  CHECK(response.content_type == "application/json");
  return std::string(boost::json::parse(response.body).at("error").as_string());
}

bool has_header(const HttpResponse& response, std::string_view name, std::string_view value) {
  return std::any_of(response.headers.begin(), response.headers.end(), [&](const auto& header) {
    return header.first == name && header.second == value;
  });
}

}  // namespace

TEST_CASE("each kind of file the front-end is built into gets its content type") {
  const FrontEnd front_end;
  const auto [target, type, body] = GENERATE(table<std::string, std::string, std::string>({
      {"/about.html", "text/html; charset=utf-8", "<p>about</p>"},
      {"/assets/app-1a2b.js", "text/javascript; charset=utf-8", "console.log(1)"},
      {"/assets/app-1a2b.css", "text/css; charset=utf-8", "body{}"},
      {"/assets/app-1a2b.js.map", "application/json", "{}"},
      {"/logo.svg", "image/svg+xml", "<svg/>"},
      {"/icon.png", "image/png", "\x89PNG"},
      {"/favicon.ico", "image/x-icon", "ico"},
      {"/manifest.json", "application/json", "{}"},
      {"/font.woff2", "font/woff2", "wOF2"},
      {"/notes.txt", "application/octet-stream", "plain"},
      {"/assets/app%2D1a2b.js?v=3", "text/javascript; charset=utf-8", "console.log(1)"},
  }));
  CAPTURE(target);
  const auto response = front_end_file(front_end.dir(), target);
  CHECK(response.status == http::status::ok);
  CHECK(response.content_type == type);
  CHECK(response.body == body);
  CHECK_FALSE(has_header(response, "Cache-Control", "no-cache"));
}

TEST_CASE("the page's own routes get index.html, which is never cached") {
  const FrontEnd front_end;
  const auto target = GENERATE("/", "/sessions", "/sessions/1234567890", "/sessions/abc/files/",
                               "/new?project=demo", "/index.html");
  CAPTURE(target);
  const auto response = front_end_file(front_end.dir(), target);
  CHECK(response.status == http::status::ok);
  CHECK(response.content_type == "text/html; charset=utf-8");
  CHECK(response.body == "<!doctype html><title>errand</title>");
  CHECK(has_header(response, "Cache-Control", "no-cache"));
}

TEST_CASE("a missing file with a dot in its name is 404, not the page") {
  const FrontEnd front_end;
  const auto response = front_end_file(front_end.dir(), "/assets/gone.js");
  CHECK(response.status == http::status::not_found);
  CHECK_THAT(static_error_of(response), ContainsSubstring("there is no /assets/gone.js here"));
}

TEST_CASE("with no front-end folder or no index.html, the page's routes are 404 saying so") {
  const TempDir empty;
  const auto where = GENERATE(as<std::string>{}, "", "absent");
  CAPTURE(where);
  const auto response = front_end_file(empty.path() / where, "/sessions");
  CHECK(response.status == http::status::not_found);
  CHECK_THAT(static_error_of(response), ContainsSubstring("front-end is not installed"));
}

TEST_CASE("climbing out with dot-dot is refused, percent-encoded or not, and nothing is read") {
  const FrontEnd front_end;
  const auto target = GENERATE("/../outside.txt", "/%2e%2e/outside.txt", "/%2E%2E/outside.txt",
                               "/assets/..%2f..%2foutside.txt", "/assets/%2e%2e/%2e%2e/outside.txt",
                               "/.%2e/outside.txt");
  CAPTURE(target);
  const auto response = front_end_file(front_end.dir(), target);
  CHECK(response.status == http::status::forbidden);
  CHECK_THAT(static_error_of(response), ContainsSubstring("climbs out with \"..\""));
  CHECK(response.body.find("not for the page") == std::string::npos);
}

TEST_CASE("a symbolic link is not followed, to /etc/passwd or back out of the folder") {
  const FrontEnd front_end;
  const auto target = GENERATE("/passwd.txt", "/up/outside.txt", "/up/front-end/index.html");
  CAPTURE(target);
  const auto response = front_end_file(front_end.dir(), target);
  CHECK(response.status == http::status::forbidden);
  CHECK_THAT(static_error_of(response), ContainsSubstring("without following a symbolic link"));
  CHECK(response.body.find("root:") == std::string::npos);
  CHECK(response.body.find("not for the page") == std::string::npos);
}

TEST_CASE("a malformed percent escape or an encoded NUL is a bad request") {
  const FrontEnd front_end;
  const auto target = GENERATE("/index%zz.html", "/index%2.html", "/index.html%00.js");
  CAPTURE(target);
  const auto response = front_end_file(front_end.dir(), target);
  CHECK(response.status == http::status::bad_request);
  CHECK_FALSE(static_error_of(response).empty());
}
