// The one mapping from an API refusal's kind to its HTTP status, and the ids the API accepts.

#include "core/web/api/api_errors.hpp"
#include "core/web/api/api_ids.hpp"

#include <catch2/catch_test_macros.hpp>

using boost::beast::http::status;
using errand::sdk::Error;
using errand::sdk::make_error;
using errand::web::is_api_id;
using errand::web::status_for;

TEST_CASE("each kind of refusal answers with its own status") {
  CHECK(status_for(make_error("no such thread", Error::Kind::not_found)) == status::not_found);
  CHECK(status_for(make_error("a link", Error::Kind::refused)) == status::forbidden);
  CHECK(status_for(make_error("too big", Error::Kind::limit)) == status::payload_too_large);
  CHECK(status_for(make_error("down", Error::Kind::unavailable)) == status::service_unavailable);
  CHECK(status_for(make_error("stopped", Error::Kind::cancelled)) == status::service_unavailable);
  CHECK(status_for(make_error("broke")) == status::internal_server_error);
}

TEST_CASE("thread and session ids are letters, digits, dots, underscores and dashes") {
  CHECK(is_api_id("1234567890"));
  CHECK(is_api_id("s-20261201.ab_C"));
  CHECK_FALSE(is_api_id(""));
  CHECK_FALSE(is_api_id("."));
  CHECK_FALSE(is_api_id(".."));
  CHECK_FALSE(is_api_id("a/b"));
  CHECK_FALSE(is_api_id("../x"));
  CHECK_FALSE(is_api_id("a b"));
  CHECK_FALSE(is_api_id("caf\xc3\xa9"));
}
