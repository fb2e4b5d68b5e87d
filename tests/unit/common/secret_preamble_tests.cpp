// The secret preamble as errand-guest-init reads it and the incus plugin writes it: the two
// ends agree, every malformed form is refused with a reason that never quotes a value, and the
// reader takes exactly the bytes the length announces from a real pipe, leaving the rest.

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "common/secret_preamble/secret_preamble.hpp"
#include "tests/support/result_printing.hpp"

namespace preamble = errand::secret_preamble;

namespace {

struct Pipe {
  Pipe() { REQUIRE(::pipe2(ends, O_CLOEXEC) == 0); }
  ~Pipe() {
    for (const int end : ends)
      if (end >= 0) ::close(end);
  }
  void write_all(const std::string& bytes) {
    REQUIRE(::write(ends[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  void close_writer() {
    ::close(ends[1]);
    ends[1] = -1;
  }
  std::string rest() {
    close_writer();
    std::string out;
    char buffer[256];
    for (ssize_t n; (n = ::read(ends[0], buffer, sizeof buffer)) > 0;)
      out.append(buffer, static_cast<std::size_t>(n));
    return out;
  }
  int ends[2] = {-1, -1};
};

std::string header(std::uint32_t n) {
  return {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
          static_cast<char>(n)};
}

std::string refusal_of_body(const std::string& body) {
  const auto decoded = preamble::decode_body(body);
  REQUIRE_FALSE(decoded);
  return decoded.error().message;
}

}  // namespace

TEST_CASE("secret preamble: encode writes the big-endian length and NAME=value entries") {
  const auto bytes = preamble::encode({{"TOKEN", "abc"}, {"EMPTY", ""}});
  REQUIRE(bytes);
  CHECK(*bytes == header(17) + std::string("TOKEN=abc\0EMPTY=\0", 17));
  const auto none = preamble::encode({});
  REQUIRE(none);
  CHECK(*none == header(0));
}

TEST_CASE("secret preamble: what encode writes, read_from gives back, and a value may hold '='") {
  const preamble::Entries entries{{"GITHUB_TOKEN", "ghp_x=y=z"}, {"_KEY2", "line\nbreak"}};
  const auto bytes = preamble::encode(entries);
  REQUIRE(bytes);
  Pipe pipe;
  pipe.write_all(*bytes);
  const auto read = preamble::read_from(pipe.ends[0]);
  REQUIRE(read);
  CHECK(*read == entries);
}

TEST_CASE("secret preamble: read_from takes exactly the announced bytes and leaves the stream") {
  const auto bytes = preamble::encode({{"A", "1"}});
  REQUIRE(bytes);
  Pipe pipe;
  const std::string stream_after("{\"jsonrpc\":\"2.0\"}\n\0\xff", 21);
  pipe.write_all(*bytes + stream_after);
  const auto read = preamble::read_from(pipe.ends[0]);
  REQUIRE(read);
  CHECK(read->size() == 1);
  CHECK(pipe.rest() == stream_after);
}

TEST_CASE("secret preamble: a stream that ends inside the length or the body is refused") {
  SECTION("inside the length") {
    Pipe pipe;
    pipe.write_all(std::string("\0\0", 2));
    pipe.close_writer();
    const auto read = preamble::read_from(pipe.ends[0]);
    REQUIRE_FALSE(read);
    CHECK(read.error().message == "the secret preamble's 4-byte length ended after 2 bytes");
  }
  SECTION("inside the body") {
    Pipe pipe;
    pipe.write_all(header(100) + "A=12345");
    pipe.close_writer();
    const auto read = preamble::read_from(pipe.ends[0]);
    REQUIRE_FALSE(read);
    CHECK(read.error().message ==
          "the secret preamble ended after 7 of the 100 bytes it announced");
  }
  SECTION("with nothing at all") {
    Pipe pipe;
    pipe.close_writer();
    const auto read = preamble::read_from(pipe.ends[0]);
    REQUIRE_FALSE(read);
    CHECK(read.error().message == "the secret preamble's 4-byte length ended after 0 bytes");
  }
}

TEST_CASE("secret preamble: a length over 1 MiB is refused before any of the body is read") {
  Pipe pipe;
  pipe.write_all(header(preamble::kMaxBodyBytes + 1) + "A=1");
  const auto read = preamble::read_from(pipe.ends[0]);
  REQUIRE_FALSE(read);
  CHECK(read.error().kind == errand::sdk::Error::Kind::limit);
  CHECK(read.error().message ==
        "a secret preamble of 1048577 bytes is over the limit of 1048576 bytes");
  CHECK(pipe.rest() == "A=1");
  const unsigned char at_limit[4] = {0x00, 0x10, 0x00, 0x00};
  CHECK(preamble::body_length(at_limit).value() == preamble::kMaxBodyBytes);
}

TEST_CASE("secret preamble: malformed bodies are refused, naming the entry but never a value") {
  CHECK(refusal_of_body(std::string("A=1\0B=2", 7)) ==
        "secret preamble entry 2 is not ended by a NUL byte");
  CHECK(refusal_of_body(std::string("A=1\0hunter2\0", 12)) ==
        "secret preamble entry 2 has no '=' between its name and value");
  CHECK(refusal_of_body(std::string("=hunter2\0", 9)).find("not an environment variable name") !=
        std::string::npos);
  CHECK(refusal_of_body(std::string("9A=hunter2\0", 11)).find("entry 1 has a name") !=
        std::string::npos);
  CHECK(refusal_of_body(std::string("A-B=hunter2\0", 12)).find("entry 1 has a name") !=
        std::string::npos);
  CHECK(refusal_of_body(std::string("A=1\0A=hunter2\0", 14)) ==
        "secret preamble entry 2 repeats the name A");
  for (const auto& body : {std::string("=hunter2\0", 9), std::string("A=1\0A=hunter2\0", 14)})
    CHECK(refusal_of_body(body).find("hunter2") == std::string::npos);
}

TEST_CASE("secret preamble: encode refuses what the reader would refuse") {
  CHECK_FALSE(preamble::encode({{"BAD NAME", "x"}}));
  CHECK_FALSE(preamble::encode({{"", "x"}}));
  CHECK_FALSE(preamble::encode({{"A", "x"}, {"A", "y"}}));
  const auto nul = preamble::encode({{"A", std::string("x\0y", 3)}});
  REQUIRE_FALSE(nul);
  CHECK(nul.error().message == "secret preamble entry 1 (A) has a NUL byte in its value");
  const auto big = preamble::encode({{"BIG", std::string(preamble::kMaxBodyBytes, 'x')}});
  REQUIRE_FALSE(big);
  CHECK(big.error().kind == errand::sdk::Error::Kind::limit);
}
