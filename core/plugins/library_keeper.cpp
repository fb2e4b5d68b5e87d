#include "core/plugins/library_keeper.hpp"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <deque>
#include <map>
#include <mutex>

namespace errand::plugins {
namespace {

struct KeptLibraries {
  std::mutex mutex;
  // deque: element addresses must not move when more are added.
  std::deque<boost::dll::shared_library> libraries;
  // The dynamic linker hands back the already-open object for a path it has seen, so a second
  // scan reuses the first opening instead of piling up references.
  std::map<std::filesystem::path, errand_plugin_entry_fn> entries_by_path;
  std::deque<errand_plugin_entry_v1_t> descriptors;
};

// Deliberately leaked: destroying it at exit would dlclose the plugins while other static
// destructors may still reach into them.
KeptLibraries& kept() {
  static auto* const instance = new KeptLibraries;
  return *instance;
}

}  // namespace

sdk::Result<errand_plugin_entry_fn> open_and_keep(const std::filesystem::path& file) {
  auto& store = kept();
  const std::lock_guard lock(store.mutex);
  if (const auto known = store.entries_by_path.find(file); known != store.entries_by_path.end()) {
    return known->second;
  }
  boost::dll::fs::error_code ec;
  // dlerror is per thread and holds only the latest failure, so it is read under the lock right
  // after the call that failed.
  dlerror();
  boost::dll::shared_library library(
      file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec || !library.is_loaded()) {
    const char* reason = dlerror();
    return sdk::make_error(reason != nullptr ? std::string(reason) : ec.message());
  }
  // Kept before the symbol lookup: its static constructors have already run.
  auto& kept_library = store.libraries.emplace_back(std::move(library));
  if (!kept_library.has(ERRAND_PLUGIN_ENTRY_SYMBOL)) {
    return sdk::make_error(std::string("the dynamic linker does not find ") +
                           ERRAND_PLUGIN_ENTRY_SYMBOL +
                           " in it although its symbol table lists it");
  }
  const errand_plugin_entry_fn entry =
      &kept_library.get<const errand_plugin_entry_v1_t*()>(ERRAND_PLUGIN_ENTRY_SYMBOL);
  store.entries_by_path.emplace(file, entry);
  return entry;
}

const errand_plugin_entry_v1_t* keep_descriptor(const errand_plugin_entry_v1_t& descriptor) {
  auto& store = kept();
  const std::lock_guard lock(store.mutex);
  return &store.descriptors.emplace_back(descriptor);
}

}  // namespace errand::plugins
