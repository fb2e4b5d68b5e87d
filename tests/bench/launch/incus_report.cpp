#include "tests/bench/launch/incus_report.hpp"

#include <cstdio>

#include "tests/bench/launch/bench_measure.hpp"

namespace errand::bench {

namespace {

struct Medians {
  double first_byte = 0, ended = 0;
};

Medians medians(const std::vector<SessionTimes>& sessions) {
  std::vector<double> first, ended;
  for (const auto& s : sessions) {
    first.push_back(s.first_byte_ms);
    ended.push_back(s.ended_ms);
  }
  return {median(first), median(ended)};
}

double ratio(double a, double b) {
  return b > 0 ? a / b : 0;
}

void print_session(const char* label, std::size_t count, const Medians& m, const Medians& bailey,
                   const Medians& podman) {
  std::printf("  %-22s %2zu  %8.2f ms  %8.2f ms  x%-7.2f x%-7.2f x%-7.2f x%.2f\n", label, count,
              m.first_byte, m.ended, ratio(m.first_byte, bailey.first_byte),
              ratio(m.first_byte, podman.first_byte), ratio(m.ended, bailey.ended),
              ratio(m.ended, podman.ended));
}

void print_steps(const char* label, const IncusSteps& s) {
  std::printf(
      "  %-22s create %7.2f, start %7.2f, exec %6.2f, first byte %6.2f, stop+delete %7.2f; "
      "to first byte %7.2f ms\n",
      label, median(s.create), median(s.start), median(s.exec), median(s.first_byte),
      median(s.remove), median(s.to_first_byte));
}

}  // namespace

void print_first_byte_rounds(int rounds, int failures, const std::vector<SessionTimes>& bailey,
                             const std::vector<SessionTimes>& podman, const IncusFigures* incus) {
  const auto b = medians(bailey), p = medians(podman);
  std::printf("first-byte rounds: %d (failed: %d); the agent prints one byte and exits\n", rounds,
              failures);
  std::printf("  %-22s %2s  %11s  %11s  %-8s %-8s %-8s %s\n", "launch() -> ...", "n", "first byte",
              "ended", "/bailey", "/podman", "/bailey", "/podman");
  print_session("bailey", bailey.size(), b, b, p);
  print_session("podman", podman.size(), p, b, p);
  if (incus == nullptr) return;
  print_session("incus from the image", incus->from_image.size(), medians(incus->from_image), b, p);
  print_session("incus golden copy", incus->from_golden.size(), medians(incus->from_golden), b, p);
  print_session("incus kept, started", incus->kept.size(), medians(incus->kept), b, p);
  const double stopped = median(incus->stopped.to_first_byte);
  std::printf("  %-22s %2zu  %8.2f ms  (PUT state start -> exec's first byte) x%.2f x%.2f\n",
              "incus stopped start", incus->stopped.to_first_byte.size(), stopped,
              ratio(stopped, b.first_byte), ratio(stopped, p.first_byte));
  std::printf("incus requests one at a time, medians in ms:\n");
  print_steps("from the image", incus->image_steps);
  print_steps("golden copy", incus->golden_steps);
  std::printf("  %-22s start %7.2f, exec %6.2f, first byte %6.2f, forced stop %7.2f\n",
              "stopped instance", median(incus->stopped.start), median(incus->stopped.exec),
              median(incus->stopped.first_byte), median(incus->stopped.remove));
  // The peer: what incus itself takes to do the same through its own command line.
  const auto& copy = incus->cli_copy;
  const auto& restart = incus->cli_stopped;
  std::printf("the incus command line, the same golden and stopped instance, medians in ms:\n");
  std::printf(
      "  %-22s copy %7.2f, start %7.2f, exec true %6.2f, delete %7.2f; to exec's end %7.2f ms\n",
      "incus copy + start", median(copy.create), median(copy.start), median(copy.exec),
      median(copy.remove), median(copy.to_first_byte));
  std::printf("  %-22s start %7.2f, exec true %6.2f, forced stop %7.2f; to exec's end %7.2f ms\n",
              "incus start (stopped)", median(restart.start), median(restart.exec),
              median(restart.remove), median(restart.to_first_byte));
  std::printf(
      "errand to the agent's first byte / incus to exec's end: golden copy x%.2f, "
      "stopped start x%.2f, kept thread's session x%.2f\n",
      ratio(medians(incus->from_golden).first_byte, median(copy.to_first_byte)),
      ratio(stopped, median(restart.to_first_byte)),
      ratio(medians(incus->kept).first_byte, median(restart.to_first_byte)));
}

}  // namespace errand::bench
