// The extension query of the SDK (extension.hpp): an object offers an add-on interface by its
// versioned name, and find_extension hands back that very interface, whatever other bases the
// implementation has; a name it does not offer, an older or newer version included, is null.

#include <catch2/catch_test_macros.hpp>
#include <errand/sdk/extension.hpp>
#include <errand/sdk/extensions/usage_refresh.hpp>
#include <errand/sdk/plugin_instance.hpp>
#include <string_view>

namespace sdk = errand::sdk;

namespace {

class Greeting {
 public:
  static constexpr std::string_view kExtensionName = "test.greeting.2";
  virtual std::string_view greet() const = 0;

 protected:
  ~Greeting() = default;
};

class Counting {
 public:
  static constexpr std::string_view kExtensionName = "test.counting.1";
  virtual int count() const = 0;

 protected:
  ~Counting() = default;
};

// Greeting and Counting are second and third bases, so a cast through void* that skipped the
// base adjustment would read the wrong vtable.
class Offering final : public sdk::PluginInstance, public Greeting, public Counting {
 public:
  void* extension(std::string_view name) noexcept override {
    if (auto* greeting = sdk::offer_extension<Greeting>(this, name)) return greeting;
    return sdk::offer_extension<Counting>(this, name);
  }
  std::string_view greet() const override { return "hello"; }
  int count() const override { return 3; }
};

class Plain final : public sdk::PluginInstance {};

}  // namespace

TEST_CASE("an offered extension is found as its own interface") {
  Offering offering;
  sdk::PluginInstance& instance = offering;
  auto* greeting = sdk::find_extension<Greeting>(instance);
  REQUIRE(greeting != nullptr);
  CHECK(greeting == static_cast<Greeting*>(&offering));
  CHECK(greeting->greet() == "hello");
  auto* counting = sdk::find_extension<Counting>(instance);
  REQUIRE(counting != nullptr);
  CHECK(counting->count() == 3);
}

TEST_CASE("an extension not offered, or offered under another version, is null") {
  Offering offering;
  CHECK(sdk::find_extension<sdk::UsageRefresh>(offering) == nullptr);
  CHECK(offering.extension("test.greeting.1") == nullptr);
  CHECK(offering.extension("test.greeting.3") == nullptr);
  CHECK(offering.extension("") == nullptr);
  Plain plain;
  CHECK(sdk::find_extension<Greeting>(plain) == nullptr);
}
