#include "core/receipts/receipts_db.hpp"

#include <spdlog/sinks/null_sink.h>

#include <chrono>
#include <optional>
#include <string>

#include "core/receipts/receipt_fields.hpp"
#include "core/receipts/receipts_schema.hpp"

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

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  explicit operator bool() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() const { return stmt_; }
  std::string error() const { return sqlite3_errmsg(db_); }
  void text(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void integer(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string column_text(sqlite3_stmt* stmt, int i) {
  const auto* p = sqlite3_column_text(stmt, i);
  return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
}

}  // namespace

sdk::Result<std::unique_ptr<ReceiptsDb>> ReceiptsDb::open(std::filesystem::path file,
                                                          std::shared_ptr<spdlog::logger> log) {
  if (!log)
    log = std::make_shared<spdlog::logger>("receipts",
                                           std::make_shared<spdlog::sinks::null_sink_mt>());
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(file.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return sdk::make_error("cannot open " + file.string() + ": " + message);
  }
  sqlite3_busy_timeout(db, 5000);
  // WAL lets `errand threads show` read while the daemon writes.
  std::string mode;
  {
    Statement wal(db, "PRAGMA journal_mode=WAL");
    if (wal && sqlite3_step(wal.get()) == SQLITE_ROW) mode = column_text(wal.get(), 0);
  }
  if (mode != "wal") {
    sqlite3_close(db);
    return sdk::make_error(file.string() +
                           " could not be put in WAL mode (the file system may not "
                           "support it); receipts.db needs a local file system");
  }
  sqlite3_exec(db, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
  if (auto migrated = migrate(db); !migrated) {
    sqlite3_close(db);
    return sdk::make_error(file.string() + ": " + migrated.error().message);
  }
  return std::unique_ptr<ReceiptsDb>(new ReceiptsDb(db, std::move(file), std::move(log)));
}

ReceiptsDb::ReceiptsDb(sqlite3* db, std::filesystem::path file, std::shared_ptr<spdlog::logger> log)
    : db_(db), file_(std::move(file)), log_(std::move(log)) {
  writer_ = std::thread([this] { write_loop(); });
}

ReceiptsDb::~ReceiptsDb() {
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  queue_changed_.notify_all();
  writer_.join();
  sqlite3_close(db_);
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
  std::lock_guard lock(db_mutex_);
  const auto fail = [&](const std::string& why) {
    log_->error("{} receipt(s) could not be written to {}: {}; the calls themselves went ahead",
                batch.size(), file_.string(), why);
    std::lock_guard qlock(queue_mutex_);
    lost_ += batch.size();
  };
  if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail(sqlite3_errmsg(db_));
  Statement insert(
      db_,
      "INSERT INTO receipts (ended_at_ms, session_id, provider, credential_name, host, "
      "method, path, query_length, status, duration_ms, bytes_up, bytes_down, outcome) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (!insert) {
    const std::string why = insert.error();
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return fail(why);
  }
  for (const auto& r : batch) {
    sqlite3_reset(insert.get());
    insert.integer(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(r.ended_at.time_since_epoch())
               .count());
    insert.text(2, r.session_id);
    insert.text(3, r.provider);
    insert.text(4, r.credential_name);
    insert.text(5, r.host);
    insert.text(6, sdk::receipt_method(r.method));
    insert.text(7, safe_path(r.path));
    insert.integer(8, static_cast<std::int64_t>(r.query_length));
    insert.integer(9, r.status);
    insert.integer(10, r.duration.count());
    insert.integer(11, static_cast<std::int64_t>(r.bytes_up));
    insert.integer(12, static_cast<std::int64_t>(r.bytes_down));
    insert.text(13, sdk::to_string(r.outcome));
    if (sqlite3_step(insert.get()) != SQLITE_DONE) {
      const std::string why = insert.error();
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return fail(why);
    }
  }
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    const std::string why = sqlite3_errmsg(db_);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return fail(why);
  }
}

sdk::Result<std::vector<sdk::ProviderReceipt>> ReceiptsDb::newest(std::string_view session_id,
                                                                  std::size_t limit) {
  flush();
  std::lock_guard lock(db_mutex_);
  Statement select(db_,
                   "SELECT ended_at_ms, session_id, provider, credential_name, host, method, path, "
                   "query_length, status, duration_ms, bytes_up, bytes_down, outcome FROM receipts "
                   "WHERE session_id = ?1 ORDER BY ended_at_ms DESC, id DESC LIMIT ?2");
  if (!select) return sdk::make_error("receipts.db could not be read: " + select.error());
  select.text(1, session_id);
  select.integer(2, static_cast<std::int64_t>(limit));
  std::vector<sdk::ProviderReceipt> out;
  int rc = 0;
  while ((rc = sqlite3_step(select.get())) == SQLITE_ROW) {
    auto* s = select.get();
    sdk::ProviderReceipt r;
    r.ended_at = std::chrono::system_clock::time_point(
        std::chrono::milliseconds(sqlite3_column_int64(s, 0)));
    r.session_id = column_text(s, 1);
    r.provider = column_text(s, 2);
    r.credential_name = column_text(s, 3);
    r.host = column_text(s, 4);
    r.method = column_text(s, 5);
    r.path = column_text(s, 6);
    r.query_length = static_cast<std::uint64_t>(sqlite3_column_int64(s, 7));
    r.status = sqlite3_column_int(s, 8);
    r.duration = std::chrono::milliseconds(sqlite3_column_int64(s, 9));
    r.bytes_up = static_cast<std::uint64_t>(sqlite3_column_int64(s, 10));
    r.bytes_down = static_cast<std::uint64_t>(sqlite3_column_int64(s, 11));
    const auto outcome_text = column_text(s, 12);
    const auto outcome = outcome_of(outcome_text);
    if (!outcome)
      return sdk::make_error("receipts.db holds an outcome this errand does not know, \"" +
                             outcome_text + "\" (written by a newer errand?)");
    r.outcome = *outcome;
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return sdk::make_error("receipts.db could not be read: " + select.error());
  return out;
}

sdk::Result<std::size_t> ReceiptsDb::remove_session(std::string_view session_id) {
  flush();
  std::lock_guard lock(db_mutex_);
  Statement remove(db_, "DELETE FROM receipts WHERE session_id = ?1");
  if (!remove) return sdk::make_error("receipts.db could not be changed: " + remove.error());
  remove.text(1, session_id);
  if (sqlite3_step(remove.get()) != SQLITE_DONE)
    return sdk::make_error("the session's receipts could not be removed: " + remove.error());
  return static_cast<std::size_t>(sqlite3_changes(db_));
}

}  // namespace errand::receipts
