#include "common/setup_steps/step_report.hpp"

#include <ostream>

namespace errand::setup {

StepFailed::StepFailed(std::string step_, std::string reason_, std::string remedy_)
    : std::runtime_error(step_ + ": " + reason_),
      step(std::move(step_)),
      reason(std::move(reason_)),
      remedy(std::move(remedy_)) {}

void StepReport::changed(std::string_view done_text, std::string_view would_text) {
  ++changes_;
  if (dry_run_) {
    out_ << "would: " << would_text << '\n';
  } else {
    out_ << "done: " << done_text << '\n';
  }
  out_.flush();
}

void StepReport::already(std::string_view text) {
  ++unchanged_;
  out_ << "already: " << text << '\n';
  out_.flush();
}

void StepReport::note(std::string_view text) {
  out_ << text << '\n';
  out_.flush();
}

bool StepReport::relay(std::string_view line) {
  const auto step = parse_step_line(line);
  if (!step) return false;
  if (step->kind == StepLine::Kind::already) {
    already(step->text);
  } else {
    changed(step->text, step->text);
  }
  return true;
}

std::string StepReport::summary() const {
  if (changes_ == 0) return "nothing changed: every step was already in place";
  const auto count = [](std::size_t n) {
    return std::to_string(n) + (n == 1 ? " step" : " steps");
  };
  if (dry_run_)
    return "dry run, nothing changed: " + count(changes_) + " would change something, " +
           std::to_string(unchanged_) + " already in place";
  return count(changes_) + " changed something, " + std::to_string(unchanged_) +
         " already in place";
}

std::optional<StepLine> parse_step_line(std::string_view line) {
  constexpr std::pair<std::string_view, StepLine::Kind> kinds[] = {
      {"done: ", StepLine::Kind::done},
      {"already: ", StepLine::Kind::already},
      {"would: ", StepLine::Kind::would}};
  for (const auto& [prefix, kind] : kinds) {
    if (line.substr(0, prefix.size()) == prefix)
      return StepLine{kind, std::string(line.substr(prefix.size()))};
  }
  return std::nullopt;
}

}  // namespace errand::setup
