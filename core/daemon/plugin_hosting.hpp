#pragma once

#include "core/log/logging.hpp"
#include "core/plugins/instance.hpp"
#include "core/plugins/registry.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <list>
#include <string>

namespace errand::daemon {

// Creates the daemon's plugin instances and owns the HostServices each was given, which must
// outlive the instance. A plugin that is missing or was refused is an error naming why; there
// is never a fallback to something weaker.
class PluginHost {
 public:
  struct Context {
    boost::asio::any_io_executor executor;
    log::Logging& logging;
    sdk::Secrets& secrets;
    const sdk::Clock& clock;
    const plugins::PluginRegistry& registry;
    std::filesystem::path state_dir;
    sdk::ReceiptSink& receipts;
  };

  explicit PluginHost(Context context) : context_(std::move(context)) {}
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;
  ~PluginHost();

  using Created = sdk::Result<void>;
  Created create_backend(const std::string& backend, const boost::json::object& config);
  Created create_broker(const boost::json::object& config);
  Created create_chat(const std::string& transport, const boost::json::object& config);

  // What the backend would report for another configuration: a second instance of the same
  // plugin is created with it, probed and dropped, while the serving instance is left alone.
  using Probed = sdk::Result<sdk::EnforcementReport>;
  Probed probe_backend_with(const std::string& backend, const boost::json::object& config);

  sdk::SandboxBackend* backend() const noexcept { return backend_.get(); }
  sdk::EgressBroker* broker() const noexcept { return broker_.get(); }
  // The file the broker was loaded from; empty when there is no broker.
  const std::filesystem::path& broker_file() const noexcept { return broker_file_; }
  sdk::ChatTransport* chat() const noexcept { return chat_.get(); }

  // Stops the chat transport first (nothing new arrives), then the broker.
  void stop_all() noexcept;

 private:
  // The loaded plugin, or (kind not_found) why there is none, naming `what` it would have been.
  sdk::Result<const plugins::PluginRecord*> find(std::string_view kind,
                                                 const std::string& plugin_name,
                                                 const std::string& what) const;
  sdk::HostServices make_services(const plugins::PluginRecord& record,
                                  const boost::json::object& config) const;
  const sdk::HostServices& services_for(const plugins::PluginRecord& record,
                                        const boost::json::object& config);

  Context context_;
  std::list<sdk::HostServices> services_;  // stable addresses for the instances' lifetime
  plugins::InstanceHandle<sdk::ChatTransport> chat_;
  plugins::InstanceHandle<sdk::EgressBroker> broker_;
  std::filesystem::path broker_file_;
  plugins::InstanceHandle<sdk::SandboxBackend> backend_;
};

}  // namespace errand::daemon
