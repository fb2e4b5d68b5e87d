// The log sink is the door to the daemon's log (stderr): whatever a logger is handed, a secret
// in it is scrubbed there, once, and nothing logged needs scrubbing by whoever logged it.

#include "core/log/logging.hpp"
#include "tests/support/scrub_witness.hpp"
#include "tests/support/temp_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

using Catch::Matchers::ContainsSubstring;

namespace {

// What body writes to stderr, caught in a file while it runs.
std::string stderr_of(const std::function<void()>& body) {
  errand::test::TempDir dir;
  const auto file = dir / "stderr";
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  const int out = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (saved < 0 || out < 0 || ::dup2(out, STDERR_FILENO) < 0)
    throw std::runtime_error("stderr could not be redirected");
  ::close(out);
  body();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a secret handed to any logger is scrubbed at the sink, once") {
  const std::string secret = "log-door-secret-value";
  const std::string stand_in = "errand-session-" + std::string(64, 'e');
  errand::test::ScrubWitness secrets({secret});
  secrets.add(stand_in);
  errand::log::Logging logging(secrets);
  const auto written = stderr_of([&] {
    auto session = logging.logger("session");
    auto plugin = logging.logger("broker");
    session->warn("the agent printed {}", secret);
    plugin->error("stand-in {} refused", stand_in);
    session->flush();
    plugin->flush();
  });
  CHECK_THAT(written, ContainsSubstring("the agent printed [redacted]"));
  CHECK_THAT(written, ContainsSubstring("stand-in [redacted] refused"));
  CHECK(written.find(secret) == std::string::npos);
  CHECK(written.find(stand_in) == std::string::npos);
  CHECK(secrets.asked().size() == 2);
  CHECK(secrets.rescrubbed().empty());
}
