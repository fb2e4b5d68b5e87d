#include "core/plugins/elf_inspection.hpp"
#include "core/plugins/refusal.hpp"

#include <elf.h>
#include <errand/sdk/plugin_abi.h>
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <boost/dll/library_info.hpp>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <vector>

namespace errand::plugins {
namespace {

constexpr unsigned char kHostElfClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
constexpr unsigned char kHostByteOrder =
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

// e_ident, then e_type: the same offsets in 32- and 64-bit ELF files.
constexpr std::size_t kTypeOffset = EI_NIDENT;
constexpr std::size_t kHeaderPrefix = EI_NIDENT + sizeof(std::uint16_t);

sdk::Error not_elf(const std::filesystem::path& file) {
  return refusal(
      "refused {}: it is not an ELF shared object, so it cannot be an errand plugin; remove it "
      "from the plugin directory",
      file.string());
}

// Everything errand_add_plugin builds is ET_DYN of the host's class and byte order; anything
// else would fail in dlopen with a less helpful message, or not at all for the wrong reasons.
sdk::Result<void> check_header(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return refusal(
        "refused {}: it cannot be opened for reading ({}); check that it exists and that errand "
        "may read it",
        file.string(), std::strerror(errno));
  }
  std::array<unsigned char, kHeaderPrefix> header{};
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  if (in.gcount() < static_cast<std::streamsize>(header.size()) ||
      std::memcmp(header.data(), ELFMAG, SELFMAG) != 0) {
    return not_elf(file);
  }
  if (header[EI_CLASS] != kHostElfClass || header[EI_DATA] != kHostByteOrder) {
    return refusal(
        "refused {}: it is an ELF file for another word size or byte order than this errand's; "
        "rebuild the plugin for this machine",
        file.string());
  }
  std::uint16_t type = 0;
  std::memcpy(&type, header.data() + kTypeOffset, sizeof type);
  if (type != ET_DYN) {
    return refusal(
        "refused {}: it is an ELF file but not a shared object (ELF type {}); build plugins as "
        "modules with errand_add_plugin",
        file.string(), type);
  }
  return {};
}

}  // namespace

sdk::Result<void> inspect_plugin_file(const std::filesystem::path& file) {
  if (auto header = check_header(file); !header) return header;
  std::vector<std::string> symbols;
  try {
    boost::dll::library_info info(file);
    symbols = info.symbols();
  } catch (const std::exception& e) {
    return refusal(
        "refused {}: its ELF symbol table cannot be read ({}); the file may be truncated or "
        "corrupt, so rebuild or reinstall it",
        file.string(), e.what());
  }
  if (std::find(symbols.begin(), symbols.end(), ERRAND_PLUGIN_ENTRY_SYMBOL) == symbols.end()) {
    return refusal(
        "refused {}: it does not export {}, so it is not an errand plugin built with "
        "ERRAND_PLUGIN; remove it from the plugin directory or rebuild it with ERRAND_PLUGIN",
        file.string(), ERRAND_PLUGIN_ENTRY_SYMBOL);
  }
  return {};
}

}  // namespace errand::plugins
