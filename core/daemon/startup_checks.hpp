#pragma once

// Checks the daemon makes once, when it starts, about the host it runs on and what sessions
// could reach from it; the configuration checks proper run on every load (core/config).

#include <spdlog/logger.h>
#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/agent/kage_catalog.hpp"
#include "core/agent/kage_catalog_source.hpp"

namespace errand::daemon {

// A refusal when sessions would reach nothing at all through the broker: network "restricted",
// egress mode "proxy", an empty sandbox.egress.allow, and no brokered provider whose route the
// broker would add (kind refused); fine when sessions can reach something.
sdk::Result<void> refuse_empty_egress(const boost::json::object& effective);

// One warning for each brokered provider whose baseUrl names a host this host's resolver cannot
// resolve: the broker resolves provider hosts here, so every call would fail with 502.
std::vector<std::string> unresolved_provider_warnings(const boost::json::object& effective);

// With agent.kind "kage": learns which providers kage knows (from the backend's image when the
// agent lives there, else by asking the host's kage) and checks the configuration against that
// answer, so a kage that is missing or too old, or a provider it cannot be told about, stops the
// start rather than the first session. nullopt for any other agent. The error is the sentence
// the daemon refuses with.
sdk::Result<std::optional<agent::KageCatalog>> kage_catalog_at_start(
    const boost::json::object& effective, agent::ImageKage image,
    std::shared_ptr<spdlog::logger> log);

}  // namespace errand::daemon
