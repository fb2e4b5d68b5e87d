#pragma once

// What a tunnel must do to the bytes it carries, checked from its two outer ends (plain
// blocking sockets the test holds): the broker's CONNECT tunnel and the sandbox relay are held
// to the same checks.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace errand::tunnel_testing {

// Bytes that differ at every offset for a long way, so a lost, repeated or reordered chunk
// shows as a mismatch rather than passing unnoticed.
std::string byte_pattern(std::size_t size, std::uint32_t seed);

void send_everything(int fd, const std::string& bytes);
// Reads until end of stream; what arrived. Throws when the end does not come within 20 s.
std::string read_until_end(int fd);
// Compares without Catch printing megabytes on a mismatch (the sizes are checked beside it).
bool same_bytes(const std::string& got, const std::string& expected);

// Sends `sent_by_a` from a and `sent_by_b` from b at the same time, each side shutting its write
// side when done, and reads each side until the other's end of stream arrives.
struct BothWays {
  std::string got_at_a;  // what b sent, as a saw it
  std::string got_at_b;
};
BothWays exchange_both_ways(int a, int b, const std::string& sent_by_a,
                            const std::string& sent_by_b);

// Writes to fd without blocking until nothing more is taken for `quiet`, or `limit` bytes were
// taken; the bytes taken. The fd is left blocking.
std::size_t send_until_stalled(int fd, std::chrono::milliseconds quiet, std::size_t limit);

// A connected loopback TCP pair, as {one end, the other end}.
struct FdPair {
  int first = -1;
  int second = -1;
};
FdPair tcp_pair();

}  // namespace errand::tunnel_testing
