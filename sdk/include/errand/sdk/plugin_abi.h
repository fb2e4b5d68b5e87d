/* The C boundary between the errand host and a plugin shared object.
 *
 * A plugin exports exactly one symbol, errand_plugin_entry_v1, returning a pointer to a static
 * descriptor. The host reads that symbol from the ELF before it ever calls dlopen, then checks
 * struct_size, the ABI version and the toolchain id before it trusts anything else in the
 * descriptor. The version is the contract for every SDK type a plugin shares with the host:
 * growth a plugin built before it cannot notice (a descriptor field, a virtual function or a
 * member of a structure the host makes and hands whole to a plugin appended, a new type) bumps
 * ERRAND_ABI_MINOR; anything else that changes a layout, a signature or a vtable bumps
 * ERRAND_ABI_MAJOR and resets the minor (tests/abi/growable-types.abignore names the structures
 * that may grow). CI checks the headers
 * against the committed baseline for this version (tests/abi, docs/plugins.md).
 *   1.0  the descriptor, ChatTransport, SandboxBackend, EgressBroker
 *   1.1  BrokerEvents::on_provider_usage
 *   1.2  LaunchSpec::listen_ports, LaunchSpec::disk_inodes
 *   2.0  SandboxPolicy, decided by the core and handed to probe() and launch() in LaunchSpec;
 *        EnforcementReport::capabilities; HostServices holds references to Secrets,
 *        ReceiptSink and Clock; EgressBroker::start(BrokerEvents&) replaces
 *        set_events(BrokerEvents*)
 *   3.0  BrokerSessionSpec carries the session's egress ports, allowlist and internal ranges;
 *        the descriptor's validate_policy hands a sandbox backend the core's SandboxPolicy;
 *        SandboxBackend::image_kage_providers
 *   4.0  LaunchSpec::tools_dir; DelegateReport, BrokerEvents::admit_delegate and
 *        on_delegate_finished; EgressBroker::refresh_usage
 *   5.0  BrokerSessionSpec::owner_id
 *   6.0  extensions: PluginInstance and BrokerEvents answer extension(name); what only some
 *        plugins or hosts do moves out of the base interfaces into one (image_kage_providers
 *        to ImageKageCatalog, refresh_usage to UsageRefresh, admit_delegate and
 *        on_delegate_finished with DelegateReport to DelegateCalls); the descriptor's
 *        config_reads, and each plugin is handed only its own keys and those it reads
 *   6.1  the SessionNotices extension (a sandbox backend's sentences for a running session's
 *        thread)
 *   6.2  LaunchSpec::keep_key and the KeptSandboxes extension (a session's sandbox kept,
 *        stopped, for its thread's next session) */
#ifndef ERRAND_SDK_PLUGIN_ABI_H
#define ERRAND_SDK_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#define ERRAND_ABI_MAJOR 6
#define ERRAND_ABI_MINOR 2
#define ERRAND_PLUGIN_ENTRY_SYMBOL "errand_plugin_entry_v1"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives one configuration problem found by a plugin's validator: a dotted path to the field
 * and a sentence saying what is wrong and what to do. */
typedef void (*errand_problem_fn)(void* ctx, const char* path, const char* message);

typedef struct errand_plugin_entry_v1_t {
  uint32_t struct_size;     /* sizeof the descriptor the plugin was built with */
  uint16_t abi_major;       /* must equal the host's */
  uint16_t abi_minor;       /* must not be newer than the host's */
  const char* name;         /* unique among loaded plugins, e.g. "chat-discord" */
  const char* kind;         /* "chat" | "sandbox" | "broker" */
  const char* version;      /* the plugin's own version, e.g. "0.1.0" */
  const char* toolchain_id; /* must equal the host's byte for byte */

  /* Creates an instance. host_services points at an errand::sdk::HostServices that outlives
   * the instance. Returns the kind's interface pointer (ChatTransport*, SandboxBackend*,
   * EgressBroker*) as void*, or NULL with a sentence in error. Never throws. */
  void* (*create)(const void* host_services, char* error, size_t error_len);
  /* Destroys what create returned. Never throws. */
  void (*destroy)(void* instance);

  /* JSON object mapping dotted configuration sections to JSON-schema fragments whose
   * "properties" the host merges into its own schema; NULL when the plugin reads no keys of
   * its own. */
  const char* config_schema;
  /* Semantic checks the schema cannot express, over the plugin's part of the effective
   * configuration (see config_reads) as JSON. Reports every problem through report; returns
   * the number reported. NULL when none. */
  int (*validate_config)(const char* config_json, errand_problem_fn report, void* ctx);
  /* ABI 3.0. A sandbox backend's checks of the policy the core built from the configuration:
   * sandbox_policy points at an errand::sdk::SandboxPolicy, passed only to the backend
   * sandbox.backend chooses and only when the policy could be built (the core reports why it
   * could not). Same reporting as validate_config. NULL when none. */
  int (*validate_policy)(const void* sandbox_policy, errand_problem_fn report, void* ctx);
  /* ABI 6.0. A JSON array of the dotted keys outside its own config_schema the plugin reads,
   * such as "agent.model"; NULL when none. The configuration a plugin is handed (the
   * HostServices config, and validate_config's) holds its own keys and these, at their usual
   * paths, and nothing else. */
  const char* config_reads;
} errand_plugin_entry_v1_t;

typedef const errand_plugin_entry_v1_t* (*errand_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
