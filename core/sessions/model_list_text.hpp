#pragma once

// The answers of `!model` without a name: in the channel, the models of every configured
// provider with the one sessions start on marked; in a session's thread, the models of its
// provider with the one it runs on marked.

#include "core/sessions/model_catalog.hpp"

#include <string>
#include <string_view>

namespace errand::sessions {

std::string describe_models_by_provider(const ModelSources& sources);

// current: the model the thread runs on (threads.db's, or the live session's); empty: the one
// sessions start on. live: a session runs in the thread now, rather than the next one to start.
std::string describe_thread_models(const ModelSources& sources, std::string_view provider,
                                   std::string_view current, bool live);

}  // namespace errand::sessions
