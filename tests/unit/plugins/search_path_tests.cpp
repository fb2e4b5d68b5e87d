#include "core/plugins/search_path.hpp"

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <vector>

using errand::plugins::plugin_search_dirs;
using Paths = std::vector<std::filesystem::path>;

TEST_CASE("the environment comes first, then the configuration, then the default directory") {
  const auto dirs =
      plugin_search_dirs("/env/one:/env/two", {"/config/a", "/config/b"}, "/usr/lib/errand");
  CHECK(dirs == Paths{"/env/one", "/env/two", "/config/a", "/config/b", "/usr/lib/errand"});
}

TEST_CASE("an unset or empty ERRAND_PLUGIN_PATH adds nothing") {
  CHECK(plugin_search_dirs(nullptr, {"/config/a"}, "/usr/lib/errand") ==
        Paths{"/config/a", "/usr/lib/errand"});
  CHECK(plugin_search_dirs("", {}, "/usr/lib/errand") == Paths{"/usr/lib/errand"});
  CHECK(plugin_search_dirs("::", {}, "/usr/lib/errand") == Paths{"/usr/lib/errand"});
}

TEST_CASE("a directory named twice keeps its first place, whatever its spelling") {
  const auto dirs = plugin_search_dirs("/usr/lib/errand/:/env//one:/env/one/.", {"/env/one", "/x"},
                                       "/usr/lib/errand");
  CHECK(dirs == Paths{"/usr/lib/errand", "/env/one", "/x"});
}

TEST_CASE("empty entries between colons are ignored and order is kept") {
  const auto dirs = plugin_search_dirs(":/b::/a:", {}, "/c");
  CHECK(dirs == Paths{"/b", "/a", "/c"});
}

TEST_CASE("a relative ERRAND_PLUGIN_PATH entry is resolved against the current directory") {
  const auto dirs = plugin_search_dirs("build/plugins", {}, "/usr/lib/errand");
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[0] == (std::filesystem::current_path() / "build/plugins").lexically_normal());
  CHECK(dirs[0].is_absolute());
}

TEST_CASE("the default directory comes from the build's install prefix") {
  const auto dir = errand::plugins::default_plugin_dir();
  CHECK(dir.is_absolute());
  CHECK(dir.filename() == "errand");
}
