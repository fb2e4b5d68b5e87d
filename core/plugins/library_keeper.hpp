#pragma once

#include <errand/sdk/plugin_abi.h>

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>

namespace errand::plugins {

// Plugins are never unloaded: once a shared object's code has run, an exception object, a
// deleter, an Asio handler or a thread-local may still point into it, and dlclose would leave
// those dangling. So every library opened here, refused ones included, stays open until the
// process exits, and so does every descriptor copy handed out. Safe to call from any thread.

// dlopen(RTLD_NOW | RTLD_LOCAL) and look up errand_plugin_entry_v1. The error is dlerror's text
// (or a sentence when the symbol is missing after all).
sdk::Result<errand_plugin_entry_fn> open_and_keep(const std::filesystem::path& file);

// Stores a copy of a descriptor for the process lifetime and returns its address.
const errand_plugin_entry_v1_t* keep_descriptor(const errand_plugin_entry_v1_t& descriptor);

}  // namespace errand::plugins
