// The reference plugin the ABI check describes with abidw. It is a loadable chat plugin, and it
// exports one function naming every interface the SDK shares with the host, so the DWARF it
// carries describes each SDK type (and, through the interfaces' virtual functions, every
// structure they take or return). Built with -femit-class-debug-always, so an interface the
// plugin only refers to is described in full too.

#include <errand/sdk/plugin.hpp>

namespace errand::abi_reference {
namespace sdk = errand::sdk;
using boost::asio::awaitable;

class ReferenceChat final : public sdk::ChatTransport {
 public:
  explicit ReferenceChat(const sdk::HostServices& services) : services_(services) {}

  sdk::Result<void> start(sdk::ChatEvents& events) noexcept override {
    events_ = &events;
    return {};
  }
  void stop() noexcept override { events_ = nullptr; }
  sdk::TransportLimits limits() const noexcept override { return {}; }
  std::string self_id() const noexcept override { return services_.secrets.scrub("self"); }
  awaitable<sdk::Result<sdk::ThreadRef>> open_thread(sdk::MessageRef, std::string) override {
    co_return refused();
  }
  awaitable<sdk::Result<std::vector<sdk::MessageRef>>> post(std::string, sdk::OutMessage) override {
    co_return refused();
  }
  awaitable<sdk::Result<void>> edit(sdk::MessageRef, std::string) override { co_return refused(); }
  awaitable<sdk::Result<void>> remove(sdk::MessageRef) override { co_return refused(); }
  awaitable<sdk::Result<void>> react(sdk::MessageRef, sdk::Reaction, bool) override {
    co_return refused();
  }
  awaitable<sdk::Result<void>> register_commands(std::vector<sdk::CommandSpec>) override {
    co_return refused();
  }
  awaitable<sdk::Result<void>> acknowledge(sdk::CommandCall, sdk::Visibility) override {
    co_return refused();
  }
  awaitable<sdk::Result<void>> answer(sdk::CommandCall, sdk::OutMessage) override {
    co_return refused();
  }
  awaitable<sdk::Result<std::string>> fetch_attachment(sdk::Attachment, std::size_t) override {
    co_return refused();
  }
  awaitable<sdk::Result<void>> close_thread(std::string) override { co_return refused(); }

 private:
  static sdk::Error refused() {
    return sdk::make_error("the reference plugin serves no chat", sdk::Error::Kind::refused);
  }

  const sdk::HostServices& services_;
  sdk::ChatEvents* events_ = nullptr;
};

}  // namespace errand::abi_reference

// Every interface by reference: what abidw follows to describe the whole SDK.
BOOST_SYMBOL_EXPORT void errand_abi_reference_types(
    const errand::sdk::HostServices& services, errand::sdk::Secrets& secrets,
    errand::sdk::ReceiptSink& receipts, const errand::sdk::Clock& clock,
    errand::sdk::ChatTransport& chat, errand::sdk::ChatEvents& chat_events,
    errand::sdk::SandboxBackend& backend, errand::sdk::SandboxProcess& process,
    errand::sdk::EgressBroker& broker, errand::sdk::BrokerEvents& broker_events,
    errand::sdk::ConfigProblems& problems, errand::sdk::ImageKageCatalog& image_kage,
    errand::sdk::UsageRefresh& usage_refresh, errand::sdk::DelegateCalls& delegate_calls) {
  (void)services, (void)secrets, (void)receipts, (void)clock, (void)chat, (void)chat_events;
  (void)backend, (void)process, (void)broker, (void)broker_events, (void)problems;
  (void)image_kage, (void)usage_refresh, (void)delegate_calls;
}

// The interfaces a minor version added, each version's in a function of its own: a changed
// signature above would read as a function removed, which only a major bump may do.
BOOST_SYMBOL_EXPORT void errand_abi_reference_types_6_1(
    errand::sdk::SessionNotices& session_notices) {
  (void)session_notices;
}

BOOST_SYMBOL_EXPORT void errand_abi_reference_types_6_2(errand::sdk::KeptSandboxes& kept) {
  (void)kept;
}

ERRAND_PLUGIN(errand::abi_reference::ReferenceChat, "abi-reference", "0.0.0")
