#include "core/chat/command_access.hpp"
#include "core/chat/commands.hpp"
#include "core/chat/message_classifier.hpp"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using namespace errand::chat;
using errand::sdk::GrantSpan;

namespace {

ParsedCommand command(std::string_view text, Where where = Where::thread) {
  auto classified = classify_message(text, where);
  if (auto* refusal = std::get_if<CommandRefusal>(&classified))
    FAIL("refused: " << refusal->sentence);
  REQUIRE(std::holds_alternative<ParsedCommand>(classified));
  return std::get<ParsedCommand>(classified);
}

std::string refusal(std::string_view text, Where where = Where::thread) {
  auto classified = classify_message(text, where);
  REQUIRE(std::holds_alternative<CommandRefusal>(classified));
  return std::get<CommandRefusal>(classified).sentence;
}

}  // namespace

TEST_CASE("an aside is recognised before anything else and never reaches the agent") {
  auto aside = classify_message("!!! note to self: check the logs", Where::thread);
  REQUIRE(std::holds_alternative<AsideMessage>(aside));
  CHECK(std::get<AsideMessage>(aside).text == "note to self: check the logs");
  CHECK(std::holds_alternative<AsideMessage>(classify_message("  !!!help", Where::thread)));
}

TEST_CASE("an unknown !word is ignored, and text that is not a command is a prompt") {
  CHECK(std::holds_alternative<IgnoredMessage>(classify_message("!play despacito", Where::thread)));
  CHECK(std::holds_alternative<IgnoredMessage>(classify_message("!deploy", Where::channel)));
  for (const auto* text : {"fix the build", "! not a command", "!? what", "why does !help fail"}) {
    auto prompt = classify_message(text, Where::thread);
    REQUIRE(std::holds_alternative<PromptMessage>(prompt));
    CHECK(std::get<PromptMessage>(prompt).text == text);
  }
}

TEST_CASE("commands parse with their arguments checked") {
  CHECK(command("!help").id() == CommandId::help);
  CHECK(command("!HELP").id() == CommandId::help);
  CHECK(command("!status", Where::channel).id() == CommandId::status);
  CHECK(command("!cat src/main.cpp").argument("path")->compare("src/main.cpp") == 0);
  CHECK(*command("!cat `my notes.txt`").argument("path") == "my notes.txt");
  CHECK(*command("!file \"build/out put.tar\"").argument("path") == "build/out put.tar");
  CHECK(command("!ls").arguments.empty());
  CHECK(*command("!model glm-5.3-flash").argument("name") == "glm-5.3-flash");

  const auto timed = command("!grant api.example.com 10m");
  REQUIRE(timed.grant);
  CHECK(timed.grant->host == "api.example.com");
  CHECK(timed.grant->span == GrantSpan::until);
  CHECK(timed.grant->duration == 600s);
  CHECK(command("!grant *.Example.COM always").grant->span == GrantSpan::always);
  CHECK(command("!grant *.Example.COM always").grant->host == "*.example.com");
  CHECK(command("!grant pypi.org").grant->span == GrantSpan::once);
  CHECK(command("!grant pypi.org 2h").grant->duration == 7200s);
}

TEST_CASE("a bad argument is refused with a sentence saying what would be accepted") {
  CHECK_THAT(refusal("!help me"), ContainsSubstring("!help takes no arguments"));
  CHECK_THAT(refusal("!cat"), ContainsSubstring("!cat needs a path: !cat <path>"));
  CHECK_THAT(refusal("!grant"), ContainsSubstring("!grant needs a host"));
  CHECK_THAT(refusal("!grant exa_mple.com"), ContainsSubstring("is not a host"));
  CHECK_THAT(refusal("!grant https://example.com"), ContainsSubstring("without a scheme"));
  CHECK_THAT(refusal("!grant example.com:443"), ContainsSubstring("without a port"));
  CHECK_THAT(refusal("!grant *"), ContainsSubstring("wildcard"));
  CHECK_THAT(refusal("!grant example.com 5x"), ContainsSubstring("is not a duration"));
  CHECK_THAT(refusal("!grant example.com 0m"), ContainsSubstring("no time at all"));
  CHECK_THAT(refusal("!grant example.com 90d"), ContainsSubstring("30 days"));
  CHECK_THAT(refusal("!grant example.com 10m later"),
             ContainsSubstring("!grant <host> [duration|always]"));
  CHECK_THAT(refusal("!model a b"), ContainsSubstring("more after !model"));
  CHECK_THAT(refusal("!cat \"\""), ContainsSubstring("needs a path"));
}

TEST_CASE("commands are refused where they do not belong") {
  CHECK_THAT(refusal("!stop", Where::channel), ContainsSubstring("in a session's thread"));
  CHECK_THAT(refusal("!cat a.txt", Where::channel), ContainsSubstring("not in the channel"));
  // !model lists in the channel; switching needs a session.
  CHECK(command("!model", Where::channel).id() == CommandId::model);
  CHECK_THAT(refusal("!model glm", Where::channel), ContainsSubstring("!model alone still works"));
  CHECK(command("!model glm").required_access() == CommandAccess::owner);
  CHECK(command("!model").required_access() == CommandAccess::allowed);
}

TEST_CASE("!usage tells anyone; !usage refresh is the thread's owner's or an operator's") {
  CHECK(command("!usage", Where::channel).required_access() == CommandAccess::anyone);
  const auto refresh = command("!usage refresh", Where::channel);
  CHECK(*refresh.argument("what") == "refresh");
  CHECK(refresh.required_access() == CommandAccess::owner);
  CHECK(command("!usage refresh").required_access() == CommandAccess::owner);
  AccessLists lists{{"op"}, {"alice", "bob"}, {}};
  const auto check = [&](std::string_view author, std::string_view owner) {
    return check_access(refresh.required_access(), {author, owner, "!usage"}, lists).has_value();
  };
  // In a thread its owner may; in the channel, where no session is anyone's, only an operator.
  CHECK(check("alice", "alice"));
  CHECK_FALSE(check("bob", "alice"));
  CHECK_FALSE(check("alice", ""));
  CHECK(check("op", ""));
  CHECK(check("op", "alice"));
}

TEST_CASE("slash commands come from the same table and are checked the same way") {
  const auto specs = slash_command_specs();
  REQUIRE(specs.size() == command_table().size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    CHECK(specs[i].name == command_table()[i].name);
    CHECK(specs[i].description.size() <= 100);
    CHECK(specs[i].options.size() == command_table()[i].arguments.size());
  }
  const auto grant =
      std::find_if(specs.begin(), specs.end(), [](auto& s) { return s.name == "grant"; });
  REQUIRE(grant != specs.end());
  CHECK(grant->options[0].name == "host");
  CHECK(grant->options[0].required);
  CHECK_FALSE(grant->options[1].required);

  errand::sdk::CommandCall call;
  call.name = "grant";
  call.options = {{"host", "registry.npmjs.org"}, {"duration", "2h"}};
  auto parsed = parse_slash_command(call, Where::thread);
  REQUIRE(std::holds_alternative<ParsedCommand>(parsed));
  CHECK(std::get<ParsedCommand>(parsed).grant->duration == 7200s);

  call.options = {{"host", "registry.npmjs.org"}, {"colour", "red"}};
  parsed = parse_slash_command(call, Where::thread);
  REQUIRE(std::holds_alternative<CommandRefusal>(parsed));
  CHECK_THAT(std::get<CommandRefusal>(parsed).sentence, ContainsSubstring("no option \"colour\""));

  call.name = "stop";
  call.options = {};
  CHECK(std::holds_alternative<CommandRefusal>(parse_slash_command(call, Where::channel)));
  call.name = "dance";
  CHECK(std::get<CommandRefusal>(parse_slash_command(call, Where::thread)).definition == nullptr);
}

TEST_CASE("the !help text is generated from the table for where it is asked") {
  const auto in_thread = help_text(true);
  const auto in_channel = help_text(false);
  for (const auto& c : command_table()) {
    const bool thread_ok = c.place != CommandPlace::channel;
    const bool channel_ok = c.place != CommandPlace::thread;
    CHECK((in_thread.find(usage_of(c)) != std::string::npos) == thread_ok);
    CHECK((in_channel.find(usage_of(c)) != std::string::npos) == channel_ok);
  }
  CHECK_THAT(in_thread, ContainsSubstring("the thread's owner and operators"));
  CHECK_THAT(in_thread, ContainsSubstring("!!!"));
}

TEST_CASE("access: blocked first, then operators, owner, allowed users, anyone",
          "[key:chat.allowedUserIds]"
          "[key:chat.blockedUserIds]"
          "[key:chat.operatorUserIds]") {
  AccessLists lists{{"op"}, {"alice", "bob"}, {"mallory", "op-blocked"}};
  lists.operator_ids.push_back("op-blocked");
  const auto check = [&](CommandAccess required, std::string_view author, std::string_view owner) {
    return check_access(required, {author, owner, "!stop"}, lists);
  };
  // Blocked beats everything, operator status included.
  CHECK_THAT(check(CommandAccess::anyone, "mallory", "").error().message,
             ContainsSubstring("blocked"));
  CHECK_FALSE(check(CommandAccess::anyone, "op-blocked", "").has_value());

  CHECK(check(CommandAccess::anyone, "stranger", "").has_value());
  CHECK(check(CommandAccess::allowed, "alice", "").has_value());
  CHECK_THAT(check(CommandAccess::allowed, "stranger", "").error().message,
             ContainsSubstring("not in chat.allowedUserIds"));
  CHECK(check(CommandAccess::allowed, "op", "").has_value());

  CHECK(check(CommandAccess::owner, "alice", "alice").has_value());
  CHECK(check(CommandAccess::owner, "op", "alice").has_value());
  const auto not_owner = check(CommandAccess::owner, "bob", "alice");
  REQUIRE_FALSE(not_owner.has_value());
  CHECK(not_owner.error().kind == errand::sdk::Error::Kind::refused);
  CHECK_THAT(not_owner.error().message,
             ContainsSubstring("!stop was refused: only the person who started this session"));

  CHECK(check(CommandAccess::operators, "op", "").has_value());
  CHECK_THAT(check(CommandAccess::operators, "alice", "alice").error().message,
             ContainsSubstring("only operators"));

  lists.allowed_ids = {"*"};
  CHECK(check(CommandAccess::allowed, "stranger", "").has_value());
  CHECK_FALSE(check(CommandAccess::allowed, "mallory", "").has_value());
}

TEST_CASE("access lists are read from chat.*",
          "[key:chat.allowedUserIds]"
          "[key:chat.blockedUserIds]"
          "[key:chat.operatorUserIds]") {
  boost::json::object config{{"chat",
                              {{"allowedUserIds", {"a", "b"}},
                               {"operatorUserIds", {"o"}},
                               {"blockedUserIds", boost::json::array{}}}}};
  const auto lists = access_lists_from_config(config);
  CHECK(lists.allowed_ids == std::vector<std::string>{"a", "b"});
  CHECK(lists.operator_ids == std::vector<std::string>{"o"});
  CHECK(lists.blocked_ids.empty());
}

TEST_CASE("!allow and !deny take a mention or an id; !then takes the rest of the message") {
  CHECK(*command("!allow <@!500000000000000005>").argument("user") == "500000000000000005");
  CHECK(*command("!deny 500000000000000005").argument("user") == "500000000000000005");
  CHECK(command("!allow <@5>").required_access() == CommandAccess::owner);
  CHECK_THAT(refusal("!allow"), ContainsSubstring("!allow needs a user: !allow <@user>"));
  CHECK_THAT(refusal("!allow <@&42>"), ContainsSubstring("mentions a role"));
  CHECK_THAT(refusal("!allow bob"), ContainsSubstring("`bob` is not an account"));
  CHECK_THAT(refusal("!allow <@5> <@6>"), ContainsSubstring("more after !allow"));
  CHECK_THAT(refusal("!allow <@5>", Where::channel), ContainsSubstring("not in the channel"));

  // The prompt is taken as written, a leading ! and several lines included.
  CHECK(*command("!then !important: run the tests\nthen push").argument("prompt") ==
        "!important: run the tests\nthen push");
  CHECK(command("!then go on").required_access() == CommandAccess::allowed);
  CHECK_THAT(refusal("!then"), ContainsSubstring("!then needs a prompt"));
  CHECK_THAT(refusal("!then go on", Where::channel), ContainsSubstring("not in the channel"));

  CHECK(command("!guests").required_access() == CommandAccess::allowed);
  CHECK(command("!pwd").required_access() == CommandAccess::allowed);
  CHECK_THAT(refusal("!pwd", Where::channel), ContainsSubstring("not in the channel"));
  CHECK(command("!shutdown", Where::channel).required_access() == CommandAccess::shutdown);
  CHECK(command("!shutdown").required_access() == CommandAccess::shutdown);

  errand::sdk::CommandCall call;
  call.name = "allow";
  call.options = {{"user", "500000000000000005"}};
  auto parsed = parse_slash_command(call, Where::thread);
  REQUIRE(std::holds_alternative<ParsedCommand>(parsed));
  CHECK(*std::get<ParsedCommand>(parsed).argument("user") == "500000000000000005");
}

TEST_CASE("the guest and daemon commands are in the table, so in !help and as slash commands") {
  for (const auto* name : {"allow", "deny", "guests", "then", "pwd", "shutdown"}) {
    INFO(name);
    const auto* def = find_command(name);
    REQUIRE(def != nullptr);
    const auto specs = slash_command_specs();
    CHECK(std::any_of(specs.begin(), specs.end(), [&](auto& s) { return s.name == name; }));
    CHECK_THAT(help_text(true), ContainsSubstring(usage_of(*def)));
  }
  const auto in_thread = help_text(true);
  CHECK_THAT(in_thread, ContainsSubstring("!allow <@user>"));
  CHECK_THAT(in_thread, ContainsSubstring("!then <prompt>"));
  CHECK_THAT(in_thread, ContainsSubstring("allowed users and the thread's guests"));
  CHECK_THAT(help_text(false), ContainsSubstring("!shutdown"));
  CHECK_THAT(help_text(false), ContainsSubstring("(shutdown.allowedUserIds)"));
  CHECK_THAT(help_text(false), !ContainsSubstring("!allow"));
}

TEST_CASE("access: a thread's guests may do what allowed users may there, and no more",
          "[key:chat.allowedUserIds]"
          "[key:chat.blockedUserIds]") {
  AccessLists lists{{"op"}, {"alice"}, {"mallory"}};
  const std::vector<std::string> guests{"gina", "mallory"};
  const auto check = [&](CommandAccess required, std::string_view author, std::string_view owner) {
    return check_access(required, {author, owner, "!cat", guests}, lists);
  };
  CHECK(check(CommandAccess::allowed, "gina", "alice").has_value());
  // A guest of one thread is nobody in the channel, where no thread's guests count.
  CHECK_THAT(check(CommandAccess::allowed, "gina", "").error().message,
             ContainsSubstring("not in chat.allowedUserIds"));
  CHECK_THAT(check(CommandAccess::allowed, "stranger", "alice").error().message,
             ContainsSubstring("nor a guest of this thread"));
  const auto steer = check(CommandAccess::owner, "gina", "alice");
  REQUIRE_FALSE(steer.has_value());
  CHECK_THAT(steer.error().message, ContainsSubstring("a guest may prompt and read the project"));
  CHECK_FALSE(check(CommandAccess::operators, "gina", "alice").has_value());
  // Blocked beats being a guest.
  CHECK_THAT(check(CommandAccess::allowed, "mallory", "alice").error().message,
             ContainsSubstring("blocked"));
}

TEST_CASE("access: only shutdown.allowedUserIds may stop the daemon, operators included",
          "[key:shutdown.allowedUserIds]") {
  boost::json::object config{{"chat", {{"allowedUserIds", {"*"}}, {"operatorUserIds", {"op"}}}},
                             {"shutdown", {{"allowedUserIds", {"sam", "blocked-sam"}}}}};
  auto lists = access_lists_from_config(config);
  CHECK(lists.shutdown_ids == std::vector<std::string>{"sam", "blocked-sam"});
  lists.blocked_ids = {"blocked-sam"};
  const auto check = [&](std::string_view author) {
    return check_access(CommandAccess::shutdown, {author, "", "!shutdown"}, lists);
  };
  CHECK(check("sam").has_value());
  CHECK_THAT(check("op").error().message,
             ContainsSubstring("!shutdown was refused: only the accounts in "
                               "shutdown.allowedUserIds"));
  CHECK_THAT(check("blocked-sam").error().message, ContainsSubstring("blocked"));
  CHECK(access_lists_from_config({}).shutdown_ids.empty());
}

TEST_CASE("every command in the table has its handler, a name of its own and an id of its own") {
  const auto& table = command_table();
  REQUIRE(table.size() >= 18);
  for (const auto& definition : table) {
    INFO("!" << definition.name);
    CHECK(definition.handle != nullptr);
    CHECK(std::count_if(table.begin(), table.end(), [&](const CommandDefinition& other) {
            return other.name == definition.name;
          }) == 1);
    CHECK(std::count_if(table.begin(), table.end(), [&](const CommandDefinition& other) {
            return other.id == definition.id;
          }) == 1);
    CHECK(find_command(definition.name) == &definition);
  }
}
