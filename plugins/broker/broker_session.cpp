#include "plugins/broker/broker_session.hpp"

#include "common/broker_relay/broker_relay.hpp"

#include <sys/stat.h>
#include <sys/un.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

#include "plugins/broker/admission/credentials.hpp"
#include "plugins/broker/relay/connection.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace fs = std::filesystem;
using asio::local::stream_protocol;

void Connection::close_all() {
  boost::system::error_code ignored;
  client.close(ignored);
  if (close_upstream) close_upstream();
}

BrokerSession::BrokerSession(std::shared_ptr<BrokerCore> core, std::string id,
                             std::shared_ptr<const BrokerSettings> settings)
    : core_(std::move(core)),
      id_(std::move(id)),
      settings_(std::move(settings)),
      strand_(asio::make_strand(core_->services().executor)),
      acceptor_(strand_) {}

namespace {

bool is_within(const fs::path& path, const fs::path& dir) {
  if (dir.empty()) return false;
  const auto rel = path.lexically_normal().lexically_relative(dir.lexically_normal());
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

sdk::Result<std::shared_ptr<BrokerSession>> BrokerSession::open(
    std::shared_ptr<BrokerCore> core, const sdk::BrokerSessionSpec& spec) {
  if (spec.session_id.empty()) return sdk::make_error("a broker session needs a session id");
  const fs::path& path = spec.socket_path;
  if (!path.is_absolute())
    return sdk::make_error("the broker socket path " + path.string() + " is not absolute");
  if (path.string().size() >= sizeof(sockaddr_un::sun_path))
    return sdk::make_error("the broker socket path " + path.string() + " is longer than the " +
                           std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                           " bytes a unix socket address holds; choose a shorter stateDir");
  const fs::path& state_dir = core->services().state_dir;
  if (is_within(path, state_dir / "sessions"))
    return sdk::make_error("the broker socket " + path.string() +
                               " would sit inside a session's writable state; it must be outside "
                               "stateDir/sessions",
                           sdk::Error::Kind::refused);
  if (spec.record_dir.empty())
    return sdk::make_error("a broker session needs its record directory for grants");

  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return sdk::make_error("cannot create " + path.parent_path().string() + ": " + ec.message());
  ::chmod(path.parent_path().c_str(), 0700);
  fs::create_directories(spec.record_dir, ec);
  if (ec) return sdk::make_error("cannot create " + spec.record_dir.string() + ": " + ec.message());
  const auto status = fs::symlink_status(path, ec);
  if (!ec && fs::exists(status)) {
    if (!fs::is_socket(status))
      return sdk::make_error(path.string() + " exists and is not a socket; remove it",
                             sdk::Error::Kind::refused);
    fs::remove(path, ec);
  }

  auto settings = settings_for_session(*core->settings(), spec);
  if (!settings) return settings.error();
  std::shared_ptr<BrokerSession> session(new BrokerSession(
      core, spec.session_id, std::make_shared<const BrokerSettings>(std::move(*settings))));
  auto grants = GrantStore::open(spec.record_dir, core->wall_now());
  if (!grants) return grants.error();
  session->grants_ = std::move(*grants);
  session->owner_ = spec.owner_id.empty() ? spec.session_id : spec.owner_id;
  session->socket_path_ = path;
  try {
    session->proxy_credential_ = mint_credential();
    for (const auto& [name, provider] : session->settings_->providers) {
      session->stand_ins_.emplace(
          name, sdk::BrokerSession::StandIn{provider.credential_name, mint_credential()});
    }
  } catch (const std::exception& e) {
    return sdk::make_error(e.what());
  }

  boost::system::error_code bind_ec;
  session->acceptor_.open(stream_protocol(), bind_ec);
  if (!bind_ec) session->acceptor_.bind(stream_protocol::endpoint(path.string()), bind_ec);
  if (!bind_ec && ::chmod(path.c_str(), 0600) != 0)
    bind_ec = boost::system::error_code(errno, boost::system::system_category());
  if (!bind_ec) session->acceptor_.listen(asio::socket_base::max_listen_connections, bind_ec);
  if (bind_ec) {
    boost::system::error_code ignored;
    session->acceptor_.close(ignored);
    fs::remove(path, ec);
    return sdk::make_error("cannot listen on " + path.string() + ": " + bind_ec.message(),
                           sdk::Error::Kind::unavailable);
  }

  core->credentials().add(session->proxy_credential_, {session->id_, {}});
  core->add_secret(session->proxy_credential_);
  for (const auto& [name, stand_in] : session->stand_ins_) {
    core->credentials().add(stand_in.value, {session->id_, name});
    core->add_secret(stand_in.value);
  }
  return session;
}

void BrokerSession::start() {
  asio::co_spawn(strand_, accept_connections(shared_from_this(), acceptor_), asio::detached);
  std::string routes;
  for (const auto& [name, p] : settings_->providers) {
    routes += (routes.empty() ? "" : ", ") + name;
    // The broker warned at start of the base URLs it refused; this one the session's own
    // allowInternal ranges refused.
    if (!p.upstream && core_->settings()->providers.at(name).upstream)
      warn("provider {} will not be called: {}", name, p.refusal);
  }
  info("broker listening on {}; provider routes: {}", socket_path_.string(),
       routes.empty() ? "none" : routes);
}

void BrokerSession::close() {
  if (!live_.exchange(false)) return;
  core_->credentials().remove(proxy_credential_);
  core_->remove_secret(proxy_credential_);
  for (const auto& [name, stand_in] : stand_ins_) {
    core_->credentials().remove(stand_in.value);
    core_->remove_secret(stand_in.value);
  }
  asio::post(strand_, [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
    for (const auto& connection : self->connections_)
      if (connection->ends_with_session) connection->close_all();
  });
  std::error_code ec;
  fs::remove(socket_path_, ec);
  info("broker closed: its credentials are refused from now on; open tunnels run until they end");
}

void BrokerSession::end_connections() {
  asio::post(strand_, [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
    for (const auto& connection : self->connections_) connection->close_all();
  });
}

sdk::BrokerSession BrokerSession::description() const {
  sdk::BrokerSession out;
  out.socket_path = socket_path_;
  out.proxy_credential = proxy_credential_;
  out.stand_ins = stand_ins_;
  return out;
}

CredentialCheck BrokerSession::classify_foreign(std::string_view presented) const {
  const auto owner = core_->credentials().find(presented);
  if (!owner) return CredentialCheck::unknown;
  if (owner->session_id != id_) return CredentialCheck::other_session;
  return CredentialCheck::unknown;
}

CredentialCheck BrokerSession::check_proxy_credential(
    const std::optional<std::string>& presented) const {
  if (!presented || presented->empty()) return CredentialCheck::missing;
  if (constant_time_equal(*presented, proxy_credential_)) {
    // Checked against the live registry on every request, so closing the session refuses it
    // even on a connection that was opened before.
    const auto owner = core_->credentials().find(*presented);
    if (!live() || !owner || owner->session_id != id_ || !owner->provider.empty())
      return CredentialCheck::closed;
    return CredentialCheck::valid;
  }
  return classify_foreign(*presented);
}

CredentialCheck BrokerSession::check_stand_in(const std::string& provider,
                                              std::string_view presented) const {
  if (presented.empty()) return CredentialCheck::missing;
  const auto it = stand_ins_.find(provider);
  if (it != stand_ins_.end() && constant_time_equal(presented, it->second.value)) {
    const auto owner = core_->credentials().find(presented);
    if (!live() || !owner || owner->session_id != id_ || owner->provider != provider)
      return CredentialCheck::closed;
    return CredentialCheck::valid;
  }
  return classify_foreign(presented);
}

const std::string& BrokerSession::stand_in(const std::string& provider) const {
  static const std::string kNone;
  const auto it = stand_ins_.find(provider);
  return it == stand_ins_.end() ? kNone : it->second.value;
}

void BrokerSession::track(const std::shared_ptr<Connection>& connection) {
  connections_.insert(connection);
}

void BrokerSession::untrack(const std::shared_ptr<Connection>& connection) {
  connections_.erase(connection);
  if (connections_.size() < broker_relay::kMaxLinks) over_cap_ = false;
}

}  // namespace errand::broker
