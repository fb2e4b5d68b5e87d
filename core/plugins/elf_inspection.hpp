#pragma once

#include <filesystem>
#include <string>

namespace errand::plugins {

// Reads a file as ELF without loading it, so a file that is no errand plugin is turned away
// before dlopen could run any of its code. Returns the refusal sentence naming the file, or an
// empty string when the file is a shared object of this machine's class exporting
// errand_plugin_entry_v1.
std::string inspect_plugin_file(const std::filesystem::path& file);

}  // namespace errand::plugins
