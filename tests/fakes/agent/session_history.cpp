#include "tests/fakes/agent/session_history.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstdlib>
#include <fstream>

namespace fake_agent {

namespace json = boost::json;

bool is_valid_session_id(const std::string& id) {
  if (id.empty() || id.size() > 100) return false;
  for (const char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

std::filesystem::path history_path(const std::string& session_id) {
  const char* dir = std::getenv("FAKE_AGENT_STATE_DIR");
  std::filesystem::path root = dir != nullptr && *dir != '\0' ? dir : "/state";
  return root / "fake-acp-agent" / (session_id + ".jsonl");
}

void append_history(const std::filesystem::path& file, const json::object& update) {
  if (file.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::app);
  out << json::serialize(update) << '\n';
}

std::optional<std::vector<json::object>> read_history(const std::filesystem::path& file,
                                                      std::optional<std::uintmax_t> bytes) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::vector<json::object> updates;
  std::string line;
  std::uintmax_t read = 0;
  while (std::getline(in, line)) {
    read += line.size() + 1;
    if (bytes && read > *bytes) break;
    boost::system::error_code ec;
    auto parsed = json::parse(line, ec);
    if (!ec && parsed.is_object()) updates.push_back(std::move(parsed.as_object()));
  }
  return updates;
}

std::uintmax_t history_size(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = file.empty() ? 0 : std::filesystem::file_size(file, ec);
  return ec ? 0 : size;
}

std::vector<std::string> prompt_texts(const std::vector<json::object>& updates) {
  std::vector<std::string> texts;
  for (const auto& update : updates) {
    const auto* kind = update.if_contains("sessionUpdate");
    const auto* content = update.if_contains("content");
    if (kind == nullptr || *kind != "user_message_chunk" || content == nullptr ||
        !content->is_object())
      continue;
    if (const auto* text = content->as_object().if_contains("text"); text && text->is_string())
      texts.emplace_back(text->as_string());
  }
  return texts;
}

}  // namespace fake_agent
