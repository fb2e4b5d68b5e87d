#include "core/web/api/api_errors.hpp"

namespace errand::web {

boost::beast::http::status status_for(const sdk::Error& error) noexcept {
  using boost::beast::http::status;
  switch (error.kind) {
    case sdk::Error::Kind::not_found: return status::not_found;
    case sdk::Error::Kind::refused: return status::forbidden;
    case sdk::Error::Kind::limit: return status::payload_too_large;
    case sdk::Error::Kind::unavailable:
    case sdk::Error::Kind::cancelled: return status::service_unavailable;
    case sdk::Error::Kind::failed: return status::internal_server_error;
  }
  return status::internal_server_error;
}

}  // namespace errand::web
