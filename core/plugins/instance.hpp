#pragma once

#include "core/plugins/plugin_code.hpp"
#include "core/plugins/plugin_record.hpp"

#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>

#include <array>
#include <memory>
#include <string>

namespace errand::plugins {

// Releases an instance through the plugin's own destroy, so it is freed by the code that
// allocated it.
template <class Interface>
struct InstanceDeleter {
  void (*destroy)(void*) = nullptr;
  void operator()(Interface* instance) const noexcept {
    if (instance != nullptr && destroy != nullptr) destroy(static_cast<void*>(instance));
  }
};

template <class Interface>
using InstanceHandle = std::unique_ptr<Interface, InstanceDeleter<Interface>>;

// Creates an instance of a loaded plugin through its descriptor. Interface is
// sdk::ChatTransport, sdk::SandboxBackend or sdk::EgressBroker and must match the plugin's
// kind. On failure the error's message is a sentence: the plugin's own text when create()
// failed (a constructor that threw), otherwise why nothing was attempted (kind refused).
// services must outlive the instance.
template <class Interface>
sdk::Result<InstanceHandle<Interface>> create_instance(const PluginRecord& record,
                                                       const sdk::HostServices& services) {
  using Outcome = sdk::Result<InstanceHandle<Interface>>;
  if (!record.loaded) {
    return sdk::make_error(
        "the plugin at " + record.path.string() + " was not loaded: " + record.refusal,
        sdk::Error::Kind::refused);
  }
  if (record.kind != Interface::kind) {
    return sdk::make_error("the plugin " + record.name + " (" + record.path.string() + ") is a " +
                               record.kind + " plugin, not a " + Interface::kind +
                               " one; choose a plugin of the kind the setting asks for",
                           sdk::Error::Kind::refused);
  }
  const auto code = plugin_code(record);
  if (!code) return code.error();
  const errand_plugin_entry_v1_t& entry = **code;
  std::array<char, 4096> error{};
  void* raw = entry.create(&services, error.data(), error.size());
  if (raw == nullptr) {
    error.back() = '\0';
    std::string message = error.data();
    if (message.empty()) {
      message = "the plugin " + record.name + " (" + record.path.string() +
                ") could not create an instance and gave no reason";
    }
    return sdk::make_error(std::move(message));
  }
  // create() returns the kind's interface pointer as void*, so this cast restores it exactly.
  return Outcome(boost::system::in_place_value, static_cast<Interface*>(raw),
                 InstanceDeleter<Interface>{entry.destroy});
}

}  // namespace errand::plugins
