#include "plugins/broker/admission/address_policy.hpp"

#include "plugins/broker/admission/address_judge.hpp"

namespace errand::broker {

Admission AddressPolicy::admit(const boost::asio::ip::address& address) const {
  const AddressVerdict verdict = judge_address(address);
  if (verdict.never_lifted) return {false, verdict.category, false, nullptr};
  if (!plain_address(address).is_loopback()) {
    const auto own = host_->check(address);
    if (own.carried) {
      if (!own.unreadable.empty())
        return {false,
                "possibly one of this host's own addresses (its interface list could not be "
                "read: " +
                    own.unreadable + ")",
                false, nullptr};
      return {false, "an address of this host's own interfaces", false, nullptr};
    }
  }
  if (verdict.is_public) return {true, {}, false, nullptr};
  for (const auto& range : *internal_)
    if (range.contains(address)) return {true, {}, false, &range};
  return {false, verdict.category, true, nullptr};
}

}  // namespace errand::broker
