#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "tests/unit/sandbox-incus/incus_test_host.hpp"

using namespace errand::incus;
using namespace errand::incus::test;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;
namespace sdk = errand::sdk;

namespace {

IncusSettings with_golden() {
  auto s = seed_settings();
  s.golden = "golden";
  return s;
}

HostDocuments host_with_golden() {
  auto d = seed_host();
  d.golden = answer(recorded::kStoppedGolden);
  return d;
}

json::object& image_properties(HostDocuments& d) {
  return (**d.image).as_object()["properties"].as_object();
}

}  // namespace

TEST_CASE("the image's contract gives the report its providers", "[key:sandbox.incus.image]") {
  auto d = seed_host();
  image_properties(d)["user.errand.contract"] =
      R"({"version":1,"providers":["anthropic","openai"]})";
  const auto outcome = build_probe_report(d, seed_settings(), seed_policy());
  CHECK(outcome.report.gaps.empty());
  REQUIRE(outcome.contract.has_value());
  CHECK(outcome.contract->providers == std::vector<std::string>{"anthropic", "openai"});
  CHECK_THAT(all_of(outcome.report.notes),
             ContainsSubstring("image errand-agent (a0749805a86a): contract version 1, its kage "
                               "knows anthropic, openai"));
}

TEST_CASE("an image alias that is not in the project is refused with the import command",
          "[key:sandbox.incus.image]") {
  auto d = seed_host();
  d.alias = not_found("image alias");
  d.image.reset();
  const auto outcome = build_probe_report(d, seed_settings(), seed_policy());
  INFO(gaps_of(outcome.report));
  CHECK(has_gap(outcome.report, "the session image",
                "there is no image alias errand-agent in project errand"));
  CHECK(has_gap(outcome.report, "the session image", "--alias errand-agent --project errand"));
  CHECK_FALSE(outcome.contract.has_value());
}

TEST_CASE("an image without a usable contract is refused saying what is wrong") {
  const struct {
    const char* property;  // nullptr: none
    const char* says;
  } cases[] = {
      {nullptr, "has no user.errand.contract property"},
      {"test", "its user.errand.contract property is not a JSON object"},
      {R"({"version":2,"providers":[]})", "version 2, and this errand runs version 1"},
      {R"({"version":1})", "has no \"providers\" list"},
  };
  for (const auto& c : cases) {
    INFO((c.property ? c.property : "(none)"));
    auto d = seed_host();
    if (c.property)
      image_properties(d)["user.errand.contract"] = c.property;
    else
      image_properties(d).erase("user.errand.contract");
    const auto outcome = build_probe_report(d, seed_settings(), seed_policy());
    INFO(gaps_of(outcome.report));
    CHECK(has_gap(outcome.report, "the session image", c.says));
    CHECK_FALSE(outcome.contract.has_value());
  }
}

TEST_CASE("a stopped golden with the image's contract is what sessions copy",
          "[key:sandbox.incus.golden]") {
  auto d = host_with_golden();
  const auto outcome = build_probe_report(d, with_golden(), seed_policy());
  INFO(gaps_of(outcome.report));
  CHECK(outcome.report.gaps.empty());
  REQUIRE(outcome.contract.has_value());
  CHECK(outcome.contract->providers == std::vector<std::string>{"anthropic"});
  CHECK_THAT(outcome.report.summary, ContainsSubstring("each a copy of the instance golden"));
  CHECK_THAT(all_of(outcome.report.notes),
             ContainsSubstring("sessions are copies of the stopped instance golden"));
}

TEST_CASE("a golden errand cannot copy is refused with the command that fixes it",
          "[key:sandbox.incus.golden]") {
  const struct {
    const char* what;
    void (*change)(json::object& golden);
    const char* says;
  } cases[] = {
      {"running", [](json::object& g) { g["status"] = "Running"; },
       "is Running, and a copy of a running instance holds half-written state; fix: incus stop "
       "golden --project errand"},
      {"marked as a session",
       [](json::object& g) { g["config"].as_object()["user.errand.system"] = "true"; },
       "incus config unset golden user.errand.system --project errand"},
      {"without a contract",
       [](json::object& g) { g["config"].as_object().erase("user.errand.contract"); },
       "has no user.errand.contract in its config; fix: incus config set golden "
       "user.errand.contract='{\"version\":1,\"providers\":[\"anthropic\"]}' --project errand"},
      {"with another contract",
       [](json::object& g) {
         g["config"].as_object()["user.errand.contract"] = R"({"version":1,"providers":[]})";
       },
       "was made to another contract than the image errand-agent"},
      {"with a broken contract",
       [](json::object& g) { g["config"].as_object()["user.errand.contract"] = "{"; },
       "its user.errand.contract config key is not a JSON object"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto d = host_with_golden();
    c.change((**d.golden).as_object());
    const auto outcome = build_probe_report(d, with_golden(), seed_policy());
    INFO(gaps_of(outcome.report));
    CHECK(has_gap(outcome.report, "the golden instance", c.says));
    CHECK_FALSE(outcome.contract.has_value());
  }
}

TEST_CASE("a golden that is not there is refused with the command that makes it",
          "[key:sandbox.incus.golden]") {
  auto d = seed_host();
  d.golden = not_found("instance");
  const auto r = build_probe_report(d, with_golden(), seed_policy()).report;
  CHECK(has_gap(r, "the golden instance",
                "there is no instance golden in project errand (sandbox.incus.golden); make it "
                "from the image: incus init errand-agent golden --project errand"));
}

TEST_CASE("with a golden, a missing image is only a note: copies never read it") {
  auto d = host_with_golden();
  d.alias = not_found("image alias");
  d.image.reset();
  const auto outcome = build_probe_report(d, with_golden(), seed_policy());
  INFO(gaps_of(outcome.report));
  CHECK(outcome.report.gaps.empty());
  CHECK_THAT(all_of(outcome.report.notes),
             ContainsSubstring("there is no image alias errand-agent in project errand"));
  CHECK(outcome.contract.has_value());
}

TEST_CASE("/dev/kvm passed to the golden is reported as a wider surface") {
  auto d = host_with_golden();
  (**d.golden).as_object()["expanded_devices"].as_object()["kvm"] =
      json::object{{"source", "/dev/kvm"}, {"type", "unix-char"}};
  const auto r = build_probe_report(d, with_golden(), seed_policy()).report;
  CHECK_THAT(all_of(r.notes), ContainsSubstring("the golden instance golden passes /dev/kvm"));
}

TEST_CASE("a nic the golden has of its own is overridden too, or copies would keep it") {
  auto d = host_with_golden();
  (**d.golden).as_object()["expanded_devices"].as_object()["net1"] =
      json::object{{"network", "incusbr0"}, {"type", "nic"}};
  const auto outcome = build_probe_report(d, with_golden(), seed_policy());
  REQUIRE(outcome.host.has_value());
  CHECK(outcome.host->nics == std::vector<std::string>{"net1"});
}
