#pragma once

// Extensions: a feature only some plugins (or some hosts) have is an interface of its own,
// asked for by name, rather than a virtual function in a kind's base interface. The base
// interfaces keep to what every plugin of the kind does; a new feature is a new extension,
// which is a new type and so a minor ABI change (a new virtual in a base interface moves every
// slot after it and is a major one).
//
// An extension is a class with `static constexpr std::string_view kExtensionName`, its name and
// version ("errand.usage-refresh.1"). A changed extension takes a new name, so a plugin and a
// host that know different versions of it each find "not offered", never a wrong layout.

#include <boost/config.hpp>
#include <string_view>

namespace errand::sdk {

class BOOST_SYMBOL_VISIBLE Extensible {
 public:
  // The extension called `name`, as a pointer to that interface (find_extension casts it
  // back), or null when this object offers nothing of that name. Valid while this object is.
  virtual void* extension(std::string_view name) noexcept {
    (void)name;
    return nullptr;
  }

 protected:
  Extensible() = default;
  Extensible(const Extensible&) = default;
  Extensible& operator=(const Extensible&) = default;
  ~Extensible() = default;
};

// The extension E that object offers, or null.
template <class E>
E* find_extension(Extensible& object) noexcept {
  return static_cast<E*>(object.extension(E::kExtensionName));
}

// For an implementation of extension(): self as the interface E when name is E's, else null.
// `return offer_extension<UsageRefresh>(this, name);`
template <class E, class Self>
void* offer_extension(Self* self, std::string_view name) noexcept {
  return name == E::kExtensionName ? static_cast<void*>(static_cast<E*>(self)) : nullptr;
}

}  // namespace errand::sdk
