#include "tests/fakes/provider/fake_provider.hpp"

#include "tests/fakes/provider/provider_server.hpp"

#include <algorithm>
#include <cctype>

namespace errand::fakes {

std::string RecordedRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (std::equal(key.begin(), key.end(), name.begin(), name.end(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        }))
      return value;
  return {};
}

FakeProvider::FakeProvider() : FakeProvider(Options{}) {}

FakeProvider::FakeProvider(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}

FakeProvider::~FakeProvider() = default;

std::uint16_t FakeProvider::http_port() const {
  return impl_->http_port;
}
std::uint16_t FakeProvider::https_port() const {
  return impl_->https_port;
}
std::string FakeProvider::http_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->http_port);
}
std::string FakeProvider::https_url() const {
  return "https://127.0.0.1:" + std::to_string(impl_->https_port);
}
const std::string& FakeProvider::ca_pem() const {
  return impl_->certificates.ca_pem;
}

void FakeProvider::push(ScriptedAnswer answer) {
  impl_->script.push(std::move(answer));
}

void FakeProvider::drive_shell_command(std::string command) {
  impl_->script.set_shell_command(std::move(command));
}

std::vector<RecordedRequest> FakeProvider::requests() const {
  return impl_->script.requests();
}

void FakeProvider::limit_concurrency(std::size_t calls) {
  impl_->concurrency_limit = calls;
}

std::size_t FakeProvider::max_in_flight() const {
  return impl_->max_in_flight;
}

std::size_t FakeProvider::rate_limited_answers() const {
  return impl_->rate_limited;
}

bool FakeProvider::wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const {
  return impl_->script.wait_for_requests(count, timeout);
}

}  // namespace errand::fakes
