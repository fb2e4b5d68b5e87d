#pragma once

// What the web page does against a harness's daemon, for the scenarios that drive sessions
// through the web interface: requests carry the page's own Origin, a session is started with a
// prompt and a project, and its events are read as the page's stream reads them.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/e2e/web_client.hpp"

#include <chrono>
#include <string>

namespace errand::e2e {

// The headers the page sends with a change: its own origin and a JSON body.
WebHeaders own_origin(const E2eHarness& h);

// Starts a session from the API as the page does (202 required); returns its thread.
std::string start_web_session(E2eHarness& h, const std::string& project, const std::string& prompt);

// The thread's event stream until its first turn has ended, or the timeout passed.
std::string first_turn_events(const E2eHarness& h, const std::string& thread,
                              std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace errand::e2e
