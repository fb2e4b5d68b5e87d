#pragma once

// What the host hands every plugin instance. The host owns all of it, and it outlives the
// instance it was given to. The functions declared here are defined in the SDK's static
// library (errand::sdk), which every plugin links.

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace errand::sdk {

// Time as the host sees it. Tests inject a clock they move by hand.
class BOOST_SYMBOL_VISIBLE Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::system_clock::time_point now() const noexcept = 0;
  virtual std::chrono::steady_clock::time_point steady_now() const noexcept = 0;
};

// The one door every outbound text passes through: configured secrets of 8 bytes or more and
// every stand-in a broker minted become "[redacted]".
class BOOST_SYMBOL_VISIBLE Secrets {
 public:
  virtual ~Secrets() = default;
  virtual std::string scrub(std::string_view text) const = 0;
  // True when bytes hold any secret; an upload holding one is refused whole, never scrubbed.
  virtual bool contains_secret(std::string_view bytes) const = 0;
  // Adds a value minted at run time (a proxy credential, a stand-in) to what is scrubbed.
  virtual void add(std::string_view value) = 0;
  virtual void remove(std::string_view value) = 0;
};

// One provider call handled by a session's broker. Never a header, body, credential or stand-in.
struct ProviderReceipt {
  enum class Outcome { completed, interrupted, denied, refused, upstream_unreachable };
  std::chrono::system_clock::time_point ended_at;
  std::string session_id;
  std::string provider;
  std::string credential_name;  // the variable the credential is configured under
  std::string host;
  std::string method;  // a standard method name only
  std::string path;    // decoded, scrubbed, cut at the query and at 256 bytes, controls escaped
  std::uint64_t query_length = 0;
  int status = 0;  // 0 when no answer was relayed
  std::chrono::milliseconds duration{0};
  std::uint64_t bytes_up = 0;
  std::uint64_t bytes_down = 0;
  Outcome outcome = Outcome::completed;
  // For "denied" rows written under the once-a-minute rule: how many went unrecorded before it.
  std::uint64_t unrecorded_denials = 0;
};

// A method as a receipt keeps it: GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE or
// PATCH exactly as written, anything else "OTHER", so a method cannot smuggle text into the
// receipts. Shared so the broker that fills a receipt and the host that stores it agree.
std::string receipt_method(std::string_view method);

const char* to_string(ProviderReceipt::Outcome outcome) noexcept;

// Where receipts go. Recording must never fail the call it describes: an implementation logs
// its own failures and returns.
class BOOST_SYMBOL_VISIBLE ReceiptSink {
 public:
  virtual ~ReceiptSink() = default;
  virtual void record(const ProviderReceipt& receipt) noexcept = 0;
};

// Grows at its end in a minor version: errand makes it and hands it whole to a plugin
// (docs/plugins.md, "Growing a structure").
struct HostServices {
  // The plugin's strands live on this executor; blocking work goes elsewhere.
  boost::asio::any_io_executor executor;
  // Named after the plugin; its sinks scrub every secret before anything is written.
  std::shared_ptr<spdlog::logger> log;
  // References, not pointers: a plugin never meets a host without a scrubbing door, a place
  // for receipts or a clock, so there is no weaker fallback for it to take.
  Secrets& secrets;
  ReceiptSink& receipts;
  const Clock& clock;
  // The plugin's part of the effective configuration, validated and with defaults filled in:
  // the keys its config_schema adds and those its config_reads names, at their usual dotted
  // paths, and nothing else (no other plugin's keys, no secret it does not read).
  boost::json::object config;
  // The .so this instance came from: helpers a plugin ships (a launcher, a relay) live beside it.
  std::filesystem::path plugin_path;
  // The daemon's state directory, already created.
  std::filesystem::path state_dir;
};

}  // namespace errand::sdk
