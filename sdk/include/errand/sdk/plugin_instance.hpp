#pragma once

#include <boost/config.hpp>
#include <errand/sdk/extension.hpp>

namespace errand::sdk {

// The root of every plugin interface. Interfaces are visible across shared objects so their
// vtables and typeinfo agree; their methods never throw across the boundary. What only some
// plugins of a kind do is an extension they offer (extension.hpp, extensions/).
class BOOST_SYMBOL_VISIBLE PluginInstance : public Extensible {
 public:
  PluginInstance() = default;
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;
  virtual ~PluginInstance() = default;
};

}  // namespace errand::sdk
