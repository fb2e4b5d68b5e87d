#include "plugins/sandbox-incus/client/request_target.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace errand::incus {

std::string path_segment(std::string_view name) {
  return boost::urls::encode(name, boost::urls::unreserved_chars);
}

std::string with_project(std::string_view path, std::string_view project) {
  std::string target(path);
  target += path.find('?') == std::string_view::npos ? '?' : '&';
  target += "project=";
  target += boost::urls::encode(project, boost::urls::unreserved_chars);
  return target;
}

std::string instance_path(std::string_view name, std::string_view rest) {
  std::string path = "/1.0/instances/" + path_segment(name);
  path += rest;
  return path;
}

}  // namespace errand::incus
