#include "tests/fakes/github/github_impl.hpp"

namespace errand::fakes {

ApiReply github_error(unsigned status, std::string message, std::string documentation_url,
                      boost::json::array errors) {
  boost::json::object body{{"message", std::move(message)},
                           {"documentation_url", std::move(documentation_url)}};
  // GitHub lists what failed validation between the two.
  if (!errors.empty()) body["errors"] = std::move(errors);
  return ApiReply{status, std::move(body), {}};
}

}  // namespace errand::fakes
