#include "core/web/api/project_browse.hpp"

#include "common/human_size.hpp"

#include "core/chat/project_files.hpp"
#include "core/chat/render/output_format.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <optional>

namespace errand::web {

namespace {

std::string_view type_name(chat::ProjectEntry::Type type) {
  switch (type) {
    case chat::ProjectEntry::Type::file: return "file";
    case chat::ProjectEntry::Type::directory: return "directory";
    case chat::ProjectEntry::Type::symlink: return "symlink";
    case chat::ProjectEntry::Type::other: return "other";
  }
  return "other";
}

DownloadInstead download_instead(std::string_view thread_id, const std::string& relative,
                                 std::string sentence, const sdk::Secrets& secrets) {
  return DownloadInstead{secrets.scrub(sentence),
                         download_link(thread_id, secrets.scrub(relative))};
}

}  // namespace

sdk::Result<std::string> path_parameter(std::string_view target) {
  const auto url = boost::urls::parse_origin_form(target);
  if (!url) {
    return sdk::make_error("the request's address is not a valid path and query",
                           sdk::Error::Kind::refused);
  }
  std::optional<std::string> path;
  for (const auto& param : url->params()) {
    if (param.key != "path") continue;
    if (path) {
      return sdk::make_error("path= is given twice; give the one path to read",
                             sdk::Error::Kind::refused);
    }
    path = param.value;
  }
  if (!path || path->empty()) return std::string(".");
  return *path;
}

sdk::Result<boost::json::object> project_tree(const std::filesystem::path& project,
                                              std::string_view requested,
                                              const sdk::Secrets& secrets) {
  auto listing = chat::list_project_directory(project, requested);
  if (!listing) return listing.error();
  boost::json::array entries;
  for (const auto& entry : listing->entries) {
    entries.push_back(boost::json::object{{"name", secrets.scrub(entry.name)},
                                          {"type", type_name(entry.type)},
                                          {"size", entry.size}});
  }
  return boost::json::object{{"path", secrets.scrub(listing->path)},
                             {"entries", std::move(entries)},
                             {"total", listing->total}};
}

boost::json::object to_json(const DownloadInstead& answer) {
  return boost::json::object{{"error", answer.sentence}, {"download", answer.download}};
}

sdk::Result<FileAnswer> project_file(const std::filesystem::path& project,
                                     std::string_view thread_id, std::string_view requested,
                                     const sdk::Secrets& secrets) {
  auto shown = chat::read_project_file_inline(project, requested);
  if (shown) {
    return FileAnswer(boost::json::object{{"path", secrets.scrub(shown->path)},
                                          {"name", secrets.scrub(shown->name)},
                                          {"text", secrets.scrub(shown->bytes)}});
  }
  const auto kind = shown.error().kind;
  if (kind == sdk::Error::Kind::limit) {
    // The helper has opened it beneath the project and found a regular file, only too long to
    // show; whether it fits a download is the download's to say.
    const auto relative = chat::relative_project_path(requested);
    if (!relative) return relative.error();
    return FileAnswer(
        download_instead(thread_id, *relative,
                         fmt::format("{} is larger than the {} the page shows; download it instead",
                                     chat::inline_code(*relative, 300),
                                     common::human_size(chat::kMaxInlineFileBytes)),
                         secrets));
  }
  if (kind != sdk::Error::Kind::refused) return shown.error();
  // The inline read refuses what the upload read refuses (a link, a folder, a path outside) and,
  // besides, a binary file. So a file the upload read takes is one that is only binary.
  auto whole = chat::read_project_file_for_upload(project, requested);
  if (!whole) return shown.error();
  return FileAnswer(download_instead(
      thread_id, whole->path,
      fmt::format("{} looks binary, so the page does not show it; download it instead",
                  chat::inline_code(whole->path, 300)),
      secrets));
}

sdk::Result<Download> project_download(const std::filesystem::path& project,
                                       std::string_view requested, const sdk::Secrets& secrets) {
  auto file = chat::read_project_file_for_upload(project, requested);
  if (!file) return file.error();
  if (secrets.contains_secret(file->bytes) || secrets.contains_secret(file->path)) {
    return sdk::make_error(
        secrets.scrub(
            fmt::format("{} is not sent: it holds a configured secret, a session credential or "
                        "the house rules (agent.rulesPath), and downloads are never altered to "
                        "hide them",
                        chat::inline_code(file->path, 300))),
        sdk::Error::Kind::refused);
  }
  return Download{std::move(file->name), std::move(file->bytes)};
}

std::string content_disposition(std::string_view name) {
  std::string fallback;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\';
    fallback.push_back(plain ? c : '_');
  }
  std::string header = fmt::format("attachment; filename=\"{}\"", fallback);
  if (fallback != name) {
    header += "; filename*=UTF-8''" + boost::urls::encode(name, boost::urls::unreserved_chars);
  }
  return header;
}

std::string download_link(std::string_view thread_id, std::string_view path) {
  // Only unreserved characters and '/' are left as they are: a '+' has to be %2B, or a query
  // reader would take it for a space.
  static constexpr auto kPlain = boost::urls::unreserved_chars + '/';
  return fmt::format("/api/sessions/{}/download?path={}",
                     boost::urls::encode(thread_id, boost::urls::unreserved_chars),
                     boost::urls::encode(path, kPlain));
}

}  // namespace errand::web
