#include <catch2/catch_test_macros.hpp>
#include <fstream>

#include "core/config/locate.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
namespace fs = std::filesystem;

namespace {

struct Places {
  TemporaryDirectory root;
  fs::path home = root.path() / "home";
  fs::path etc = root.path() / "etc/errand";
  fs::path cwd = root.path() / "work";
  fs::path in_home = home / ".config/errand/config.json";
  fs::path in_etc = etc / "config.json";
  fs::path in_cwd = cwd / "config.json";

  Places() {
    for (const auto& file : {in_home, in_etc, in_cwd}) {
      fs::create_directories(file.parent_path());
      std::ofstream(file) << "{}";
    }
  }

  ConfigSearch search(const char* errand_config = nullptr) const {
    return locate_config(errand_config, home.c_str(), etc, cwd);
  }
};

}  // namespace

TEST_CASE("the search takes the home file, then /etc, then the working directory",
          "[config][locate]") {
  Places places;
  CHECK(places.search().found == places.in_home);
  CHECK(places.search().tried == std::vector<fs::path>{places.in_home});

  fs::remove(places.in_home);
  CHECK(places.search().found == places.in_etc);
  CHECK(places.search().tried == std::vector<fs::path>{places.in_home, places.in_etc});

  fs::remove(places.in_etc);
  CHECK(places.search().found == places.in_cwd);

  fs::remove(places.in_cwd);
  const auto none = places.search();
  CHECK_FALSE(none.found);
  CHECK(none.tried == std::vector<fs::path>{places.in_home, places.in_etc, places.in_cwd});
}

TEST_CASE("ERRAND_CONFIG names the file outright", "[config][locate]") {
  Places places;
  const fs::path named = places.root.path() / "elsewhere.json";
  std::ofstream(named) << "{}";
  const auto search = places.search(named.c_str());
  CHECK(search.found == named);
  CHECK(search.tried == std::vector<fs::path>{named});
}

TEST_CASE("a missing ERRAND_CONFIG file is not found, with no further search", "[config][locate]") {
  Places places;
  const fs::path named = places.root.path() / "missing.json";
  const auto search = places.search(named.c_str());
  CHECK_FALSE(search.found);
  CHECK(search.tried == std::vector<fs::path>{named});
}

TEST_CASE("a relative ERRAND_CONFIG is taken from the working directory", "[config][locate]") {
  Places places;
  const auto search = places.search("config.json");
  CHECK(search.found == places.in_cwd);
}

TEST_CASE("an unset HOME skips the home file", "[config][locate]") {
  Places places;
  const auto search = locate_config(nullptr, nullptr, places.etc, places.cwd);
  CHECK(search.found == places.in_etc);
  CHECK(search.tried.front() == places.in_etc);
}
