#include "core/web/http/static_files.hpp"

#include "common/ascii_case.hpp"
#include "core/chat/project_files.hpp"

#include <fmt/format.h>
#include <boost/url/parse.hpp>

#include <array>
#include <string>
#include <utility>

namespace errand::web {
namespace http = boost::beast::http;

namespace {

constexpr std::string_view kIndex = "index.html";

struct ContentType {
  std::string_view extension;
  std::string_view type;
};

constexpr std::array kContentTypes = {
    ContentType{".html", "text/html; charset=utf-8"},
    ContentType{".js", "text/javascript; charset=utf-8"},
    ContentType{".css", "text/css; charset=utf-8"},
    ContentType{".svg", "image/svg+xml"},
    ContentType{".png", "image/png"},
    ContentType{".ico", "image/x-icon"},
    ContentType{".json", "application/json"},
    ContentType{".woff2", "font/woff2"},
    ContentType{".map", "application/json"},
};

std::string content_type_of(std::string_view name) {
  const auto dot = name.rfind('.');
  if (dot != std::string_view::npos) {
    const auto extension = common::ascii_lower(name.substr(dot));
    for (const auto& known : kContentTypes) {
      if (known.extension == extension) return std::string(known.type);
    }
  }
  return "application/octet-stream";
}

std::string_view last_segment(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

HttpResponse answer_with(const chat::ProjectFile& file) {
  HttpResponse response;
  response.content_type = content_type_of(file.name);
  response.body = file.bytes;
  // The page is read afresh on every visit so a new errand's front-end replaces the old one;
  // the files it loads carry their content's hash in their names.
  if (file.name == kIndex) response.headers.emplace_back("Cache-Control", "no-cache");
  return response;
}

}  // namespace

HttpResponse front_end_file(const std::filesystem::path& front_end, std::string_view target) {
  const auto url = boost::urls::parse_origin_form(target);
  if (!url) {
    return json_error(http::status::bad_request,
                      fmt::format("the path {} is not a valid URL path (a stray % or a character "
                                  "that must be percent-encoded)",
                                  target));
  }
  const std::string path = url->path();
  if (path.find('\0') != std::string::npos)
    return json_error(http::status::bad_request, "a path with a NUL byte in it names no file");
  const auto first = path.find_first_not_of('/');
  std::string relative = first == std::string::npos ? std::string() : path.substr(first);
  for (std::string_view rest = relative; !rest.empty();) {
    const auto slash = rest.find('/');
    if (rest.substr(0, slash) == "..") {
      return json_error(
          http::status::forbidden,
          fmt::format("the path {} climbs out with \"..\"; only the front-end's own files are "
                      "served",
                      target));
    }
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  }
  const bool page_route = last_segment(relative).find('.') == std::string_view::npos;
  if (page_route) relative = kIndex;
  auto file = chat::read_project_file_for_upload(front_end, relative);
  if (file) return answer_with(*file);
  const auto missing = file.error().kind == sdk::Error::Kind::not_found;
  if ((missing && page_route) || file.error().kind == sdk::Error::Kind::unavailable) {
    return json_error(http::status::not_found,
                      "the web interface's front-end is not installed: its folder is missing or "
                      "has no index.html; reinstall errand, or build the front-end into that "
                      "folder");
  }
  if (missing) {
    return json_error(http::status::not_found, fmt::format("there is no {} here", path));
  }
  if (file.error().kind == sdk::Error::Kind::refused) {
    return json_error(http::status::forbidden,
                      fmt::format("{} is not served: only regular files inside the front-end's "
                                  "folder are, reached without following a symbolic link",
                                  path));
  }
  return json_error(http::status::internal_server_error,
                    fmt::format("{} could not be read: {}", path, file.error().message));
}

}  // namespace errand::web
