#pragma once

#include "core/plugins/plugin_record.hpp"

#include <errand/sdk/host_services.hpp>

#include <array>
#include <boost/system/result.hpp>
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
// kind. On failure the error is a sentence: the plugin's own text when create() refused (a
// constructor that threw), otherwise why nothing was attempted. services must outlive the
// instance. Read the result with has_value(), operator* and error(): value() cannot throw a
// std::string error.
template <class Interface>
boost::system::result<InstanceHandle<Interface>, std::string> create_instance(
    const PluginRecord& record, const sdk::HostServices& services) {
  using Outcome = boost::system::result<InstanceHandle<Interface>, std::string>;
  if (!record.loaded || record.entry == nullptr) {
    return Outcome(boost::system::in_place_error,
                   "the plugin at " + record.path.string() + " was not loaded: " + record.refusal);
  }
  if (record.kind != Interface::kind) {
    return Outcome(boost::system::in_place_error,
                   "the plugin " + record.name + " (" + record.path.string() + ") is a " +
                       record.kind + " plugin, not a " + Interface::kind +
                       " one; choose a plugin of the kind the setting asks for");
  }
  std::array<char, 4096> error{};
  void* raw = record.entry->create(&services, error.data(), error.size());
  if (raw == nullptr) {
    error.back() = '\0';
    std::string message = error.data();
    if (message.empty()) {
      message = "the plugin " + record.name + " (" + record.path.string() +
                ") could not create an instance and gave no reason";
    }
    return Outcome(boost::system::in_place_error, std::move(message));
  }
  // create() returns the kind's interface pointer as void*, so this cast restores it exactly.
  return Outcome(boost::system::in_place_value, static_cast<Interface*>(raw),
                 InstanceDeleter<Interface>{record.entry->destroy});
}

}  // namespace errand::plugins
