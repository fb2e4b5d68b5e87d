#include <catch2/catch_test_macros.hpp>

#include "plugins/sandbox-bailey/common/toml_subset.hpp"

using namespace errand::bailey;

TEST_CASE("the TOML subset reads tables, arrays of tables and every value kind") {
  const auto parsed = toml::parse(R"(# a comment
top = "value"  # trailing
number = -42
flag = true

[table]
list = ["a", "b\"c",
  "d\\e",   # comments inside arrays
]
ports = [443, 80]

[[table.item]]
name = "first"

[[table.item]]
name = "second"

[env.set]
PATH = "/bin"
"odd key" = "\u0041\n"
)");
  INFO(parsed.error);
  REQUIRE(parsed.document);
  const auto& d = *parsed.document;
  CHECK(d.string("top") == "value");
  CHECK(d.integer("number") == -42);
  CHECK(d.boolean("flag") == true);
  CHECK(*d.strings("table.list") == std::vector<std::string>{"a", "b\"c", "d\\e"});
  CHECK(*d.integers("table.ports") == std::vector<std::int64_t>{443, 80});
  CHECK(d.table_count("table.item") == 2);
  CHECK(d.string("table.item.1.name") == "second");
  CHECK(d.keys_of("env.set") == std::vector<std::string>{"PATH", "odd key"});
  CHECK(d.string("env.set.odd key") == "A\n");
  CHECK(d.strings("absent")->empty());
  CHECK_FALSE(d.integers("table.list"));
}

TEST_CASE("the TOML subset refuses what it does not understand, naming the line") {
  for (const char* bad : {"a = 1\na = 2\n", "a = [1, 2\n", "a = 'single'\n", "[t\n", "a = \"open\n",
                          "a = 1.5\n", "a = \"\\q\"\n", "= 3\n"}) {
    const auto parsed = toml::parse(bad);
    INFO(bad);
    CHECK_FALSE(parsed.document);
    CHECK(parsed.error.rfind("line ", 0) == 0);
  }
}

TEST_CASE("quoting escapes quotes, backslashes and control characters") {
  CHECK(toml::quote("a\"b\\c\nd\x01") == "\"a\\\"b\\\\c\\u000ad\\u0001\"");
  CHECK(toml::key("PATH") == "PATH");
  CHECK(toml::key("has space") == "\"has space\"");
  const auto back = toml::parse("k = " + toml::quote("tab\there\x7f") + "\n");
  REQUIRE(back.document);
  CHECK(back.document->string("k") == "tab\there\x7f");
}
