#pragma once

// ERRAND_PLUGIN(Class, "name", "version") turns a class into a loadable plugin. Class derives
// from exactly one of ChatTransport, SandboxBackend or EgressBroker and is constructed from a
// `const HostServices&`; a constructor that throws becomes a refusal with its message. Class
// may provide:
//   static constexpr const char* config_schema = R"({"chat": {"properties": {...}}})";
//   static void validate_config(const boost::json::object& config, ConfigProblems& problems);
//   static constexpr const char* config_reads = R"(["agent.model"])";
// (the keys of other sections it reads: it is handed its own keys and these, nothing else)
// and a sandbox backend, to check what the core decided rather than read sandbox.* itself:
//   static void validate_policy(const SandboxPolicy& policy, ConfigProblems& problems);
// Nothing thrown inside ever crosses the boundary.

#include <errand/sdk/plugin_abi.h>
#include <algorithm>
#include <boost/config.hpp>
#include <boost/json/parse.hpp>
#include <cstring>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/extensions/delegate_calls.hpp>
#include <errand/sdk/extensions/image_kage_catalog.hpp>
#include <errand/sdk/extensions/kept_sandboxes.hpp>
#include <errand/sdk/extensions/session_notices.hpp>
#include <errand/sdk/extensions/usage_refresh.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <errand/sdk/toolchain.hpp>
#include <exception>
#include <string_view>
#include <type_traits>

namespace errand::sdk::detail {

template <class T>
struct PluginTraits {
  static constexpr int interfaces = int(std::is_base_of_v<ChatTransport, T>) +
                                    int(std::is_base_of_v<SandboxBackend, T>) +
                                    int(std::is_base_of_v<EgressBroker, T>);
  static_assert(interfaces == 1,
                "a plugin class implements exactly one of ChatTransport, SandboxBackend, "
                "EgressBroker");
  using Interface = std::conditional_t<
      std::is_base_of_v<ChatTransport, T>, ChatTransport,
      std::conditional_t<std::is_base_of_v<SandboxBackend, T>, SandboxBackend, EgressBroker>>;
  static constexpr const char* kind = Interface::kind;
};

inline void copy_error(char* out, std::size_t len, std::string_view message) noexcept {
  if (out == nullptr || len == 0) return;
  const std::size_t n = std::min(len - 1, message.size());
  std::memcpy(out, message.data(), n);
  out[n] = '\0';
}

template <class T>
void* create(const void* services, char* error, std::size_t error_len) noexcept {
  using Interface = typename PluginTraits<T>::Interface;
  try {
    auto* instance = new T(*static_cast<const HostServices*>(services));
    return static_cast<void*>(static_cast<Interface*>(instance));
  } catch (const std::exception& e) {
    copy_error(error, error_len, e.what());
  } catch (...) {
    copy_error(error, error_len, "the plugin failed to start for an unknown reason");
  }
  return nullptr;
}

template <class T>
void destroy(void* instance) noexcept {
  using Interface = typename PluginTraits<T>::Interface;
  try {
    delete static_cast<Interface*>(instance);
  } catch (...) {
  }
}

template <class T>
constexpr const char* schema_of() {
  if constexpr (requires { T::config_schema; }) {
    return T::config_schema;
  } else {
    return nullptr;
  }
}

// Runs a validator's checks and hands each problem across the C boundary; nothing thrown inside
// crosses it. Returns the number of problems reported.
template <class Checks>
int report_problems(Checks checks, errand_problem_fn report, void* ctx) noexcept {
  try {
    ConfigProblems problems;
    checks(problems);
    for (const auto& p : problems.all()) report(ctx, p.path.c_str(), p.message.c_str());
    return static_cast<int>(problems.all().size());
  } catch (const std::exception& e) {
    report(ctx, "", e.what());
  } catch (...) {
    report(ctx, "", "the plugin's validator failed for an unknown reason");
  }
  return 1;
}

template <class T>
constexpr const char* reads_of() {
  if constexpr (requires { T::config_reads; }) {
    return T::config_reads;
  } else {
    return nullptr;
  }
}

template <class T>
int validate(const char* config_json, errand_problem_fn report, void* ctx) noexcept {
  return report_problems(
      [config_json](ConfigProblems& problems) {
        const auto parsed = boost::json::parse(config_json);
        if (parsed.is_object()) T::validate_config(parsed.as_object(), problems);
      },
      report, ctx);
}

template <class T>
constexpr auto validator_of() -> int (*)(const char*, errand_problem_fn, void*) {
  if constexpr (requires(const boost::json::object& c, ConfigProblems& p) {
                  T::validate_config(c, p);
                }) {
    return &validate<T>;
  } else {
    return nullptr;
  }
}

template <class T>
int validate_policy(const void* policy, errand_problem_fn report, void* ctx) noexcept {
  return report_problems(
      [policy](ConfigProblems& problems) {
        T::validate_policy(*static_cast<const SandboxPolicy*>(policy), problems);
      },
      report, ctx);
}

template <class T>
constexpr auto policy_validator_of() -> int (*)(const void*, errand_problem_fn, void*) {
  if constexpr (requires(const SandboxPolicy& policy, ConfigProblems& p) {
                  T::validate_policy(policy, p);
                }) {
    return &validate_policy<T>;
  } else {
    return nullptr;
  }
}

}  // namespace errand::sdk::detail

#define ERRAND_PLUGIN(Class, Name, Version)                                                 \
  extern "C" BOOST_SYMBOL_EXPORT const errand_plugin_entry_v1_t* errand_plugin_entry_v1() { \
    static const errand_plugin_entry_v1_t entry = {                                         \
        sizeof(errand_plugin_entry_v1_t),                                                   \
        ERRAND_ABI_MAJOR,                                                                   \
        ERRAND_ABI_MINOR,                                                                   \
        Name,                                                                               \
        ::errand::sdk::detail::PluginTraits<Class>::kind,                                   \
        Version,                                                                            \
        ERRAND_TOOLCHAIN_ID,                                                                \
        &::errand::sdk::detail::create<Class>,                                              \
        &::errand::sdk::detail::destroy<Class>,                                             \
        ::errand::sdk::detail::schema_of<Class>(),                                          \
        ::errand::sdk::detail::validator_of<Class>(),                                       \
        ::errand::sdk::detail::policy_validator_of<Class>(),                                \
        ::errand::sdk::detail::reads_of<Class>(),                                           \
    };                                                                                      \
    return &entry;                                                                          \
  }
