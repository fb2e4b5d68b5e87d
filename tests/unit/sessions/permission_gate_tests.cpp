// The permission gate on a real strand and timer, answering through real responders: what the
// thread is asked, which answers choose an option, and that an unanswered question is declined
// when its time is up.

#include "core/sessions/permission_gate.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using errand::agent::PermissionRequest;
using errand::agent::PermissionResponder;
using errand::sessions::PermissionGate;

namespace {

struct Said {
  std::string text;
  std::vector<std::string> mentions;
};

PermissionRequest request_titled(const std::string& title) {
  PermissionRequest request;
  request.session_id = "acp-1";
  request.title = title;
  request.options = {{"allow-once", "Allow once", "allow_once"},
                     {"reject", "Reject", "reject_once"}};
  return request;
}

// A responder with no connection behind it: the answer is kept, and nothing is sent.
PermissionResponder responder_for(const PermissionRequest& request) {
  return PermissionResponder(std::make_shared<PermissionResponder::State>(
      std::weak_ptr<errand::agent::AcpConnection>{}, boost::json::value(7), request.session_id,
      request.options));
}

struct GateHarness {
  GateHarness()
      : strand(boost::asio::make_strand(io)),
        gate(strand, "owner", [this](std::string text, std::vector<std::string> mentions) {
          said.push_back({std::move(text), std::move(mentions)});
        }) {}

  void run_for(std::chrono::milliseconds how_long) {
    io.restart();
    io.run_for(how_long);
  }

  boost::asio::io_context io;
  boost::asio::strand<boost::asio::io_context::executor_type> strand;
  std::vector<Said> said;
  PermissionGate gate;
};

}  // namespace

TEST_CASE("a question is asked in the thread with its options, the owner mentioned") {
  GateHarness h;
  const auto request = request_titled("run `make install`");
  h.gate.ask(request, responder_for(request), 10min);
  CHECK(h.gate.is_open());
  REQUIRE(h.said.size() == 1);
  CHECK_THAT(h.said[0].text, ContainsSubstring("**run `make install`**"));
  CHECK_THAT(h.said[0].text, ContainsSubstring("1. Allow once (`allow-once`)"));
  CHECK_THAT(h.said[0].text, ContainsSubstring("2. Reject (`reject`)"));
  CHECK(h.said[0].mentions == std::vector<std::string>{"owner"});
}

TEST_CASE("an answer chooses by number, id or name, in any case") {
  const std::vector<std::pair<std::string, std::string>> answers{
      {"1", "allow-once"}, {"REJECT", "reject"}, {"allow once", "allow-once"}, {"2", "reject"}};
  for (const auto& [given, chosen] : answers) {
    GateHarness h;
    const auto request = request_titled("edit a file");
    const auto responder = responder_for(request);
    h.gate.ask(request, responder, 10min);
    const auto answer = h.gate.answer(given);
    REQUIRE(answer.chosen.has_value());
    CHECK(*answer.chosen == chosen);
    CHECK(answer.refusal.empty());
    CHECK(responder.answered());
    CHECK_FALSE(h.gate.is_open());
  }
}

TEST_CASE("an answer that is no option is refused and the question stays open") {
  GateHarness h;
  const auto request = request_titled("edit a file");
  const auto responder = responder_for(request);
  h.gate.ask(request, responder, 10min);
  const auto answer = h.gate.answer("maybe");
  CHECK_FALSE(answer.chosen.has_value());
  CHECK(answer.refusal == "that is not one of the options; answer with 1 (Allow once), 2 (Reject)");
  CHECK(h.gate.is_open());
  CHECK_FALSE(responder.answered());
  CHECK(h.gate.answer("3").refusal == answer.refusal);
}

TEST_CASE("a question nobody answers is declined when its time is up, and said so") {
  GateHarness h;
  const auto request = request_titled("fetch a page");
  const auto responder = responder_for(request);
  h.gate.ask(request, responder, 100ms);
  h.run_for(30ms);
  CHECK(h.gate.is_open());
  CHECK_FALSE(responder.answered());
  h.run_for(400ms);
  CHECK_FALSE(h.gate.is_open());
  CHECK(responder.answered());
  // Declined: selecting afterwards is too late.
  CHECK_FALSE(responder.select("allow-once"));
  REQUIRE(h.said.size() == 2);
  CHECK(h.said[1].text == "nobody answered the agent's question in time, so it was declined");
}

TEST_CASE("an answered question's timer says nothing later") {
  GateHarness h;
  const auto request = request_titled("fetch a page");
  h.gate.ask(request, responder_for(request), 50ms);
  REQUIRE(h.gate.answer("1").chosen);
  h.run_for(300ms);
  CHECK(h.said.size() == 1);
}

TEST_CASE("a new question cancels the open one, and only the new one times out") {
  GateHarness h;
  const auto first = request_titled("first");
  const auto first_responder = responder_for(first);
  h.gate.ask(first, first_responder, 50ms);
  const auto second = request_titled("second");
  const auto second_responder = responder_for(second);
  h.gate.ask(second, second_responder, 10min);
  CHECK(first_responder.answered());
  CHECK_FALSE(first_responder.select("allow-once"));
  h.run_for(300ms);
  CHECK(h.gate.is_open());
  CHECK_FALSE(second_responder.answered());
  CHECK(h.said.size() == 2);
  REQUIRE(h.gate.answer("reject").chosen == std::optional<std::string>("reject"));
}

TEST_CASE("closing the gate declines the open question without a word") {
  GateHarness h;
  const auto request = request_titled("delete a file");
  const auto responder = responder_for(request);
  h.gate.ask(request, responder, 50ms);
  h.gate.close();
  CHECK_FALSE(h.gate.is_open());
  CHECK(responder.answered());
  h.run_for(300ms);
  CHECK(h.said.size() == 1);
}
