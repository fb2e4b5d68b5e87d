#include "core/plugins/registry.hpp"

#include "core/plugins/descriptor_check.hpp"
#include "core/plugins/elf_inspection.hpp"
#include "core/plugins/file_trust.hpp"
#include "core/plugins/library_keeper.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string_view>
#include <system_error>

namespace errand::plugins {
namespace {

std::string text_of(const char* text) {
  return text == nullptr ? std::string{} : text;
}

std::vector<std::filesystem::path> plugin_files_in(const std::filesystem::path& dir,
                                                   spdlog::logger& log) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    log.debug("plugin directory {} does not exist or is not a directory; skipped", dir.string());
    return files;
  }
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".so") continue;
    std::error_code type_ec;
    // Directories named *.so are not candidates; symlinks to files are.
    if (it->is_directory(type_ec)) continue;
    files.push_back(it->path());
  }
  if (ec) {
    log.warn("plugin directory {} cannot be listed ({}); no plugin in it is loaded", dir.string(),
             ec.message());
    return {};
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a.filename().native() < b.filename().native();
  });
  return files;
}

}  // namespace

PluginRecord load_plugin_file(const std::filesystem::path& file) {
  PluginRecord record;
  record.path = file;
  // A file is read as ELF only once its ownership says whose code it is.
  auto acceptable = check_plugin_file_trust(file);
  if (acceptable) acceptable = inspect_plugin_file(file);
  if (!acceptable) {
    record.refusal = std::move(acceptable.error().message);
    return record;
  }

  auto entry_fn = open_and_keep(file);
  if (!entry_fn) {
    // dlerror starts with the file's path, which the sentence already names.
    const std::string& dlerror_text = entry_fn.error().message;
    std::string_view reason = dlerror_text;
    const std::string lead_in = file.string() + ": ";
    if (reason.starts_with(lead_in)) reason.remove_prefix(lead_in.size());
    record.refusal = fmt::format(
        "refused {}: the dynamic linker could not load it ({}); install what it needs or rebuild "
        "it against this system's libraries",
        file.string(), reason);
    return record;
  }
  const errand_plugin_entry_v1_t* declared = (*entry_fn)();
  if (declared == nullptr) {
    record.refusal = fmt::format(
        "refused {}: its errand_plugin_entry_v1 returned no descriptor; build it with "
        "ERRAND_PLUGIN",
        file.string());
    return record;
  }
  const auto descriptor = normalise_descriptor(*declared);
  if (descriptor.struct_size >= kDescriptorHeaderSize) {
    record.abi_major = descriptor.abi_major;
    record.abi_minor = descriptor.abi_minor;
  }
  record.name = text_of(descriptor.name);
  record.kind = text_of(descriptor.kind);
  record.version = text_of(descriptor.version);
  if (auto checked = check_descriptor(descriptor, file); !checked) {
    record.refusal = std::move(checked.error().message);
    return record;
  }
  auto keys = config::plugin_keys(descriptor.config_schema, descriptor.config_reads);
  if (!keys) {
    record.refusal = fmt::format("refused {}: {}; rebuild the plugin with a corrected declaration",
                                 file.string(), keys.error().message);
    return record;
  }
  record.config_keys = std::move(*keys);
  record.config_schema = text_of(descriptor.config_schema);
  record.validates_config = descriptor.validate_config != nullptr;
  record.validates_policy = descriptor.validate_policy != nullptr;
  record.entry = keep_descriptor(descriptor);
  record.loaded = true;
  return record;
}

PluginRegistry PluginRegistry::scan(const std::vector<std::filesystem::path>& dirs,
                                    spdlog::logger& log) {
  PluginRegistry registry;
  for (const auto& dir : dirs) {
    for (const auto& file : plugin_files_in(dir, log)) {
      auto record = load_plugin_file(file);
      if (record.loaded) {
        const auto first = std::find_if(
            registry.records_.begin(), registry.records_.end(),
            [&](const PluginRecord& other) { return other.loaded && other.name == record.name; });
        if (first != registry.records_.end()) {
          record.loaded = false;
          record.entry = nullptr;
          record.refusal = fmt::format(
              "refused {}: a plugin named {} was already loaded from {}, which comes first on the "
              "search path; remove one of the two files",
              file.string(), record.name, first->path.string());
        }
      }
      registry.log_record(record, log);
      registry.records_.push_back(std::move(record));
    }
  }
  return registry;
}

sdk::Result<PluginRegistry> PluginRegistry::describe(const std::vector<std::filesystem::path>& dirs,
                                                     spdlog::logger& log,
                                                     const PluginHelper& helper) {
  // Listed here too, only so a directory that is missing or unreadable is logged as scan logs it.
  for (const auto& dir : dirs) plugin_files_in(dir, log);
  auto records = describe_with(helper, dirs);
  if (!records) return records.error();
  PluginRegistry registry;
  registry.records_ = std::move(*records);
  registry.helper_ = helper;
  for (const auto& record : registry.records_) registry.log_record(record, log);
  return registry;
}

void PluginRegistry::log_record(const PluginRecord& record, spdlog::logger& log) const {
  if (!record.loaded) {
    log.warn("{}", record.refusal);
  } else if (helper_) {
    log.info("found plugin {} ({} {}) at {}; its code is mapped only if the configuration uses it",
             record.name, record.kind, record.version, record.path.string());
  } else {
    log.info("loaded plugin {} ({} {}) from {}", record.name, record.kind, record.version,
             record.path.string());
  }
}

const PluginRecord* PluginRegistry::find(std::string_view kind, std::string_view name) const {
  for (const auto& record : records_) {
    if (!record.loaded || record.kind != kind) continue;
    const std::string_view full = record.name;
    if (full == name) return &record;
    if (full.size() == kind.size() + 1 + name.size() && full.starts_with(kind) &&
        full[kind.size()] == '-' && full.ends_with(name)) {
      return &record;
    }
  }
  return nullptr;
}

std::vector<const PluginRecord*> PluginRegistry::loaded_of_kind(std::string_view kind) const {
  std::vector<const PluginRecord*> found;
  for (const auto& record : records_) {
    if (record.loaded && record.kind == kind) found.push_back(&record);
  }
  return found;
}

std::vector<const PluginRecord*> PluginRegistry::refused() const {
  std::vector<const PluginRecord*> found;
  for (const auto& record : records_) {
    if (!record.loaded) found.push_back(&record);
  }
  return found;
}

}  // namespace errand::plugins
