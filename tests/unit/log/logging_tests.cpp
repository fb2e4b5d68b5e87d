#include "core/log/logging.hpp"

#include <catch2/catch_test_macros.hpp>

using errand::log::escape_controls;

TEST_CASE("control characters are escaped so a line cannot forge another log entry") {
  CHECK(escape_controls("a\rb\x1b[31m") == "a\\x0db\\x1b[31m");
  CHECK(escape_controls("tab\there") == "tab\\x09here");
  CHECK(escape_controls("first\n2026-01-01 info [errand] forged") ==
        "first\n    2026-01-01 info [errand] forged");
  CHECK(escape_controls("plain text") == "plain text");
}
