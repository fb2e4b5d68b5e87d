#include <dlfcn.h>

#include <errand/sdk/plugin_abi.h>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <errand/sdk/host_services.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/host_parts.hpp"
#include "tests/support/test_paths.hpp"

namespace {

const errand_plugin_entry_v1_t* load_entry() {
  const auto path = errand::test::build_path("plugins/chat-discord.so");
  REQUIRE(std::filesystem::exists(path));
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO(dlerror());
  REQUIRE(handle != nullptr);
  auto entry = reinterpret_cast<errand_plugin_entry_fn>(dlsym(handle, ERRAND_PLUGIN_ENTRY_SYMBOL));
  REQUIRE(entry != nullptr);
  return entry();
}

void collect(void* ctx, const char* path, const char* message) {
  static_cast<std::vector<std::string>*>(ctx)->push_back(std::string(path) + ": " + message);
}

}  // namespace

TEST_CASE("the plugin module describes itself as the chat transport chat-discord") {
  const auto* entry = load_entry();
  CHECK(std::string(entry->name) == "chat-discord");
  CHECK(std::string(entry->kind) == "chat");
  CHECK(entry->abi_major == ERRAND_ABI_MAJOR);
  REQUIRE(entry->config_schema != nullptr);
  const auto schema = boost::json::parse(entry->config_schema);
  const auto& properties = schema.at("chat").at("properties").as_object();
  CHECK(properties.contains("apiBase"));
  CHECK(properties.contains("gatewayUrl"));
  CHECK(properties.contains("guildId"));
}

TEST_CASE("the module validates its keys and refuses to start on a bad configuration") {
  const auto* entry = load_entry();
  REQUIRE(entry->validate_config != nullptr);
  std::vector<std::string> problems;
  const auto bad =
      R"({"chat":{"token":"0123456789","channelId":"1","apiBase":"http://example.com/api"}})";
  CHECK(entry->validate_config(bad, &collect, &problems) == 1);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].rfind("chat.apiBase: ", 0) == 0);

  errand::test::HostParts host;
  boost::asio::io_context io;
  const auto services =
      host.services(io.get_executor(), nullptr, boost::json::parse(bad).as_object());
  char error[512] = {};
  void* instance = entry->create(&services, error, sizeof error);
  CHECK(instance == nullptr);
  CHECK(std::string(error).find("chat.apiBase") != std::string::npos);
}
