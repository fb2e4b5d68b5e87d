#pragma once

#include <boost/config.hpp>

namespace errand::sdk {

// The root of every plugin interface. Interfaces are visible across shared objects so their
// vtables and typeinfo agree; their methods never throw across the boundary.
class BOOST_SYMBOL_VISIBLE PluginInstance {
 public:
  PluginInstance() = default;
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;
  virtual ~PluginInstance() = default;
};

}  // namespace errand::sdk
