#pragma once

// The typed messages of remote-run's protocol, one struct for each frame type (frame.hpp), and
// their one encoding. Decoding is strict, as what arrives comes from another machine: a JSON
// payload must be one object with exactly the fields below (an unknown or repeated key is
// refused, naming it), each of the type and within the range given; a binary payload must have
// its exact layout. Every refusal names the message, the field and what was wrong.
//
// For every message m that decode_message accepts, decode_message(encode_message(m)) == m.
//
// A conversation: each side sends hello first. The caller sends admit (and, for a job with a
// snapshot, manifest_part frames right after it); the runner answers need (in one or more
// frames) and the caller sends those blobs; then the runner answers admitted or refused. While
// the job waits the runner sends queued; it streams output; it sends end when the job is over.
// The caller may send stdin data, signal, detach, and attach (on a new connection) to resume.
// request/answer serve the listing and maintenance commands.

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/remote/wire/frame.hpp"

namespace errand::remote::wire {

inline constexpr std::uint64_t kProtocolVersion = 1;

// Bounds a runner holds an admission to, so that one request cannot make it hold unbounded
// state (the frame limit bounds the admit frame as a whole as well).
inline constexpr std::size_t kMaxArgs = 4096;
inline constexpr std::size_t kMaxArgBytes = 128 * 1024;  // each argument and each env value
inline constexpr std::size_t kMaxEnvNames = 1024;
inline constexpr std::size_t kMaxProgramBytes = 256;  // hello's "program"
// A manifest of a million entries is tens of MiB of JSON, hence its own frames.
inline constexpr std::size_t kMaxManifestBytes = 64 * 1024 * 1024;
// Hashes in one need frame; a runner lacking more sends several (each hash takes 67 bytes of
// JSON, so this many stay well inside a frame).
inline constexpr std::size_t kMaxNeedBlobs = 8192;
// Linux's highest signal number (SIGRTMAX).
inline constexpr int kMaxSignalNumber = 64;

// {"protocol": 1, "program": "errand 0.1.0"}. A protocol other than kProtocolVersion is refused,
// naming both. "program" (1 to kMaxProgramBytes bytes) is for the other side's logs.
struct Hello {
  std::uint64_t protocol = kProtocolVersion;
  std::string program;
  bool operator==(const Hello&) const = default;
};

// {"job": ULID, "argv": [...], "env": {"NAME": "value"}, "workdir": "rel/path", "snapshot": b}
struct Admit {
  std::string job;  // made by the caller (make_job_id), so a retried admission names the same job
  // 1 to kMaxArgs arguments of at most kMaxArgBytes each, without NUL; argv[0], the program,
  // is not empty (later arguments may be, as `grep "" file` needs).
  std::vector<std::string> argv;
  // At most kMaxEnvNames names matching [A-Za-z_][A-Za-z0-9_]*; values without NUL, at most
  // kMaxArgBytes each.
  std::map<std::string, std::string> env;
  // Where in the tree the command starts: empty for the root, else a path the manifest's rules
  // accept (manifest_path_problem: relative, normalised, UTF-8, kManifestMaxPathBytes at most).
  std::string workdir;
  // Whether the job runs in a shipped working tree; if so, manifest_part frames follow.
  bool snapshot = false;
  bool operator==(const Admit&) const = default;
};

// A piece of the manifest's encoded JSON (encode_manifest). Only the last part may be empty.
// The parts together are at most kMaxManifestBytes; ManifestAssembler puts them together.
struct ManifestPart {
  bool last = false;
  std::string text;  // at most kMaxChunkBytes
  bool operator==(const ManifestPart&) const = default;
};

// {"blobs": [sha256 hex, ...]}: at most kMaxNeedBlobs, each 64 lowercase hex digits.
struct Need {
  std::vector<std::string> blobs;
  bool operator==(const Need&) const = default;
};

// One chunk of a blob's content; a blob's chunks arrive in order, the last one flagged. A
// non-last chunk is not empty; an empty blob is one empty last chunk. BlobAssembler checks the
// content against the name.
struct BlobChunk {
  std::string blob;  // the content's SHA-256, 64 lowercase hex digits
  bool last = false;
  std::string data;  // at most kMaxChunkBytes
  bool operator==(const BlobChunk&) const = default;
};

enum class JobState { queued, running, ended };

// {"job": ULID, "state": "queued"|"running"|"ended", "existing": b, "position": N}.
// "existing": the job id was already known (a retried admission); "position" (from 1, as in
// Queued) is sent exactly when the state is queued.
struct Admitted {
  std::string job;
  JobState state = JobState::queued;
  bool existing = false;
  std::optional<std::uint64_t> position;
  bool operator==(const Admitted&) const = default;
};

// Why a request was declined, for the caller to branch on; the message says it to a person.
enum class RefusalCode {
  not_allowed,      // "not-allowed": this caller may not run that here
  queue_full,       // "queue-full": the runner takes no more jobs for now
  conflict,         // "conflict": the job id names a different job already
  bad_request,      // "bad-request": a message broke the protocol's rules
  enforcement_gap,  // "enforcement-gap": the runner cannot enforce the sandbox asked for
  unknown_job,      // "unknown-job": no job has that id
  protocol,         // "protocol": the two sides speak different protocol versions
  failed,           // "failed": the runner itself failed (disk, sandbox); trying later may work
};

// {"code": "...", "message": "..."}
struct Refused {
  RefusalCode code = RefusalCode::bad_request;
  std::string message;
  bool operator==(const Refused&) const = default;
};

// {"position": N}: 1 is next to start.
struct Queued {
  std::uint64_t position = 0;
  bool operator==(const Queued&) const = default;
};

enum class OutputStream : std::uint8_t { standard_output = 1, standard_error = 2 };

// A piece of the job's output. Sequence numbers start at 1 and count the job's output frames
// across both streams, so an attach can resume after the last one seen.
struct Output {
  std::uint64_t sequence = 1;
  OutputStream stream = OutputStream::standard_output;
  std::string data;  // 1 to kMaxChunkBytes bytes
  bool operator==(const Output&) const = default;
};

// {"job": ULID, "from": N}: stream the job's output after sequence N (0: from its start).
struct Attach {
  std::string job;
  std::uint64_t from = 0;
  bool operator==(const Attach&) const = default;
};

// The "stdin" frame: data for the job's standard input, at most kMaxChunkBytes; empty closes it.
struct Input {
  std::string data;
  bool operator==(const Input&) const = default;
};

enum class JobSignal { interrupt, terminate, kill };  // "INT", "TERM", "KILL"

// {"job": ULID, "signal": "INT"|"TERM"|"KILL"}
struct Signal {
  std::string job;
  JobSignal signal = JobSignal::terminate;
  bool operator==(const Signal&) const = default;
};

// Stop streaming to this connection; the job goes on.
struct Detach {
  bool operator==(const Detach&) const = default;
};

// {"job": ULID, "exit": N | "signal": N, "last": N, "detail": "..."}: exactly one of "exit" (any
// int) and "signal" (1 to kMaxSignalNumber, the signal that ended the job); "last" is the job's
// last output sequence number (0 if it wrote nothing).
struct End {
  std::string job;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::uint64_t last = 0;
  std::string detail;
  bool operator==(const End&) const = default;
};

enum class RequestOp { ps, show, kill, gc, df };

// {"op": "ps"|"show"|"kill"|"gc"|"df", "job": ULID}: "job" exactly for show and kill.
struct Request {
  RequestOp op = RequestOp::ps;
  std::optional<std::string> job;
  bool operator==(const Request&) const = default;
};

// Any JSON object: the listing a request asked for, whose shape is the listing command's.
struct Answer {
  boost::json::object body;
  bool operator==(const Answer&) const = default;
};

using Message = std::variant<Hello, Admit, ManifestPart, Need, BlobChunk, Admitted, Refused, Queued,
                             Output, Attach, Input, Signal, Detach, End, Request, Answer>;

FrameType frame_type_of(const Message& message) noexcept;

// The message a frame carries, or a refusal naming what in it is wrong.
sdk::Result<Message> decode_message(const Frame& frame);

// The frame's payload for the message. The message must be one decode_message would accept.
std::string encode_payload(const Message& message);

// Appends the message's whole frame to out.
void append_message(std::string& out, const Message& message);
std::string encode_message(const Message& message);

// The spellings on the wire, for logs and the tests.
std::string_view refusal_code_name(RefusalCode code) noexcept;
std::string_view job_state_name(JobState state) noexcept;
std::string_view job_signal_name(JobSignal signal) noexcept;
std::string_view request_op_name(RequestOp op) noexcept;

}  // namespace errand::remote::wire
