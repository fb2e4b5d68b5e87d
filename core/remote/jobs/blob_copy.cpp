#include "core/remote/jobs/blob_copy.hpp"

#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "core/remote/jobs/os_reason.hpp"

namespace errand::remote {
namespace {

using jobs_detail::os_reason;

sdk::Error blob_copy_failure(std::string_view what, int error) {
  return sdk::make_error("cannot copy the content of " + std::string(what) + ": " +
                         os_reason(error));
}

sdk::Error blob_copy_short(std::string_view what, std::uint64_t done, std::uint64_t size) {
  return sdk::make_error("cannot copy the content of " + std::string(what) +
                         ": its blob ended after " + std::to_string(done) + " of " +
                         std::to_string(size) + " bytes");
}

// The last resort, for filesystems where copy_file_range does not work between these files.
sdk::Result<void> copy_blob_by_reading(int from, int to, std::uint64_t done, std::uint64_t size,
                                       std::string_view what) {
  std::vector<char> buffer(1 << 20);
  while (done < size) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - done));
    const auto got = ::pread(from, buffer.data(), want, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return blob_copy_failure(what, errno);
    if (got == 0) return blob_copy_short(what, done, size);
    std::size_t put = 0;
    while (put < static_cast<std::size_t>(got)) {
      const auto n = ::pwrite(to, buffer.data() + put, static_cast<std::size_t>(got) - put,
                              static_cast<off_t>(done + put));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return blob_copy_failure(what, errno);
      put += static_cast<std::size_t>(n);
    }
    done += put;
  }
  return {};
}

}  // namespace

sdk::Result<BlobCopyMethod> copy_blob_into(int from, int to, std::uint64_t size,
                                           std::string_view what) {
  if (size > 0 && ::ioctl(to, FICLONE, from) == 0) return BlobCopyMethod::reflinked;
  std::uint64_t done = 0;
  while (done < size) {
    auto in = static_cast<loff_t>(done);
    auto out = static_cast<loff_t>(done);
    const auto n = ::copy_file_range(from, &in, to, &out, size - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
      if (auto copied = copy_blob_by_reading(from, to, done, size, what); !copied)
        return copied.error();
      return BlobCopyMethod::copied;
    }
    if (n < 0) return blob_copy_failure(what, errno);
    if (n == 0) return blob_copy_short(what, done, size);
    done += static_cast<std::uint64_t>(n);
  }
  return BlobCopyMethod::copied;
}

}  // namespace errand::remote
