#pragma once

// The one seam between what the backend decides and how it talks to incusd: a blocking call of
// Incus's REST API, in the shape of the client's request_blocking (client/incus_client.hpp). It
// answers the metadata of a sync reply, or the finished operation's metadata for an async one,
// and adds the project to the query itself, so the paths here never name it. An error with
// Kind::not_found means Incus answered 404. Everything that judges or builds a request works on
// the JSON documents alone, so tests feed it what incusd 6.0 answers.

#include <boost/json/value.hpp>
#include <errand/sdk/result.hpp>
#include <functional>
#include <optional>
#include <string_view>

namespace errand::incus {

using IncusRequester = std::function<sdk::Result<boost::json::value>(
    std::string_view verb, std::string_view path, std::optional<boost::json::value> body)>;

}  // namespace errand::incus
