// Every shape of URL Discord or an operator may give becomes a request target that starts with
// '/', or is refused with the URL and what is wrong with it.

#include <catch2/catch_test_macros.hpp>
#include <errand/sdk/config_problems.hpp>

#include "plugins/chat-discord/service_url.hpp"
#include "plugins/chat-discord/settings.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

using namespace errand::discord;
namespace json = boost::json;

namespace {

std::string target_of(std::string_view url, UrlRole role, std::string_view path = {}) {
  const auto endpoint = parse_service_url(url, role);
  if (!endpoint) return "refused: " + endpoint.error().message;
  return endpoint->target(path);
}

// The refusal for url, or an empty string when it was accepted.
std::string refusal(std::string_view url, UrlRole role) {
  const auto endpoint = parse_service_url(url, role);
  return endpoint ? std::string() : endpoint.error().message;
}

bool mentions(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("gateway URLs: no path, a slash, a path, a trailing slash and a query") {
  const auto gateway = UrlRole::gateway;
  // Discord's own shape: no path, no slash. The target must still start with '/'.
  CHECK(target_of("wss://gateway.discord.gg", gateway) == "/");
  CHECK(target_of("wss://gateway.discord.gg/", gateway) == "/");
  CHECK(target_of("wss://gateway.discord.gg/ws", gateway) == "/ws");
  CHECK(target_of("wss://gateway.discord.gg/ws/", gateway) == "/ws/");
  CHECK(target_of("wss://gateway.discord.gg?region=eu", gateway) == "/?region=eu");
  CHECK(target_of("wss://gateway.discord.gg/?region=eu", gateway) == "/?region=eu");
  const auto e = parse_service_url("wss://gateway-us-east1-b.discord.gg", gateway);
  REQUIRE(e);
  CHECK(e->tls);
  CHECK(e->host == "gateway-us-east1-b.discord.gg");
  CHECK(e->port == "443");
  CHECK(e->host_header() == "gateway-us-east1-b.discord.gg");
  CHECK_FALSE(e->host_is_address);
}

TEST_CASE("REST bases with and without a path and a trailing slash append the route once") {
  const auto rest = UrlRole::rest_base;
  CHECK(target_of("https://discord.com/api/v10", rest, "/gateway/bot") == "/api/v10/gateway/bot");
  CHECK(target_of("https://discord.com/api/v10/", rest, "/gateway/bot") == "/api/v10/gateway/bot");
  CHECK(target_of("https://discord.com/api/v10//", rest, "/users/@me") == "/api/v10/users/@me");
  CHECK(target_of("https://discord.example", rest, "/gateway/bot") == "/gateway/bot");
  CHECK(target_of("https://discord.example/", rest, "/gateway/bot") == "/gateway/bot");
  CHECK(target_of("https://discord.example/", rest) == "/");
}

TEST_CASE("attachment URLs keep their path and their signed query") {
  const auto url =
      "https://cdn.discordapp.com/attachments/1/2/build%20log.txt?ex=6790c4f2&is=678f7372&hm=ab";
  CHECK(target_of(url, UrlRole::download) ==
        "/attachments/1/2/build%20log.txt?ex=6790c4f2&is=678f7372&hm=ab");
  CHECK(target_of("https://cdn.discordapp.com", UrlRole::download) == "/");
}

TEST_CASE("ports and addresses: explicit ports, IPv4 and bracketed IPv6 literals") {
  const auto v4 = parse_service_url("ws://127.0.0.1:9000", UrlRole::gateway);
  REQUIRE(v4);
  CHECK(v4->host == "127.0.0.1");
  CHECK(v4->host_is_address);
  CHECK(v4->port == "9000");
  CHECK(v4->host_header() == "127.0.0.1:9000");
  const auto v6 = parse_service_url("ws://[::1]:9000/", UrlRole::gateway);
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK(v6->host_is_address);
  CHECK(v6->host_header() == "[::1]:9000");
  const auto default_port = parse_service_url("https://discord.com:443/api", UrlRole::rest_base);
  REQUIRE(default_port);
  CHECK(default_port->host_header() == "discord.com");
  CHECK(parse_service_url("http://127.0.0.1/api", UrlRole::rest_base)->port == "80");
}

TEST_CASE("URLs that cannot work are refused with the URL and the reason") {
  const auto gateway = UrlRole::gateway;
  const auto rest = UrlRole::rest_base;

  const auto userinfo = refusal("wss://bot:secret@gateway.discord.gg", gateway);
  CHECK(mentions(userinfo, "\"wss://gateway.discord.gg\""));
  CHECK(mentions(userinfo, "user information"));
  CHECK_FALSE(mentions(userinfo, "secret"));

  const auto fragment = refusal("wss://gateway.discord.gg/#main", gateway);
  CHECK(mentions(fragment, "\"wss://gateway.discord.gg/#main\""));
  CHECK(mentions(fragment, "fragment"));

  const auto query = refusal("https://discord.com/api/v10?x=1", rest);
  CHECK(mentions(query, "\"https://discord.com/api/v10?x=1\""));
  CHECK(mentions(query, "query"));

  for (const auto* bad : {"wss://gateway.discord.gg:99999", "wss://gateway.discord.gg:0",
                          "wss://gateway.discord.gg:"}) {
    const auto port = refusal(bad, gateway);
    INFO(bad);
    CHECK(mentions(port, std::string("\"") + bad + "\""));
    CHECK(mentions(port, "1 to 65535"));
  }

  // Found by the gateway-frame fuzzer: Boost.URL reads "host:5-b.example" as port 5 followed by
  // the path "-b.example", which would make a request target without its leading '/'.
  const auto glued = refusal("wss://gateway-us-east:5-b.discord.gg", gateway);
  CHECK(mentions(glued, "\"wss://gateway-us-east:5-b.discord.gg\""));
  CHECK(mentions(glued, "neither a port nor a path"));

  const auto scheme = refusal("https://gateway.discord.gg", gateway);
  CHECK(mentions(scheme, "\"https://gateway.discord.gg\""));
  CHECK(mentions(scheme, "must be wss://"));
  CHECK(mentions(refusal("ftp://discord.com/api", rest), "must be https://"));
  CHECK(mentions(refusal("wss://discord.com/api", rest), "\"wss\""));

  CHECK(mentions(refusal("discord.com/api/v10", rest), "not an absolute URL"));
  CHECK(mentions(refusal("wss:///gateway", gateway), "names no host"));

  // Plain schemes only to a loopback literal: the token would travel in the clear.
  const auto plain = refusal("ws://gateway.example:80", gateway);
  CHECK(mentions(plain, "\"ws://gateway.example:80\""));
  CHECK(mentions(plain, "loopback"));
  CHECK(mentions(plain, "use wss://"));
  CHECK(mentions(refusal("http://localhost/api", rest), "loopback"));
  CHECK(refusal("http://127.0.0.5:1/api", rest).empty());
  // parse_endpoint alone leaves the loopback rule to its caller.
  CHECK(parse_endpoint("ws://gateway.example", gateway));
}

TEST_CASE("the configuration refuses apiBase and gatewayUrl shapes that cannot work") {
  auto problems_for = [](json::object chat) {
    errand::sdk::ConfigProblems problems;
    validate_discord_config(json::object{{"chat", std::move(chat)}}, problems);
    return problems.all();
  };
  CHECK(problems_for({{"apiBase", "https://discord.com/api/v10/"}}).empty());
  CHECK(problems_for({{"gatewayUrl", "wss://gateway.discord.gg"}}).empty());
  CHECK(problems_for({{"gatewayUrl", "wss://gateway.discord.gg/?region=eu"}}).empty());
  const auto query = problems_for({{"apiBase", "https://discord.com/api/v10?a=b"}});
  REQUIRE(query.size() == 1);
  CHECK(query[0].path == "chat.apiBase");
  CHECK(mentions(query[0].message, "query"));
  const auto userinfo = problems_for({{"gatewayUrl", "wss://u@gateway.discord.gg"}});
  REQUIRE(userinfo.size() == 1);
  CHECK(userinfo[0].path == "chat.gatewayUrl");
  CHECK(mentions(userinfo[0].message, "\"wss://gateway.discord.gg\""));
}

TEST_CASE("chat.caFile must be an absolute path to PEM certificates") {
  auto problems_for = [](json::value ca) {
    errand::sdk::ConfigProblems problems;
    validate_discord_config(json::object{{"chat", json::object{{"caFile", std::move(ca)}}}},
                            problems);
    return problems.all();
  };
  const auto relative = problems_for("certs/ca.pem");
  REQUIRE(relative.size() == 1);
  CHECK(relative[0].path == "chat.caFile");
  CHECK(mentions(relative[0].message, "absolute"));
  const auto missing = problems_for("/nonexistent/errand-ca.pem");
  REQUIRE(missing.size() == 1);
  CHECK(mentions(missing[0].message, "/nonexistent/errand-ca.pem"));
  CHECK(mentions(missing[0].message, "not a readable file"));
  // A file that holds no certificate at all.
  const errand::test::TempDir dir;
  errand::test::write_file(dir / "notes.pem", "not a certificate\n");
  const auto not_pem = problems_for(json::value((dir / "notes.pem").string()));
  REQUIRE(not_pem.size() == 1);
  CHECK(mentions(not_pem[0].message, "could not be read as PEM certificates"));
  CHECK(problems_for(42).size() == 1);
}
