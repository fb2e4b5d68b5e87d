#pragma once

// What the host's kage knows: the providers (and their models) it answers _kage/models/list
// with. The daemon asks when it starts (and a kage that cannot answer stops the start); the kage
// glue uses the answer to tell a provider kage already knows (written as an override of its
// endpoint) from one it must be told about.

#include "core/agent/host_process.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::agent {

struct KageModel {
  std::string id;
  std::string name;
  std::optional<std::uint64_t> context;
  // What the catalog prices a million tokens at, in US dollars, when it does.
  std::optional<double> input_cost;
  std::optional<double> output_cost;
};

struct KageProvider {
  std::string id;
  std::string name;
  std::vector<KageModel> models;
};

struct KageCatalog {
  std::vector<KageProvider> providers;
  bool knows(std::string_view provider_id) const;
};

sdk::Result<KageCatalog> parse_kage_models_list(const boost::json::value& result);

struct KageDiscoveryOptions {
  // The command that runs kage's ACP server on the host (agent.command for kage; tests point
  // it at the fake agent).
  std::vector<std::string> argv{"kage", "rpc"};
  // Built from nothing: minimal_host_environment() plus KAGE_HOME in a scratch directory, so
  // kage answers from its own built-ins rather than an operator's personal configuration.
  // Empty: a private temporary directory is made for the question and removed after it.
  EnvironmentList environment;
  std::filesystem::path working_dir;
  // For initialize and for _kage/models/list each.
  std::chrono::milliseconds timeout{15000};
};

// The options for the kage the configuration names: agent.command when it is written, else
// `kage rpc`.
KageDiscoveryOptions kage_discovery_options(const boost::json::object& config);

// The environment discover_kage_providers uses when options.environment is empty.
EnvironmentList kage_discovery_environment(const std::filesystem::path& scratch_dir);

// Runs kage on the host, asks it, stops it. Every error is a sentence the daemon prints before
// refusing to start: kage missing, not speaking ACP, or too old to answer _kage/models/list.
boost::asio::awaitable<sdk::Result<KageCatalog>> discover_kage_providers(
    boost::asio::any_io_executor strand, KageDiscoveryOptions options,
    std::shared_ptr<spdlog::logger> log);

}  // namespace errand::agent
