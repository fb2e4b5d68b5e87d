#include "core/receipts/receipts_db.hpp"

#include <spdlog/sinks/null_sink.h>

#include <chrono>
#include <optional>
#include <string>

#include "core/receipts/receipt_fields.hpp"
#include "core/receipts/receipts_schema.hpp"
#include "core/storage/database.hpp"

namespace errand::receipts {
namespace {

using Outcome = sdk::ProviderReceipt::Outcome;

// The reverse of sdk::to_string, so the two can never disagree; nothing for a text no outcome
// writes.
std::optional<Outcome> outcome_of(std::string_view text) {
  for (const auto outcome : {Outcome::completed, Outcome::interrupted, Outcome::denied,
                             Outcome::refused, Outcome::upstream_unreachable})
    if (text == sdk::to_string(outcome)) return outcome;
  return std::nullopt;
}

}  // namespace

sdk::Result<std::unique_ptr<ReceiptsDb>> ReceiptsDb::open(std::filesystem::path file,
                                                          std::shared_ptr<spdlog::logger> log) {
  if (!log)
    log = std::make_shared<spdlog::logger>("receipts",
                                           std::make_shared<spdlog::sinks::null_sink_mt>());
  auto db = storage::Database::open(file, schema());
  if (!db) return db.error();
  return std::unique_ptr<ReceiptsDb>(new ReceiptsDb(std::move(*db), std::move(log)));
}

ReceiptsDb::ReceiptsDb(std::unique_ptr<storage::Database> db, std::shared_ptr<spdlog::logger> log)
    : db_(std::move(db)), log_(std::move(log)) {
  writer_ = std::thread([this] { write_loop(); });
}

ReceiptsDb::~ReceiptsDb() {
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  queue_changed_.notify_all();
  writer_.join();
}

void ReceiptsDb::record(const sdk::ProviderReceipt& receipt) noexcept {
  try {
    std::unique_lock lock(queue_mutex_);
    if (queue_.size() >= kQueueLimit) {
      ++lost_;
      lock.unlock();
      log_->error(
          "a receipt for session {} was not recorded: the receipts queue is full ({} "
          "waiting); the call itself went ahead",
          receipt.session_id, kQueueLimit);
      return;
    }
    queue_.push_back(receipt);
    ++queued_total_;
  } catch (const std::exception& e) {
    log_->error("a receipt could not be queued: {}; the call itself went ahead", e.what());
    return;
  }
  queue_changed_.notify_all();
}

void ReceiptsDb::flush() {
  std::unique_lock lock(queue_mutex_);
  const auto target = queued_total_;
  queue_changed_.wait(lock, [&] { return done_total_ >= target; });
}

std::size_t ReceiptsDb::lost() const {
  std::lock_guard lock(queue_mutex_);
  return lost_;
}

void ReceiptsDb::write_loop() {
  std::vector<sdk::ProviderReceipt> batch;
  while (true) {
    {
      std::unique_lock lock(queue_mutex_);
      queue_changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty() && stopping_) return;
      batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
      queue_.clear();
    }
    write_batch(batch);
    {
      std::lock_guard lock(queue_mutex_);
      done_total_ += batch.size();
    }
    queue_changed_.notify_all();
    batch.clear();
  }
}

void ReceiptsDb::write_batch(std::vector<sdk::ProviderReceipt>& batch) {
  auto written = db_->access([&](storage::Connection& db) -> sdk::Result<void> {
    storage::Transaction transaction(db);
    auto insert = db.prepare(
        "INSERT INTO receipts (ended_at_ms, session_id, provider, credential_name, host, "
        "method, path, query_length, status, duration_ms, bytes_up, bytes_down, outcome) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
    for (const auto& r : batch) {
      insert.reset();
      insert
          .bind(1,
                std::chrono::duration_cast<std::chrono::milliseconds>(r.ended_at.time_since_epoch())
                    .count())
          .bind(2, r.session_id)
          .bind(3, r.provider)
          .bind(4, r.credential_name)
          .bind(5, r.host)
          .bind(6, sdk::receipt_method(r.method))
          .bind(7, safe_path(r.path))
          .bind(8, static_cast<std::int64_t>(r.query_length))
          .bind(9, std::int64_t{r.status})
          .bind(10, std::int64_t{r.duration.count()})
          .bind(11, static_cast<std::int64_t>(r.bytes_up))
          .bind(12, static_cast<std::int64_t>(r.bytes_down))
          .bind(13, sdk::to_string(r.outcome))
          .run();
    }
    transaction.commit();
    return {};
  });
  if (written) return;
  log_->error("{} receipt(s) could not be written to {}: {}; the calls themselves went ahead",
              batch.size(), db_->file().string(), written.error().message);
  std::lock_guard lock(queue_mutex_);
  lost_ += batch.size();
}

sdk::Result<std::vector<sdk::ProviderReceipt>> ReceiptsDb::newest(std::string_view session_id,
                                                                  std::size_t limit) {
  flush();
  return db_->access(
      [&](storage::Connection& db) -> sdk::Result<std::vector<sdk::ProviderReceipt>> {
        auto select = db.prepare(
            "SELECT ended_at_ms, session_id, provider, credential_name, host, method, path, "
            "query_length, status, duration_ms, bytes_up, bytes_down, outcome FROM receipts "
            "WHERE session_id = ?1 ORDER BY ended_at_ms DESC, id DESC LIMIT ?2");
        select.bind(1, session_id).bind(2, static_cast<std::int64_t>(limit));
        std::vector<sdk::ProviderReceipt> out;
        while (select.step()) {
          sdk::ProviderReceipt r;
          r.ended_at =
              std::chrono::system_clock::time_point(std::chrono::milliseconds(select.integer(0)));
          r.session_id = select.text(1);
          r.provider = select.text(2);
          r.credential_name = select.text(3);
          r.host = select.text(4);
          r.method = select.text(5);
          r.path = select.text(6);
          r.query_length = static_cast<std::uint64_t>(select.integer(7));
          r.status = static_cast<int>(select.integer(8));
          r.duration = std::chrono::milliseconds(select.integer(9));
          r.bytes_up = static_cast<std::uint64_t>(select.integer(10));
          r.bytes_down = static_cast<std::uint64_t>(select.integer(11));
          const auto outcome_text = select.text(12);
          const auto outcome = outcome_of(outcome_text);
          if (!outcome)
            return sdk::make_error("receipts.db holds an outcome this errand does not know, \"" +
                                   outcome_text + "\" (written by a newer errand?)");
          r.outcome = *outcome;
          out.push_back(std::move(r));
        }
        return out;
      });
}

sdk::Result<std::size_t> ReceiptsDb::remove_session(std::string_view session_id) {
  flush();
  return db_->access([&](storage::Connection& db) -> sdk::Result<std::size_t> {
    db.prepare("DELETE FROM receipts WHERE session_id = ?1").bind(1, session_id).run();
    return static_cast<std::size_t>(db.changes());
  });
}

}  // namespace errand::receipts
