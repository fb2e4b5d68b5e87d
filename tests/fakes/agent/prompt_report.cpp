#include "tests/fakes/agent/prompt_report.hpp"

#include "tests/fakes/agent/http_wire.hpp"

#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fake_agent {

namespace json = boost::json;

namespace {

std::string field(const json::object& block, const char* name) {
  const auto* value = block.if_contains(name);
  if (value == nullptr) return "-";
  if (value->is_string()) return std::string(value->as_string());
  return json::serialize(*value);
}

}  // namespace

std::string describe_blocks(const json::array& prompt) {
  std::string out;
  for (const auto& value : prompt) {
    if (!value.is_object()) continue;
    const auto& block = value.as_object();
    const std::string type = field(block, "type");
    if (type == "text")
      out += "text: " + field(block, "text") + "\n";
    else if (type == "image")
      out += "image " + field(block, "mimeType") + "\n";
    else if (type == "resource_link")
      out += "resource_link " + field(block, "uri") + " name=" + field(block, "name") +
             " mimeType=" + field(block, "mimeType") + " size=" + field(block, "size") + "\n";
    else
      out += type + "\n";
  }
  return out;
}

std::string read_links(const json::array& prompt) {
  std::string out;
  constexpr std::string_view scheme = "file://";
  for (const auto& value : prompt) {
    if (!value.is_object()) continue;
    const auto& block = value.as_object();
    if (field(block, "type") != "resource_link") continue;
    const std::string uri = field(block, "uri");
    if (uri.rfind(scheme, 0) != 0) {
      out += uri + ": unreadable: not a file: URI\n";
      continue;
    }
    const std::string path = percent_decode(std::string_view(uri).substr(scheme.size()));
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      out += uri + ": unreadable: " + std::strerror(errno) + "\n";
      continue;
    }
    std::ostringstream content;
    content << in.rdbuf();
    out += uri + ":\n" + content.str() + "\n";
  }
  return out;
}

}  // namespace fake_agent
