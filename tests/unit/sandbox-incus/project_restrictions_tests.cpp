#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "plugins/sandbox-incus/impl/project_restrictions.hpp"
#include "tests/unit/sandbox-incus/incus_test_host.hpp"

using namespace errand::incus;
using namespace errand::incus::test;
using Catch::Matchers::ContainsSubstring;

namespace {

errand::sdk::EnforcementReport restrictions_judged(HostDocuments& d) {
  return build_probe_report(d, seed_settings(), seed_policy()).report;
}

}  // namespace

TEST_CASE("the seed's project, pool, image and host give a report without a gap",
          "[key:sandbox.incus.project]") {
  auto d = seed_host();
  const auto outcome = build_probe_report(d, seed_settings(), seed_policy());
  INFO(gaps_of(outcome.report));
  CHECK(outcome.report.gaps.empty());
  CHECK(outcome.report.backend == "incus");
  CHECK(outcome.report.capabilities.agent_in_image);
  REQUIRE(outcome.host.has_value());
  CHECK(outcome.host->pool == "default");
  CHECK(outcome.host->uid == 1000);
  CHECK_THAT(all_of(outcome.report.enforced),
             ContainsSubstring("host paths: the project lets instances mount only "
                               "/srv/errand,/var/lib/errand"));
}

TEST_CASE("each restriction of the project that differs from the seed's is a gap with its fix",
          "[key:sandbox.incus.project]") {
  const struct {
    const char* key;
    const char* value;  // nullptr: the key unset, so Incus's default applies
    const char* fix;
  } cases[] = {
      {"restricted", "false", "incus project set errand restricted=true"},
      {"restricted", nullptr, "incus project set errand restricted=true"},
      {"restricted.containers.nesting", nullptr,
       "incus project set errand restricted.containers.nesting=allow"},
      {"restricted.containers.lowlevel", nullptr,
       "incus project set errand restricted.containers.lowlevel=allow"},
      {"restricted.containers.lowlevel", "block",
       "incus project set errand restricted.containers.lowlevel=allow"},
      {"restricted.containers.privilege", "allow",
       "incus project set errand restricted.containers.privilege=unprivileged"},
      {"restricted.containers.privilege", "isolated",
       "incus project set errand restricted.containers.privilege=unprivileged"},
      {"restricted.devices.disk", nullptr,
       "incus project set errand restricted.devices.disk=allow"},
      {"restricted.devices.proxy", "allow",
       "incus project set errand restricted.devices.proxy=block"},
      {"restricted.devices.disk.paths", nullptr,
       "incus project set errand restricted.devices.disk.paths=/srv/errand/projects,/var/lib/"
       "errand/state"},
      {"restricted.devices.disk.paths", "/srv/errandx,/var/lib/errand",
       "incus project set errand restricted.devices.disk.paths=/srv/errandx,/var/lib/errand,/srv/"
       "errand/projects"},
      {"restricted.devices.disk.paths", "/srv/errand",
       "restricted.devices.disk.paths=/srv/errand,/var/lib/errand/state"},
      {"restricted.idmap.uid", "1001", "incus project set errand restricted.idmap.uid=1000"},
      {"restricted.idmap.uid", nullptr, "incus project set errand restricted.idmap.uid=1000"},
      {"restricted.idmap.gid", "0-999", "incus project set errand restricted.idmap.gid=1000"},
  };
  for (const auto& c : cases) {
    INFO(c.key << " = " << (c.value ? c.value : "(unset)"));
    auto d = seed_host();
    auto& config = config_of(d.project);
    if (c.value != nullptr)
      config[c.key] = c.value;
    else
      config.erase(c.key);
    const auto r = restrictions_judged(d);
    INFO(gaps_of(r));
    CHECK(has_gap(r, "the session project's restrictions", c.fix));
  }
}

TEST_CASE("lowlevel=allow, which sessions need, is noted with everything else it allows") {
  auto d = seed_host();
  const auto notes = all_of(restrictions_judged(d).notes);
  CHECK_THAT(notes, ContainsSubstring("restricted.containers.lowlevel=allow, which sessions need "
                                      "for security.idmap.size"));
  CHECK_THAT(notes, ContainsSubstring("frees raw.idmap from restricted.idmap.*"));
}

TEST_CASE("a project that is not there is refused with every command that makes it",
          "[key:sandbox.incus.project]") {
  auto d = seed_host();
  d.project = not_found("project");
  const auto outcome = build_probe_report(d, seed_settings(), seed_policy());
  INFO(gaps_of(outcome.report));
  CHECK(has_gap(outcome.report, "the session project", "there is no project errand"));
  const auto& reason = outcome.report.gaps.at(0).reason;
  for (const char* command :
       {"incus project create errand", "incus project set errand restricted=true",
        "incus project set errand restricted.containers.nesting=allow",
        "incus project set errand restricted.devices.disk.paths=/srv/errand/projects,/var/lib/"
        "errand/state",
        "incus project set errand restricted.idmap.uid=1000",
        "incus profile device add default root disk path=/ pool=default --project errand"})
    CHECK_THAT(reason, ContainsSubstring(command));
  CHECK_FALSE(outcome.host.has_value());
}

TEST_CASE("disk paths cover a directory only on whole path components") {
  CHECK(disk_paths_cover("/srv/errand,/var/lib/errand", "/srv/errand/projects"));
  CHECK(disk_paths_cover("/srv/errand", "/srv/errand"));
  CHECK(disk_paths_cover("/srv/errand/", "/srv/errand/x/../y"));
  CHECK_FALSE(disk_paths_cover("/srv/errand", "/srv/errandx"));
  CHECK_FALSE(disk_paths_cover("/srv/errand/projects", "/srv/errand"));
  CHECK_FALSE(disk_paths_cover("", "/srv/errand"));
}

TEST_CASE("idmap lists hold single ids and ranges") {
  CHECK(idmap_list_holds("1000", 1000));
  CHECK(idmap_list_holds("0-999,1000-1002", 1001));
  CHECK_FALSE(idmap_list_holds("1001", 1000));
  CHECK_FALSE(idmap_list_holds("10000", 1000));
  CHECK_FALSE(idmap_list_holds("", 1000));
  CHECK_FALSE(idmap_list_holds("x-1000", 1000));
}
