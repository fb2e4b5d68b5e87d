#include "core/plugins/list_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace errand::plugins {
namespace {

constexpr std::size_t kColumns = 6;
using Row = std::array<std::string, kColumns>;

std::string or_dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

std::string abi_of(const PluginRecord& record) {
  if (record.abi_major < 0 || record.abi_minor < 0) return {};
  return fmt::format("{}.{}", record.abi_major, record.abi_minor);
}

// The refusal sentence names its file, which the row already shows in PATH; the table drops
// that lead-in so the reason reads "refused: its abi_major is 2 ..." rather than repeating it.
std::string status_of(const PluginRecord& record) {
  if (record.loaded) return "loaded";
  std::string_view reason = record.refusal;
  const std::string lead_in = "refused " + record.path.string() + ": ";
  if (reason.starts_with(lead_in)) reason.remove_prefix(lead_in.size());
  return "refused: " + std::string(reason);
}

}  // namespace

std::string render_plugin_table(const std::vector<PluginRecord>& records) {
  std::vector<Row> rows;
  // STATUS goes last: a refusal is a sentence, and the columns before it stay narrow.
  rows.push_back({"NAME", "KIND", "VERSION", "ABI", "PATH", "STATUS"});
  for (const auto& record : records) {
    rows.push_back({or_dash(record.name), or_dash(record.kind), or_dash(record.version),
                    or_dash(abi_of(record)), record.path.string(), status_of(record)});
  }
  std::array<std::size_t, kColumns> widths{};
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < kColumns; ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < kColumns; ++c) {
      line += row[c];
      // The last column is not padded, so no line ends in spaces.
      if (c + 1 < kColumns) line.append(widths[c] - row[c].size() + 2, ' ');
    }
    out += line;
    out += '\n';
  }
  return out;
}

boost::json::array render_plugin_json(const std::vector<PluginRecord>& records) {
  boost::json::array out;
  for (const auto& record : records) {
    boost::json::object row;
    row["name"] = record.name;
    row["kind"] = record.kind;
    row["version"] = record.version;
    const auto abi = abi_of(record);
    if (abi.empty()) {
      row["abi"] = nullptr;
    } else {
      row["abi"] = abi;
    }
    row["path"] = record.path.string();
    row["status"] = record.loaded ? "loaded" : "refused";
    row["reason"] = record.refusal;
    // What the plugin is handed of the configuration, so an operator can see that a backend
    // never holds the chat token.
    boost::json::array keys;
    for (const auto& key : record.config_keys.all()) keys.emplace_back(key);
    row["configuration_keys"] = std::move(keys);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace errand::plugins
