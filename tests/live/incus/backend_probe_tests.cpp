// The probe's refusals against the real incusd, each naming the command that fixes it: a project
// that is not there, an image alias that is not there, and an image without errand's contract.
// An account outside incus-admin cannot be had here (the test account is in the group, and
// root may not run the tests); tests/unit/sandbox-incus covers it on incusd's recorded answers.

#include <unistd.h>

#include <sys/utsname.h>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdlib>
#include <fstream>

#include "tests/live/incus/live_incus_daemon.hpp"

using namespace errand::incus;
using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;

namespace {

std::string probe_gaps_of(const sdk::EnforcementReport& r) {
  std::string out;
  for (const auto& g : r.gaps) out += g.guarantee + ": " + g.reason + "\n";
  return out;
}

sdk::SandboxPolicy default_policy() {
  auto policy = errand::sandbox::policy_from_config(boost::json::object{});
  REQUIRE(policy.has_value());
  return *policy;
}

std::string unique(const std::string& what) {
  return "errand-probe-test-" + std::to_string(::getpid()) + "-" + what;
}

// An image with no user.errand.contract property: a unified tarball of an empty root, imported
// under alias with the incus command line (the client speaks JSON only, not image uploads), and
// deleted again when the test ends.
struct ImageWithoutContract {
  std::string alias;
  errand::test::TempDir dir{test_root()};

  explicit ImageWithoutContract(std::string a) : alias(std::move(a)) {
    utsname host{};
    REQUIRE(::uname(&host) == 0);
    fs::create_directories(dir.path() / "rootfs");
    std::ofstream(dir.path() / "metadata.yaml")
        << "architecture: " << host.machine << "\ncreation_date: 1700000000\n"
        << "properties:\n  description: errand probe test, without the contract\n";
    const auto tarball = dir.path() / "image.tar";
    const auto command = "tar -C '" + dir.path().string() + "' -cf '" + tarball.string() +
                         "' metadata.yaml rootfs && incus image import '" + tarball.string() +
                         "' --alias " + alias + " --project " + live_incus().project +
                         " >/dev/null";
    REQUIRE(std::system(command.c_str()) == 0);
  }
  ~ImageWithoutContract() {
    const auto command =
        "incus image delete " + alias + " --project " + live_incus().project + " >/dev/null 2>&1";
    (void)std::system(command.c_str());
  }
};

}  // namespace

TEST_CASE("a project that is not there is refused with the commands that make it", "[live]") {
  const auto project = unique("project");
  Daemon daemon(boost::json::object{{"project", project}});
  const auto report = daemon.probe(default_policy());
  INFO(probe_gaps_of(report));
  CHECK_THAT(probe_gaps_of(report), ContainsSubstring("incus project create " + project));
  CHECK_THAT(probe_gaps_of(report),
             ContainsSubstring("incus project set " + project + " restricted=true"));
  // Nothing was made on the host by the probe.
  asio::io_context io;
  auto client = reachable_client(io);
  auto got = client.request_blocking(boost::beast::http::verb::get, "/1.0/projects/" + project);
  REQUIRE_FALSE(got.has_value());
  CHECK(got.error().kind == sdk::Error::Kind::not_found);
  // And a launch after it is refused rather than tried.
  auto launched = daemon.run(daemon.backend->launch(daemon.spec({"/bin/true"})));
  REQUIRE_FALSE(launched.has_value());
  CHECK_THAT(launched.error().message, ContainsSubstring("found no usable incus host"));
}

TEST_CASE("an image alias that is not there is refused with the import that makes it", "[live]") {
  const auto alias = unique("image");
  Daemon daemon(boost::json::object{{"image", alias}});
  const auto report = daemon.probe(default_policy());
  INFO(probe_gaps_of(report));
  CHECK_THAT(probe_gaps_of(report), ContainsSubstring("there is no image alias " + alias));
  CHECK_THAT(probe_gaps_of(report),
             ContainsSubstring("incus image import <metadata> <rootfs> --alias " + alias +
                               " --project " + live_incus().project));
}

TEST_CASE("an image without errand's contract is refused with the import that replaces it",
          "[live]") {
  ImageWithoutContract image(unique("nocontract"));
  Daemon daemon(boost::json::object{{"image", image.alias}});
  const auto report = daemon.probe(default_policy());
  INFO(probe_gaps_of(report));
  CHECK_THAT(probe_gaps_of(report),
             ContainsSubstring("the image " + image.alias + " has no user.errand.contract"));
  CHECK_THAT(probe_gaps_of(report), ContainsSubstring("--alias " + image.alias));
  // The real test image, in the same project, passes the same judgement.
  Daemon reference;
  const auto clean = reference.probe(default_policy());
  INFO(probe_gaps_of(clean));
  CHECK_THAT(probe_gaps_of(report), ContainsSubstring("the session image: "));
  CHECK_THAT(probe_gaps_of(clean), !ContainsSubstring("the session image: "));
}
