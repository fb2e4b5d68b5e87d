// RunnerConnection's streaming of one job: queue positions while it waits, its output from the
// log after the last sequence sent, and its end; meanwhile the caller's stdin, signals, detach.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <filesystem>

#include "core/remote/jobs/job_id.hpp"
#include "core/remote/jobs/job_log.hpp"
#include "core/remote/quoted_text.hpp"
#include "core/remote/runner/job_paths.hpp"
#include "core/remote/serve/runner_connection.hpp"

namespace errand::remote {

namespace asio = boost::asio;

namespace {

// Output read from the log per look, so one slow caller does not make the runner hold a whole
// log in memory.
constexpr std::size_t kStreamReadBytes = 4 * 1024 * 1024;

// The job's records after `after`: from the live log while its execution holds it (the
// scheduler's strand, where this runs, is the log writer's), else from the file.
sdk::Result<std::vector<LogRecord>> job_output_after(JobScheduler& scheduler, const std::string& id,
                                                     std::uint64_t after) {
  if (auto job = scheduler.execution(id); job && job->log() != nullptr)
    return job->log()->read_from(after, kStreamReadBytes);
  const auto file = job_paths(scheduler.state_dir(), id).log;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::vector<LogRecord>{};
  return JobLog::read_file(file, after, kStreamReadBytes);
}

wire::End job_end_message(const JobRecord& row) {
  wire::End end;
  end.job = row.id;
  if (row.signal)
    end.signal = row.signal;
  else
    end.exit_code = row.exit_code.value_or(-1);
  end.last = row.last_seq.value_or(0);
  end.detail = row.detail;
  return end;
}

}  // namespace

asio::awaitable<void> RunnerConnection::attach(wire::Attach attach) {
  auto row = scheduler_.jobs().get(attach.job);
  // Another account's job is answered exactly as a job that does not exist.
  if (!is_job_id(attach.job) || !row || row->caller_uid != peer_.uid) {
    co_await refuse(wire::RefusalCode::unknown_job,
                    "no job " + quote_text(attach.job) + " of yours is known here");
    co_return;
  }
  co_await stream(attach.job, attach.from);
}

asio::awaitable<void> RunnerConnection::stream(std::string id, std::uint64_t after) {
  scheduler_.watch(wake_);
  asio::co_spawn(scheduler_.strand(), read_while_streaming(id),
                 [self = shared_from_this()](std::exception_ptr) {});
  std::optional<std::size_t> position_sent;
  for (;;) {
    const auto generation = scheduler_.generation();
    if (stop_) break;
    auto row = scheduler_.jobs().get(id);
    if (!row) {
      late_refusal_ = wire::Refused{wire::RefusalCode::failed, row.error().message};
      break;
    }
    if (row->state == JobState::queued) {
      auto position = scheduler_.jobs().queue_position(id);
      if (position && *position && **position != position_sent) {
        position_sent = **position;
        const wire::Message queued = wire::Queued{**position};
        const bool sent = co_await socket_.write(queued);
        if (!sent) break;
      }
    }
    auto records = job_output_after(scheduler_, id, after);
    if (!records) {
      late_refusal_ =
          wire::Refused{wire::RefusalCode::failed,
                        "the job's output could not be read: " + records.error().message};
      break;
    }
    bool gone = false;
    for (auto& record : *records) {
      if (record.data.empty()) {
        after = record.seq;
        continue;
      }
      const wire::Message output =
          wire::Output{record.seq,
                       record.stream == LogStream::err ? wire::OutputStream::standard_error
                                                       : wire::OutputStream::standard_output,
                       std::move(record.data)};
      const bool sent = co_await socket_.write(output);
      if (!sent) {
        gone = true;
        break;
      }
      after = record.seq;
    }
    if (gone) break;
    if (!records->empty()) continue;  // there may be more already
    // jobs.db records the end only after the log is complete, so nothing follows this.
    if (row->state == JobState::ended) {
      const wire::Message end = job_end_message(*row);
      co_await socket_.write(end);
      break;
    }
    if (row->state == JobState::lost) {
      late_refusal_ = wire::Refused{wire::RefusalCode::failed,
                                    "job " + id + " did not run to its end: " + row->detail};
      break;
    }
    if (generation != scheduler_.generation() || stop_) continue;
    wake_->expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ignored;
    co_await wake_->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (late_refusal_) {
    const wire::Message refused = *late_refusal_;
    co_await socket_.write(refused);
  }
  stop_streaming();
  socket_.close();
}

asio::awaitable<void> RunnerConnection::read_while_streaming(std::string id) {
  while (!stop_) {
    auto message = co_await socket_.read();
    if (stop_) break;
    if (!message) {
      // A caller that went away leaves its job running; one that broke the protocol is told.
      if (message.error().kind == sdk::Error::Kind::refused)
        late_refusal_ = wire::Refused{wire::RefusalCode::bad_request, message.error().message};
      break;
    }
    if (auto* input = std::get_if<wire::Input>(&*message)) {
      // A job that takes no more input is the job's business; the stream goes on.
      std::string data = std::move(input->data);
      const auto written = co_await scheduler_.write_stdin(id, std::move(data));
      (void)written;
    } else if (const auto* signal = std::get_if<wire::Signal>(&*message)) {
      if (signal->job != id) {
        late_refusal_ = wire::Refused{
            wire::RefusalCode::bad_request,
            "signal names job " + quote_text(signal->job) + ", not the job streamed here, " + id};
        break;
      }
      (void)scheduler_.signal(id, signal->signal);
    } else if (std::holds_alternative<wire::Detach>(*message)) {
      break;
    } else {
      late_refusal_ = wire::Refused{
          wire::RefusalCode::bad_request,
          "unexpected " + std::string(wire::frame_type_name(wire::frame_type_of(*message))) +
              " while a job's output streams"};
      break;
    }
  }
  stop_streaming();
}

void RunnerConnection::stop_streaming() {
  stop_ = true;
  wake_->cancel();
}

}  // namespace errand::remote
