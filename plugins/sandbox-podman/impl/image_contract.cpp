#include "plugins/sandbox-podman/impl/image_contract.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace errand::podman {

namespace json = boost::json;
using sdk::make_error;

sdk::Result<ImageContract> parse_image_contract(std::string_view label) {
  boost::system::error_code ec;
  const auto root = json::parse(label, ec);
  if (ec || !root.is_object())
    return make_error("its errand.contract label is not a JSON object: " + std::string(label));
  const auto& object = root.as_object();
  const auto* version = object.if_contains("version");
  if (version == nullptr || !version->is_int64())
    return make_error("its errand.contract label has no integer \"version\"");
  ImageContract contract;
  contract.version = static_cast<int>(version->as_int64());
  if (contract.version != kContractVersion)
    return make_error("it was built to image contract version " + std::to_string(contract.version) +
                      ", and this errand runs version " + std::to_string(kContractVersion));
  const auto* providers = object.if_contains("providers");
  if (providers == nullptr || !providers->is_array())
    return make_error("its errand.contract label has no \"providers\" list");
  for (const auto& p : providers->as_array()) {
    if (!p.is_string() || p.as_string().empty())
      return make_error("its errand.contract label lists a provider that is not a name");
    contract.providers.emplace_back(p.as_string());
  }
  return contract;
}

}  // namespace errand::podman
