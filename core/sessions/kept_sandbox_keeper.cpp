#include "core/sessions/kept_sandbox_keeper.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

std::vector<std::string> threads_keeping_sandboxes(const std::vector<ThreadSummary>& threads) {
  std::vector<std::string> keys;
  for (const auto& summary : threads)
    if (summary.thread.state != ThreadState::closed && !summary.thread.archived_at)
      keys.push_back(summary.thread.thread_id);
  return keys;
}

std::shared_ptr<KeptSandboxKeeper> KeptSandboxKeeper::create(asio::any_io_executor executor,
                                                             sdk::KeptSandboxes& backend,
                                                             ThreadsStore& threads,
                                                             std::shared_ptr<spdlog::logger> log) {
  return std::shared_ptr<KeptSandboxKeeper>(
      new KeptSandboxKeeper(std::move(executor), backend, threads, std::move(log)));
}

KeptSandboxKeeper::KeptSandboxKeeper(asio::any_io_executor executor, sdk::KeptSandboxes& backend,
                                     ThreadsStore& threads, std::shared_ptr<spdlog::logger> log)
    : strand_(asio::make_strand(executor)),
      backend_(backend),
      threads_(threads),
      log_(std::move(log)),
      timer_(strand_) {}

void KeptSandboxKeeper::start() {
  asio::co_spawn(
      strand_, [self = shared_from_this()] { return self->rounds(); }, asio::detached);
}

void KeptSandboxKeeper::ask_soon() noexcept {
  try {
    asio::post(strand_, [self = shared_from_this()] {
      self->again_ = true;
      self->timer_.cancel();
    });
  } catch (const std::exception& e) {
    log_->warn("kept sandboxes: a round could not be asked for: {}", e.what());
  }
}

void KeptSandboxKeeper::stop() noexcept {
  try {
    asio::post(strand_, [self = shared_from_this()] {
      self->stopped_ = true;
      self->timer_.cancel();
    });
  } catch (const std::exception& e) {
    log_->warn("kept sandboxes: the rounds could not be stopped: {}", e.what());
  }
}

asio::awaitable<void> KeptSandboxKeeper::rounds() {
  while (!stopped_) {
    again_ = false;
    co_await round();
    if (stopped_ || again_) continue;
    timer_.expires_after(kInterval);
    boost::system::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> KeptSandboxKeeper::round() {
  auto list = [](ThreadsDb& db) { return db.list_threads(); };
  auto listed = co_await threads_.run(list);
  if (!listed) {
    log_->warn("kept sandboxes: threads.db could not be read ({}); none removed this round",
               listed.error().message);
    co_return;
  }
  // Named, never a temporary in the co_await: GCC 12 destroys such temporaries twice.
  auto keys = threads_keeping_sandboxes(*listed);
  auto report = co_await backend_.keep_only(std::move(keys));
  for (const auto& detail : report.details) log_->info("kept sandboxes: {}", detail);
  if (!report.complete)
    log_->warn("kept sandboxes: the backend could not remove everything no thread keeps");
}

}  // namespace errand::sessions
