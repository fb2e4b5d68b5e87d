#include "core/plugins/plugin_code.hpp"

#include "core/plugins/registry.hpp"

#include <map>
#include <mutex>
#include <string>

namespace errand::plugins {

namespace {

struct MappedCode {
  std::mutex mutex;
  std::map<std::filesystem::path, const errand_plugin_entry_v1_t*> by_path;
};

// Leaked like the libraries themselves, for the same reason (library_keeper.hpp).
MappedCode& mapped() {
  static auto* const instance = new MappedCode;
  return *instance;
}

bool declares_the_same(const PluginRecord& described, const PluginRecord& now) {
  return described.name == now.name && described.kind == now.kind &&
         described.version == now.version && described.abi_major == now.abi_major &&
         described.abi_minor == now.abi_minor && described.config_schema == now.config_schema &&
         described.config_keys.own == now.config_keys.own &&
         described.config_keys.reads == now.config_keys.reads &&
         described.validates_config == now.validates_config &&
         described.validates_policy == now.validates_policy;
}

}  // namespace

sdk::Result<const errand_plugin_entry_v1_t*> plugin_code(const PluginRecord& record) {
  if (record.entry != nullptr) return record.entry;
  if (!record.loaded) {
    return sdk::make_error(
        "the plugin at " + record.path.string() + " was not loaded: " + record.refusal,
        sdk::Error::Kind::refused);
  }
  auto& store = mapped();
  const std::lock_guard lock(store.mutex);
  if (const auto found = store.by_path.find(record.path); found != store.by_path.end())
    return found->second;
  auto now = load_plugin_file(record.path);
  if (!now.loaded) {
    return sdk::make_error("the plugin " + record.name + " was read at start but cannot be " +
                               "loaded now: " + now.refusal,
                           sdk::Error::Kind::refused);
  }
  if (!declares_the_same(record, now)) {
    return sdk::make_error(
        record.path.string() + " is no longer the plugin errand read at start (" + record.name +
            " " + record.version + " then, " + now.name + " " + now.version +
            " now, or a changed schema or checks); restart errand so it reads the plugins again",
        sdk::Error::Kind::refused);
  }
  store.by_path.emplace(record.path, now.entry);
  return now.entry;
}

const errand_plugin_entry_v1_t* mapped_code(const PluginRecord& record) {
  if (record.entry != nullptr) return record.entry;
  auto& store = mapped();
  const std::lock_guard lock(store.mutex);
  const auto found = store.by_path.find(record.path);
  return found == store.by_path.end() ? nullptr : found->second;
}

}  // namespace errand::plugins
