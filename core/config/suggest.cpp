#include "core/config/suggest.hpp"

#include "common/ascii_case.hpp"

#include <algorithm>
#include <boost/beast/core/string.hpp>

namespace errand::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment over three rolling rows; configuration keys are short.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return boost::beast::iequals(a, b);
}

std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  for (const auto& candidate : candidates)
    if (equal_ignoring_case(word, candidate)) return candidate;
  std::optional<std::string> best;
  std::size_t best_distance = 3;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    // A two-letter word is two edits from every other two-letter word; that is no evidence.
    if (distance < best_distance && distance < word.size()) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::vector<std::string> closest_names(std::string_view word,
                                       const std::vector<std::string>& candidates,
                                       std::size_t limit) {
  enum class Likeness { same, prefix, inside, near };
  struct Match {
    Likeness likeness;
    std::size_t distance;
    const std::string* name;
  };
  const std::string wanted = common::ascii_lower(word);
  // A part as short as "a" begins or sits inside most names; it says nothing.
  constexpr std::size_t kShortestPart = 3;
  const std::size_t farthest = std::max<std::size_t>(1, wanted.size() / 3);
  std::vector<Match> matches;
  for (const auto& candidate : candidates) {
    const std::string name = common::ascii_lower(candidate);
    const std::size_t distance = edit_distance(wanted, name);
    const bool parts = wanted.size() >= kShortestPart && name.size() >= kShortestPart;
    Likeness likeness;
    if (name == wanted)
      likeness = Likeness::same;
    else if (parts && (name.starts_with(wanted) || wanted.starts_with(name)))
      likeness = Likeness::prefix;
    else if (parts &&
             (name.find(wanted) != std::string::npos || wanted.find(name) != std::string::npos))
      likeness = Likeness::inside;
    else if (distance <= farthest && distance < wanted.size())
      likeness = Likeness::near;
    else
      continue;
    matches.push_back({likeness, distance, &candidate});
  }
  std::stable_sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) {
    return a.likeness != b.likeness ? a.likeness < b.likeness : a.distance < b.distance;
  });
  std::vector<std::string> names;
  for (const auto& match : matches) {
    if (names.size() == limit) break;
    if (std::find(names.begin(), names.end(), *match.name) == names.end())
      names.push_back(*match.name);
  }
  return names;
}

}  // namespace errand::config
