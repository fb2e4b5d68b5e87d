#pragma once

#include <errand/sdk/plugin_abi.h>

#include <cstddef>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <string_view>

namespace errand::plugins {

// The descriptor as this major's .0 defined it: 6.0 ended it with config_reads. A plugin
// built for a later 6.x minor declares more; one that declares less is not a 6.x plugin.
inline constexpr std::size_t kDescriptorMajorSize =
    offsetof(errand_plugin_entry_v1_t, config_reads) +
    sizeof(errand_plugin_entry_v1_t::config_reads);

// struct_size, abi_major and abi_minor: enough to tell which ABI the plugin speaks.
inline constexpr std::size_t kDescriptorHeaderSize = offsetof(errand_plugin_entry_v1_t, name);

// Copies what the plugin declared into a zero-filled host descriptor, never more than the host
// knows and never more than struct_size says: a field the plugin did not declare reads as null.
errand_plugin_entry_v1_t normalise_descriptor(const errand_plugin_entry_v1_t& declared);

// The toolchain id errand itself was built with.
std::string_view host_toolchain_id();

// Checks a normalised descriptor against this host, in the order that gives the most useful
// reason (a plugin from a newer SDK also has another toolchain id, so the version speaks
// first). Refused with the sentence naming the file, unless acceptable. The duplicate-name rule
// needs the other plugins, so the registry applies it.
sdk::Result<void> check_descriptor(const errand_plugin_entry_v1_t& descriptor,
                                   const std::filesystem::path& file,
                                   std::string_view host_toolchain = host_toolchain_id());

// The plugin kinds this errand knows: "chat", "sandbox" and "broker".
bool is_known_kind(std::string_view kind);

}  // namespace errand::plugins
