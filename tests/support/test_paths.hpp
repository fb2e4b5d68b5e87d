#pragma once
// Where a test finds the build tree and the checkout at run time.
//
// No test is compiled with an absolute path in it: a compile command that names the checkout's
// folder hashes differently in every clone, so ccache could not reuse a single test object
// between two clones of the same sources (CI clones into a new folder every run). Paths of built
// programs reach the tests relative to the build tree (errand_test_build_path in
// cmake/ErrandTesting.cmake) and are made whole here.

#include <filesystem>
#include <string>
#include <string_view>

namespace errand::test {

// The build tree: $ERRAND_BUILD_DIR when set (CTest sets it for every test), otherwise the
// nearest folder above the running test binary that holds a CMakeCache.txt. Throws, naming
// both, when neither is found.
std::filesystem::path build_dir();

// The checkout the build tree was configured from: $ERRAND_SOURCE_DIR when set, otherwise the
// source folder recorded in the build tree's CMakeCache.txt. Throws when neither says.
std::filesystem::path source_dir();

// Works out both folders now and keeps them; errors wait for the first call that needs them.
// The suites' mains call it before switching to the test account: after the switch the process
// is no longer dumpable, so its own /proc/self/exe is root's to read.
void remember_test_paths() noexcept;

// A file or folder of the build tree, from its path relative to the build tree.
std::filesystem::path build_path(std::string_view relative);

// A file or folder of the checkout, from its path relative to the checkout.
std::filesystem::path source_path(std::string_view relative);

// The value of the environment variable name, or otherwise when it is unset or empty: where a
// test finds what scripts/setup installed outside the checkout, which a variable may move.
std::string setting_from_environment(const char* name, std::string_view otherwise);

}  // namespace errand::test
