#include "plugins/sandbox-incus/impl/address_picker.hpp"

#include <boost/beast/http/verb.hpp>
#include <utility>

namespace errand::incus {

AddressPicker::Held::Held(std::shared_ptr<AddressPicker> picker, std::vector<NicAddress> addresses)
    : picker_(std::move(picker)), addresses_(std::move(addresses)) {}

AddressPicker::Held& AddressPicker::Held::operator=(Held&& other) noexcept {
  if (this != &other) {
    release();
    picker_ = std::move(other.picker_);
    addresses_ = std::move(other.addresses_);
  }
  return *this;
}

AddressPicker::Held::~Held() {
  release();
}

void AddressPicker::Held::release() {
  if (!picker_) return;
  std::lock_guard lock(picker_->mutex_);
  for (const auto& picked : addresses_) picker_->held_.erase(picked.address);
  picker_.reset();
}

boost::asio::awaitable<sdk::Result<AddressPicker::Held>> AddressPicker::pick(
    const IncusClient& client, const std::vector<AddressedNic>& nics) {
  // Held from the first pick on, so an early return releases what this launch took so far.
  Held held(shared_from_this(), {});
  for (const auto& nic : nics) {
    auto leases = co_await client.request(boost::beast::http::verb::get,
                                          "/1.0/networks/" + nic.network + "/leases");
    if (!leases)
      co_return sdk::make_error("incus could not list the addresses taken on the network " +
                                    nic.network + ": " + leases.error().message,
                                leases.error().kind);
    auto taken = leased_addresses(*leases);
    std::lock_guard lock(mutex_);
    taken.insert(held_.begin(), held_.end());
    const auto address = pick_free_address(nic.subnet, taken, random_);
    if (!address)
      co_return sdk::make_error(
          "every address of the network " + nic.network + " (" + ipv4_text(nic.subnet.gateway) +
              "/" + std::to_string(nic.subnet.prefix) + ") is taken, so the session's " +
              nic.interface + " can have none; end a session or widen the subnet",
          sdk::Error::Kind::unavailable);
    held_.insert(*address);
    held.addresses_.push_back({&nic, *address});
  }
  co_return held;
}

}  // namespace errand::incus
