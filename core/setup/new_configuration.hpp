#pragma once

// The configuration `errand setup NAME` writes when the host has none: the shipped example, with
// its "$schema" pointing at the installed schema, sandbox.backend naming NAME, and the backend's
// own settings (what its setup made, such as the incus project and golden instance) as
// sandbox.NAME. The example's text is edited rather than re-serialised, so its comments, which
// explain each value to the operator who fills it in, stay.

#include <boost/json/object.hpp>
#include <filesystem>
#include <string>
#include <string_view>

namespace errand::setup {

// example_text as a configuration for backend; StepFailed (for the configuration step) when the
// example has no sandbox.backend string to name it in, or the edited text does not read back
// with backend and settings in place.
std::string configuration_for_backend(std::string example_text, std::string_view backend,
                                      const boost::json::object& settings,
                                      const std::filesystem::path& installed_schema);

}  // namespace errand::setup
