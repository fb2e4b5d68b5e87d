#pragma once

// Running `git http-backend` as a CGI program (RFC 3875): its request in environment variables,
// the request body on its stdin, its answer on its stdout as CGI header lines ("Status: ...")
// then the body. Its stdin and stdout are socket pairs rather than pipes: writing to a child that
// has gone answers EPIPE instead of raising SIGPIPE in the test process.

#include "common/unique_fd.hpp"

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace errand::fakes {

struct CgiChild {
  pid_t pid = -1;
  common::UniqueFd pidfd;
  common::UniqueFd stdin_socket;   // the parent's end: the request body goes here
  common::UniqueFd stdout_socket;  // the parent's end: the answer comes from here
};

// Throws std::runtime_error saying why the program could not start.
CgiChild start_cgi(const std::string& program,
                   const std::vector<std::pair<std::string, std::string>>& environment);

struct CgiAnswer {
  unsigned status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// Nothing when output has no blank line ending its headers, or a Status line is not a number.
std::optional<CgiAnswer> parse_cgi_output(std::string_view output);

}  // namespace errand::fakes
