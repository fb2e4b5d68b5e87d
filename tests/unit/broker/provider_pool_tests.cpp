#include <catch2/catch_test_macros.hpp>

#include "tests/support/result_printing.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "tests/fakes/upstream/fake_upstream.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/unit/broker/support/broker_client.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"
#include "tests/unit/broker/support/fixed_resolver.hpp"

// Kept-alive provider connections, counted where they arrive: at the fake upstream, which
// counts the connections it accepted, those still open and the TLS handshakes that resumed.

using namespace errand::broker;
using namespace errand::broker::testing;
using errand::fakes::FakeUpstream;
using errand::fakes::UpstreamReply;
using errand::fakes::UpstreamRequest;

namespace {

const std::string kPoolKey = "sk-pool-REALKEY-0123456789abcdefghijklmnop";
constexpr auto kPatience = std::chrono::seconds(5);

bool eventually(const std::function<bool()>& holds) {
  const auto until = std::chrono::steady_clock::now() + kPatience;
  while (!holds()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The fake's answers: by the path's last segment, and the next requests a test asked to be
// hung up on.
struct Script {
  std::atomic<int> hang_ups{0};
  UpstreamReply operator()(const UpstreamRequest& r) {
    UpstreamReply reply;
    if (hang_ups.load() > 0) {
      --hang_ups;
      reply.hang_up = true;
      return reply;
    }
    const std::string path = r.target.substr(0, r.target.find('?'));
    if (path.ends_with("/close")) {
      reply.headers = {{"Connection", "close"}};
    } else if (path.ends_with("/closing")) {
      reply.close_after = true;
    } else if (path.ends_with("/cut-in-head")) {
      reply.raw = "HTTP/1.1 20";
      return reply;
    } else if (path.ends_with("/cut-in-body")) {
      reply.raw = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
      return reply;
    } else if (path.ends_with("/slow")) {
      reply.delay = std::chrono::milliseconds(300);
    }
    reply.headers.emplace_back("Content-Type", "application/json");
    reply.pieces = {R"({"ok":true})"};
    reply.content_length = reply.pieces[0].size();
    return reply;
  }
};

struct PoolFixture {
  TempDir ca_dir;
  errand::fakes::TestCa ca = errand::fakes::make_test_ca(ca_dir.path());
  Script script;
  FakeUpstream tls{[this](const UpstreamRequest& r) { return script(r); },
                   FakeUpstream::Tls{ca.server_cert, ca.server_key}};
  FakeUpstream plain{[this](const UpstreamRequest& r) { return script(r); }};
  std::shared_ptr<FixedResolver> resolver = std::make_shared<FixedResolver>();

  boost::json::object config() {
    auto c = base_config();
    c["sandbox"].as_object()["egress"].as_object()["allowInternal"] =
        boost::json::array{"127.0.0.1/32"};
    // alpha and beta share a host and port, as do plain and plain2; only their names differ.
    const std::string named = fmt::format("https://localhost:{}", tls.port());
    boost::json::object providers;
    for (const char* name : {"alpha", "beta"})
      providers[name] = {{"credential", kPoolKey}, {"kind", "openai"}, {"baseUrl", named}};
    for (const char* name : {"plain", "plain2"})
      providers[name] = {
          {"credential", kPoolKey}, {"kind", "openai"}, {"baseUrl", plain.base_url()}};
    c["agent"].as_object()["providers"] = std::move(providers);
    c["agent"].as_object()["provider"] = "alpha";
    c["agent"].as_object()["model"] = "pool-model";
    return c;
  }

  BrokerOptions options(ProviderPoolLimits limits = {}) {
    resolver->map("localhost", {"127.0.0.1"});
    BrokerOptions o;
    o.resolver = resolver;
    o.ca_file = ca.ca_cert;
    o.lookup_deadline = std::chrono::milliseconds(500);
    o.dial_deadline = std::chrono::milliseconds(3000);
    o.provider_pool = limits;
    return o;
  }

  FakeUpstream& upstream_of(const std::string& provider) {
    return provider.starts_with("plain") ? plain : tls;
  }

  std::size_t lookups() const {
    const auto asked = resolver->asked();
    return static_cast<std::size_t>(std::count(asked.begin(), asked.end(), "localhost"));
  }
};

ClientResponse call(BrokerClient& client, const errand::sdk::BrokerSession& session,
                    const std::string& provider, const std::string& path = "/v1/models") {
  client.send(fmt::format(
      "GET /provider/{}{} HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nAuthorization: Bearer {}\r\n\r\n",
      provider, path, session.stand_ins.at(provider).value));
  return client.read_response();
}

// A call's connection goes back to the pool just after its answer reached the session; a call
// from another connection waits for that, or it would rightly dial a second one.
bool pooled(BrokerHarness& harness, const std::string& provider, std::size_t idle = 1) {
  return eventually([&] { return harness.broker().core().provider_pool().idle(provider) == idle; });
}

std::size_t requests_to(const FakeUpstream& upstream, std::string_view ending) {
  const auto seen = upstream.requests();
  return static_cast<std::size_t>(std::count_if(
      seen.begin(), seen.end(), [&](const auto& r) { return r.target.ends_with(ending); }));
}

}  // namespace

TEST_CASE_METHOD(PoolFixture, "a session's sequential calls share one upstream connection",
                 "[provider][pool]") {
  for (const std::string provider : {"plain", "alpha"}) {
    DYNAMIC_SECTION(provider) {
      BrokerHarness harness(config(), options());
      const auto s = harness.open("s-seq");
      BrokerClient client(s.socket_path);
      for (int i = 0; i < 3; ++i) CHECK(call(client, s, provider).status == 200);
      // A new client connection to the broker still finds the pooled upstream.
      CHECK(pooled(harness, provider));
      BrokerClient again(s.socket_path);
      CHECK(call(again, s, provider).status == 200);
      auto& upstream = upstream_of(provider);
      CHECK(upstream.requests().size() == 4);
      CHECK(upstream.accepted() == 1);
      CHECK(pooled(harness, provider));
    }
  }
}

TEST_CASE_METHOD(PoolFixture, "calls from two sessions to one provider share the pool",
                 "[provider][pool]") {
  BrokerHarness harness(config(), options());
  const auto one = harness.open("s-one");
  const auto two = harness.open("s-two");
  BrokerClient first(one.socket_path);
  BrokerClient second(two.socket_path);
  CHECK(call(first, one, "alpha").status == 200);
  CHECK(pooled(harness, "alpha"));
  CHECK(call(second, two, "alpha").status == 200);
  CHECK(pooled(harness, "alpha"));
  CHECK(call(first, one, "alpha").status == 200);
  CHECK(tls.requests().size() == 3);
  CHECK(tls.accepted() == 1);
}

TEST_CASE_METHOD(PoolFixture, "providers on one host and port never share a connection",
                 "[provider][pool]") {
  for (const auto& [one, two] : {std::pair<std::string, std::string>{"alpha", "beta"},
                                 std::pair<std::string, std::string>{"plain", "plain2"}}) {
    DYNAMIC_SECTION(one << " and " << two) {
      BrokerHarness harness(config(), options());
      const auto s = harness.open("s-two-names");
      BrokerClient client(s.socket_path);
      CHECK(call(client, s, one).status == 200);
      CHECK(call(client, s, two).status == 200);
      CHECK(call(client, s, one).status == 200);
      CHECK(call(client, s, two).status == 200);
      auto& upstream = upstream_of(one);
      CHECK(upstream.requests().size() == 4);
      CHECK(upstream.accepted() == 2);
      auto& pool = harness.broker().core().provider_pool();
      CHECK(eventually([&] { return pool.idle(one) == 1 && pool.idle(two) == 1; }));
    }
  }
}

TEST_CASE_METHOD(PoolFixture, "an answer saying Connection: close is not pooled",
                 "[provider][pool]") {
  for (const std::string provider : {"plain", "alpha"}) {
    DYNAMIC_SECTION(provider) {
      BrokerHarness harness(config(), options());
      const auto s = harness.open("s-close");
      BrokerClient client(s.socket_path);
      CHECK(call(client, s, provider, "/v1/close").status == 200);
      CHECK(call(client, s, provider, "/v1/close").status == 200);
      auto& upstream = upstream_of(provider);
      CHECK(upstream.accepted() == 2);
      CHECK(harness.broker().core().provider_pool().idle(provider) == 0);
      CHECK(eventually([&] { return upstream.open_connections() == 0; }));
    }
  }
}

TEST_CASE_METHOD(PoolFixture, "a pooled connection the provider closed is replaced",
                 "[provider][pool]") {
  for (const std::string provider : {"plain", "alpha"}) {
    DYNAMIC_SECTION(provider) {
      BrokerHarness harness(config(), options());
      const auto s = harness.open("s-closed");
      auto& upstream = upstream_of(provider);
      BrokerClient client(s.socket_path);

      // Closed while idle: found closed before it is used.
      CHECK(call(client, s, provider, "/v1/closing").status == 200);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      CHECK(call(client, s, provider).status == 200);
      CHECK(upstream.accepted() == 2);
      CHECK(upstream.requests().size() == 2);
      // Found before the request went out, so nothing needed sending again.
      CHECK_FALSE(harness.log_contains("sending the request again"));

      // Closed as the request arrived, before a byte of an answer: sent again, once, on a new
      // connection.
      script.hang_ups = 1;
      CHECK(call(client, s, provider, "/v1/hung").status == 200);
      CHECK(requests_to(upstream, "/v1/hung") == 2);
      CHECK(upstream.accepted() == 3);
      CHECK(harness.log_contains("sending the request again on a new connection"));

      // A new connection hung up on is not tried again.
      CHECK(call(client, s, provider, "/v1/close").status == 200);
      script.hang_ups = 1;
      CHECK(call(client, s, provider, "/v1/hung-fresh").status == 502);
      CHECK(requests_to(upstream, "/v1/hung-fresh") == 1);
    }
  }
}

TEST_CASE_METHOD(PoolFixture, "a request whose answer had begun is never sent twice",
                 "[provider][pool]") {
  for (const std::string provider : {"plain", "alpha"}) {
    DYNAMIC_SECTION(provider) {
      BrokerHarness harness(config(), options());
      const auto s = harness.open("s-begun");
      auto& upstream = upstream_of(provider);
      {
        BrokerClient client(s.socket_path);
        CHECK(call(client, s, provider).status == 200);
        // Part of a head, then the connection ends: a byte of an answer arrived.
        CHECK(call(client, s, provider, "/v1/cut-in-head").status == 502);
      }
      CHECK(requests_to(upstream, "/v1/cut-in-head") == 1);
      CHECK(upstream.accepted() == 1);
      {
        BrokerClient client(s.socket_path);
        CHECK(call(client, s, provider).status == 200);
        CHECK(pooled(harness, provider));
        const auto cut = call(client, s, provider, "/v1/cut-in-body");
        CHECK(cut.status == 200);
        CHECK(cut.error);
      }
      CHECK(requests_to(upstream, "/v1/cut-in-body") == 1);
      CHECK(upstream.accepted() == 2);
    }
  }
}

TEST_CASE_METHOD(PoolFixture, "an idle connection is closed after the idle timeout",
                 "[provider][pool]") {
  ProviderPoolLimits limits;
  limits.idle_timeout = std::chrono::milliseconds(200);
  BrokerHarness harness(config(), options(limits));
  const auto s = harness.open("s-idle");
  BrokerClient client(s.socket_path);
  CHECK(call(client, s, "plain").status == 200);
  CHECK(call(client, s, "plain").status == 200);
  CHECK(plain.accepted() == 1);
  CHECK(plain.open_connections() == 1);
  // Closed by the pool's timer, with no call to find it expired.
  CHECK(eventually([&] { return plain.open_connections() == 0; }));
  CHECK(harness.broker().core().provider_pool().idle("plain") == 0);
  CHECK(call(client, s, "plain").status == 200);
  CHECK(plain.accepted() == 2);
}

TEST_CASE_METHOD(PoolFixture, "the pool keeps no more idle connections than its bounds",
                 "[provider][pool]") {
  ProviderPoolLimits limits;
  limits.idle_per_provider = 2;
  limits.idle_total = 3;
  BrokerHarness harness(config(), options(limits));
  const auto s = harness.open("s-bounds");
  auto& pool = harness.broker().core().provider_pool();
  const auto burst = [&](const std::string& provider) {
    // Catch2's assertions are not for other threads: the callers count their answers.
    std::atomic<int> answered{0};
    std::vector<std::thread> callers;
    for (int i = 0; i < 4; ++i)
      callers.emplace_back([&] {
        BrokerClient client(s.socket_path);
        if (call(client, s, provider, "/v1/slow").status == 200) ++answered;
      });
    for (auto& t : callers) t.join();
    CHECK(answered == 4);
  };
  burst("plain");
  CHECK(plain.accepted() == 4);
  CHECK(eventually([&] { return pool.idle("plain") == 2; }));
  CHECK(eventually([&] { return plain.open_connections() == 2; }));
  burst("plain2");
  CHECK(eventually([&] { return pool.idle("plain2") == 2 && pool.idle_total() == 3; }));
  CHECK(pool.idle("plain") == 1);
  CHECK(eventually([&] { return plain.open_connections() == 3; }));
}

TEST_CASE_METHOD(PoolFixture, "only a new connection is looked up and judged", "[provider][pool]") {
  BrokerHarness harness(config(), options());
  const auto s = harness.open("s-judged");
  BrokerClient client(s.socket_path);
  for (int i = 0; i < 3; ++i) CHECK(call(client, s, "alpha").status == 200);
  CHECK(lookups() == 1);
  CHECK(tls.accepted() == 1);
  CHECK(call(client, s, "alpha", "/v1/close").status == 200);
  CHECK(call(client, s, "alpha").status == 200);
  CHECK(lookups() == 2);
  CHECK(tls.accepted() == 2);

  // A call made under egress that no longer admits loopback (what a changed configuration
  // brings): the provider's pool is dropped, and the judge refuses the new connection.
  errand::sdk::BrokerSessionSpec narrower;
  const auto refreshed = harness.refresh_usage("alpha", narrower);
  REQUIRE_FALSE(refreshed);
  CHECK(refreshed.error().message.find("not a public host") != std::string::npos);
  CHECK(harness.broker().core().provider_pool().idle("alpha") == 0);
  CHECK(eventually([&] { return tls.open_connections() == 0; }));
  CHECK(tls.accepted() == 2);
  CHECK(lookups() == 3);
}

TEST_CASE_METHOD(PoolFixture, "a provider's new TLS connection resumes its last session",
                 "[provider][pool]") {
  BrokerHarness harness(config(), options());
  const auto s = harness.open("s-resume");
  BrokerClient client(s.socket_path);
  CHECK(call(client, s, "alpha", "/v1/close").status == 200);
  CHECK(call(client, s, "alpha", "/v1/close").status == 200);
  CHECK(call(client, s, "alpha").status == 200);
  CHECK(tls.accepted() == 3);
  CHECK(tls.resumed_handshakes() == 2);
  // Another provider on the same server has no session of its own yet.
  CHECK(call(client, s, "beta").status == 200);
  CHECK(tls.accepted() == 4);
  CHECK(tls.resumed_handshakes() == 2);
}

TEST_CASE_METHOD(PoolFixture, "with pooling off every call has a connection of its own",
                 "[provider][pool]") {
  ProviderPoolLimits off;
  off.enabled = false;
  BrokerHarness harness(config(), options(off));
  const auto s = harness.open("s-off");
  BrokerClient client(s.socket_path);
  CHECK(call(client, s, "alpha").status == 200);
  CHECK(call(client, s, "alpha").status == 200);
  CHECK(tls.accepted() == 2);
  CHECK(tls.resumed_handshakes() == 0);
  const auto seen = tls.requests();
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].header("Connection") == "close");
}

TEST_CASE_METHOD(PoolFixture, "stopping the broker closes its pooled connections",
                 "[provider][pool]") {
  BrokerHarness harness(config(), options());
  const auto s = harness.open("s-stop");
  BrokerClient client(s.socket_path);
  CHECK(call(client, s, "plain").status == 200);
  CHECK(call(client, s, "alpha").status == 200);
  CHECK(plain.open_connections() == 1);
  harness.broker().stop();
  CHECK(harness.broker().core().provider_pool().idle_total() == 0);
  CHECK(eventually([&] { return plain.open_connections() == 0; }));
  CHECK(eventually([&] { return tls.open_connections() == 0; }));
}

TEST_CASE_METHOD(PoolFixture, "the broker's own calls share the sessions' pool",
                 "[provider][pool]") {
  BrokerHarness harness(config(), options());
  const auto s = harness.open("s-own");
  BrokerClient client(s.socket_path);
  CHECK(call(client, s, "alpha").status == 200);
  CHECK(pooled(harness, "alpha"));
  // refresh_usage under the sessions' egress: the same route, so the same connection. The fake
  // reports no limits, so the probe itself is refused; its connection still goes back.
  errand::sdk::BrokerSessionSpec same;
  same.allow_internal = {"127.0.0.1/32"};
  (void)harness.refresh_usage("alpha", same);
  CHECK(tls.requests().size() == 2);
  CHECK(tls.accepted() == 1);
  CHECK(pooled(harness, "alpha"));

  // Hung up on before any answer: the probe is sent again on a new connection, once.
  script.hang_ups = 1;
  (void)harness.refresh_usage("alpha", same);
  CHECK(tls.requests().size() == 4);
  CHECK(tls.accepted() == 2);
  CHECK(call(client, s, "alpha").status == 200);
  CHECK(tls.accepted() == 2);
}
