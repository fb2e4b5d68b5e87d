#include "core/daemon/plugin_hosting.hpp"
#include "core/sandbox/policy_from_config.hpp"

namespace errand::daemon {

namespace {

// The missing plugin's reason, followed by what the operator can do about it.
sdk::Error with_advice(sdk::Error missing, std::string_view advice) {
  missing.message += advice;
  return missing;
}

}  // namespace

PluginHost::~PluginHost() {
  stop_all();
}

sdk::Result<const plugins::PluginRecord*> PluginHost::find(std::string_view kind,
                                                           const std::string& plugin_name,
                                                           const std::string& what) const {
  if (const auto* record = context_.registry.find(kind, plugin_name)) return record;
  std::string why = what + " is not available: no loaded " + std::string(kind) +
                    " plugin is named " + plugin_name + ".";
  for (const auto& record : context_.registry.records()) {
    if (record.name == plugin_name && !record.loaded) {
      why += " The loader " + record.refusal;
    }
  }
  return sdk::make_error(std::move(why), sdk::Error::Kind::not_found);
}
sdk::HostServices PluginHost::make_services(const plugins::PluginRecord& record,
                                            const boost::json::object& config) const {
  return sdk::HostServices{.executor = context_.executor,
                           .log = context_.logging.logger(record.name),
                           .secrets = context_.secrets,
                           .receipts = context_.receipts,
                           .clock = context_.clock,
                           .config = config::plugin_view(config, record.config_keys.all()),
                           .plugin_path = record.path,
                           .state_dir = context_.state_dir};
}

const sdk::HostServices& PluginHost::services_for(const plugins::PluginRecord& record,
                                                  const boost::json::object& config) {
  return services_.emplace_back(make_services(record, config));
}

PluginHost::Created PluginHost::create_backend(const std::string& backend,
                                               const boost::json::object& config) {
  const auto record = find("sandbox", "sandbox-" + backend,
                           "the sandbox backend \"" + backend + "\" (sandbox.backend)");
  if (!record) {
    return with_advice(record.error(),
                       " errand never runs a session unsandboxed: install the plugin, or choose "
                       "another sandbox.backend.");
  }
  auto created =
      plugins::create_instance<sdk::SandboxBackend>(**record, services_for(**record, config));
  if (!created) {
    return sdk::make_error(
        "the sandbox backend " + (*record)->name + " could not start: " + created.error().message,
        created.error().kind);
  }
  backend_ = std::move(*created);
  return {};
}

PluginHost::Probed PluginHost::probe_backend_with(const std::string& backend,
                                                  const boost::json::object& config) {
  const auto record = find("sandbox", "sandbox-" + backend,
                           "the sandbox backend \"" + backend + "\" (sandbox.backend)");
  if (!record) return record.error();
  // The instance must not outlive the services it was handed, so both end here.
  const auto services = make_services(**record, config);
  auto created = plugins::create_instance<sdk::SandboxBackend>(**record, services);
  if (!created) {
    return sdk::make_error("the sandbox backend " + (*record)->name +
                               " refused the configuration: " + created.error().message,
                           created.error().kind);
  }
  auto policy = sandbox::policy_from_config(config);
  if (!policy) return policy.error();
  auto report = (*created)->probe(*policy);
  sandbox::note_host_shares(config, *policy, report);
  sandbox::note_inert_requests(*policy, report);
  return report;
}

PluginHost::Created PluginHost::create_broker(const boost::json::object& config) {
  const auto record = find("broker", "broker", "the egress broker (sandbox.egress.mode \"proxy\")");
  if (!record) {
    return with_advice(
        record.error(),
        " Sessions would have no way out but the broker, so errand refuses to start: install "
        "the broker plugin, or set sandbox.egress.mode to \"open\" knowing what that allows.");
  }
  auto created =
      plugins::create_instance<sdk::EgressBroker>(**record, services_for(**record, config));
  if (!created) {
    return sdk::make_error("the egress broker could not start: " + created.error().message,
                           created.error().kind);
  }
  broker_ = std::move(*created);
  broker_file_ = (*record)->path;
  return {};
}

PluginHost::Created PluginHost::create_chat(const std::string& transport,
                                            const boost::json::object& config) {
  const auto record = find("chat", "chat-" + transport,
                           "the chat transport \"" + transport + "\" (chat.transport)");
  if (!record) {
    return with_advice(record.error(), " Install the plugin, or choose another chat.transport.");
  }
  auto created =
      plugins::create_instance<sdk::ChatTransport>(**record, services_for(**record, config));
  if (!created) {
    return sdk::make_error(
        "the chat transport " + (*record)->name + " could not start: " + created.error().message,
        created.error().kind);
  }
  chat_ = std::move(*created);
  return {};
}

void PluginHost::stop_all() noexcept {
  if (chat_) chat_->stop();
  if (broker_) broker_->stop();
}

}  // namespace errand::daemon
