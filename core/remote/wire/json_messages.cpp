#include "core/remote/wire/json_messages.hpp"
#include "common/json_kind_phrase.hpp"

#include <fmt/format.h>

#include <array>
#include <boost/json/serialize.hpp>
#include <climits>
#include <utility>

#include "core/remote/quoted_text.hpp"
#include "core/remote/snapshot/manifest_rules.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/strict_json.hpp"

namespace errand::remote::wire {

namespace json = boost::json;

namespace {

// Each fixed set of strings on the wire, with the enum value it stands for.
template <class Enum, std::size_t N>
using WireNames = std::array<std::pair<Enum, std::string_view>, N>;

constexpr WireNames<RefusalCode, 8> kRefusalCodeNames{{
    {RefusalCode::not_allowed, "not-allowed"},
    {RefusalCode::queue_full, "queue-full"},
    {RefusalCode::conflict, "conflict"},
    {RefusalCode::bad_request, "bad-request"},
    {RefusalCode::enforcement_gap, "enforcement-gap"},
    {RefusalCode::unknown_job, "unknown-job"},
    {RefusalCode::protocol, "protocol"},
    {RefusalCode::failed, "failed"},
}};
constexpr WireNames<JobState, 3> kJobStateNames{{
    {JobState::queued, "queued"},
    {JobState::running, "running"},
    {JobState::ended, "ended"},
}};
constexpr WireNames<JobSignal, 3> kJobSignalNames{{
    {JobSignal::interrupt, "INT"},
    {JobSignal::terminate, "TERM"},
    {JobSignal::kill, "KILL"},
}};
constexpr WireNames<RequestOp, 5> kRequestOpNames{{
    {RequestOp::ps, "ps"},
    {RequestOp::show, "show"},
    {RequestOp::kill, "kill"},
    {RequestOp::gc, "gc"},
    {RequestOp::df, "df"},
}};

template <class Enum, std::size_t N>
std::string_view name_in(const WireNames<Enum, N>& names, Enum value) noexcept {
  for (const auto& [each, name] : names)
    if (each == value) return name;
  return "?";
}

// "one of \"a\", \"b\", \"c\"", for the refusal of a string outside the set.
template <class Enum, std::size_t N>
std::string choices_of(const WireNames<Enum, N>& names) {
  std::string text = "one of";
  for (std::size_t i = 0; i < N; ++i)
    text += fmt::format("{} \"{}\"", i == 0 ? "" : ",", names[i].second);
  return text;
}

// The enum value the field's string names; the problem is recorded when it names none.
template <class Enum, std::size_t N>
Enum read_choice(FieldReader& in, std::string_view key, const WireNames<Enum, N>& names) {
  const auto text = in.string(key);
  if (in.failed()) return names[0].first;
  for (const auto& [each, name] : names)
    if (name == text) return each;
  in.refuse(fmt::format("\"{}\" must be {}, not {}", key, choices_of(names), quote_text(text)));
  return names[0].first;
}

std::string serialized(const json::object& object) {
  return json::serialize(object);
}

json::string_view as_json(std::string_view text) {
  return {text.data(), text.size()};
}

std::string_view text_of(const json::string& text) {
  return {text.data(), text.size()};
}

bool is_env_name(std::string_view name) noexcept {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// What is wrong with a string an argument or environment value must be, if anything.
std::optional<std::string> argument_problem(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return "contains a NUL byte";
  if (text.size() > kMaxArgBytes)
    return fmt::format("is {} bytes, over the {}-byte limit", text.size(), kMaxArgBytes);
  return std::nullopt;
}

// The manifest's rule for a path in the tree (the root, "", is allowed too): the same text
// would have to name a directory of the tree.
std::optional<std::string> workdir_problem(std::string_view workdir) {
  if (workdir.empty()) return std::nullopt;
  auto problem = manifest_path_problem(workdir);
  if (problem.empty()) return std::nullopt;
  return fmt::format("{}: {}", quote_text(workdir), problem);
}

std::vector<std::string> read_argv(FieldReader& in) {
  const auto* array = in.array("argv");
  if (array == nullptr) return {};
  if (array->empty()) {
    in.refuse("\"argv\" is empty; it needs at least the program to run");
    return {};
  }
  if (array->size() > kMaxArgs) {
    in.refuse(
        fmt::format("\"argv\" has {} entries, over the limit of {}", array->size(), kMaxArgs));
    return {};
  }
  std::vector<std::string> argv;
  argv.reserve(array->size());
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto& entry = (*array)[i];
    if (!entry.is_string()) {
      in.refuse(
          fmt::format("\"argv\"[{}] must be a string, not {}", i, common::json_kind_phrase(entry)));
      return {};
    }
    const auto arg = text_of(entry.get_string());
    if (const auto problem = argument_problem(arg)) {
      in.refuse(fmt::format("\"argv\"[{}] {}", i, *problem));
      return {};
    }
    argv.emplace_back(arg);
  }
  if (argv.front().empty()) in.refuse("\"argv\"[0], the program, is empty");
  return argv;
}

std::map<std::string, std::string> read_env(FieldReader& in) {
  const auto* object = in.object("env");
  if (object == nullptr) return {};
  if (object->size() > kMaxEnvNames) {
    in.refuse(
        fmt::format("\"env\" has {} names, over the limit of {}", object->size(), kMaxEnvNames));
    return {};
  }
  std::map<std::string, std::string> env;
  for (const auto& entry : *object) {
    const std::string_view name(entry.key().data(), entry.key().size());
    if (!is_env_name(name)) {
      in.refuse(fmt::format("\"env\" name {} is not of the form [A-Za-z_][A-Za-z0-9_]*",
                            quote_text(name)));
      return {};
    }
    if (!entry.value().is_string()) {
      in.refuse(fmt::format("\"env\" value of {} must be a string, not {}", name,
                            common::json_kind_phrase(entry.value())));
      return {};
    }
    const auto value = text_of(entry.value().get_string());
    if (const auto problem = argument_problem(value)) {
      in.refuse(fmt::format("\"env\" value of {} {}", name, *problem));
      return {};
    }
    env.emplace(name, value);
  }
  return env;
}

// A queue position counts from 1, the next job to start.
std::uint64_t read_position(FieldReader& in) {
  const auto position = in.unsigned_integer("position");
  if (!in.failed() && position == 0) in.refuse("\"position\" counts from 1, not 0");
  return position;
}

sdk::Result<Message> finished(const FieldReader& in, Message message) {
  if (auto done = in.finish(); !done) return done.error();
  return message;
}

sdk::Result<Message> decode_hello(const json::object& object) {
  // The version is judged first: a later version may well change the other fields.
  if (const auto* protocol = object.if_contains("protocol")) {
    const bool ours = protocol->is_int64() &&
                      protocol->get_int64() == static_cast<std::int64_t>(kProtocolVersion);
    if ((protocol->is_int64() || protocol->is_uint64()) && !ours)
      return sdk::refusal(fmt::format("hello: the peer speaks protocol {}; this side speaks {}",
                                      json::serialize(*protocol), kProtocolVersion));
  }
  FieldReader in(object, "hello", {"protocol", "program"});
  Hello hello;
  hello.protocol = in.unsigned_integer("protocol");
  hello.program = in.string("program");
  if (!in.failed() && (hello.program.empty() || hello.program.size() > kMaxProgramBytes))
    in.refuse(fmt::format("\"program\" must be 1 to {} bytes, not {}", kMaxProgramBytes,
                          hello.program.size()));
  return finished(in, std::move(hello));
}

sdk::Result<Message> decode_admit(const json::object& object) {
  FieldReader in(object, "admit", {"job", "argv", "env", "workdir", "snapshot"});
  Admit admit;
  admit.job = in.job_id("job");
  admit.argv = read_argv(in);
  admit.env = read_env(in);
  admit.workdir = in.string("workdir");
  if (!in.failed())
    if (const auto problem = workdir_problem(admit.workdir))
      in.refuse(fmt::format("\"workdir\" {}", *problem));
  admit.snapshot = in.boolean("snapshot");
  return finished(in, std::move(admit));
}

sdk::Result<Message> decode_need(const json::object& object) {
  FieldReader in(object, "need", {"blobs"});
  Need need;
  const auto* blobs = in.array("blobs");
  if (blobs != nullptr && blobs->size() > kMaxNeedBlobs)
    in.refuse(fmt::format("\"blobs\" has {} entries, over the limit of {} in one frame",
                          blobs->size(), kMaxNeedBlobs));
  if (blobs != nullptr && !in.failed()) {
    need.blobs.reserve(blobs->size());
    for (std::size_t i = 0; i < blobs->size() && !in.failed(); ++i) {
      const auto& entry = (*blobs)[i];
      if (!entry.is_string())
        in.refuse(fmt::format("\"blobs\"[{}] must be a string, not {}", i,
                              common::json_kind_phrase(entry)));
      else if (!is_sha256_hex(text_of(entry.get_string())))
        in.refuse(fmt::format("\"blobs\"[{}] is not a SHA-256 in lowercase hex: {}", i,
                              quote_text(text_of(entry.get_string()))));
      else
        need.blobs.emplace_back(text_of(entry.get_string()));
    }
  }
  return finished(in, std::move(need));
}

sdk::Result<Message> decode_admitted(const json::object& object) {
  FieldReader in(object, "admitted", {"job", "state", "existing", "position"});
  Admitted admitted;
  admitted.job = in.job_id("job");
  admitted.state = read_choice(in, "state", kJobStateNames);
  admitted.existing = in.boolean("existing");
  const bool queued = admitted.state == JobState::queued;
  if (in.has("position") && !in.failed() && !queued)
    in.refuse(fmt::format("\"position\" is sent only for a queued job, not a {} one",
                          job_state_name(admitted.state)));
  else if (queued)
    admitted.position = read_position(in);
  return finished(in, std::move(admitted));
}

sdk::Result<Message> decode_refused(const json::object& object) {
  FieldReader in(object, "refused", {"code", "message"});
  Refused refused;
  refused.code = read_choice(in, "code", kRefusalCodeNames);
  refused.message = in.string("message");
  return finished(in, std::move(refused));
}

sdk::Result<Message> decode_queued(const json::object& object) {
  FieldReader in(object, "queued", {"position"});
  Queued queued;
  queued.position = read_position(in);
  return finished(in, queued);
}

sdk::Result<Message> decode_attach(const json::object& object) {
  FieldReader in(object, "attach", {"job", "from"});
  Attach attach;
  attach.job = in.job_id("job");
  attach.from = in.unsigned_integer("from");
  return finished(in, std::move(attach));
}

sdk::Result<Message> decode_signal(const json::object& object) {
  FieldReader in(object, "signal", {"job", "signal"});
  Signal signal;
  signal.job = in.job_id("job");
  signal.signal = read_choice(in, "signal", kJobSignalNames);
  return finished(in, std::move(signal));
}

sdk::Result<Message> decode_end(const json::object& object) {
  FieldReader in(object, "end", {"job", "exit", "signal", "last", "detail"});
  End end;
  end.job = in.job_id("job");
  const bool exited = in.has("exit");
  if (exited == in.has("signal"))
    in.refuse(exited ? "has both \"exit\" and \"signal\"; a job ends one way"
                     : "has neither \"exit\" nor \"signal\"");
  else if (exited)
    end.exit_code = static_cast<int>(in.integer("exit", INT_MIN, INT_MAX));
  else
    end.signal = static_cast<int>(in.integer("signal", 1, kMaxSignalNumber));
  end.last = in.unsigned_integer("last");
  end.detail = in.string("detail");
  return finished(in, std::move(end));
}

sdk::Result<Message> decode_request(const json::object& object) {
  FieldReader in(object, "request", {"op", "job"});
  Request request;
  request.op = read_choice(in, "op", kRequestOpNames);
  const bool names_a_job = request.op == RequestOp::show || request.op == RequestOp::kill;
  if (names_a_job)
    request.job = in.job_id("job");
  else if (in.has("job") && !in.failed())
    in.refuse(fmt::format("\"job\" is not taken by \"{}\"", request_op_name(request.op)));
  return finished(in, std::move(request));
}

}  // namespace

bool carries_json(FrameType type) noexcept {
  switch (type) {
    case FrameType::manifest_part:
    case FrameType::blob:
    case FrameType::output:
    case FrameType::input:
    case FrameType::detach: return false;
    default: return true;
  }
}

sdk::Result<Message> decode_json_payload(FrameType type, std::string_view payload) {
  const auto message = frame_type_name(type);
  auto parsed = parse_payload_object(payload, message);
  if (!parsed) return parsed.error();
  const auto& object = *parsed;
  switch (type) {
    case FrameType::hello: return decode_hello(object);
    case FrameType::admit: return decode_admit(object);
    case FrameType::need: return decode_need(object);
    case FrameType::admitted: return decode_admitted(object);
    case FrameType::refused: return decode_refused(object);
    case FrameType::queued: return decode_queued(object);
    case FrameType::attach: return decode_attach(object);
    case FrameType::signal: return decode_signal(object);
    case FrameType::end: return decode_end(object);
    case FrameType::request: return decode_request(object);
    case FrameType::answer: return Message(Answer{std::move(*parsed)});
    default: break;
  }
  return sdk::refusal(fmt::format("{} frames do not carry JSON", message));
}

std::string payload_of(const Hello& message) {
  return serialized({{"protocol", message.protocol}, {"program", as_json(message.program)}});
}

std::string payload_of(const Admit& message) {
  json::array argv;
  argv.reserve(message.argv.size());
  for (const auto& arg : message.argv) argv.emplace_back(as_json(arg));
  json::object env;
  env.reserve(message.env.size());
  for (const auto& [name, value] : message.env) env.emplace(as_json(name), as_json(value));
  return serialized({{"job", as_json(message.job)},
                     {"argv", std::move(argv)},
                     {"env", std::move(env)},
                     {"workdir", as_json(message.workdir)},
                     {"snapshot", message.snapshot}});
}

std::string payload_of(const Need& message) {
  json::array blobs;
  blobs.reserve(message.blobs.size());
  for (const auto& blob : message.blobs) blobs.emplace_back(as_json(blob));
  return serialized({{"blobs", std::move(blobs)}});
}

std::string payload_of(const Admitted& message) {
  json::object object{{"job", as_json(message.job)},
                      {"state", as_json(job_state_name(message.state))},
                      {"existing", message.existing}};
  if (message.position) object.emplace("position", *message.position);
  return serialized(object);
}

std::string payload_of(const Refused& message) {
  return serialized(
      {{"code", as_json(refusal_code_name(message.code))}, {"message", as_json(message.message)}});
}

std::string payload_of(const Queued& message) {
  return serialized({{"position", message.position}});
}

std::string payload_of(const Attach& message) {
  return serialized({{"job", as_json(message.job)}, {"from", message.from}});
}

std::string payload_of(const Signal& message) {
  return serialized(
      {{"job", as_json(message.job)}, {"signal", as_json(job_signal_name(message.signal))}});
}

std::string payload_of(const End& message) {
  json::object object{{"job", as_json(message.job)}};
  if (message.exit_code) object.emplace("exit", *message.exit_code);
  if (message.signal) object.emplace("signal", *message.signal);
  object.emplace("last", message.last);
  object.emplace("detail", as_json(message.detail));
  return serialized(object);
}

std::string payload_of(const Request& message) {
  json::object object{{"op", as_json(request_op_name(message.op))}};
  if (message.job) object.emplace("job", as_json(*message.job));
  return serialized(object);
}

std::string payload_of(const Answer& message) {
  return serialized(message.body);
}

std::string_view refusal_code_name(RefusalCode code) noexcept {
  return name_in(kRefusalCodeNames, code);
}
std::string_view job_state_name(JobState state) noexcept {
  return name_in(kJobStateNames, state);
}
std::string_view job_signal_name(JobSignal signal) noexcept {
  return name_in(kJobSignalNames, signal);
}
std::string_view request_op_name(RequestOp op) noexcept {
  return name_in(kRequestOpNames, op);
}

}  // namespace errand::remote::wire
