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

// Up to `limit` candidates someone who wrote `word` may have meant, compared without case: the
// same word, then candidates it begins or is begun by, then ones holding it or held in it (these
// two for words of three letters or more), then ones a few edits away (at most a third of the
// word, and at least one); nearer first within each, then in the order listed.
std::vector<std::string> closest_names(std::string_view word,
                                       const std::vector<std::string>& candidates,
                                       std::size_t limit = 3);

}  // namespace errand::config
