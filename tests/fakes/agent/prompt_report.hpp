#pragma once

// What a prompt carried besides its script, as the `blocks` and `links` directives report it.

#include <boost/json/array.hpp>
#include <string>

namespace fake_agent {

// One line per block: "text: <text>", "image <mimeType>", or
// "resource_link <uri> name=<name> mimeType=<mimeType> size=<size>".
std::string describe_blocks(const boost::json::array& prompt);

// For each resource link, the file its file: URI names read as this process sees it (inside
// the sandbox): "<uri>:\n<content>", or "<uri>: unreadable: <why>".
std::string read_links(const boost::json::array& prompt);

}  // namespace fake_agent
