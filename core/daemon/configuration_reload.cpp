#include "core/daemon/configuration_reload.hpp"

#include "core/config/problem.hpp"
#include "core/config/reload.hpp"
#include "core/daemon/enforcement_report.hpp"
#include "core/sandbox/sandbox_choice.hpp"
#include "core/sessions/house_rules.hpp"

namespace errand::daemon {

ConfigurationReload::ConfigurationReload(const config::LoadedConfig& startup,
                                         const sdk::EnforcementReport& report)
    : startup_written_(startup.written),
      startup_effective_(startup.effective),
      file_effective_(startup.effective),
      report_(render_enforcement_report(report)) {}

std::optional<ConfigurationReload::Accepted> ConfigurationReload::next(
    const ConfigurationSource& source, const config::LoadedConfig& current, const Probe& probe,
    spdlog::logger& log) {
  auto loaded = source.load();
  if (!loaded) {
    log.error("configuration reload refused; the daemon keeps the configuration it had.\n{}",
              config::format_problems(loaded.error()));
    return std::nullopt;
  }
  auto applied = source.load_written(config::hold_unreached(startup_written_, loaded->written));
  if (!applied) {
    log.error(
        "configuration reload refused: with the fields a reload does not reach kept as the "
        "daemon started with them, the configuration does not hold together; the daemon keeps "
        "the configuration it had. Undo the change, or restart errand to apply the file as "
        "written.\n{}",
        config::format_problems(applied.error()));
    return std::nullopt;
  }
  if (!(applied->effective == current.effective) && !enforcement_allows(*applied, probe, log))
    return std::nullopt;
  // The next session reads the file again, so one that is unreadable now would fail it.
  if (auto rules = sessions::read_house_rules(applied->effective); !rules) {
    log.error("configuration reload refused; the daemon keeps the configuration it had: {}",
              rules.error().message);
    return std::nullopt;
  }

  const auto changes = config::held_changes(startup_effective_, file_effective_, loaded->effective);
  for (const auto& held : changes.held) log.warn("{}: {}", held.path, held.message);
  for (const auto& field : changes.in_step)
    log.info("`{}` in the file matches the value the daemon started with again", field);
  file_effective_ = loaded->effective;
  applied->source = loaded->source;
  return Accepted{std::move(*applied), std::move(loaded->effective)};
}

bool ConfigurationReload::enforcement_allows(const config::LoadedConfig& applied,
                                             const Probe& probe, spdlog::logger& log) {
  auto report = probe(applied.effective);
  if (!report) {
    log.error(
        "configuration reload refused: the sandbox backend could not say what it would enforce "
        "for it ({}); the daemon keeps the configuration it had",
        report.error().message);
    return false;
  }
  auto text = render_enforcement_report(*report);
  if (!report->gaps.empty() &&
      sandbox::sandbox_choice(applied.effective).require_full_enforcement) {
    log.error(
        "configuration reload refused: sandbox.requireFullEnforcement is true and under the new "
        "configuration {} guarantee(s) cannot be enforced on this host; the daemon keeps the "
        "configuration it had. Undo the change, fix the host, or set "
        "sandbox.requireFullEnforcement to false after reading what the gaps leave open.\n{}",
        report->gaps.size(), text);
    return false;
  }
  if (text != report_) {
    log.info("the enforcement report changed; sessions started from now on run under:\n{}", text);
    if (!report->gaps.empty())
      log.warn(
          "sessions started from now on run with {} unenforced guarantee(s) because "
          "sandbox.requireFullEnforcement is false",
          report->gaps.size());
    report_ = std::move(text);
  }
  return true;
}

}  // namespace errand::daemon
