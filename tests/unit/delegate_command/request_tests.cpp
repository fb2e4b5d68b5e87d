// The request's encodings: the question and name percent-encoded, the credential in Basic.

#include <catch2/catch_test_macros.hpp>

#include "tools/delegate/request.hpp"

using namespace errand::delegate;

TEST_CASE("percent_encode keeps only the unreserved characters", "[delegate]") {
  CHECK(percent_encode("why did it fail? 100% sure") == "why%20did%20it%20fail%3F%20100%25%20sure");
  CHECK(percent_encode("A-z_0.9~") == "A-z_0.9~");
  CHECK(percent_encode("caf\xc3\xa9\r\n:") == "caf%C3%A9%0D%0A%3A");
  std::string back;
  REQUIRE(percent_decode(percent_encode("line one\nline two: é"), back));
  CHECK(back == "line one\nline two: é");
}

TEST_CASE("the request head is the wire's, header for header", "[delegate]") {
  ProxyAddress broker{"127.0.0.1", 3128, "errand", "s3cret", "127.0.0.1:3128"};
  CHECK(request_head(broker, "what failed?", "build.log", 42) ==
        "POST /delegate HTTP/1.1\r\n"
        "Host: 127.0.0.1:3128\r\n"
        "Proxy-Authorization: Basic ZXJyYW5kOnMzY3JldA==\r\n"
        "X-Errand-Question: what%20failed%3F\r\n"
        "X-Errand-Artefact: build.log\r\n"
        "Content-Type: application/octet-stream\r\n"
        "Content-Length: 42\r\n"
        "Connection: close\r\n"
        "\r\n");
}
