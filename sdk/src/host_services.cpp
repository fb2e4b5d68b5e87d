#include <errand/sdk/host_services.hpp>

namespace errand::sdk {

std::string receipt_method(std::string_view method) {
  static constexpr std::string_view kStandard[] = {"GET",     "HEAD",    "POST",  "PUT",  "DELETE",
                                                   "CONNECT", "OPTIONS", "TRACE", "PATCH"};
  for (const auto standard : kStandard)
    if (method == standard) return std::string(standard);
  return "OTHER";
}

const char* to_string(ProviderReceipt::Outcome outcome) noexcept {
  switch (outcome) {
    case ProviderReceipt::Outcome::completed: return "completed";
    case ProviderReceipt::Outcome::interrupted: return "interrupted";
    case ProviderReceipt::Outcome::denied: return "denied";
    case ProviderReceipt::Outcome::refused: return "refused";
    case ProviderReceipt::Outcome::upstream_unreachable: return "upstream-unreachable";
  }
  return "completed";
}

}  // namespace errand::sdk
