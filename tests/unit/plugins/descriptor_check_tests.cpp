#include "core/plugins/descriptor_check.hpp"
#include "tests/unit/plugins/plugin_test_support.hpp"

#include <errand/sdk/toolchain.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstring>
#include <string>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::plugins::check_descriptor;
using errand::plugins::normalise_descriptor;
using errand::plugins::testing::newer_sdk_refusal;
using errand::plugins::testing::wrong_major_refusal;

namespace {

void* create_nothing(const void*, char*, std::size_t) {
  return nullptr;
}
void destroy_nothing(void*) {}
int validate_nothing(const char*, errand_problem_fn, void*) {
  return 0;
}

errand_plugin_entry_v1_t acceptable() {
  return {sizeof(errand_plugin_entry_v1_t),
          ERRAND_ABI_MAJOR,
          ERRAND_ABI_MINOR,
          "sandbox-test",
          "sandbox",
          "1.2.3",
          ERRAND_TOOLCHAIN_ID,
          &create_nothing,
          &destroy_nothing,
          "{}",
          &validate_nothing,
          nullptr,
          nullptr};
}

const std::filesystem::path kFile = "/plugins/sandbox-test.so";

}  // namespace

TEST_CASE("a descriptor as ERRAND_PLUGIN emits it is accepted") {
  CHECK(check_descriptor(normalise_descriptor(acceptable()), kFile).has_value());
}

TEST_CASE("the ABI 1.0 descriptor ends after validate_config") {
  // 1.0's fields keep their places; ABI 3.0 appended validate_policy, which every 3.x has.
  CHECK(offsetof(errand_plugin_entry_v1_t, validate_config) +
            sizeof(errand_plugin_entry_v1_t::validate_config) ==
        offsetof(errand_plugin_entry_v1_t, validate_policy));
  CHECK(errand::plugins::kDescriptorMajorSize == sizeof(errand_plugin_entry_v1_t));
  CHECK(errand::plugins::kDescriptorHeaderSize == 8);
}

TEST_CASE("a different abi_major is refused, naming both versions") {
  auto d = acceptable();
  d.abi_major = ERRAND_ABI_MAJOR + 1;
  const auto refusal = check_descriptor(d, kFile).error().message;
  CHECK_THAT(refusal, StartsWith("refused /plugins/sandbox-test.so: " + wrong_major_refusal()));
  CHECK_THAT(refusal, ContainsSubstring("rebuild"));
}

TEST_CASE("a newer abi_minor is refused as a newer SDK") {
  auto d = acceptable();
  d.abi_minor = ERRAND_ABI_MINOR + 3;
  CHECK_THAT(check_descriptor(d, kFile).error().message,
             ContainsSubstring(newer_sdk_refusal(ERRAND_ABI_MINOR + 3)));
}

TEST_CASE("a descriptor smaller than ABI 1.0's is refused by struct_size") {
  auto d = acceptable();
  d.struct_size = static_cast<std::uint32_t>(offsetof(errand_plugin_entry_v1_t, destroy));
  const auto refusal = check_descriptor(normalise_descriptor(d), kFile).error().message;
  CHECK_THAT(refusal, ContainsSubstring("struct_size is 48 bytes"));
  CHECK_THAT(refusal,
             ContainsSubstring("smaller than the " +
                               std::to_string(sizeof(errand_plugin_entry_v1_t)) + " bytes"));
}

TEST_CASE("a descriptor too small to hold its version is refused before anything is read") {
  auto d = acceptable();
  d.struct_size = 4;
  const auto normal = normalise_descriptor(d);
  CHECK(normal.abi_major == 0);
  CHECK_THAT(check_descriptor(normal, kFile).error().message,
             ContainsSubstring("declares 4 bytes"));
}

TEST_CASE("a different toolchain_id is refused, quoting both ids") {
  auto d = acceptable();
  d.toolchain_id = "compiler 1.0; nothing like this host";
  const auto refusal = check_descriptor(d, kFile).error().message;
  CHECK_THAT(refusal, ContainsSubstring("toolchain_id \"compiler 1.0; nothing like this host\""));
  CHECK_THAT(refusal, ContainsSubstring(std::string("\"") + ERRAND_TOOLCHAIN_ID + "\""));
  CHECK_THAT(check_descriptor(acceptable(), kFile, "another host id").error().message,
             ContainsSubstring("differs from this errand's \"another host id\""));
}

TEST_CASE("an unknown or missing kind is refused") {
  auto d = acceptable();
  d.kind = "printer";
  CHECK_THAT(check_descriptor(d, kFile).error().message,
             ContainsSubstring("its kind \"printer\" is none of"));
  d.kind = nullptr;
  CHECK_THAT(check_descriptor(d, kFile).error().message,
             ContainsSubstring("its kind \"\" is none of"));
}

TEST_CASE("an empty or missing name is refused") {
  auto d = acceptable();
  d.name = "";
  CHECK_THAT(check_descriptor(d, kFile).error().message, ContainsSubstring("empty name"));
  d.name = nullptr;
  CHECK_THAT(check_descriptor(d, kFile).error().message, ContainsSubstring("empty name"));
}

TEST_CASE("a descriptor without create or destroy is refused") {
  auto d = acceptable();
  d.create = nullptr;
  CHECK_THAT(check_descriptor(d, kFile).error().message, ContainsSubstring("no create or destroy"));
  d = acceptable();
  d.destroy = nullptr;
  CHECK_THAT(check_descriptor(d, kFile).error().message, ContainsSubstring("no create or destroy"));
}

TEST_CASE("the host reads no further than the plugin's struct_size") {
  // A plugin built before a field existed: the bytes after its struct_size belong to something
  // else and must read as absent.
  std::vector<unsigned char> memory(sizeof(errand_plugin_entry_v1_t), 0xAB);
  auto d = acceptable();
  d.struct_size = static_cast<std::uint32_t>(offsetof(errand_plugin_entry_v1_t, config_schema));
  std::memcpy(memory.data(), &d, d.struct_size);
  const auto normal =
      normalise_descriptor(*reinterpret_cast<const errand_plugin_entry_v1_t*>(memory.data()));
  CHECK(normal.struct_size == d.struct_size);
  CHECK(normal.create == &create_nothing);
  CHECK(normal.destroy == &destroy_nothing);
  CHECK(normal.config_schema == nullptr);
  CHECK(normal.validate_config == nullptr);
}

TEST_CASE("the host never reads past its own descriptor, however large the declared size") {
  auto d = acceptable();
  d.struct_size = sizeof(errand_plugin_entry_v1_t) + 64;
  const auto normal = normalise_descriptor(d);
  CHECK(normal.validate_config == &validate_nothing);
  CHECK(check_descriptor(normal, kFile).has_value());
}

TEST_CASE("the known kinds are chat, sandbox and broker") {
  CHECK(errand::plugins::is_known_kind("chat"));
  CHECK(errand::plugins::is_known_kind("sandbox"));
  CHECK(errand::plugins::is_known_kind("broker"));
  CHECK_FALSE(errand::plugins::is_known_kind("Sandbox"));
  CHECK_FALSE(errand::plugins::is_known_kind(""));
}
