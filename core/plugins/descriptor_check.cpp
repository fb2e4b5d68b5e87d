#include "core/plugins/descriptor_check.hpp"
#include "core/plugins/refusal.hpp"

#include <fmt/core.h>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <errand/sdk/toolchain.hpp>

#include <algorithm>
#include <array>
#include <cstring>

namespace errand::plugins {
namespace {

std::string_view text_or_empty(const char* text) {
  return text == nullptr ? std::string_view{} : std::string_view{text};
}

}  // namespace

errand_plugin_entry_v1_t normalise_descriptor(const errand_plugin_entry_v1_t& declared) {
  errand_plugin_entry_v1_t normal{};
  const std::size_t readable =
      std::min<std::size_t>(declared.struct_size, sizeof(errand_plugin_entry_v1_t));
  std::memcpy(&normal, &declared, readable);
  // Only the prefix was copied; the size keeps saying what the plugin declared.
  normal.struct_size = declared.struct_size;
  return normal;
}

std::string_view host_toolchain_id() {
  return ERRAND_TOOLCHAIN_ID;
}

bool is_known_kind(std::string_view kind) {
  static constexpr std::array<std::string_view, 3> kinds = {
      sdk::ChatTransport::kind, sdk::SandboxBackend::kind, sdk::EgressBroker::kind};
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

sdk::Result<void> check_descriptor(const errand_plugin_entry_v1_t& d,
                                   const std::filesystem::path& file,
                                   std::string_view host_toolchain) {
  if (d.struct_size < kDescriptorHeaderSize) {
    return refusal(
        "refused {}: its descriptor declares {} bytes, too few to hold even the ABI version; "
        "rebuild the plugin with ERRAND_PLUGIN from the errand SDK",
        file.string(), d.struct_size);
  }
  if (d.abi_major != ERRAND_ABI_MAJOR) {
    return refusal(
        "refused {}: its abi_major is {} but this errand speaks plugin ABI {}.x, and a different "
        "major version means an incompatible descriptor; rebuild the plugin against this "
        "errand's SDK or install an errand of ABI {}.x",
        file.string(), d.abi_major, ERRAND_ABI_MAJOR, d.abi_major);
  }
  if (d.struct_size < kDescriptorMajorSize) {
    return refusal(
        "refused {}: its descriptor's struct_size is {} bytes, smaller than the {} bytes every "
        "ABI {}.x descriptor has; rebuild the plugin with ERRAND_PLUGIN from the errand SDK",
        file.string(), d.struct_size, kDescriptorMajorSize, ERRAND_ABI_MAJOR);
  }
  if (d.abi_minor > ERRAND_ABI_MINOR) {
    return refusal(
        "refused {}: its abi_minor says it was built against a newer SDK ({}.{}) than this "
        "errand ({}.{}); upgrade errand or rebuild the plugin",
        file.string(), d.abi_major, d.abi_minor, ERRAND_ABI_MAJOR, ERRAND_ABI_MINOR);
  }
  const auto toolchain = text_or_empty(d.toolchain_id);
  if (toolchain != host_toolchain) {
    return refusal(
        "refused {}: its toolchain_id \"{}\" differs from this errand's \"{}\", so the C++ "
        "interfaces past the descriptor may not share a layout; rebuild the plugin with the same "
        "compiler, Boost, spdlog and fmt as this errand",
        file.string(), toolchain, host_toolchain);
  }
  const auto kind = text_or_empty(d.kind);
  if (!is_known_kind(kind)) {
    return refusal(
        "refused {}: its kind \"{}\" is none of the kinds this errand knows (chat, sandbox, "
        "broker); build it with ERRAND_PLUGIN around a ChatTransport, SandboxBackend or "
        "EgressBroker",
        file.string(), kind);
  }
  if (text_or_empty(d.name).empty()) {
    return refusal(
        "refused {}: its descriptor has an empty name, so it cannot be chosen in the "
        "configuration; give it a name in ERRAND_PLUGIN",
        file.string());
  }
  if (d.create == nullptr || d.destroy == nullptr) {
    return refusal(
        "refused {}: its descriptor has no create or destroy function, so no instance could be "
        "made or released; build it with ERRAND_PLUGIN",
        file.string());
  }
  return {};
}

}  // namespace errand::plugins
