#pragma once

// A one-shot question to a runner (ps, show, kill): hello, the request, its answer.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>

#include "core/remote/call/call_endpoints.hpp"
#include "core/remote/wire/messages.hpp"

namespace errand::cli {

// The answer's body; the runner's refusal as an error with its sentence (unknown_job as
// not_found, the rest as refused).
sdk::Result<boost::json::object> ask_runner(const remote::RunnerLink& link,
                                            const remote::wire::Request& request,
                                            int interrupts_fd);

}  // namespace errand::cli
