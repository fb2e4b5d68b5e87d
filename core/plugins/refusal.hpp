#pragma once

// The loader's checks refuse a plugin file with a sentence naming it; this spells that error once.

#include <fmt/format.h>

#include <errand/sdk/result.hpp>
#include <utility>

namespace errand::plugins {

template <class... Args>
sdk::Error refusal(fmt::format_string<Args...> text, Args&&... args) {
  return sdk::make_error(fmt::format(text, std::forward<Args>(args)...), sdk::Error::Kind::refused);
}

}  // namespace errand::plugins
