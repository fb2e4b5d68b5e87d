#include "tests/bench/table/bench_table.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace errand::bench {

double row_ratio(const TableRow& row) {
  if (row.peer_name.empty()) return row.errand;
  return row.peer > 0 ? row.errand / row.peer : 0;
}

bool row_meets_aim(const TableRow& row) {
  const double ratio = row_ratio(row);
  return row.better == Better::higher ? ratio >= row.aim : ratio <= row.aim;
}

void print_table_row(const TableRow& row) {
  const char* sense = row.better == Better::higher ? ">=" : "<=";
  const std::string figures =
      row.peer_name.empty()
          ? fmt::format("{:.1f} {}", row.errand, row.unit)
          : fmt::format("{:.1f} vs {:.1f} {} ({})", row.errand, row.peer, row.unit, row.peer_name);
  const std::string judged =
      row.peer_name.empty()
          ? fmt::format("aim {} {:g} {}", sense, row.aim, row.unit)
          : fmt::format("ratio {:.2f}, aim {} {:g}", row_ratio(row), sense, row.aim);
  fmt::print("{}{}\t{}\t{}\t{}\n", kTableMark, row.measure, figures, judged,
             row_meets_aim(row) ? "met" : "NOT met");
  std::fflush(stdout);
}

}  // namespace errand::bench
