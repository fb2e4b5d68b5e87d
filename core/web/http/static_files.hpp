#pragma once

// The built front-end's files, served for every GET or HEAD outside /api/. They are read
// beneath the front-end's folder with no symbolic link followed and no "..", through the same
// helper !cat uses for a project, so nothing outside the folder can be reached by a crafted path.

#include "core/web/http/web_http.hpp"

#include <filesystem>
#include <string_view>

namespace errand::web {

// The file target (an origin-form request target, percent-encoded, maybe with a query) names
// under front_end, with its content type. A target whose last segment has no dot is a route
// of the page itself and gets index.html, which the page reads its route from. A missing file
// is 404, a refused path 403 or 400, each {"error": sentence}.
HttpResponse front_end_file(const std::filesystem::path& front_end, std::string_view target);

}  // namespace errand::web
