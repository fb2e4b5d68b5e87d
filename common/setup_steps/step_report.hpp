#pragma once

// How `errand setup` and `errand up` tell the operator what each step did: one line a step,
// "done: ...", "already: ..." or (dry run) "would: ...", counted so the run can end by saying
// whether anything changed. The scripts they run print the same lines, which are relayed here.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace errand::setup {

// A step that could not be done: what it was, why, and what the operator can do about it.
struct StepFailed : std::runtime_error {
  StepFailed(std::string step, std::string reason, std::string remedy);
  std::string step, reason, remedy;
};

class StepReport {
 public:
  StepReport(std::ostream& out, bool dry_run) : out_(out), dry_run_(dry_run) {}

  bool dry_run() const { return dry_run_; }
  // A change made (or, in a dry run, one that would be: `text` then reads as "create ...").
  void changed(std::string_view done_text, std::string_view would_text);
  void already(std::string_view text);
  // A line that is neither: a note, printed as it is.
  void note(std::string_view text);
  // A line a script printed: "done: ", "already: " and "would: " lines are counted and
  // printed; false for any other line.
  bool relay(std::string_view line);

  std::size_t changes() const { return changes_; }
  std::size_t unchanged() const { return unchanged_; }
  // The closing line: "nothing changed: every step was already in place", or the counts.
  std::string summary() const;

 private:
  std::ostream& out_;
  bool dry_run_;
  std::size_t changes_ = 0;
  std::size_t unchanged_ = 0;
};

// The step line's kind and text, or nothing when line is not a step line.
struct StepLine {
  enum class Kind { done, already, would } kind;
  std::string text;
};
std::optional<StepLine> parse_step_line(std::string_view line);

}  // namespace errand::setup
