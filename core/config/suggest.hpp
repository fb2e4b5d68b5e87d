#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::config {

// Edits (insert, delete, substitute, swap two neighbours) that turn one word into the other.
std::size_t edit_distance(std::string_view a, std::string_view b);

bool equal_ignoring_case(std::string_view a, std::string_view b);

// The candidate a word most plausibly misspells: the same word in another case, or one at most
// two edits away (the nearest wins, then the first listed). nullopt when nothing is that close.
std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates);

}  // namespace errand::config
