#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

namespace errand::config {

// One key an operator may write that holds a value rather than further keys. Its name is the
// dotted path, with "<name>" standing for a name the operator chooses (a map's key), as in
// docs/reference/configuration.md: "agent.providers.<name>.credential", "sandbox.env.<name>".
// A list is one leaf, whatever its items are.
struct SchemaLeaf {
  std::string key;
  // The x-errand-unsupported sentence of the key or of the section around it; empty when the
  // key is supported.
  std::string unsupported;
};

// Every leaf of `schema` (normally the composed one), in schema order.
std::vector<SchemaLeaf> schema_leaves(const boost::json::object& schema);

}  // namespace errand::config
