// POST /delegate end to end: a real broker on real unix sockets, calling the fake provider over
// loopback TLS (or a scripted upstream, for a stall) with the real key.

#include <catch2/catch_test_macros.hpp>

#include "tests/support/poll_until.hpp"
#include "tests/support/result_printing.hpp"

#include <fmt/format.h>
#include <boost/json/parse.hpp>
#include <chrono>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "tests/fakes/provider/fake_provider.hpp"
#include "tests/fakes/upstream/fake_upstream.hpp"
#include "tests/unit/broker/support/broker_client.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"
#include "tests/unit/broker/support/delegate_client.hpp"

using namespace errand::broker;
using namespace errand::broker::testing;
using errand::fakes::FakeProvider;
using errand::fakes::FakeUpstream;
using errand::fakes::ScriptedAnswer;
using errand::fakes::UpstreamReply;
using errand::fakes::UpstreamRequest;
using DelegateOutcome = errand::sdk::DelegateReport::Outcome;
using ReceiptOutcome = errand::sdk::ProviderReceipt::Outcome;
namespace json = boost::json;

namespace {

const std::string kKey = "sk-ant-api03-REALKEY-dddddddddddddddddddddddd";
const std::string kArtefact =
    "step 1 ok\nstep 2 ok\nstep 3 FAILED: caf\xC3\xA9 \xE2\x9C\x93 linker error\n";
const std::string kQuestion = "Why did step 3 fail? Answer in one line \xE2\x80\x94 please.";

std::set<std::string> keys_of(const json::object& o) {
  std::set<std::string> keys;
  for (const auto& [k, v] : o) keys.insert(std::string(k));
  return keys;
}

struct DelegateFixture {
  TempDir dir;
  FakeProvider provider{FakeProvider::Options{
      .expected_key = kKey, .event_delay = std::chrono::milliseconds(2), .on_request = {}}};

  DelegateFixture() { std::ofstream(dir.path() / "ca.pem") << provider.ca_pem(); }

  // agent.provider is `kind`'s provider; deadline_ms 0 leaves deadlineMs out.
  json::object config(const std::string& kind = "anthropic", std::int64_t deadline_ms = 0,
                      std::string base = {}) {
    auto c = base_config();
    c["sandbox"].as_object()["egress"].as_object()["allowInternal"] = json::array{"127.0.0.1/32"};
    if (base.empty()) base = provider.https_url() + (kind == "openai" ? "/v1" : "");
    auto& agent = c["agent"].as_object();
    agent["provider"] = kind;
    agent["providers"] =
        json::object{{kind, {{"credential", kKey}, {"kind", kind}, {"baseUrl", base}}}};
    json::object delegate{{"model", "small-model"}};
    if (deadline_ms > 0) delegate["deadlineMs"] = deadline_ms;
    agent["delegate"] = std::move(delegate);
    return c;
  }

  BrokerOptions options() {
    BrokerOptions o;
    o.ca_file = dir.path() / "ca.pem";
    o.lookup_deadline = std::chrono::milliseconds(500);
    o.dial_deadline = std::chrono::milliseconds(3000);
    return o;
  }
};

DelegatePost question_about(const errand::sdk::BrokerSession& s, std::string artefact = kArtefact) {
  DelegatePost post;
  post.credential = s.proxy_credential;
  post.question = kQuestion;
  post.artefact = std::move(artefact);
  return post;
}

ClientResponse ask(const errand::sdk::BrokerSession& s, const DelegatePost& post) {
  BrokerClient client(s.socket_path);
  client.send(delegate_request_bytes(post));
  return client.read_response();
}

std::vector<errand::sdk::ProviderReceipt> receipts_of(BrokerHarness& harness,
                                                      const std::string& session) {
  auto rows = harness.receipts().newest(session, 10);
  REQUIRE(rows);
  return *rows;
}

bool one_report(const RecordingEvents& e) {
  return e.delegates().size() == 1;
}

}  // namespace

TEST_CASE_METHOD(DelegateFixture,
                 "a delegate question reaches the delegate model alone and its answer streams "
                 "back in frames",
                 "[delegate][integration][key:agent.delegate.model]") {
  BrokerHarness harness(config("anthropic"), options());
  const auto s = harness.open("s-delegate");
  auto answer = ScriptedAnswer::answer("Step 3 failed because the linker could not find libfoo.");
  answer.input_tokens = 120;
  answer.output_tokens = 14;
  provider.push(answer);

  const auto reply = ask(s, question_about(s));
  REQUIRE(reply.status == 200);
  CHECK(reply.header("Content-Type") == "application/x-errand-delegate");
  const auto frames = parse_frames(reply.body);
  REQUIRE(frames.size() >= 3);
  CHECK(frames.front().kind == "text");
  CHECK(frames.back().kind == "end");
  CHECK(frames.back().payload == "input_tokens=120 output_tokens=14");
  CHECK(answer_text(frames) == answer.text);

  const auto seen = provider.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].target == "/v1/messages");
  CHECK(seen[0].header("x-api-key") == kKey);
  CHECK(seen[0].header("anthropic-version") == "2023-06-01");
  CHECK(seen[0].header("Accept-Encoding") == "identity");
  const auto body = json::parse(seen[0].body).as_object();
  CHECK(keys_of(body) == std::set<std::string>{"model", "max_tokens", "stream", "messages"});
  CHECK(body.at("model").as_string() == "small-model");
  CHECK(body.at("max_tokens").to_number<int>() == 4096);
  CHECK(body.at("stream").as_bool());
  const auto& messages = body.at("messages").as_array();
  REQUIRE(messages.size() == 1);
  CHECK(keys_of(messages[0].as_object()) == std::set<std::string>{"role", "content"});
  CHECK(messages[0].at("role").as_string() == "user");
  const auto& content = messages[0].at("content").as_array();
  REQUIRE(content.size() == 2);
  CHECK(content[0].at("type").as_string() == "text");
  CHECK(content[0].at("text").as_string() == kArtefact);
  CHECK(content[1].at("text").as_string() == kQuestion);

  REQUIRE(harness.events().wait_until(one_report));
  const auto report = harness.events().delegates()[0];
  CHECK(report.session_id == "s-delegate");
  CHECK(report.provider == "anthropic");
  CHECK(report.model == "small-model");
  CHECK(report.outcome == DelegateOutcome::answered);
  CHECK(report.detail.empty());
  CHECK(report.input_tokens == std::optional<std::uint64_t>(120));
  CHECK(report.output_tokens == std::optional<std::uint64_t>(14));
  CHECK(report.artefact_bytes == kArtefact.size());
  CHECK(report.artefact_chars == kArtefact.size() - 3);  // é is two bytes, ✓ three
  CHECK(report.answer_chars == answer.text.size());
  CHECK(harness.events().admissions_asked() == 1);

  const auto rows = receipts_of(harness, "s-delegate");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].provider == "anthropic");
  CHECK(rows[0].method == "POST");
  CHECK(rows[0].path == "/v1/messages");
  CHECK(rows[0].status == 200);
  CHECK(rows[0].outcome == ReceiptOutcome::completed);
  CHECK(rows[0].bytes_up == seen[0].body.size());
  // The fake's answer carries its limits, which reach the core as any answer's do.
  CHECK_FALSE(harness.events().usage().empty());
}

TEST_CASE_METHOD(DelegateFixture, "an openai provider is asked on chat completions with usage",
                 "[delegate][integration][key:agent.delegate.model]") {
  BrokerHarness harness(config("openai"), options());
  const auto s = harness.open("s-openai");
  provider.push(ScriptedAnswer::answer("It is a linker error."));
  const auto reply = ask(s, question_about(s));
  REQUIRE(reply.status == 200);
  const auto frames = parse_frames(reply.body);
  REQUIRE_FALSE(frames.empty());
  CHECK(answer_text(frames) == "It is a linker error.");
  CHECK(frames.back().kind == "end");
  CHECK(frames.back().payload == "input_tokens=12 output_tokens=7");
  const auto seen = provider.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].target == "/v1/chat/completions");
  CHECK(seen[0].header("Authorization") == "Bearer " + kKey);
  const auto body = json::parse(seen[0].body).as_object();
  CHECK(keys_of(body) == std::set<std::string>{"model", "stream", "stream_options", "messages"});
  CHECK(body.at("stream_options").at("include_usage").as_bool());
  const auto& content = body.at("messages").as_array().at(0).at("content").as_array();
  REQUIRE(content.size() == 2);
  CHECK(content[0].at("text").as_string() == kArtefact);
  CHECK(content[1].at("text").as_string() == kQuestion);
  const auto rows = receipts_of(harness, "s-openai");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].path == "/v1/chat/completions");
}

TEST_CASE_METHOD(DelegateFixture,
                 "every malformed or refused request is answered with its own status and "
                 "sentence before the core is asked",
                 "[delegate][integration]") {
  BrokerHarness harness(config("anthropic"), options());
  const auto s = harness.open("s-refused");
  struct Case {
    std::string name;
    DelegatePost post;
    unsigned status;
    std::string says;
  };
  std::vector<Case> cases;
  auto base = question_about(s);
  {
    auto p = base;
    p.credential.clear();
    cases.push_back({"no credential", p, 401, "no proxy credential"});
  }
  {
    auto p = base;
    p.credential = "errand-session-not-minted";
    cases.push_back({"a wrong credential", p, 401, "not this session's"});
  }
  {
    auto p = base;
    p.question.clear();
    cases.push_back({"no question", p, 400, "has no question"});
  }
  {
    auto p = base;
    p.question = std::string(4097, 'q');
    cases.push_back({"a question too long", p, 400, "4097 bytes, over the limit of 4096"});
  }
  {
    auto p = base;
    p.question.clear();
    p.extra = {{"X-Errand-Question", "bad%zzescape"}};
    cases.push_back({"a broken escape", p, 400, "broken percent escape"});
  }
  {
    auto p = base;
    p.artefact_name.clear();
    cases.push_back({"no artefact name", p, 400, "has no artefact name"});
  }
  {
    auto p = base;
    p.artefact.clear();
    cases.push_back({"an empty artefact", p, 400, "the artefact is empty"});
  }
  {
    auto p = base;
    p.content_length.clear();
    p.send_body = false;
    cases.push_back({"no length", p, 411, "no Content-Length"});
  }
  {
    auto p = base;
    p.content_length.clear();
    p.send_body = false;
    p.extra = {{"Transfer-Encoding", "chunked"}};
    cases.push_back({"a chunked body", p, 400, "sent chunked"});
  }
  {
    auto p = base;
    p.content_length = std::to_string((2u << 20) + 1);
    p.send_body = false;
    cases.push_back({"2 MiB and a byte", p, 413, "2097153 bytes, over the limit of 2097152"});
  }
  {
    auto p = base;
    p.artefact = std::string("abcde\xFF\xFE rest", 12);
    cases.push_back({"bytes that are not UTF-8", p, 415, "the byte at offset 5"});
  }
  {
    auto p = base;
    p.method = "GET";
    p.artefact.clear();
    p.content_length.clear();
    cases.push_back({"not a POST", p, 405, "POST /delegate"});
  }
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto reply = ask(s, c.post);
    CHECK(reply.status == c.status);
    CHECK(reply.body.find(c.says) != std::string::npos);
    CHECK(reply.header("Content-Type").starts_with("text/plain"));
    // One sentence: no line but the last ends it.
    CHECK(reply.body.find('\n') == reply.body.size() - 1);
  }
  CHECK(harness.events().admissions_asked() == 0);

  harness.events().refuse_delegates_with(
      "this turn has already made its 8 delegate calls (agent.delegate.perTurn)");
  const auto refused = ask(s, base);
  CHECK(refused.status == 403);
  CHECK(refused.body ==
        "this turn has already made its 8 delegate calls (agent.delegate.perTurn)\n");
  CHECK(harness.events().admissions_asked() == 1);
  CHECK(provider.requests().empty());
  CHECK(harness.events().delegates().empty());
  CHECK(receipts_of(harness, "s-refused").empty());
}

TEST_CASE_METHOD(DelegateFixture,
                 "a core that offers no DelegateCalls gets every delegate call refused, unasked",
                 "[delegate][integration]") {
  BrokerHarness harness(config("anthropic"), options());
  harness.events().withhold_delegate_calls();
  const auto s = harness.open("s-uncounted");
  const auto reply = ask(s, question_about(s));
  CHECK(reply.status == 403);
  CHECK(reply.body.find("counts no delegate calls") != std::string::npos);
  CHECK(harness.events().admissions_asked() == 0);
  CHECK(provider.requests().empty());
  CHECK(harness.events().delegates().empty());
}

TEST_CASE_METHOD(DelegateFixture, "without agent.delegate the broker refuses without asking",
                 "[delegate][integration]") {
  auto c = config("anthropic");
  c["agent"].as_object().erase("delegate");
  BrokerHarness harness(std::move(c), options());
  const auto s = harness.open("s-off");
  const auto reply = ask(s, question_about(s));
  CHECK(reply.status == 403);
  CHECK(reply.body.find("delegate is not enabled") != std::string::npos);
  CHECK(harness.events().admissions_asked() == 0);
  CHECK(provider.requests().empty());
}

TEST_CASE_METHOD(DelegateFixture, "a stalled answer is cut at deadlineMs with an error frame",
                 "[delegate][integration][key:agent.delegate.deadlineMs]") {
  const std::string started =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
      "{\"input_tokens\":50,\"output_tokens\":1}}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"The first half \"}}\n\n";
  FakeUpstream stalled([&](const UpstreamRequest&) {
    UpstreamReply reply;
    reply.headers = {{"Content-Type", "text/event-stream"}};
    reply.pieces = {started, "never in time"};
    reply.gap = std::chrono::seconds(20);
    return reply;
  });
  BrokerHarness harness(config("anthropic", 800, stalled.base_url()), options());
  const auto s = harness.open("s-stall");
  const auto sent = std::chrono::steady_clock::now();
  const auto reply = ask(s, question_about(s));
  const auto took = std::chrono::steady_clock::now() - sent;
  REQUIRE(reply.status == 200);
  CHECK(took >= std::chrono::milliseconds(800));
  CHECK(took < std::chrono::seconds(5));
  const auto frames = parse_frames(reply.body);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].kind == "text");
  CHECK(frames[0].payload == "The first half ");
  CHECK(frames[1].kind == "error");
  CHECK(frames[1].payload.find("deadline of 800 ms") != std::string::npos);
  CHECK(stalled.requests().size() == 1);

  REQUIRE(harness.events().wait_until(one_report));
  const auto report = harness.events().delegates()[0];
  CHECK(report.outcome == DelegateOutcome::deadline);
  CHECK(report.detail == frames[1].payload);
  CHECK(report.input_tokens == std::optional<std::uint64_t>(50));
  CHECK(report.answer_chars == 15);
  const auto rows = receipts_of(harness, "s-stall");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].outcome == ReceiptOutcome::interrupted);
}

TEST_CASE_METHOD(DelegateFixture, "the deadline covers the wait for a paused provider",
                 "[delegate][integration][pacing][key:agent.delegate.deadlineMs]") {
  BrokerHarness harness(config("anthropic", 600), options());
  const auto s = harness.open("s-held");
  // A 429 from any call pauses the provider for every session; the delegate waits its turn.
  harness.broker().core().pacer().note_answer("anthropic", 429, "30");
  const auto reply = ask(s, question_about(s));
  REQUIRE(reply.status == 200);
  const auto frames = parse_frames(reply.body);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].kind == "error");
  CHECK(frames[0].payload.find("deadline of 600 ms") != std::string::npos);
  CHECK(provider.requests().empty());
  REQUIRE(harness.events().wait_until(one_report));
  CHECK(harness.events().delegates()[0].outcome == DelegateOutcome::deadline);
  CHECK(receipts_of(harness, "s-held").size() == 1);
}

TEST_CASE_METHOD(DelegateFixture, "a 429 answer is an error frame and pauses the provider",
                 "[delegate][integration][pacing]") {
  BrokerHarness harness(config("anthropic"), options());
  const auto s = harness.open("s-limited");
  provider.push(ScriptedAnswer::rate_limited(30));
  const auto reply = ask(s, question_about(s));
  REQUIRE(reply.status == 200);
  const auto frames = parse_frames(reply.body);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].kind == "error");
  CHECK(frames[0].payload.find("provider anthropic answered 429: rate limited by the fake "
                               "provider") != std::string::npos);
  CHECK(frames[0].payload.find(kKey) == std::string::npos);
  CHECK(harness.broker().core().pacer().paused("anthropic"));
  REQUIRE(harness.events().wait_until(
      [](const RecordingEvents& e) { return !e.paused().empty() && one_report(e); }));
  CHECK(harness.events().paused() == std::vector<std::string>{"anthropic"});
  const auto report = harness.events().delegates()[0];
  CHECK(report.outcome == DelegateOutcome::refused);
  CHECK(report.detail == frames[0].payload);
  const auto rows = receipts_of(harness, "s-limited");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == 429);
}

TEST_CASE_METHOD(DelegateFixture, "a delegate call holds one of the provider's slots",
                 "[delegate][integration][pacing]") {
  std::atomic<std::size_t> seen{0};
  FakeUpstream slow([&](const UpstreamRequest&) {
    ++seen;
    UpstreamReply reply;
    reply.headers = {{"Content-Type", "text/event-stream"}};
    reply.delay = std::chrono::milliseconds(400);
    reply.pieces = {"data: {\"type\":\"message_stop\"}\n\n"};
    return reply;
  });
  auto c = config("anthropic", 0, slow.base_url());
  c["agent"]
      .as_object()["providers"]
      .as_object()["anthropic"]
      .as_object()["maxConcurrentRequests"] = 1;
  BrokerHarness harness(std::move(c), options());
  const auto s = harness.open("s-slots");
  auto first = std::async(std::launch::async, [&] { return ask(s, question_about(s)).status; });
  auto second = std::async(std::launch::async, [&] { return ask(s, question_about(s)).status; });
  CHECK(first.get() == 200);
  CHECK(second.get() == 200);
  CHECK(seen == 2);
  CHECK(slow.max_in_flight() == 1);
  REQUIRE(harness.events().wait_until(
      [](const RecordingEvents& e) { return e.delegates().size() == 2; }));
  for (const auto& report : harness.events().delegates())
    CHECK(report.outcome == DelegateOutcome::answered);
  CHECK(receipts_of(harness, "s-slots").size() == 2);
}

TEST_CASE_METHOD(DelegateFixture, "a session closing mid-call ends the call as failed",
                 "[delegate][integration]") {
  FakeUpstream stalled([](const UpstreamRequest&) {
    UpstreamReply reply;
    reply.delay = std::chrono::seconds(20);
    reply.pieces = {"late"};
    return reply;
  });
  BrokerHarness harness(config("anthropic", 0, stalled.base_url()), options());
  const auto s = harness.open("s-closing");
  BrokerClient client(s.socket_path);
  client.send(delegate_request_bytes(question_about(s)));
  REQUIRE(errand::test::poll_until([&] { return stalled.requests().size() == 1; },
                                   std::chrono::seconds(10)));
  harness.close("s-closing");
  REQUIRE(harness.events().wait_until(one_report, std::chrono::seconds(5)));
  const auto report = harness.events().delegates()[0];
  CHECK(report.outcome == DelegateOutcome::failed);
  CHECK(report.detail == "the session stopped before the answer ended");
  // The answer had begun (its head goes out on admission) and is cut without an ending frame.
  const auto cut = client.read_response();
  CHECK(cut.status == 200);
  CHECK(cut.error);
  CHECK(receipts_of(harness, "s-closing").size() == 1);
}
