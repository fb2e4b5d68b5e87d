#pragma once

// Sole owner of a file descriptor: it is closed exactly once, when the owner goes or is given
// another one, and moving hands the descriptor on without closing it.

#include <utility>

namespace errand::common {

class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }
  // Gives the descriptor up without closing it; the caller owns it from now on.
  int release() noexcept { return std::exchange(fd_, -1); }
  // Closes what is held (if anything) and takes fd instead.
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

}  // namespace errand::common
