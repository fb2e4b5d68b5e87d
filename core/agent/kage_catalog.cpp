#include "core/agent/kage_catalog.hpp"
#include "core/agent/model_price.hpp"
#include "core/config/string_settings.hpp"

#include "core/agent/acp_client.hpp"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdlib>
#include <errand/sdk/config_values.hpp>
#include <numeric>
#include <optional>
#include <system_error>

namespace errand::agent {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// A private, empty HOME for the kage asked at start-up, removed afterwards.
struct ScratchDirectory {
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "errand-kage-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  std::filesystem::path path;
};

std::string command_text(const std::vector<std::string>& argv) {
  return std::accumulate(std::next(argv.begin()), argv.end(), argv.front(),
                         [](std::string a, const std::string& b) { return a + " " + b; });
}

}  // namespace

bool KageCatalog::knows(std::string_view provider_id) const {
  return std::any_of(providers.begin(), providers.end(),
                     [&](const KageProvider& p) { return p.id == provider_id; });
}

sdk::Result<KageCatalog> parse_kage_models_list(const json::value& result) {
  const json::array* providers = nullptr;
  if (result.is_object())
    if (const auto* list = result.as_object().if_contains("providers"); list && list->is_array())
      providers = &list->as_array();
  if (providers == nullptr)
    return sdk::make_error("kage's answer to _kage/models/list has no \"providers\" list");
  KageCatalog catalog;
  for (const auto& entry : *providers) {
    if (!entry.is_object()) continue;
    const auto& p = entry.as_object();
    KageProvider provider{config::string_member(p, "id"), config::string_member(p, "name"), {}};
    if (provider.id.empty()) continue;
    if (const auto* models = p.if_contains("models"); models && models->is_array()) {
      for (const auto& m : models->as_array()) {
        if (!m.is_object()) continue;
        KageModel model;
        model.id = config::string_member(m.as_object(), "id");
        model.name = config::string_member(m.as_object(), "name");
        if (const auto* context = m.as_object().if_contains("context");
            context && (context->is_uint64() || (context->is_int64() && context->as_int64() > 0)))
          model.context = context->to_number<std::uint64_t>();
        model.input_cost = price_per_million(m.as_object(), "inputCost");
        model.output_cost = price_per_million(m.as_object(), "outputCost");
        if (!model.id.empty()) provider.models.push_back(std::move(model));
      }
    }
    catalog.providers.push_back(std::move(provider));
  }
  return catalog;
}

KageDiscoveryOptions kage_discovery_options(const json::object& config) {
  KageDiscoveryOptions options;
  if (const auto* command = sdk::find_setting(config, "agent.command");
      command != nullptr && command->is_array() && !command->as_array().empty()) {
    options.argv.clear();
    for (const auto& arg : command->as_array())
      if (arg.is_string()) options.argv.emplace_back(arg.as_string());
  }
  return options;
}

EnvironmentList kage_discovery_environment(const std::filesystem::path& scratch_dir) {
  auto env = minimal_host_environment(scratch_dir);
  env.emplace_back("KAGE_HOME", (scratch_dir / "kage").string());
  return env;
}

asio::awaitable<sdk::Result<KageCatalog>> discover_kage_providers(
    asio::any_io_executor strand, KageDiscoveryOptions options,
    std::shared_ptr<spdlog::logger> log) {
  if (options.argv.empty()) co_return sdk::make_error("no kage command was given");
  const std::string command = command_text(options.argv);
  std::optional<ScratchDirectory> scratch;
  if (options.environment.empty()) {
    scratch.emplace();
    if (scratch->path.empty())
      co_return sdk::make_error(
          "errand cannot ask kage which providers it knows: it could not "
          "make a scratch directory in " +
          std::filesystem::temp_directory_path().string());
    options.environment = kage_discovery_environment(scratch->path);
  }
  auto process = HostProcess::spawn(options.argv, options.environment, options.working_dir);
  if (!process)
    co_return sdk::make_error(
        "errand cannot ask kage which providers it knows: " + process.error().message +
        ". Install kage on this host (it must be on the daemon's PATH) or "
        "set agent.command to where it is");
  AcpClientOptions client_options;
  client_options.setup_timeout = options.timeout;
  client_options.control_timeout = options.timeout;
  auto client = AcpClient::start(strand, (*process)->stdio(), {}, client_options, log);
  if (!client) co_return client.error();

  sdk::Result<KageCatalog> outcome = sdk::make_error("kage was not asked");
  auto hello = co_await (*client)->initialize();
  if (!hello) {
    outcome = sdk::make_error("errand cannot start: `" + command +
                              "` did not complete the ACP handshake (" + hello.error().message +
                              "). errand needs a kage that serves ACP with `kage rpc`");
  } else {
    auto answer = co_await (*client)->call_extension("_kage/models/list", {});
    if (answer) {
      outcome = parse_kage_models_list(*answer);
    } else if (answer.error().kind == sdk::Error::Kind::not_found) {
      outcome = sdk::make_error(
          "errand cannot start: the host's kage is too old to say which providers it knows (`" +
          command + "` does not answer _kage/models/list); install a newer kage");
    } else {
      outcome = sdk::make_error(
          "errand cannot start: the host's kage did not say which providers "
          "it knows (" +
          answer.error().message +
          "); a kage that cannot answer _kage/models/list is too old, "
          "install a newer kage");
    }
  }
  client->reset();
  (*process)->close_stdin();
  const int status = co_await (*process)->stop(strand, std::chrono::milliseconds(2000));
  if (outcome)
    log->info("the host's kage knows {} provider(s)", outcome->providers.size());
  else
    log->debug("kage discovery ended with exit status {}", status);
  co_return outcome;
}

}  // namespace errand::agent
