#include "plugins/broker/provider/provider_pool.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>

namespace errand::broker {
namespace asio = boost::asio;
using steady = std::chrono::steady_clock;

namespace {

void close_stream(ProviderStream& stream) noexcept {
  boost::system::error_code ignored;
  stream.lowest_layer().close(ignored);
}

}  // namespace

bool idle_connection_usable(ProviderStream& stream) {
  auto& socket = stream.lowest_layer();
  if (!socket.is_open()) return false;
  // Bytes already taken off the socket but not read: decrypted and waiting (SSL_pending), or
  // still encrypted in the buffer the SSL stream reads the socket into, where a server's close
  // alert sent just after its answer ends up.
  SSL* ssl = stream.native_handle();
  if (SSL_pending(ssl) > 0) return false;
  if (BIO* in = SSL_get_rbio(ssl); in != nullptr && BIO_pending(in) > 0) return false;
  char byte = 0;
  const auto got = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  // Nothing to read is the only healthy state: 0 is the server's FIN, and bytes on an idle
  // connection are a close alert, an error answer or junk, none of which a new request should
  // be sent into.
  return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

ProviderPool::ProviderPool(asio::strand<asio::any_io_executor> strand,
                           std::shared_ptr<spdlog::logger> log, ProviderPoolLimits limits)
    : strand_(std::move(strand)), log_(std::move(log)), limits_(limits), sweep_timer_(strand_) {}

ProviderPool::~ProviderPool() {
  for (auto& [name, lane] : lanes_)
    for (auto& idle : lane.idle) close_stream(*idle.stream);
}

ProviderPool::Lane& ProviderPool::lane_for(const ProviderRouteKey& key) {
  auto [it, added] = lanes_.try_emplace(key.provider);
  Lane& lane = it->second;
  if (!added && !(lane.key == key)) {
    if (!lane.idle.empty())
      log_->info(
          "provider {}: its route changed ({}:{} judged under [{}] before, {}:{} under [{}] "
          "now); its {} idle connection(s) were closed",
          key.provider, lane.key.host, lane.key.port, lane.key.admitted_under, key.host, key.port,
          key.admitted_under, lane.idle.size());
    for (auto& idle : lane.idle) close_stream(*idle.stream);
    idle_total_ -= lane.idle.size();
    lane.idle.clear();
    lane.tls_session.reset();
  }
  lane.key = key;
  return lane;
}

std::unique_ptr<ProviderStream> ProviderPool::take(const ProviderRouteKey& key) {
  if (!limits_.enabled) return nullptr;
  std::lock_guard lock(mutex_);
  if (closed_) return nullptr;
  close_expired(steady::now());
  Lane& lane = lane_for(key);
  while (!lane.idle.empty()) {
    auto stream = std::move(lane.idle.back().stream);
    lane.idle.pop_back();
    --idle_total_;
    if (idle_connection_usable(*stream)) return stream;
    close_stream(*stream);
  }
  return nullptr;
}

void ProviderPool::give_back(const ProviderRouteKey& key, std::unique_ptr<ProviderStream> stream) {
  if (!stream) return;
  std::lock_guard lock(mutex_);
  if (!limits_.enabled || closed_ || limits_.idle_per_provider == 0 || limits_.idle_total == 0) {
    close_stream(*stream);
    return;
  }
  const auto found = lanes_.find(key.provider);
  // A connection made on a route the provider has since left is not kept.
  if (found != lanes_.end() && !(found->second.key == key)) {
    close_stream(*stream);
    return;
  }
  Lane& lane = lane_for(key);
  if (lane.idle.size() >= limits_.idle_per_provider) {
    close_stream(*lane.idle.front().stream);
    lane.idle.pop_front();
    --idle_total_;
  }
  if (idle_total_ >= limits_.idle_total) close_oldest_anywhere();
  lane.idle.push_back({std::move(stream), steady::now()});
  ++idle_total_;
  arm_sweep();
}

void ProviderPool::offer_tls_session(const ProviderRouteKey& key, SSL* ssl) {
  if (!limits_.enabled) return;
  std::lock_guard lock(mutex_);
  if (closed_) return;
  Lane& lane = lane_for(key);
  if (lane.tls_session) SSL_set_session(ssl, lane.tls_session.get());
}

void ProviderPool::keep_tls_session(const ProviderRouteKey& key, SSL* ssl) {
  if (!limits_.enabled) return;
  const SSL_SESSION* current = SSL_get0_session(ssl);
  if (current == nullptr || SSL_SESSION_is_resumable(current) != 1) return;
  // A copy: OpenSSL marks a connection's own session unusable when the connection is freed
  // without a TLS shutdown, which is how the broker ends the connections it does not keep.
  std::unique_ptr<SSL_SESSION, SessionFree> held(SSL_SESSION_dup(current));
  if (!held) return;
  std::lock_guard lock(mutex_);
  if (closed_) return;
  const auto found = lanes_.find(key.provider);
  if (found != lanes_.end() && !(found->second.key == key)) return;
  lane_for(key).tls_session = std::move(held);
}

void ProviderPool::drop(const std::string& provider) {
  std::lock_guard lock(mutex_);
  const auto found = lanes_.find(provider);
  if (found == lanes_.end()) return;
  for (auto& idle : found->second.idle) close_stream(*idle.stream);
  idle_total_ -= found->second.idle.size();
  lanes_.erase(found);
}

void ProviderPool::close_all() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (auto& [name, lane] : lanes_)
      for (auto& idle : lane.idle) close_stream(*idle.stream);
    lanes_.clear();
    idle_total_ = 0;
  }
  asio::post(strand_, [weak = weak_from_this()] {
    if (const auto self = weak.lock()) self->sweep_timer_.cancel();
  });
}

std::size_t ProviderPool::idle(const std::string& provider) const {
  std::lock_guard lock(mutex_);
  const auto found = lanes_.find(provider);
  return found == lanes_.end() ? 0 : found->second.idle.size();
}

std::size_t ProviderPool::idle_total() const {
  std::lock_guard lock(mutex_);
  return idle_total_;
}

void ProviderPool::close_expired(steady::time_point now) {
  for (auto& [name, lane] : lanes_) {
    while (!lane.idle.empty() && now - lane.idle.front().since >= limits_.idle_timeout) {
      close_stream(*lane.idle.front().stream);
      lane.idle.pop_front();
      --idle_total_;
    }
  }
}

void ProviderPool::close_oldest_anywhere() {
  Lane* oldest = nullptr;
  for (auto& [name, lane] : lanes_) {
    if (lane.idle.empty()) continue;
    if (oldest == nullptr || lane.idle.front().since < oldest->idle.front().since) oldest = &lane;
  }
  if (oldest == nullptr) return;
  close_stream(*oldest->idle.front().stream);
  oldest->idle.pop_front();
  --idle_total_;
}

void ProviderPool::arm_sweep() {
  // Under mutex_. The timer itself is touched only on the strand.
  if (sweep_armed_) return;
  sweep_armed_ = true;
  asio::post(strand_, [weak = weak_from_this()] {
    const auto self = weak.lock();
    if (!self) return;
    // A connection is closed between one and one and a quarter idle timeouts after its last
    // use, when no call finds it first.
    self->sweep_timer_.expires_after(
        std::max(self->limits_.idle_timeout / 4, std::chrono::milliseconds(1)));
    self->sweep_timer_.async_wait(
        asio::bind_executor(self->strand_, [weak](const boost::system::error_code& ec) {
          if (ec) return;
          if (const auto pool = weak.lock()) pool->sweep();
        }));
  });
}

void ProviderPool::sweep() {
  std::lock_guard lock(mutex_);
  sweep_armed_ = false;
  if (closed_) return;
  close_expired(steady::now());
  if (idle_total_ > 0) arm_sweep();
}

}  // namespace errand::broker
