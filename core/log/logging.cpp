#include "core/log/logging.hpp"

#include <spdlog/details/log_msg.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <cstdio>
#include <errand/sdk/host_services.hpp>
#include <mutex>

namespace errand::log {

namespace {

class ScrubbingStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ScrubbingStderrSink(const sdk::Secrets& secrets) : secrets_(secrets) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string_view text(msg.payload.data(), msg.payload.size());
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    const std::string payload = escape_controls(secrets_.scrub(text));
    spdlog::details::log_msg scrubbed(msg.time, msg.source, msg.logger_name, msg.level, payload);
    spdlog::memory_buf_t formatted;
    formatter_->format(scrubbed, formatted);
    std::fwrite(formatted.data(), 1, formatted.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }

 private:
  const sdk::Secrets& secrets_;
};

}  // namespace

std::string escape_controls(std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      // A multi-line message stays readable, and its continuation lines are indented so none
      // of them can pass for an entry of its own.
      out += "\n    ";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

Logging::Logging(const sdk::Secrets& secrets)
    : sink_(std::make_shared<ScrubbingStderrSink>(secrets)) {
  sink_->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%-5l%$ [%n] %v");
}

std::shared_ptr<spdlog::logger> Logging::logger(const std::string& name) {
  auto logger = std::make_shared<spdlog::logger>(name, sink_);
  logger->set_level(level_);
  logger->flush_on(spdlog::level::trace);
  issued_.push_back(logger);
  return logger;
}

bool Logging::set_level(std::string_view level) {
  const auto parsed = spdlog::level::from_str(std::string(level));
  if (parsed == spdlog::level::off && level != "off") return false;
  level_ = parsed;
  for (const auto& weak : issued_) {
    if (const auto logger = weak.lock()) logger->set_level(level_);
  }
  return true;
}

}  // namespace errand::log
