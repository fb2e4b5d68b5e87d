#include "plugins/chat-discord/message_pieces.hpp"

#include <algorithm>

#include "plugins/chat-discord/multipart.hpp"
#include "plugins/chat-discord/text_split.hpp"

namespace errand::discord {

namespace asio = boost::asio;
namespace json = boost::json;
namespace http = boost::beast::http;
using Kind = sdk::Error::Kind;

namespace {

constexpr std::size_t kMaxFilesPerMessage = 10;

}  // namespace

json::object allowed_mentions(const std::vector<std::string>& users) {
  json::object mentions{{"parse", json::array{}}};
  // Discord refuses a whole message whose allowed_mentions names something that is not a
  // snowflake; the core may address accounts of its own (the web interface's), which no one
  // here can be pinged as.
  json::array ids;
  for (const auto& id : users)
    if (!id.empty() &&
        std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
      ids.push_back(json::value(id));
  if (!ids.empty()) mentions["users"] = std::move(ids);
  return mentions;
}

sdk::Result<std::vector<MessagePiece>> message_pieces(const sdk::OutMessage& message,
                                                      const sdk::Secrets& secrets,
                                                      const PieceLimits& piece_limits) {
  const auto& limits = piece_limits.reported;
  if (message.text.empty() && message.files.empty())
    return sdk::make_error("nothing to post: the message has neither text nor files",
                           Kind::refused);
  for (const auto& f : message.files) {
    if (f.bytes.size() > limits.max_upload_bytes)
      return sdk::make_error("the file \"" + f.filename + "\" is " +
                                 std::to_string(f.bytes.size()) + " bytes, over the " +
                                 std::to_string(limits.max_upload_bytes) +
                                 "-byte upload limit; it was not posted",
                             Kind::limit);
    if (secrets.contains_secret(f.bytes))
      return sdk::make_error(
          "the file \"" + f.filename + "\" contains a configured secret, so it was not uploaded",
          Kind::refused);
  }
  const auto text = secrets.scrub(message.text);
  auto parts = split_message(text, limits.max_message_chars);
  std::vector<sdk::OutFile> files = message.files;
  if (message.long_text_as_file && parts.size() > piece_limits.max_messages_before_file) {
    if (text.size() > limits.max_upload_bytes)
      return sdk::make_error("the text is " + std::to_string(text.size()) +
                                 " bytes, too long even as a file (limit " +
                                 std::to_string(limits.max_upload_bytes) + " bytes)",
                             Kind::limit);
    files.insert(files.begin(), sdk::OutFile{"message.txt", "text/plain; charset=utf-8", text});
    parts = {summarize_for_attachment(text)};
  }
  std::vector<MessagePiece> pieces;
  for (auto& p : parts) pieces.push_back({std::move(p), {}});
  std::size_t batch_bytes = 0;
  for (auto& f : files) {
    const bool full = pieces.empty() || pieces.back().files.size() >= kMaxFilesPerMessage ||
                      batch_bytes + f.bytes.size() > limits.max_upload_bytes;
    if (full) {
      pieces.push_back({"", {}});
      batch_bytes = 0;
    }
    batch_bytes += f.bytes.size();
    pieces.back().files.push_back(std::move(f));
  }
  return pieces;
}

asio::awaitable<sdk::Result<json::value>> send_piece(RestClient& rest, http::verb method,
                                                     std::string path, json::object payload,
                                                     const std::vector<sdk::OutFile>& files,
                                                     RestClient::Auth auth) {
  if (files.empty())
    co_return co_await rest.call(method, std::move(path), json::value(std::move(payload)), auth);
  co_return co_await rest.call_multipart(
      method, std::move(path), build_multipart(json::value(std::move(payload)), files), auth);
}

}  // namespace errand::discord
