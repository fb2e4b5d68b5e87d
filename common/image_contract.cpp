#include "common/image_contract.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace errand::common {

namespace json = boost::json;
using sdk::make_error;

sdk::Result<ImageContract> parse_image_contract(std::string_view text, std::string_view property) {
  const std::string its = "its " + std::string(property);
  boost::system::error_code ec;
  const auto root = json::parse(text, ec);
  if (ec || !root.is_object())
    return make_error(its + " is not a JSON object: " + std::string(text));
  const auto& object = root.as_object();
  const auto* version = object.if_contains("version");
  if (version == nullptr || !version->is_int64())
    return make_error(its + " has no integer \"version\"");
  ImageContract contract;
  contract.version = static_cast<int>(version->as_int64());
  if (contract.version != kImageContractVersion)
    return make_error("it was built to image contract version " + std::to_string(contract.version) +
                      ", and this errand runs version " + std::to_string(kImageContractVersion));
  const auto* providers = object.if_contains("providers");
  if (providers == nullptr || !providers->is_array())
    return make_error(its + " has no \"providers\" list");
  for (const auto& p : providers->as_array()) {
    if (!p.is_string() || p.as_string().empty())
      return make_error(its + " lists a provider that is not a name");
    contract.providers.emplace_back(p.as_string());
  }
  return contract;
}

}  // namespace errand::common
