#include <algorithm>

#include "fake_impl.hpp"

namespace errand::fake_discord {

namespace json = boost::json;

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < path.size()) {
    if (path[at] == '/') {
      ++at;
      continue;
    }
    const auto end = path.find('/', at);
    out.push_back(path.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end;
  }
  return out;
}

std::size_t code_points(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string percent_decode(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const auto hex = text.substr(i + 1, 2);
      try {
        out.push_back(static_cast<char>(std::stoi(hex, nullptr, 16)));
        i += 2;
        continue;
      } catch (...) {
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

json::object discord_error(int code, const std::string& message) {
  return {{"message", message}, {"code", code}};
}

json::object form_error(const std::string& field, const std::string& code,
                        const std::string& message) {
  return {
      {"message", "Invalid Form Body"},
      {"code", 50035},
      {"errors",
       {{field, {{"_errors", json::array{json::object{{"code", code}, {"message", message}}}}}}}}};
}

bool parse_multipart(const std::string& content_type, const std::string& body,
                     std::vector<UploadedFile>& parts) {
  const auto at = content_type.find("boundary=");
  if (at == std::string::npos) return false;
  auto boundary = content_type.substr(at + 9);
  if (!boundary.empty() && boundary.front() == '"')
    boundary = boundary.substr(1, boundary.find('"', 1) - 1);
  const auto delimiter = "--" + boundary;
  auto pos = body.find(delimiter);
  if (pos == std::string::npos) return false;
  while (true) {
    pos += delimiter.size();
    if (body.compare(pos, 2, "--") == 0) return true;
    if (body.compare(pos, 2, "\r\n") != 0) return false;
    pos += 2;
    const auto headers_end = body.find("\r\n\r\n", pos);
    if (headers_end == std::string::npos) return false;
    const auto headers = body.substr(pos, headers_end - pos);
    const auto content_start = headers_end + 4;
    const auto next = body.find("\r\n" + delimiter, content_start);
    if (next == std::string::npos) return false;
    UploadedFile part;
    part.bytes = body.substr(content_start, next - content_start);
    auto value_of = [&](const std::string& key) {
      const auto k = headers.find(key + "=\"");
      if (k == std::string::npos) return std::string();
      const auto start = k + key.size() + 2;
      return headers.substr(start, headers.find('"', start) - start);
    };
    part.field = value_of("name");
    part.filename = value_of("filename");
    std::string lower = headers;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (const auto ct = lower.find("content-type:"); ct != std::string::npos) {
      auto start = ct + 13;
      while (start < headers.size() && headers[start] == ' ') ++start;
      part.content_type = headers.substr(start, headers.find("\r\n", start) - start);
    }
    parts.push_back(std::move(part));
    pos = next + 2;
  }
}

}  // namespace errand::fake_discord
