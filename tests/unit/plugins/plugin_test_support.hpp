#pragma once

#include <errand/sdk/plugin_abi.h>

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::plugins::testing {

// Where tests/fixtures/plugins builds its deliberately broken plugins.
// How the loader words a plugin built against an SDK newer than this errand's, by its minor.
inline std::string newer_sdk_refusal(int plugin_minor) {
  return "built against a newer SDK (" + std::to_string(ERRAND_ABI_MAJOR) + "." +
         std::to_string(plugin_minor) + ") than this errand (" + std::to_string(ERRAND_ABI_MAJOR) +
         "." + std::to_string(ERRAND_ABI_MINOR) + "); upgrade errand or rebuild the plugin";
}

// How the loader words a plugin built one ABI major ahead of this errand (fixture-wrong-major).
inline std::string wrong_major_refusal() {
  return "its abi_major is " + std::to_string(ERRAND_ABI_MAJOR + 1) +
         " but this errand speaks plugin ABI " + std::to_string(ERRAND_ABI_MAJOR) + ".x";
}

inline std::filesystem::path fixture_dir() {
  return errand::test::build_path(ERRAND_FIXTURE_PLUGIN_DIR);
}

using errand::test::TempDir;

// A logger that writes every level into a string the test can read.
class CapturedLog {
 public:
  CapturedLog()
      : sink_(std::make_shared<spdlog::sinks::ostream_sink_st>(stream_)),
        logger_(std::make_shared<spdlog::logger>("plugins-test", sink_)) {
    logger_->set_level(spdlog::level::trace);
    logger_->set_pattern("%l %v");
  }
  spdlog::logger& logger() { return *logger_; }
  std::shared_ptr<spdlog::logger> shared() { return logger_; }
  std::string text() const { return stream_.str(); }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::sinks::ostream_sink_st> sink_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace errand::plugins::testing
