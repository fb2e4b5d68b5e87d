#include "plugins/broker/admission/host_addresses.hpp"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "common/address_ranges.hpp"

namespace errand::broker {
namespace asio = boost::asio;

std::vector<asio::ip::address> interface_addresses() {
  std::vector<asio::ip::address> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0)
    throw std::system_error(errno, std::generic_category(), "getifaddrs");
  for (const ifaddrs* at = list; at != nullptr; at = at->ifa_next) {
    if (at->ifa_addr == nullptr) continue;
    if (at->ifa_addr->sa_family == AF_INET) {
      asio::ip::address_v4::bytes_type bytes;
      std::memcpy(bytes.data(), &reinterpret_cast<const sockaddr_in*>(at->ifa_addr)->sin_addr, 4);
      out.emplace_back(asio::ip::address_v4(bytes));
    } else if (at->ifa_addr->sa_family == AF_INET6) {
      asio::ip::address_v6::bytes_type bytes;
      std::memcpy(bytes.data(), &reinterpret_cast<const sockaddr_in6*>(at->ifa_addr)->sin6_addr,
                  16);
      out.emplace_back(asio::ip::address_v6(bytes));
    }
  }
  ::freeifaddrs(list);
  return out;
}

HostAddresses::HostAddresses(InterfaceAddressSource source, std::chrono::milliseconds max_age)
    : source_(std::move(source)), max_age_(max_age) {}

HostAddresses::Check HostAddresses::check(const asio::ip::address& address) const {
  const auto wanted = common::plain_address(address);
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (!read_ || now - read_at_ >= max_age_) {
    addresses_.clear();
    unreadable_.clear();
    try {
      for (const auto& a : source_()) addresses_.push_back(common::plain_address(a));
    } catch (const std::exception& e) {
      unreadable_ = e.what();
    }
    read_at_ = now;
    read_ = true;
  }
  if (!unreadable_.empty()) return {true, unreadable_};
  return {std::find(addresses_.begin(), addresses_.end(), wanted) != addresses_.end(), {}};
}

}  // namespace errand::broker
