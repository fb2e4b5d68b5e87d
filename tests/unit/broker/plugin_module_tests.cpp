#include <dlfcn.h>

#include <catch2/catch_test_macros.hpp>

#include <errand/sdk/plugin_abi.h>
#include <boost/json/parse.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "plugins/broker/broker.hpp"
#include "tests/support/test_paths.hpp"

TEST_CASE("broker.so exports one entry describing a broker plugin", "[plugin]") {
  const auto path = errand::test::build_path("plugins/broker.so");
  REQUIRE(std::filesystem::exists(path));
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO((handle ? "" : ::dlerror()));
  REQUIRE(handle != nullptr);
  const auto entry =
      reinterpret_cast<errand_plugin_entry_fn>(::dlsym(handle, ERRAND_PLUGIN_ENTRY_SYMBOL));
  REQUIRE(entry != nullptr);
  const auto* descriptor = entry();
  CHECK(descriptor->struct_size == sizeof(errand_plugin_entry_v1_t));
  CHECK(std::string(descriptor->name) == "broker");
  CHECK(std::string(descriptor->kind) == "broker");
  CHECK(descriptor->abi_major == ERRAND_ABI_MAJOR);
  REQUIRE(descriptor->config_schema != nullptr);
  const auto schema = boost::json::parse(descriptor->config_schema);
  CHECK(schema.at("broker").at("properties").as_object().contains("caFile"));
  REQUIRE(descriptor->validate_config != nullptr);
  int problems = 0;
  const auto count = [](void* ctx, const char*, const char*) { ++*static_cast<int*>(ctx); };
  CHECK(descriptor->validate_config(R"({"broker": {"caFile": "relative.pem"}})", count,
                                    &problems) == 1);
  CHECK(problems == 1);
  // Nothing but the entry is exported.
  CHECK(::dlsym(handle, "_ZN6errand6broker13judge_addressERKN5boost4asio2ip7addressE") == nullptr);
}

TEST_CASE("the plugin's validator reports provider settings it cannot use", "[plugin]") {
  errand::sdk::ConfigProblems problems;
  errand::broker::Broker::validate_config(
      boost::json::parse(R"({"agent": {"providers": {"p": {"credential": "k1234567",
        "kind": "openai", "strictCapabilities": true}}}})")
          .as_object(),
      problems);
  REQUIRE(problems.all().size() == 1);
  CHECK(problems.all()[0].message.find("strictCapabilities") != std::string::npos);
}
