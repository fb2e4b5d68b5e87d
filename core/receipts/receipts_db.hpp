#pragma once

// receipts.db: one row per provider call a session's broker handled. Rows are written by a
// writer thread of its own, so recording never holds up the broker's io thread and a receipt
// that cannot be written never fails the call it describes (the log says so instead).

#include <spdlog/logger.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace errand::storage {
class Database;
}

namespace errand::receipts {

class ReceiptsDb final : public sdk::ReceiptSink {
 public:
  // Opens (creating it private when absent; a symbolic link is refused) the file in WAL mode and
  // migrates its schema.
  static sdk::Result<std::unique_ptr<ReceiptsDb>> open(std::filesystem::path file,
                                                       std::shared_ptr<spdlog::logger> log);
  // Writes what is still queued, then closes.
  ~ReceiptsDb() override;
  ReceiptsDb(const ReceiptsDb&) = delete;
  ReceiptsDb& operator=(const ReceiptsDb&) = delete;

  // Queues the receipt and returns at once.
  void record(const sdk::ProviderReceipt& receipt) noexcept override;
  // Waits until every receipt queued before the call has been written or given up on.
  void flush();

  // A session's newest receipts, newest first; waits for queued receipts first.
  sdk::Result<std::vector<sdk::ProviderReceipt>> newest(std::string_view session_id,
                                                        std::size_t limit);
  // Removes a session's receipts when the session is collected; returns how many went.
  sdk::Result<std::size_t> remove_session(std::string_view session_id);

  // Receipts dropped because the queue was full or the database failed, since opening.
  std::size_t lost() const;

  static constexpr std::size_t kQueueLimit = 4096;

 private:
  ReceiptsDb(std::unique_ptr<storage::Database> db, std::shared_ptr<spdlog::logger> log);
  void write_loop();
  void write_batch(std::vector<sdk::ProviderReceipt>& batch);

  // One connection, used by the writer and by readers in turn.
  std::unique_ptr<storage::Database> db_;
  std::shared_ptr<spdlog::logger> log_;

  mutable std::mutex queue_mutex_;
  std::condition_variable queue_changed_;
  std::deque<sdk::ProviderReceipt> queue_;
  std::uint64_t queued_total_ = 0;
  std::uint64_t done_total_ = 0;
  std::size_t lost_ = 0;
  bool stopping_ = false;
  std::thread writer_;
};

}  // namespace errand::receipts
