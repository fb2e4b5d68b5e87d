#include <catch2/catch_test_macros.hpp>

#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "plugins/sandbox-incus/client/request_target.hpp"

#include <boost/json/serialize.hpp>

using namespace errand::incus;

TEST_CASE("every target carries the project, after a query the path already has") {
  CHECK(with_project("/1.0/instances", "errand") == "/1.0/instances?project=errand");
  CHECK(with_project("/1.0/instances?recursion=1", "errand") ==
        "/1.0/instances?recursion=1&project=errand");
  CHECK(with_project("/1.0", "a b&c=d") == "/1.0?project=a%20b%26c%3Dd");
}

TEST_CASE("a name in a path cannot reach another endpoint or add a parameter") {
  CHECK(instance_path("errand-1") == "/1.0/instances/errand-1");
  CHECK(instance_path("errand-1", "/exec") == "/1.0/instances/errand-1/exec");
  CHECK(instance_path("../operations") == "/1.0/instances/..%2Foperations");
  CHECK(instance_path("t1?project=default") == "/1.0/instances/t1%3Fproject%3Ddefault");
  CHECK(path_segment("a b#c") == "a%20b%23c");
  CHECK(path_segment("safe-name_1.x~") == "safe-name_1.x~");
}

TEST_CASE("the exec body is non-interactive, waits for its websockets and records nothing") {
  ExecRequest request;
  request.command = {"cat", "-"};
  request.environment = {{"LANG", "C.UTF-8"}};
  request.user = 1000;
  request.group = 1000;
  request.cwd = "/workspace";
  CHECK(boost::json::serialize(exec_body(request)) ==
        R"({"command":["cat","-"],"environment":{"LANG":"C.UTF-8"},"interactive":false,)"
        R"("wait-for-websocket":true,"record-output":false,"user":1000,"group":1000,)"
        R"("cwd":"/workspace"})");
  ExecRequest bare;
  bare.command = {"true"};
  CHECK(boost::json::serialize(exec_body(bare)) ==
        R"({"command":["true"],"environment":{},"interactive":false,)"
        R"("wait-for-websocket":true,"record-output":false})");
}
