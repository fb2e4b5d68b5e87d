#include "core/cli/remote_job_listing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <ctime>
#include <vector>

namespace errand::cli {

namespace {

namespace json = boost::json;

std::string local_time_of_millis(std::int64_t millis) {
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm parts{};
  if (!::localtime_r(&seconds, &parts)) return "-";
  char text[32];
  if (std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &parts) == 0) return "-";
  return text;
}

std::string text_of(const json::value& value) {
  if (const auto* text = value.if_string()) return std::string(*text);
  if (const auto* words = value.if_array()) {
    std::string out;
    for (const auto& word : *words) {
      if (!out.empty()) out += ' ';
      out += text_of(word);
    }
    return out;
  }
  return json::serialize(value);
}

std::string started_column(const json::object& job) {
  const auto* at = job.if_contains("started_at_ms");
  if (!at || !at->is_int64()) return "-";
  return local_time_of_millis(at->as_int64());
}

std::string exit_column(const json::object& job) {
  if (const auto* signal = job.if_contains("signal")) return "signal " + text_of(*signal);
  if (const auto* code = job.if_contains("exit")) return text_of(*code);
  return "-";
}

std::string field_text(const json::object& job, std::string_view key) {
  const auto* value = job.if_contains(key);
  return value ? text_of(*value) : "-";
}

}  // namespace

std::string job_table(const json::array& jobs) {
  std::vector<std::array<std::string, 5>> rows;
  rows.push_back({"ID", "STATE", "STARTED", "EXIT", "COMMAND"});
  for (const auto& each : jobs) {
    const auto* job = each.if_object();
    if (!job) continue;
    rows.push_back({field_text(*job, "id"), field_text(*job, "state"), started_column(*job),
                    exit_column(*job), field_text(*job, "argv")});
  }
  std::array<std::size_t, 4> widths{};
  for (const auto& row : rows)
    for (std::size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < widths.size(); ++i)
      out += fmt::format("{:<{}}  ", row[i], widths[i]);
    out += row[4];
    out += '\n';
  }
  return out;
}

std::string job_receipt_lines(const json::object& job) {
  std::string out;
  for (const auto& [key, value] : job) {
    std::string text = text_of(value);
    if (key.ends_with("_at_ms") && value.is_int64())
      text = local_time_of_millis(value.as_int64()) + " (" + text + ")";
    out += fmt::format("{}: {}\n", std::string_view(key), text);
  }
  return out;
}

}  // namespace errand::cli
