#include <system_error>

#include "core/setup/init_system.hpp"
#include "core/setup/steps.hpp"

namespace errand::setup {

void report_left_to_fill(SetupContext& context) {
  const auto& file = context.host.config;
  std::error_code ec;
  // In a dry run on a fresh host the file is not there yet: what it would hold was planned.
  const auto config = std::filesystem::exists(file, ec)
                          ? read_jsonc_object(file, "reading the configuration " + file.string())
                          : context.config;
  const auto keys = placeholder_keys(config, context.example);
  // Setup never edits a configuration that was there: one naming another backend is the
  // operator's to change, or the sessions would not run in what this setup made.
  const auto named = setup_values(config, context.example).backend;
  if (!context.backend.empty() && named != context.backend) {
    context.report.note("");
    context.report.note("left for you: " + file.string() + " names the " + named +
                        " backend (sandbox.backend); set it to \"" + context.backend +
                        "\" for sessions to run in what this setup made");
  }
  std::string start;
  switch (detect_init(context.host)) {
    case InitSystem::systemd: start = "systemctl start errand"; break;
    case InitSystem::openrc: start = "rc-service errand start"; break;
    case InitSystem::none: start = "errand up"; break;
  }
  context.report.note("");
  if (keys.empty()) {
    context.report.note("left for you: nothing in " + file.string() +
                        " is a placeholder any more; check it with `errand config check " +
                        file.string() + "`, then start errand with `" + start + "`");
    return;
  }
  context.report.note("left for you: fill in these values of " + file.string() +
                      ", which are still the example's placeholders:");
  for (const auto& key : keys) context.report.note("  " + key);
  context.report.note("then check it with `errand config check " + file.string() +
                      "` and start errand with `" + start + "`");
}

}  // namespace errand::setup
