#pragma once

// A session's grants, kept in grants.json in its record directory, where the session cannot
// write. The file holds hosts, times and account ids, never a credential.

#include <chrono>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace errand::broker {

class GrantStore {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  // Reads the file when there is one; grants whose time has passed are dropped.
  static sdk::Result<std::unique_ptr<GrantStore>> open(std::filesystem::path record_dir,
                                                       TimePoint now);

  // A host alone: one exact name or *.example.com, never "*", a port, a path or a URL.
  sdk::Result<sdk::Grant> add(sdk::GrantRequest request, TimePoint now);
  std::vector<sdk::Grant> list(TimePoint now);
  // Whether a grant lets a host through now. A once grant is used up by this, unless a lasting
  // grant covers the host as well; if the file cannot be rewritten then, the connection still
  // goes through and unsaved says why the grant would come back after a restart.
  struct Admission {
    std::optional<std::string> grant;  // the host the admitting grant names; none: refused
    std::string unsaved;
  };
  Admission admit(std::string_view host, TimePoint now);

  const std::filesystem::path& file() const noexcept { return file_; }

 private:
  explicit GrantStore(std::filesystem::path file);
  void drop_expired(TimePoint now);
  sdk::Result<void> save();

  std::filesystem::path file_;
  std::mutex mutex_;
  std::vector<sdk::Grant> grants_;
};

// Validates and normalises a grant's host; the error says what may be granted instead.
sdk::Result<std::string> grantable_host(std::string_view host);

}  // namespace errand::broker
