#pragma once

// What a broker is made from: the providers and broker.* read once from the effective
// configuration, and for each session the egress its spec carries (the core's SandboxPolicy;
// the broker reads no sandbox.* key). A session keeps the settings it was opened with.

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/address_ranges.hpp"
#include "plugins/broker/admission/capabilities.hpp"
#include "plugins/broker/admission/host_names.hpp"

namespace errand::broker {

using common::AddressRange;

enum class Placement { bearer, x_api_key, either };

// The API a provider speaks, for the calls the broker makes itself (delegate questions, usage
// probes): its kind, or without one the header its key travels in.
enum class Dialect { unknown, anthropic, openai };

const char* placement_header(Placement placement);

struct ProviderUpstream {
  bool tls = true;
  std::string host;  // normalised; an IPv6 literal without brackets
  bool host_is_literal = false;
  std::uint16_t port = 443;
  std::string base_path;  // without a trailing '/'; empty for the root
};

// Below this a key is not scrubbed from answers: so short a string would match ordinary text.
// The same floor as the core's scrubbing door.
inline constexpr std::size_t kShortestScrubbedKey = 8;

struct ProviderSettings {
  std::string name;
  std::string credential;
  std::string credential_name;
  Placement placement = Placement::either;
  Dialect dialect = Dialect::unknown;
  std::optional<CapabilityList> capabilities;  // absent: forward everything, log each call
  bool strict = false;
  std::size_t max_concurrent = 4;
  std::string base_url;
  // Set when the base URL can be called; otherwise refusal says why every call is refused.
  std::optional<ProviderUpstream> upstream;
  std::string refusal;
};

// agent.delegate, read once at start: which provider and model a session's delegate questions
// go to, and how long one may take.
struct DelegateSettings {
  std::string provider;                       // agent.provider
  std::string model;                          // agent.delegate.model
  std::chrono::milliseconds deadline{60000};  // agent.delegate.deadlineMs
};

struct BrokerSettings {
  // From the session's spec (settings_for_session); empty in the broker-wide settings.
  std::vector<std::uint16_t> egress_ports;
  HostAllowlist allow;
  // sandbox.egress.allowInternal: internal addresses the address rule lets through.
  std::vector<AddressRange> allow_internal;
  std::map<std::string, ProviderSettings> providers;  // brokered providers only
  std::optional<std::filesystem::path> ca_file;       // broker.caFile
  std::optional<DelegateSettings> delegate;           // absent without agent.delegate
  std::string start_model;  // agent.model; empty when the provider's default is used
  std::uint64_t max_answer_bytes = 64ull << 20;
  std::chrono::milliseconds lookup_deadline{5000};
  std::chrono::milliseconds dial_deadline{10000};
  // How long a connection may take to send a request head, the first or the next on a
  // kept-alive connection: one that sends nothing holds a descriptor of the daemon's for no one.
  std::chrono::milliseconds head_deadline{60000};

  bool port_allowed(std::uint16_t port) const;
  std::string ports_text() const;
};

// The providers and broker.* keys; each provider's plain http:// base URL waits for a session's
// ranges to be judged.
sdk::Result<BrokerSettings> read_settings(const boost::json::object& config);

// agent.delegate with agent.provider; nothing when agent.delegate is absent.
sdk::Result<std::optional<DelegateSettings>> read_delegate_settings(
    const boost::json::object& config);

// The broker's settings with one session's egress: its ports, allowlist and internal ranges,
// and each plain http:// provider refused unless its loopback literal is in those ranges.
sdk::Result<BrokerSettings> settings_for_session(const BrokerSettings& broker,
                                                 const sdk::BrokerSessionSpec& spec);

}  // namespace errand::broker
