#pragma once

#include <errand/sdk/result.hpp>
#include <filesystem>

namespace errand::plugins {

// Reads a file as ELF without loading it, so a file that is no errand plugin is turned away
// before dlopen could run any of its code. Fine when the file is a shared object of this
// machine's class exporting errand_plugin_entry_v1; otherwise refused, naming the file.
sdk::Result<void> inspect_plugin_file(const std::filesystem::path& file);

}  // namespace errand::plugins
