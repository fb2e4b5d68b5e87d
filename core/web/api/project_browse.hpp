#pragma once

// The project browser's reads: a folder, a file shown on the page, a file downloaded. They go
// through the same beneath-only, no-symlink helpers and the same size limits as !ls, !cat and
// !file (core/chat/project_files.hpp), so the page can reach nothing the thread cannot.

#include <boost/beast/http/status.hpp>
#include <boost/json/object.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>

namespace errand::web {

// The path=P parameter of a request target ("/api/sessions/t/tree?path=src%2Fmain.cpp"),
// percent-decoded with '+' as a space, as a browser's URLSearchParams writes it. Absent or empty
// is the project's top folder, "."; given twice, it is refused.
sdk::Result<std::string> path_parameter(std::string_view target);

// {"path": ".", "entries": [{"name", "type", "size"}], "total": n}; names scrubbed.
sdk::Result<boost::json::object> project_tree(const std::filesystem::path& project,
                                              std::string_view requested,
                                              const sdk::Secrets& secrets);

// A file the page does not show, a binary one or one over the inline limit: the sentence, and
// where the page can download it instead.
struct DownloadInstead {
  static constexpr auto kStatus = boost::beast::http::status::unsupported_media_type;
  std::string sentence;
  std::string download;  // "/api/sessions/<thread>/download?path=<P>"
};

// {"error": sentence, "download": link}, sent with DownloadInstead::kStatus.
boost::json::object to_json(const DownloadInstead& answer);

// Either {"path", "name", "text"} (text scrubbed) or the download offered instead.
using FileAnswer = std::variant<boost::json::object, DownloadInstead>;

sdk::Result<FileAnswer> project_file(const std::filesystem::path& project,
                                     std::string_view thread_id, std::string_view requested,
                                     const sdk::Secrets& secrets);

struct Download {
  std::string name;
  std::string bytes;
};

// Any regular file up to the upload limit. One holding a secret is refused whole, as !file
// refuses it: a download is never altered to hide one.
sdk::Result<Download> project_download(const std::filesystem::path& project,
                                       std::string_view requested, const sdk::Secrets& secrets);

// The Content-Disposition of a download: attachment with the name as a quoted ASCII fallback
// (quotes, backslashes, controls and non-ASCII bytes as '_', so no name can break the header)
// and, when that changed anything, the exact name as RFC 5987's filename*.
std::string content_disposition(std::string_view name);

// "/api/sessions/<thread>/download?path=<P, percent-encoded>".
std::string download_link(std::string_view thread_id, std::string_view path);

}  // namespace errand::web
