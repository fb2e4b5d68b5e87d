#include "core/reference/markdown_cell.hpp"

#include <catch2/catch_test_macros.hpp>

using errand::reference::markdown_cell;

TEST_CASE("a table cell keeps its row: pipes escaped, line breaks made spaces") {
  CHECK(markdown_cell("a | b\nc") == "a \\| b c");
}

TEST_CASE("a '<' opens no element outside code, and stays as written inside it") {
  CHECK(markdown_cell("the plugin sandbox-<backend>") == "the plugin sandbox-&lt;backend>");
  CHECK(markdown_cell("`!grant <host>` or <b>") == "`!grant <host>` or &lt;b>");
}

TEST_CASE("a '*' outside code cannot start emphasis") {
  CHECK(markdown_cell("a host, or *.example.com; `*` alone") ==
        "a host, or \\*.example.com; `*` alone");
}
