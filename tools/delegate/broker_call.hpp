#pragma once

// One call to the session's broker over TCP: connect, send the request, read the answer to its
// end, handing text to on_text as it streams.

#include <functional>
#include <string>
#include <string_view>

#include "tools/delegate/answer_reader.hpp"
#include "tools/delegate/artefact.hpp"
#include "tools/delegate/proxy_url.hpp"

namespace errand::delegate {

Outcome call_broker(const ProxyAddress& broker, const std::string& question,
                    const Artefact& artefact, const std::function<void(std::string_view)>& on_text);

}  // namespace errand::delegate
