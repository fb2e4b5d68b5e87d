// The setup hook's protocol (common/setup_steps/backend_hook.hpp): what core writes, a backend's
// program reads back whole; what it refuses; and the lines a program answers with.
#include "common/setup_steps/backend_hook.hpp"

#include <boost/json/object.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::setup;
using Catch::Matchers::ContainsSubstring;

namespace {

HookRequest full_request() {
  return {.mode = HookMode::up,
          .account = "errand",
          .project_root = "/srv/errand/projects",
          .state_dir = "/var/lib/errand",
          .log = "/var/log/errand/setup.log",
          .init = "openrc",
          .dry_run = true,
          .options = {"--golden"}};
}

const std::vector<BackendOption> kGolden = {{"--golden", "makes a golden instance"}};

std::vector<std::string> with(std::vector<std::string> args, std::size_t at,
                              const std::string& value) {
  args.at(at) = value;
  return args;
}

}  // namespace

TEST_CASE("the setup program beside a plugin is named after the plugin file") {
  CHECK(hook_program_beside("/usr/lib/errand/sandbox-podman.so") ==
        "/usr/lib/errand/sandbox-podman-setup");
}

TEST_CASE("a hook request is read back as it was written") {
  const auto request = full_request();
  const auto args = hook_arguments(request);
  CHECK(args.front() == "up");
  CHECK(args.at(args.size() - 2) == "--");
  const auto read = parse_hook_arguments(args, kGolden);
  REQUIRE(read.has_value());
  CHECK(read->mode == HookMode::up);
  CHECK(read->account == "errand");
  CHECK(read->project_root == request.project_root);
  CHECK(read->state_dir == request.state_dir);
  CHECK(read->log == request.log);
  CHECK(read->init == "openrc");
  CHECK(read->dry_run);
  CHECK(read->options == std::vector<std::string>{"--golden"});

  auto plain = request;
  plain.mode = HookMode::setup;
  plain.dry_run = false;
  plain.options.clear();
  const auto plain_args = hook_arguments(plain);
  CHECK(std::find(plain_args.begin(), plain_args.end(), "--") == plain_args.end());
  const auto plain_read = parse_hook_arguments(plain_args, {});
  REQUIRE(plain_read.has_value());
  CHECK(plain_read->mode == HookMode::setup);
  CHECK_FALSE(plain_read->dry_run);
  CHECK(plain_read->options.empty());
}

TEST_CASE("a hook request that is incomplete or names what the backend does not take is refused") {
  const auto args = hook_arguments(full_request());
  auto refused = [](const std::vector<std::string>& bad, const std::vector<BackendOption>& taken) {
    const auto read = parse_hook_arguments(bad, taken);
    REQUIRE_FALSE(read.has_value());
    CHECK(read.error().kind == errand::sdk::Error::Kind::refused);
    return read.error().message;
  };
  CHECK_THAT(refused(args, {}), ContainsSubstring("unknown option \"--golden\""));
  CHECK_THAT(refused(with(args, 0, "install"), kGolden),
             ContainsSubstring("setup, up, settings or options"));
  CHECK_THAT(refused({}, kGolden), ContainsSubstring("the first argument is the mode"));
  // args: mode, --account, errand, --project-root, dir, --state-dir, dir, --log, file, --init, ...
  CHECK_THAT(refused(with(args, 1, "--acount"), kGolden),
             ContainsSubstring("unknown argument \"--acount\""));
  CHECK_THAT(refused(with(args, 4, "projects"), kGolden), ContainsSubstring("absolute paths"));
  CHECK_THAT(refused(with(args, 10, "runit"), kGolden),
             ContainsSubstring("--init is systemd, openrc or none, not \"runit\""));
  CHECK_THAT(refused({"setup", "--account"}, kGolden),
             ContainsSubstring("--account needs a value"));
  CHECK_THAT(refused({"setup", "--log", "/l", "--init", "none"}, kGolden),
             ContainsSubstring("--account is required"));
  CHECK_THAT(refused({"setup", "--account", "a", "--init", "none"}, kGolden),
             ContainsSubstring("--log is required"));
}

TEST_CASE("an option line names a flag and what it does; anything else is not one") {
  const BackendOption golden{"--golden", "makes a golden instance"};
  const auto read = parse_option_line(option_line(golden));
  REQUIRE(read.has_value());
  CHECK(read->flag == "--golden");
  CHECK(read->what == "makes a golden instance");
  CHECK_FALSE(parse_option_line("option: golden makes one"));
  CHECK_FALSE(parse_option_line("option: --"));
  CHECK_FALSE(parse_option_line("done: --golden"));
}

TEST_CASE("a failed step crosses as one line, its reason's lines and all") {
  const StepFailed failed("building the guest image", "image/build exited with 1:\n    line one\n",
                          "read the log");
  const auto line = failure_line(failed);
  CHECK(line.find('\n') == std::string::npos);
  const auto read = parse_failure_line(line);
  REQUIRE(read.has_value());
  CHECK(read->step == failed.step);
  CHECK(read->reason == failed.reason);
  CHECK(read->remedy == failed.remedy);
  CHECK_FALSE(parse_failure_line("failed: not json"));
  CHECK_FALSE(parse_failure_line("failed: {\"step\": \"s\", \"reason\": \"r\"}"));
  CHECK_FALSE(parse_failure_line("failed: [1]"));
  CHECK_FALSE(parse_failure_line("done: it worked"));
}

TEST_CASE("a settings line carries the block a backend's setup writes; anything else is not one") {
  const boost::json::object settings{{"project", "errand"}, {"golden", "errand-golden"}};
  const auto line = settings_line(settings);
  CHECK(line.find('\n') == std::string::npos);
  const auto read = parse_settings_line(line);
  REQUIRE(read.has_value());
  CHECK(*read == settings);
  const auto empty = parse_settings_line(settings_line({}));
  REQUIRE(empty.has_value());
  CHECK(empty->empty());
  CHECK_FALSE(parse_settings_line("settings: [\"golden\"]"));
  CHECK_FALSE(parse_settings_line("settings: {\"golden\":"));
  CHECK_FALSE(parse_settings_line("option: --golden makes one"));
}
