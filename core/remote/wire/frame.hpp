#pragma once

// remote-run's framing: the caller and the runner share one byte stream (a unix socket, or that
// socket bridged over ssh), so every message is cut out of it by a length prefix.
//
//   [L: 4 bytes, big-endian][type: 1 byte][payload: L - 1 bytes]
//
// L counts the type byte and the payload. L = 0 and L > kMaxFrameBytes are refused as soon as the
// four length bytes are in, before anything is held for the frame, so a peer cannot make the
// other side allocate more than one frame's worth.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace errand::remote::wire {

// The most data one blob, output or stdin frame carries: large enough that a big file crosses in
// few frames, small enough that one frame never holds a connection up for long.
inline constexpr std::size_t kMaxChunkBytes = 1024 * 1024;

// A chunk plus the largest header around it, a blob chunk's 66 bytes (type byte, 64 hex digits,
// flags), with room to spare for a header field added later. (1 MiB + 64 would leave a full
// blob chunk 2 bytes short.)
inline constexpr std::size_t kMaxFrameBytes = kMaxChunkBytes + 128;

inline constexpr std::size_t kFrameLengthBytes = 4;

// The numbers are the protocol: never renumber one, only add. Who sends each and its payload
// (JSON ones are one object; messages.hpp has their fields):
enum class FrameType : std::uint8_t {
  hello = 1,          // both, first: JSON {"protocol", "program"}
  admit = 2,          // caller: JSON, a job to run; manifest_part frames follow it when the job
                      // carries a snapshot
  manifest_part = 3,  // caller: flags byte (bit 0: last part), then a piece of the manifest's
                      // encoded JSON; the pieces concatenated are the whole manifest
  need = 4,           // runner: JSON {"blobs"}, the blobs of the manifest it lacks
  blob = 5,           // caller: 64 hex digits of the blob's SHA-256, flags byte (bit 0: last
                      // chunk of this blob), then up to kMaxChunkBytes of its content
  admitted = 6,       // runner: JSON, the job was taken (or was already there)
  refused = 7,        // runner: JSON {"code", "message"}, the request was declined
  queued = 8,         // runner: JSON {"position"}, a waiting job's place in the queue
  output = 9,         // runner: 8-byte big-endian sequence number (from 1), stream byte
                      // (1 stdout, 2 stderr), then the data (not empty)
  attach = 10,        // caller: JSON {"job", "from"}, stream a job's output after sequence "from"
  input = 11,         // "stdin" (a macro's name in C++), caller: the job's stdin data; an
                      // empty payload ends its stdin
  signal = 12,        // caller: JSON {"job", "signal"}, signal the job
  detach = 13,        // caller: empty payload, stop streaming and leave the job running
  end = 14,           // runner: JSON, the job ended, how, and its last output sequence number
  request = 15,       // caller: JSON {"op", "job"}, a listing or maintenance request
  answer = 16,        // runner: a JSON object, the answer to a request
};

bool is_frame_type(std::uint8_t byte) noexcept;

// The type's name as the protocol's documentation spells it ("manifest_part", "stdin"), for
// error messages.
std::string_view frame_type_name(FrameType type) noexcept;

struct Frame {
  FrameType type = FrameType::hello;
  std::string payload;

  bool operator==(const Frame&) const = default;
};

// Appends the frame to out. The caller keeps the payload within kMaxFrameBytes - 1 (the
// messages' encoders do); a longer one would be refused by the peer's reader.
void append_frame(std::string& out, FrameType type, std::string_view payload);

}  // namespace errand::remote::wire
