#pragma once

// Debian packages a backend needs: "already" when dpkg-query says each is installed, else
// installed with apt-get (a progress line while it runs, its output in the setup log).

#include <optional>
#include <string>
#include <vector>

#include "core/setup/setup_context.hpp"

namespace errand::setup {

// The packages of the list that dpkg-query does not report as installed.
std::vector<std::string> missing_packages(const std::vector<std::string>& packages);

// release: a target release for apt-get -t ("bookworm-backports"), or nothing.
void ensure_packages(SetupContext& context, const std::vector<std::string>& packages,
                     const std::optional<std::string>& release);

}  // namespace errand::setup
