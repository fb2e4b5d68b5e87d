#include "tests/e2e/browser_run.hpp"

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <iostream>

#include "tests/support/child_process.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::e2e {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Where scripts/setup installs playwright-core, and the browser it drives; the same variables
// and defaults as there and in tests/e2e/web/browser.mjs.
fs::path browser_install() {
  return errand::test::setting_from_environment("ERRAND_TEST_WEB", "/var/cache/errand-test-web");
}
fs::path chromium() {
  return errand::test::setting_from_environment("ERRAND_TEST_CHROMIUM", "/usr/bin/chromium");
}

fs::path node() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"})
    if (::access((fs::path(dir) / "node").c_str(), X_OK) == 0) return fs::path(dir) / "node";
  FAIL("node is not installed: run scripts/setup, which installs nodejs for the browser tests");
  return {};
}

}  // namespace

void require_browser_tools() {
  node();
  if (::access(chromium().c_str(), X_OK) != 0)
    FAIL("chromium is not installed at " << chromium().string()
                                         << ": run scripts/setup, which installs Debian's "
                                            "chromium (or point ERRAND_TEST_CHROMIUM at one)");
  const auto driver = browser_install() / "node_modules" / "playwright-core" / "package.json";
  if (!fs::exists(driver))
    FAIL("playwright-core is not installed at "
         << driver.parent_path().string()
         << ": run scripts/setup, which installs tests/e2e/web with npm (or point "
            "ERRAND_TEST_WEB at such an install)");
  const auto front_end = errand::test::build_path("web/index.html");
  if (!fs::exists(front_end))
    FAIL("the web front-end is not built at " << front_end.parent_path().string()
                                              << ": build with ERRAND_BUILD_WEB on (the default "
                                                 "preset), after scripts/setup installed web/'s "
                                                 "npm packages");
}

std::string run_browser_scenario(const std::string& scenario, const fs::path& work_dir,
                                 const fs::path& out_dir, const std::string& address) {
  REQUIRE_FALSE(address.empty());
  const auto script = errand::test::source_dir() / "tests" / "e2e" / "web" / (scenario + ".mjs");
  fs::create_directories(work_dir / "browser-home");
  const auto finished = errand::test::run_to_end(
      {node().string(), script.string(), address, out_dir.string()},
      {"PATH=/usr/bin:/bin", "HOME=" + (work_dir / "browser-home").string(),
       "ERRAND_TEST_WEB=" + browser_install().string(),
       "ERRAND_TEST_CHROMIUM=" + chromium().string()},
      work_dir, 600s);
  UNSCOPED_INFO("the scenario " << scenario << " printed:\n" << finished.out << finished.err);
  std::cout << finished.out;  // the screenshots' paths, for the person reading the run
  REQUIRE(finished.exit_code == 0);
  return finished.out;
}

std::string scenario_thread(const std::string& printed) {
  const std::string label = "thread: ";
  const auto at = printed.find(label);
  INFO("the scenario printed:\n" << printed);
  REQUIRE(at != std::string::npos);
  const auto start = at + label.size();
  return printed.substr(start, printed.find('\n', start) - start);
}

}  // namespace errand::e2e
