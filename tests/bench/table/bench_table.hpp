#pragma once

// One row of errand's performance table (docs/reliability.md): a measure, errand's median and
// its named peer's median from the same run, their ratio and the aim the ratio is judged by. Each
// benchmark prints its rows among its own output, marked so scripts/bench can gather every
// benchmark's rows into one table at the end of a run.

#include <string>
#include <string_view>

namespace errand::bench {

enum class Better { higher, lower };  // which way the ratio should go

struct TableRow {
  std::string measure;  // e.g. "CONNECT tunnel throughput, broker vs direct loopback"
  std::string unit;     // e.g. "MiB/s", "us", "ms", "MB"
  double errand = 0;
  std::string peer_name;  // empty: the row has an absolute aim and no peer
  double peer = 0;
  Better better = Better::higher;
  double aim = 0;  // the ratio errand/peer to reach, or the absolute figure without a peer
};

// errand / peer, or errand itself when the row has no peer.
double row_ratio(const TableRow& row);
bool row_meets_aim(const TableRow& row);

// Prints the row as one line starting with kTableMark: measure, figures, ratio, aim, met or not.
void print_table_row(const TableRow& row);
inline constexpr std::string_view kTableMark = "table-row\t";

}  // namespace errand::bench
