#include "core/plugins/registry.hpp"

#include "core/plugins/descriptor_check.hpp"
#include "tests/unit/plugins/plugin_test_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::plugins::PluginRecord;
using errand::plugins::PluginRegistry;
using errand::plugins::testing::CapturedLog;
using errand::plugins::testing::fixture_dir;
using errand::plugins::testing::newer_sdk_refusal;
using errand::plugins::testing::TempDir;
using errand::plugins::testing::wrong_major_refusal;

namespace {

const PluginRecord& record_of(const PluginRegistry& registry, const std::string& file_name) {
  for (const auto& record : registry.records()) {
    if (record.path.filename() == file_name) return record;
  }
  FAIL("no record for " << file_name);
  throw std::logic_error("unreachable");
}

std::string refusal_of(const PluginRegistry& registry, const std::string& file_name) {
  const auto& record = record_of(registry, file_name);
  CHECK_FALSE(record.loaded);
  CHECK(record.entry == nullptr);
  CHECK_THAT(record.refusal, StartsWith("refused " + record.path.string() + ": "));
  return record.refusal;
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The first bytes of an ELF header: magic, class, byte order, version, padding, then e_type.
std::string elf_header(unsigned char elf_class, std::uint16_t type) {
  std::string header = {'\x7f', 'E', 'L', 'F', static_cast<char>(elf_class), 1, 1, 0};
  header.resize(16, '\0');
  header.push_back(static_cast<char>(type & 0xff));
  header.push_back(static_cast<char>(type >> 8));
  header.resize(64, '\0');
  return header;
}

}  // namespace

TEST_CASE("scanning the fixture directory lists every .so sorted by file name") {
  CapturedLog log;
  const auto registry = PluginRegistry::scan({fixture_dir()}, log.logger());
  std::vector<std::string> names;
  for (const auto& record : registry.records()) names.push_back(record.path.filename());
  CHECK(names == std::vector<std::string>{"fixture-bad-reads.so", "fixture-bogus-toolchain.so",
                                          "fixture-good.so", "fixture-newer-minor.so",
                                          "fixture-no-entry.so", "fixture-throwing.so",
                                          "fixture-twin.so", "fixture-unresolved.so",
                                          "fixture-wrong-major.so", "not-a-plugin.so"});
}

TEST_CASE("the good fixture loads with its descriptor read") {
  CapturedLog log;
  const auto registry = PluginRegistry::scan({fixture_dir()}, log.logger());
  const auto& good = record_of(registry, "fixture-good.so");
  CHECK(good.loaded);
  CHECK(good.refusal.empty());
  CHECK(good.name == "sandbox-gappy");
  CHECK(good.kind == "sandbox");
  CHECK(good.version == "0.1.0");
  CHECK(good.abi_major == ERRAND_ABI_MAJOR);
  CHECK(good.abi_minor == ERRAND_ABI_MINOR);
  REQUIRE(good.entry != nullptr);
  CHECK(good.entry->create != nullptr);
  CHECK(good.entry->config_schema == nullptr);
  CHECK_THAT(log.text(), ContainsSubstring("info loaded plugin sandbox-gappy (sandbox 0.1.0)"));
}

TEST_CASE("a plugin whose constructor throws still loads; only create fails") {
  CapturedLog log;
  const auto registry = PluginRegistry::scan({fixture_dir()}, log.logger());
  CHECK(record_of(registry, "fixture-throwing.so").loaded);
}

TEST_CASE("each broken fixture is refused with the reason that applies to it") {
  CapturedLog log;
  const auto registry = PluginRegistry::scan({fixture_dir()}, log.logger());

  CHECK_THAT(refusal_of(registry, "fixture-wrong-major.so"),
             ContainsSubstring(wrong_major_refusal()));
  CHECK_THAT(refusal_of(registry, "fixture-newer-minor.so"),
             ContainsSubstring(newer_sdk_refusal(ERRAND_ABI_MINOR + 3)));
  const auto toolchain = refusal_of(registry, "fixture-bogus-toolchain.so");
  CHECK_THAT(toolchain, ContainsSubstring("its toolchain_id \"compiler 2.95; a toolchain no "
                                          "errand was built with\" differs from this errand's"));
  CHECK_THAT(toolchain, ContainsSubstring(std::string(errand::plugins::host_toolchain_id())));
  CHECK_THAT(refusal_of(registry, "fixture-no-entry.so"),
             ContainsSubstring("does not export errand_plugin_entry_v1, so it is not an errand "
                               "plugin built with ERRAND_PLUGIN"));
  CHECK_THAT(refusal_of(registry, "not-a-plugin.so"),
             ContainsSubstring("it is not an ELF shared object"));
  const auto unresolved = refusal_of(registry, "fixture-unresolved.so");
  CHECK_THAT(unresolved,
             ContainsSubstring("the dynamic linker could not load it (undefined symbol: "));
  CHECK_THAT(unresolved, ContainsSubstring("errand_fixture_symbol_nobody_defines);"));
  CHECK_THAT(refusal_of(registry, "fixture-bad-reads.so"),
             ContainsSubstring("its config_reads holds \"chat token\", which is not a dotted key; "
                               "it must be a JSON array of dotted configuration keys"));
  const auto twin = refusal_of(registry, "fixture-twin.so");
  CHECK_THAT(twin, ContainsSubstring("a plugin named sandbox-gappy was already loaded from " +
                                     (fixture_dir() / "fixture-good.so").string()));
}

TEST_CASE("the descriptor of a refused plugin is still shown when it could be read") {
  CapturedLog log;
  const auto registry = PluginRegistry::scan({fixture_dir()}, log.logger());
  const auto& minor = record_of(registry, "fixture-newer-minor.so");
  CHECK(minor.name == "sandbox-newer-minor");
  CHECK(minor.abi_major == ERRAND_ABI_MAJOR);
  CHECK(minor.abi_minor == ERRAND_ABI_MINOR + 3);
  const auto& twin = record_of(registry, "fixture-twin.so");
  CHECK(twin.version == "0.2.0-twin");
  const auto& text = record_of(registry, "not-a-plugin.so");
  CHECK(text.name.empty());
  CHECK(text.abi_major == -1);
}

TEST_CASE("every refusal is logged at warn") {
  CapturedLog log;
  const auto registry = PluginRegistry::scan({fixture_dir()}, log.logger());
  const auto refused = registry.refused();
  CHECK(refused.size() == 8);
  for (const auto* record : refused) {
    CHECK_THAT(log.text(), ContainsSubstring("warning " + record->refusal));
  }
}

TEST_CASE("find accepts the plugin name or the name the configuration uses") {
  CapturedLog log;
  const auto registry = PluginRegistry::scan({fixture_dir()}, log.logger());
  const auto* by_full_name = registry.find("sandbox", "sandbox-gappy");
  const auto* by_setting = registry.find("sandbox", "gappy");
  REQUIRE(by_full_name != nullptr);
  CHECK(by_full_name == by_setting);
  CHECK(by_full_name->path == fixture_dir() / "fixture-good.so");
  CHECK(registry.find("chat", "gappy") == nullptr);
  CHECK(registry.find("sandbox", "wrong-major") == nullptr);
  CHECK(registry.find("sandbox", "appy") == nullptr);
}

TEST_CASE("loaded_of_kind lists loaded plugins of that kind in scan order") {
  CapturedLog log;
  const auto registry = PluginRegistry::scan({fixture_dir()}, log.logger());
  const auto sandboxes = registry.loaded_of_kind("sandbox");
  REQUIRE(sandboxes.size() == 2);
  CHECK(sandboxes[0]->name == "sandbox-gappy");
  CHECK(sandboxes[1]->name == "sandbox-throwing");
  CHECK(registry.loaded_of_kind("chat").empty());
}

TEST_CASE("a missing directory is skipped with a debug line") {
  CapturedLog log;
  TempDir temp;
  const auto missing = temp.path() / "nowhere";
  const auto registry = PluginRegistry::scan({missing}, log.logger());
  CHECK(registry.records().empty());
  CHECK_THAT(log.text(),
             ContainsSubstring("debug plugin directory " + missing.string() + " does not exist"));
}

TEST_CASE("an earlier directory wins a duplicate name over file-name order") {
  CapturedLog log;
  TempDir first;
  std::filesystem::copy_file(fixture_dir() / "fixture-twin.so", first.path() / "zz-twin.so");
  const auto registry = PluginRegistry::scan({first.path(), fixture_dir()}, log.logger());
  const auto* winner = registry.find("sandbox", "gappy");
  REQUIRE(winner != nullptr);
  CHECK(winner->path == first.path() / "zz-twin.so");
  CHECK(winner->version == "0.2.0-twin");
  CHECK_THAT(refusal_of(registry, "fixture-good.so"),
             ContainsSubstring("already loaded from " + (first.path() / "zz-twin.so").string()));
  CHECK(registry.records().front().path == first.path() / "zz-twin.so");
}

TEST_CASE("files that are not ELF shared objects of this machine are refused before dlopen") {
  CapturedLog log;
  TempDir dir;
  write_file(dir.path() / "empty.so", "");
  write_file(dir.path() / "object.so", elf_header(2, 1));
  write_file(dir.path() / "narrow.so", elf_header(1, 3));
  {
    // The section headers sit at the end of the file, so a cut copy keeps a valid header but
    // loses its symbol table.
    std::ifstream good(fixture_dir() / "fixture-good.so", std::ios::binary);
    std::string head(4096, '\0');
    good.read(head.data(), static_cast<std::streamsize>(head.size()));
    write_file(dir.path() / "truncated.so", head);
  }
  std::filesystem::create_symlink(dir.path() / "gone", dir.path() / "dangling.so");
  std::filesystem::create_directory(dir.path() / "folder.so");
  write_file(dir.path() / "README.txt", "not a candidate: wrong extension");

  const auto registry = PluginRegistry::scan({dir.path()}, log.logger());
  CHECK(registry.records().size() == 5);
  CHECK_THAT(refusal_of(registry, "empty.so"), ContainsSubstring("not an ELF shared object"));
  CHECK_THAT(refusal_of(registry, "object.so"),
             ContainsSubstring("an ELF file but not a shared object (ELF type 1)"));
  CHECK_THAT(refusal_of(registry, "narrow.so"), ContainsSubstring("another word size"));
  CHECK_THAT(refusal_of(registry, "truncated.so"),
             ContainsSubstring("its ELF symbol table cannot be read"));
  CHECK_THAT(refusal_of(registry, "dangling.so"), ContainsSubstring("cannot be opened"));
}
