// bench_receipts: how long the broker's io thread spends handing 2,000 provider receipts to
// receipts.db, whose writer thread does the disk work. The figure is the median of several
// rounds, each queued onto an empty queue and then flushed before the next. The unit test
// (tests/unit/receipts) proves that recording never waits for the disk; this measures how
// cheap the hand-over is. Not a test: it prints figures.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "core/receipts/receipts_db.hpp"
#include "tests/bench/table/bench_table.hpp"
#include "tests/support/sample_receipt.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

int number_after(int& i, int argc, char** argv) {
  if (i + 1 >= argc) {
    std::cerr << "bench_receipts: " << argv[i] << " needs a number\n";
    std::exit(2);
  }
  return std::stoi(argv[++i]);
}

}  // namespace

int main(int argc, char** argv) {
  int receipts = 2000;
  int rounds = 15;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--receipts") {
      receipts = number_after(i, argc, argv);
    } else if (arg == "--rounds") {
      rounds = number_after(i, argc, argv);
    } else {
      std::cerr << "usage: bench_receipts [--receipts N] [--rounds N]\n";
      return 2;
    }
  }
  if (receipts <= 0 ||
      static_cast<std::size_t>(receipts) > errand::receipts::ReceiptsDb::kQueueLimit ||
      rounds <= 0) {
    std::cerr << "bench_receipts: --receipts must be 1 to "
              << errand::receipts::ReceiptsDb::kQueueLimit << " and --rounds at least 1\n";
    return 2;
  }

  const errand::test::TempDir dir;
  auto db = errand::receipts::ReceiptsDb::open(dir.path() / "receipts.db", nullptr);
  if (!db) {
    std::cerr << "bench_receipts: " << db.error().message << "\n";
    return 1;
  }
  std::vector<double> queued_ms;
  for (int round = 0; round < rounds; ++round) {
    const auto started = clock_type::now();
    for (int n = 0; n < receipts; ++n)
      (*db)->record(errand::test::sample_receipt("bench", round * receipts + n));
    queued_ms.push_back(
        std::chrono::duration<double, std::milli>(clock_type::now() - started).count());
    (*db)->flush();
  }
  std::sort(queued_ms.begin(), queued_ms.end());
  const double median = queued_ms[queued_ms.size() / 2];
  std::printf(
      "%d receipts queued: median %.2f ms, fastest %.2f ms, slowest %.2f ms (%d rounds), %zu "
      "lost\n",
      receipts, median, queued_ms.front(), queued_ms.back(), rounds, (*db)->lost());
  errand::bench::TableRow row;
  row.measure = "queueing " + std::to_string(receipts) + " receipts";
  row.unit = "ms";
  row.errand = median;
  row.better = errand::bench::Better::lower;
  row.aim = 200;
  errand::bench::print_table_row(row);
  return (*db)->lost() == 0 ? 0 : 1;
}
