// A job is confined like a session: it sees its workspace and the system's read-only
// directories, not the runner's state directory beside it.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "core/remote/runner/job_paths.hpp"
#include "tests/live/remote/job_harness.hpp"
#include "tests/support/temp_dir.hpp"

using Catch::Matchers::ContainsSubstring;
using errand::remote::JobState;
using remote_live::JobHarness;

TEST_CASE("a job can neither read nor write outside its workspace", "[live][remote]") {
  JobHarness h;
  const auto secret_dir = h.state_dir() / "private";
  std::filesystem::create_directories(secret_dir);
  const auto secret = secret_dir / "secret.txt";
  errand::test::write_file(secret, "THE-RUNNER-SECRET\n");
  const auto escaped = secret_dir / "escaped";
  auto request = h.admit({});
  const auto jobs_dir = errand::remote::job_paths(h.state_dir(), request.id).root;
  const std::string script = "cat '" + secret.string() +
                             "'; echo \"read=$?\"; "
                             "echo x > '" +
                             escaped.string() +
                             "'; echo \"write=$?\"; "
                             "echo x > '" +
                             jobs_dir.string() +
                             "/planted'; echo \"beside=$?\"; "
                             "echo x > /usr/planted; echo \"usr=$?\"; "
                             "echo x > /workspace/mine && cat /workspace/mine && echo \"own=$?\"; "
                             "ls /; ";
  request.argv = {"sh", "-c", script};
  const auto id = request.id;
  const auto outcome = h.run(std::move(request));

  INFO(outcome.detail);
  CHECK(outcome.state == JobState::ended);
  const auto logged = remote_live::read_job_log(errand::remote::job_paths(h.state_dir(), id).log);
  INFO("stdout: " << logged.out << "\nstderr: " << logged.err);
  CHECK_THAT(logged.out + logged.err, !ContainsSubstring("THE-RUNNER-SECRET"));
  CHECK_THAT(logged.out, ContainsSubstring("read=1"));
  CHECK_THAT(logged.out, !ContainsSubstring("write=0"));
  CHECK_THAT(logged.out, !ContainsSubstring("beside=0"));
  CHECK_THAT(logged.out, !ContainsSubstring("usr=0"));
  CHECK_THAT(logged.out, ContainsSubstring("x\nown=0"));
  // The state directory's own top (under /tmp on the host) is not in the sandbox's root.
  CHECK_THAT(logged.out, ContainsSubstring("workspace\n"));
  CHECK_FALSE(std::filesystem::exists(escaped));
  CHECK_FALSE(std::filesystem::exists(jobs_dir / "planted"));
  CHECK_FALSE(std::filesystem::exists("/usr/planted"));
  CHECK(errand::test::read_file(secret) == "THE-RUNNER-SECRET\n");
}
