#include "core/chat/render/unified_diff.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <vector>

namespace errand::chat {

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto newline = text.find('\n', pos);
    if (newline == std::string_view::npos) {
      lines.push_back(text.substr(pos));
      break;
    }
    lines.push_back(text.substr(pos, newline - pos));
    pos = newline + 1;
  }
  return lines;
}

enum class Kind { same, removed, added };

struct Op {
  Kind kind;
  std::size_t old_at;  // index in the old lines where this op sits
  std::size_t new_at;  // index in the new lines where this op sits
};

// Myers' O((N+M)D) shortest edit script. Each step keeps only the diagonals it reached, so
// memory is O(D^2); past max_d it gives up and the caller replaces the whole text.
std::optional<std::vector<Op>> shortest_edit(const std::vector<std::string_view>& a,
                                             const std::vector<std::string_view>& b,
                                             std::size_t max_d) {
  const long n = static_cast<long>(a.size());
  const long m = static_cast<long>(b.size());
  const long max = n + m;
  const long offset = max + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * max + 3), 0);
  // trace[d] holds v[-d-1 .. d+1] as it was before step d.
  std::vector<std::vector<long>> trace;
  long found_d = -1;
  for (long d = 0; d <= max && d <= static_cast<long>(max_d); ++d) {
    trace.emplace_back(v.begin() + (offset - d - 1), v.begin() + (offset + d + 2));
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                   ? v[offset + k + 1]
                   : v[offset + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
    if (found_d >= 0) break;
  }
  if (found_d < 0) return std::nullopt;

  std::vector<Op> ops;
  long x = n, y = m;
  for (long d = found_d; d >= 0; --d) {
    const auto& prev = trace[static_cast<std::size_t>(d)];
    const auto at = [&](long k) { return prev[static_cast<std::size_t>(k + d + 1)]; };
    const long k = x - y;
    const long prev_k = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    const long prev_x = at(prev_k);
    const long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      --x, --y;
      ops.push_back({Kind::same, static_cast<std::size_t>(x), static_cast<std::size_t>(y)});
    }
    if (d > 0) {
      if (x == prev_x) {
        --y;
        ops.push_back({Kind::added, static_cast<std::size_t>(x), static_cast<std::size_t>(y)});
      } else {
        --x;
        ops.push_back({Kind::removed, static_cast<std::size_t>(x), static_cast<std::size_t>(y)});
      }
    }
    x = prev_x, y = prev_y;
  }
  std::reverse(ops.begin(), ops.end());
  return ops;
}

std::vector<Op> replace_all_ops(std::size_t n, std::size_t m) {
  std::vector<Op> ops;
  for (std::size_t i = 0; i < n; ++i) ops.push_back({Kind::removed, i, 0});
  for (std::size_t j = 0; j < m; ++j) ops.push_back({Kind::added, n, j});
  return ops;
}

}  // namespace

UnifiedDiff unified_diff(std::optional<std::string_view> old_text, std::string_view new_text,
                         std::size_t context, std::size_t max_edit_distance) {
  const auto a = lines_of(old_text.value_or(std::string_view()));
  const auto b = lines_of(new_text);
  auto found = shortest_edit(a, b, max_edit_distance);
  const auto ops = found ? std::move(*found) : replace_all_ops(a.size(), b.size());

  UnifiedDiff diff;
  // Hunks: every change with `context` unchanged lines around it, merged when they touch.
  std::vector<std::pair<std::size_t, std::size_t>> hunks;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == Kind::same) continue;
    const auto start = i > context ? i - context : 0;
    const auto end = std::min(ops.size(), i + context + 1);
    if (!hunks.empty() && start <= hunks.back().second)
      hunks.back().second = std::max(hunks.back().second, end);
    else
      hunks.emplace_back(start, end);
  }
  for (const auto& [start, end] : hunks) {
    std::size_t old_count = 0, new_count = 0;
    for (std::size_t i = start; i < end; ++i) {
      if (ops[i].kind != Kind::added) ++old_count;
      if (ops[i].kind != Kind::removed) ++new_count;
    }
    // An empty side names the line before it, as diff(1) does.
    const auto old_start = ops[start].old_at + (old_count ? 1 : 0);
    const auto new_start = ops[start].new_at + (new_count ? 1 : 0);
    diff.text += fmt::format("@@ -{},{} +{},{} @@\n", old_start, old_count, new_start, new_count);
    for (std::size_t i = start; i < end; ++i) {
      switch (ops[i].kind) {
        case Kind::same: diff.text += fmt::format(" {}\n", a[ops[i].old_at]); break;
        case Kind::removed:
          diff.text += fmt::format("-{}\n", a[ops[i].old_at]);
          ++diff.removed;
          break;
        case Kind::added:
          diff.text += fmt::format("+{}\n", b[ops[i].new_at]);
          ++diff.added;
          break;
      }
    }
  }
  return diff;
}

}  // namespace errand::chat
