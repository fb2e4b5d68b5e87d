#include "plugins/chat-discord/multipart.hpp"

#include <boost/json/serialize.hpp>
#include <random>

namespace errand::discord {

namespace {

std::string random_boundary() {
  static thread_local std::mt19937_64 engine{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string b = "errand-";
  for (int i = 0; i < 32; ++i) b.push_back(kHex[engine() % 16]);
  return b;
}

// A filename inside a quoted header parameter: quotes, backslashes and line breaks cannot
// appear there, so they become underscores.
std::string header_safe(std::string_view name) {
  std::string out;
  for (const char c : name)
    out.push_back(c == '"' || c == '\\' || c == '\r' || c == '\n' ? '_' : c);
  return out.empty() ? std::string("file") : out;
}

}  // namespace

MultipartBody build_multipart(boost::json::value payload, const std::vector<sdk::OutFile>& files) {
  boost::json::array attachments;
  for (std::size_t i = 0; i < files.size(); ++i)
    attachments.push_back(boost::json::object{{"id", i}, {"filename", files[i].filename}});
  if (!files.empty()) payload.as_object()["attachments"] = std::move(attachments);
  const auto json_text = boost::json::serialize(payload);

  std::string boundary;
  bool clashes = true;
  while (clashes) {
    boundary = random_boundary();
    clashes = json_text.find(boundary) != std::string::npos;
    for (const auto& f : files) clashes = clashes || f.bytes.find(boundary) != std::string::npos;
  }

  MultipartBody out;
  out.content_type = "multipart/form-data; boundary=" + boundary;
  auto& b = out.body;
  b += "--" + boundary + "\r\n";
  b += "Content-Disposition: form-data; name=\"payload_json\"\r\n";
  b += "Content-Type: application/json\r\n\r\n";
  b += json_text;
  b += "\r\n";
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    b += "--" + boundary + "\r\n";
    b += "Content-Disposition: form-data; name=\"files[" + std::to_string(i) + "]\"; filename=\"" +
         header_safe(f.filename) + "\"\r\n";
    b += "Content-Type: " +
         (f.content_type.empty() ? std::string("application/octet-stream")
                                 : header_safe(f.content_type)) +
         "\r\n\r\n";
    b += f.bytes;
    b += "\r\n";
  }
  b += "--" + boundary + "--\r\n";
  return out;
}

}  // namespace errand::discord
