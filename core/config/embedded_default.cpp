#include "core/config/embedded_default.hpp"

#include "core/agent/bundled_agents.hpp"
#include "core/config/pretty_json.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <boost/json/array.hpp>
#include <boost/url/parse.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <system_error>

extern char** environ;

namespace errand::config {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kKeySuffix = "_API_KEY";

// The variable a provider dialect's base URL is commonly given in (ANTHROPIC_BASE_URL,
// OPENAI_BASE_URL): the one a user pointing the agent at a gateway already sets.
std::string base_url_variable_of(std::string_view provider_kind) {
  std::string name;
  for (const char c : provider_kind)
    name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name + "_BASE_URL";
}

const std::string* variable(const EmbeddedDefaultInputs& inputs, std::string_view name) {
  const auto found = inputs.variables.find(std::string(name));
  if (found == inputs.variables.end() || found->second.empty()) return nullptr;
  return &found->second;
}

// The XDG base directory in variable, else home/fallback; relative values are ignored, as the
// XDG specification asks.
std::optional<fs::path> xdg_dir(const EmbeddedDefaultInputs& inputs, std::string_view name,
                                const fs::path& fallback) {
  if (const auto* set = variable(inputs, name); set && fs::path(*set).is_absolute()) return *set;
  if (!inputs.home || inputs.home->empty() || !fs::path(*inputs.home).is_absolute())
    return std::nullopt;
  return fs::path(*inputs.home) / fallback;
}

// An address literal the broker treats as internal, which a provider on this host or the local
// network needs named in sandbox.egress.allowInternal before the broker will connect to it.
bool internal_address(const boost::asio::ip::address& address) {
  if (address.is_loopback()) return true;
  if (address.is_v4()) {
    const auto bits = address.to_v4().to_uint();
    return (bits >> 24) == 10 || (bits >> 20) == (172u << 4 | 1u) ||
           (bits >> 16) == (192u << 8 | 168u) || (bits >> 22) == (100u << 2 | 1u);
  }
  const auto bytes = address.to_v6().to_bytes();
  return (bytes[0] & 0xfe) == 0xfc;
}

// The base URL's host when it is an internal address literal, as allowInternal writes it.
std::optional<std::string> internal_host_of(const std::string& url) {
  const auto parsed = boost::urls::parse_uri(url);
  if (!parsed) return std::nullopt;
  std::string host(parsed->host_address());
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  if (ec || !internal_address(address)) return std::nullopt;
  return address.to_string();
}

std::vector<std::string> other_key_variables(const EmbeddedDefaultInputs& inputs) {
  std::vector<std::string> others;
  for (const auto& [name, value] : inputs.variables) {
    if (value.empty() || name.size() <= kKeySuffix.size() || !name.ends_with(kKeySuffix)) continue;
    bool bundled = false;
    for (const auto& agent : agent::bundled_agents())
      bundled = bundled || name == agent.credential_variable;
    if (!bundled) others.push_back(name);
  }
  return others;
}

}  // namespace

EmbeddedDefaultInputs EmbeddedDefaultInputs::from_process() {
  EmbeddedDefaultInputs inputs;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = text.substr(0, equals);
    if (name.ends_with(kKeySuffix) || name.ends_with("_BASE_URL") || name.starts_with("XDG_"))
      inputs.variables.emplace(name, text.substr(equals + 1));
  }
  if (const char* home = std::getenv("HOME")) inputs.home = home;
  return inputs;
}

std::string embedded_default_variables() {
  std::string out;
  const auto agents = agent::bundled_agents();
  for (std::size_t i = 0; i < agents.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == agents.size() ? " or " : ", ");
    out += std::string(agents[i].credential_variable) + " (" + std::string(agents[i].kind) + ")";
  }
  return out;
}

sdk::Result<EmbeddedDefault> embedded_default(const EmbeddedDefaultInputs& inputs) {
  const agent::BundledAgent* chosen = nullptr;
  const std::string* key = nullptr;
  EmbeddedDefault result;
  for (const auto& agent : agent::bundled_agents()) {
    const auto* value = variable(inputs, agent.credential_variable);
    if (value == nullptr) continue;
    if (chosen == nullptr) {
      chosen = &agent;
      key = value;
    } else {
      result.notes.push_back(std::string(agent.credential_variable) +
                             " is set too and not used: " + std::string(chosen->kind) +
                             " runs on " + std::string(chosen->credential_variable) +
                             "; unset it to run the other agent, or write a configuration file");
    }
  }
  if (chosen == nullptr) {
    std::string why = "no provider key is set for the built-in default either: set " +
                      embedded_default_variables() +
                      " to start with the web interface on 127.0.0.1 and the bailey sandbox";
    if (const auto others = other_key_variables(inputs); !others.empty()) {
      why += ". ";
      for (std::size_t i = 0; i < others.size(); ++i) why += (i == 0 ? "" : ", ") + others[i];
      why += others.size() == 1 ? " is" : " are";
      why += " set, but no agent errand bundles speaks to that provider; the bundled agents are " +
             agent::bundled_agents_named() +
             ", and any other ACP agent needs a configuration file (agent.kind \"acp\")";
    }
    return sdk::make_error(why, sdk::Error::Kind::refused);
  }

  const auto data = xdg_dir(inputs, "XDG_DATA_HOME", ".local/share");
  const auto state = xdg_dir(inputs, "XDG_STATE_HOME", ".local/state");
  if (!data || !state) {
    return sdk::make_error(
        "the built-in default keeps projects and state in the account's XDG directories, and "
        "neither XDG_DATA_HOME and XDG_STATE_HOME nor HOME is set to an absolute path",
        sdk::Error::Kind::refused);
  }

  const std::string provider(chosen->provider_kind);
  json::object provider_block{{"kind", provider}, {"credential", *key}};
  json::object sandbox{{"backend", "bailey"}};
  const auto url_variable = base_url_variable_of(chosen->provider_kind);
  if (const auto* url = variable(inputs, url_variable)) {
    provider_block["baseUrl"] = *url;
    result.notes.push_back("the provider is reached at " + *url + " (" + url_variable + ")");
    // The broker connects to internal addresses only where the configuration says so; the
    // variable naming one is that say, for that address alone.
    if (const auto host = internal_host_of(*url)) {
      sandbox["egress"] = json::object{{"allow", json::array{"*"}},
                                       {"allowInternal", json::array{json::string(*host)}}};
    }
  }
  result.written = json::object{
      {"projectRoot", (*data / "errand" / "projects").string()},
      {"stateDir", (*state / "errand").string()},
      {"agent", json::object{{"kind", std::string(chosen->kind)},
                             {"provider", provider},
                             {"providers", json::object{{provider, std::move(provider_block)}}}}},
      {"sandbox", std::move(sandbox)},
      {"web", json::object{{"host", std::string(kEmbeddedWebHost)}, {"port", kEmbeddedWebPort}}}};
  result.key_variable = std::string(chosen->credential_variable);
  result.agent_kind = std::string(chosen->kind);
  return result;
}

std::string describe_embedded_default(const EmbeddedDefault& chosen) {
  json::object shown = chosen.written;
  for (auto& [name, provider] : shown["agent"].as_object()["providers"].as_object())
    provider.as_object()["credential"] = "<the value of " + chosen.key_variable + ">";
  return pretty_json(shown);
}

sdk::Result<void> save_embedded_default(const EmbeddedDefault& chosen, const fs::path& path) {
  std::error_code ec;
  const auto dir = path.parent_path();
  if (!dir.empty() && !fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec)
      return sdk::make_error("could not create " + dir.string() + " for " + path.string() + ": " +
                             ec.message());
    fs::permissions(dir, fs::perms::owner_all, ec);
  }
  // O_EXCL: a file already there is the operator's, never replaced.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    return sdk::make_error(
        path.string() + (error == EEXIST ? " already exists and is kept; "
                                           "errand run reads it as it is"
                                         : ": " + std::string(std::strerror(error))),
        error == EEXIST ? sdk::Error::Kind::refused : sdk::Error::Kind::failed);
  }
  const std::string text = pretty_json(chosen.written);
  std::size_t written = 0;
  while (written < text.size()) {
    const auto n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(path.c_str());
      return sdk::make_error("could not write " + path.string() + ": " + std::strerror(error));
    }
    written += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int sync_error = errno;
  if (::close(fd) != 0 || !synced) {
    const int error = synced ? errno : sync_error;
    ::unlink(path.c_str());
    return sdk::make_error("could not write " + path.string() + ": " + std::strerror(error));
  }
  return {};
}

}  // namespace errand::config
