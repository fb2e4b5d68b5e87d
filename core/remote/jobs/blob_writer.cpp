#include "core/remote/jobs/blob_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "core/remote/jobs/os_reason.hpp"

namespace errand::remote {
namespace {

using jobs_detail::os_reason;

// fsync on the directory, so that a rename into it survives a crash of the machine.
sdk::Result<void> sync_blob_directory(const std::filesystem::path& dir) {
  common::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd || ::fsync(fd.get()) != 0)
    return sdk::make_error("cannot sync the blob directory " + dir.string() + ": " +
                           os_reason(errno));
  return {};
}

}  // namespace

BlobWriter::BlobWriter(std::string hash, std::uint64_t expected_size, common::UniqueFd file,
                       std::filesystem::path temporary, std::filesystem::path destination)
    : hash_(std::move(hash)),
      expected_size_(expected_size),
      hasher_(std::make_unique<Sha256>()),
      file_(std::move(file)),
      temporary_(std::move(temporary)),
      destination_(std::move(destination)) {}

BlobWriter::BlobWriter(BlobWriter&& other) noexcept
    : hash_(std::move(other.hash_)),
      expected_size_(other.expected_size_),
      written_(other.written_),
      hasher_(std::move(other.hasher_)),
      file_(std::move(other.file_)),
      temporary_(std::move(other.temporary_)),
      destination_(std::move(other.destination_)),
      spent_(std::exchange(other.spent_, true)) {}

BlobWriter::~BlobWriter() {
  abandon();
}

void BlobWriter::abandon() noexcept {
  if (spent_) return;
  spent_ = true;
  file_.reset();
  ::unlink(temporary_.c_str());
}

sdk::Result<void> BlobWriter::check_usable() const {
  if (spent_)
    return sdk::make_error("blob " + hash_ + ": its writer was already finished or abandoned");
  return {};
}

sdk::Result<void> BlobWriter::write(std::string_view chunk) {
  if (auto usable = check_usable(); !usable) return usable;
  if (chunk.size() > expected_size_ - written_) {
    abandon();
    return sdk::refusal("blob " + hash_ + ": more than the " + std::to_string(expected_size_) +
                        " bytes the manifest gives it were sent");
  }
  hasher_->add(chunk);
  while (!chunk.empty()) {
    const auto n = ::write(file_.get(), chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      abandon();
      return sdk::make_error("blob " + hash_ + ": cannot write to " + temporary_.string() + ": " +
                             os_reason(error));
    }
    chunk.remove_prefix(static_cast<std::size_t>(n));
    written_ += static_cast<std::uint64_t>(n);
  }
  return {};
}

sdk::Result<void> BlobWriter::finish() {
  if (auto usable = check_usable(); !usable) return usable;
  if (written_ != expected_size_) {
    abandon();
    return sdk::refusal("blob " + hash_ + ": " + std::to_string(written_) +
                        " bytes were sent where the manifest gives it " +
                        std::to_string(expected_size_));
  }
  const auto digest = hasher_->finish();
  if (digest != hash_) {
    abandon();
    return sdk::refusal("blob " + hash_ + ": the content sent hashes to " + digest);
  }
  // Read-only, so that nothing in the runner writes a blob by mistake; only the owner's rename
  // or unlink changes the store.
  if (::fchmod(file_.get(), 0444) != 0 || ::fsync(file_.get()) != 0) {
    const int error = errno;
    abandon();
    return sdk::make_error("blob " + hash_ + ": cannot make " + temporary_.string() +
                           " read-only and durable: " + os_reason(error));
  }
  file_.reset();
  const auto directory = destination_.parent_path();
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    const int error = errno;
    abandon();
    return sdk::make_error("blob " + hash_ + ": cannot make the directory " + directory.string() +
                           ": " + os_reason(error));
  }
  // A concurrent writer of the same blob may have renamed its copy into place already; this
  // rename replaces that file with an identical one, which a reader holding it open never sees.
  if (::rename(temporary_.c_str(), destination_.c_str()) != 0) {
    const int error = errno;
    abandon();
    return sdk::make_error("blob " + hash_ + ": cannot move " + temporary_.string() + " to " +
                           destination_.string() + ": " + os_reason(error));
  }
  spent_ = true;
  return sync_blob_directory(directory);
}

}  // namespace errand::remote
