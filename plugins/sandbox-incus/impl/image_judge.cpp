#include <boost/json/serialize.hpp>

#include "plugins/sandbox-incus/impl/probe_report.hpp"

namespace errand::incus {

namespace json = boost::json;

namespace {

constexpr const char* kContractKey = "user.errand.contract";
constexpr const char* kImageGuarantee = "the session image";
constexpr const char* kGoldenGuarantee = "the golden instance";

std::string providers_text(const common::ImageContract& c) {
  std::string out;
  for (const auto& p : c.providers) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "no providers" : out;
}

std::string contract_json(const common::ImageContract& c) {
  json::array providers;
  for (const auto& p : c.providers) providers.emplace_back(p);
  return json::serialize(json::object{{"version", c.version}, {"providers", providers}});
}

std::optional<std::string> image_property(const json::value& image, std::string_view key) {
  if (!image.is_object()) return std::nullopt;
  const auto* props = image.as_object().if_contains("properties");
  if (props == nullptr || !props->is_object()) return std::nullopt;
  const auto* v = props->as_object().if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

std::optional<common::ImageContract> judge_image(const HostDocuments& d, const IncusSettings& s,
                                                 sdk::EnforcementReport& r) {
  const std::string import_fix =
      "build and import it into the project (image/README.md): "
      "incus image import <metadata> <rootfs> --alias " +
      s.image + " --project " + s.project;
  if (!d.alias) return std::nullopt;
  if (!d.alias->has_value()) {
    const auto& e = d.alias->error();
    r.gaps.push_back(
        {kImageGuarantee,
         e.kind == sdk::Error::Kind::not_found
             ? "there is no image alias " + s.image + " in project " + s.project + "; " + import_fix
             : "incusd could not look up the image alias " + s.image + ": " + e.message});
    return std::nullopt;
  }
  if (!d.image || !d.image->has_value()) {
    r.gaps.push_back(
        {kImageGuarantee, "the image alias " + s.image + " points at no image incusd could read" +
                              (d.image ? ": " + d.image->error().message : std::string())});
    return std::nullopt;
  }
  const auto property = image_property(**d.image, kContractKey);
  if (!property) {
    r.gaps.push_back({kImageGuarantee, "the image " + s.image + " has no " + kContractKey +
                                           " property, so nothing says it has the mount points "
                                           "and tools sessions need; " +
                                           import_fix});
    return std::nullopt;
  }
  auto contract = common::parse_image_contract(*property, "user.errand.contract property");
  if (!contract) {
    r.gaps.push_back({kImageGuarantee, "the image " + s.image + " cannot be used: " +
                                           contract.error().message + "; " + import_fix});
    return std::nullopt;
  }
  r.notes.push_back("image " + s.image + " (" + text_at(**d.image, "fingerprint").substr(0, 12) +
                    "): contract version " + std::to_string(contract->version) +
                    ", its kage knows " + providers_text(*contract));
  return *contract;
}

std::optional<common::ImageContract> judge_golden(const HostDocuments& d, const IncusSettings& s,
                                                  const std::optional<common::ImageContract>& image,
                                                  sdk::EnforcementReport& r) {
  const std::string& name = *s.golden;
  const std::string in_project = " --project " + s.project;
  if (!d.golden || !d.golden->has_value()) {
    const bool missing = d.golden && d.golden->error().kind == sdk::Error::Kind::not_found;
    r.gaps.push_back({kGoldenGuarantee,
                      missing ? "there is no instance " + name + " in project " + s.project +
                                    " (sandbox.incus.golden); make it from the image: incus init " +
                                    s.image + " " + name + in_project +
                                    ", or leave sandbox.incus.golden out"
                              : "incusd could not look up the instance " + name +
                                    (d.golden ? ": " + d.golden->error().message : std::string())});
    return std::nullopt;
  }
  const auto& golden = **d.golden;
  bool usable = true;
  const auto gap = [&](const std::string& reason) {
    usable = false;
    r.gaps.push_back({kGoldenGuarantee, "the golden instance " + name + " " + reason});
  };
  if (const auto status = text_at(golden, "status"); status != "Stopped")
    gap("is " + status + ", and a copy of a running instance holds half-written state; fix: " +
        "incus stop " + name + in_project);
  if (config_value(golden, "user.errand.system"))
    gap("carries user.errand.system, so the orphan sweep would delete it; fix: incus config "
        "unset " +
        name + " user.errand.system" + in_project);
  const auto property = config_value(golden, kContractKey);
  const std::string contract_fix = image ? "incus config set " + name + " " + kContractKey + "='" +
                                               contract_json(*image) + "'" + in_project +
                                               " once it holds what the image does"
                                         : "recreate it from an image that carries the contract";
  if (!property) {
    gap(std::string("has no ") + kContractKey + " in its config; fix: " + contract_fix);
    return std::nullopt;
  }
  auto contract = common::parse_image_contract(*property, "user.errand.contract config key");
  if (!contract) {
    gap("cannot be used: " + contract.error().message + "; fix: " + contract_fix);
    return std::nullopt;
  }
  if (image && *contract != *image)
    gap("was made to another contract than the image " + s.image + " (" + *property + " against " +
        contract_json(*image) + "); recreate it from the image, or fix: " + contract_fix);
  if (!usable) return std::nullopt;
  r.notes.push_back("sessions are copies of the stopped instance " + name + ": contract version " +
                    std::to_string(contract->version) + ", its kage knows " +
                    providers_text(*contract));
  if (passes_kvm(member(golden, "expanded_devices")))
    r.notes.push_back("the golden instance " + name +
                      " passes /dev/kvm: a KVM bug is a way out of the container");
  return *contract;
}

}  // namespace

std::optional<common::ImageContract> judge_image_and_golden(const HostDocuments& d,
                                                            const IncusSettings& s,
                                                            sdk::EnforcementReport& r) {
  if (!s.golden) return judge_image(d, s, r);
  // Copies of the golden never read the image, so what is wrong with it is only a note then;
  // its contract is still what the golden's is held to.
  sdk::EnforcementReport image_report;
  auto image = judge_image(d, s, image_report);
  for (auto& note : image_report.notes) r.notes.push_back(std::move(note));
  for (auto& gap : image_report.gaps)
    r.notes.push_back(gap.reason + " (sessions copy sandbox.incus.golden, so they do not need it)");
  return judge_golden(d, s, image, r);
}

}  // namespace errand::incus
