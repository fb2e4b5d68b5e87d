#pragma once

// How the API's refusals map to HTTP: every function in core/web/api answers with an sdk::Error
// whose message is the sentence the page shows, and the Router turns its kind into the status
// here, so one kind never answers with two different statuses.

#include <boost/beast/http/status.hpp>
#include <errand/sdk/result.hpp>

namespace errand::web {

// not_found 404, refused 403, limit 413, unavailable and cancelled 503, anything else 500.
boost::beast::http::status status_for(const sdk::Error& error) noexcept;

}  // namespace errand::web
