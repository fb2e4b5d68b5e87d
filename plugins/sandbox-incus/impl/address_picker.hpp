#pragma once

// Picks the addresses of one launch's kept nics (nic_addressing.hpp) against what incusd lists as
// taken, and holds each picked address until the launch is done with it: between the pick and
// incusd starting the instance, the address is in no lease list, and another launch of this
// daemon must not pick it meanwhile.

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <vector>

#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "plugins/sandbox-incus/impl/nic_addressing.hpp"

namespace errand::incus {

class AddressPicker : public std::enable_shared_from_this<AddressPicker> {
 public:
  // The addresses a launch holds; released when it goes, by which time the instance either
  // holds them in incusd's own records or is gone.
  class Held {
   public:
    Held() = default;
    Held(std::shared_ptr<AddressPicker> picker, std::vector<NicAddress> addresses);
    Held(Held&&) noexcept = default;
    Held& operator=(Held&&) noexcept;
    ~Held();
    const std::vector<NicAddress>& addresses() const { return addresses_; }

   private:
    friend class AddressPicker;
    void release();
    std::shared_ptr<AddressPicker> picker_;
    std::vector<NicAddress> addresses_;
  };

  // One free address for each nic, asking incusd for each network's leases; the error names the
  // network whose leases could not be read, or whose subnet is full.
  boost::asio::awaitable<sdk::Result<Held>> pick(const IncusClient& client,
                                                 const std::vector<AddressedNic>& nics);

 private:
  std::mutex mutex_;
  std::set<std::uint32_t> held_;
  std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace errand::incus
