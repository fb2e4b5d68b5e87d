// Of /etc/ssl a session sees the certificate store and openssl.cnf: TLS still verifies, and
// the host's private keys are not there at all.

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <string>

#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;

namespace {

// A root certificate of the host's store, by the path a program inside would use.
std::string some_root_certificate() {
  for (const auto& entry : fs::directory_iterator("/etc/ssl/certs")) {
    const auto name = entry.path().filename().string();
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".pem") == 0) return entry.path();
  }
  return {};
}

}  // namespace

TEST_CASE("/etc/ssl/private is absent inside, whatever it holds on the host", "[live]") {
  require_full_host();
  Harness h;
  const fs::path private_dir = "/etc/ssl/private";
  const auto marker = private_dir / ("errand-live-" + std::to_string(::getpid()));
  // Only on a host that has the directory, and only when this account may write there.
  bool planted = false;
  if (fs::exists(private_dir)) planted = static_cast<bool>(std::ofstream(marker) << "key");
  const auto listed = h.run(h.spec({"list", private_dir.string()}));
  const auto read = h.run(h.spec({"read", marker.string()}));
  if (planted) fs::remove(marker);
  INFO(listed.out << read.out);
  REQUIRE(listed.launched);
  CHECK(listed.exit.exit_code == 1);
  CHECK(contains(listed.out, "errno=ENOENT"));
  REQUIRE(read.launched);
  CHECK(read.exit.exit_code == 1);
  CHECK(contains(read.out, "errno=ENOENT"));
}

TEST_CASE("certificates still verify against the store inside", "[live]") {
  require_full_host();
  Harness h;
  const auto certificate = some_root_certificate();
  REQUIRE_FALSE(certificate.empty());
  auto spec = h.spec({});
  spec.argv = {"/usr/bin/openssl", "verify", certificate};
  const auto r = h.run(spec);
  INFO(r.out << r.err << r.launch_error);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 0);
  CHECK(contains(r.out, certificate + ": OK"));
}
