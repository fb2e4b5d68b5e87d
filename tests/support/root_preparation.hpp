#pragma once

// What a test needs that only root can make (a mount below a granted path, a file belonging to
// another user). The tests run as the ordinary test account, so the root parent of
// run_as_test_account makes these before it switches, and undoes them after. A preparation is
// declared at namespace scope next to the tests that use it:
//
//   const RootPreparation submount{"submount", make_submount, remove_submount};
//
// and read inside a test with prepared_as_root("submount").

#include <functional>
#include <string>

#include "tests/support/test_account.hpp"

namespace errand::test {

class RootPreparation {
 public:
  // make returns what it made (a path, say) or throws std::runtime_error saying why it could
  // not; undo receives what make returned.
  RootPreparation(std::string name, std::function<std::string(const TestAccount&)> make,
                  std::function<void(const std::string&)> undo);
};

struct Prepared {
  bool ok = false;
  std::string value;  // what make returned
  std::string why;    // when not ok: why nothing was made
};
Prepared prepared_as_root(const std::string& name);

// For run_as_test_account: makes every declared preparation (each result or failure is put in
// the environment, which the child inherits) and undoes them.
void make_root_preparations(const TestAccount& account);
void undo_root_preparations();

}  // namespace errand::test
