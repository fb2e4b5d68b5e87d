#include "tests/fakes/github/github_impl.hpp"

#include <algorithm>

namespace errand::fakes {

int permission_rank(std::string_view level) {
  if (level == "read") return 1;
  if (level == "write") return 2;
  if (level == "admin") return 3;
  return 0;
}

bool TokenGrant::covers(const std::string& repo) const {
  return repositories.empty() ||
         std::find(repositories.begin(), repositories.end(), repo) != repositories.end();
}

bool TokenGrant::allows(std::string_view permission, std::string_view level) const {
  if (every_permission) return true;
  const auto* granted = permissions.if_contains(permission);
  return granted && granted->is_string() &&
         permission_rank(granted->as_string()) >= permission_rank(level);
}

}  // namespace errand::fakes
