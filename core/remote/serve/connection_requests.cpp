// RunnerConnection's one-shot requests: ps, show, kill, df, gc. Each answers about the caller's
// own jobs only; another account's job is unknown to it.

#include <boost/json/array.hpp>

#include "core/remote/quoted_text.hpp"
#include "core/remote/serve/job_record_json.hpp"
#include "core/remote/serve/runner_connection.hpp"

namespace errand::remote {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// How many of a caller's jobs ps lists, newest first.
constexpr std::size_t kPsLimit = 200;

}  // namespace

asio::awaitable<void> RunnerConnection::answer(wire::Request request) {
  json::object body;
  std::optional<JobRecord> row;
  if (request.job) {
    auto found = scheduler_.jobs().get(*request.job);
    if (!found || found->caller_uid != peer_.uid) {
      co_await refuse(wire::RefusalCode::unknown_job,
                      "no job " + quote_text(*request.job) + " of yours is known here");
      co_return;
    }
    row = std::move(*found);
  }
  switch (request.op) {
    case wire::RequestOp::ps: {
      auto rows = scheduler_.jobs().list_for_caller(peer_.uid, false, kPsLimit);
      if (!rows) {
        co_await refuse(wire::RefusalCode::failed, rows.error().message);
        co_return;
      }
      json::array jobs;
      for (const auto& each : *rows) jobs.push_back(job_summary_json(each));
      body["jobs"] = std::move(jobs);
      break;
    }
    case wire::RequestOp::show: body["job"] = job_receipt_json(*row); break;
    case wire::RequestOp::kill: {
      auto killed = scheduler_.signal(row->id, wire::JobSignal::kill);
      body["job"] = row->id;
      body["killed"] = killed.has_value();
      if (!killed) body["detail"] = killed.error().message;
      break;
    }
    case wire::RequestOp::df: {
      auto usage = scheduler_.blobs().usage();
      if (!usage) {
        co_await refuse(wire::RefusalCode::failed, usage.error().message);
        co_return;
      }
      body["blobs"] = usage->blobs;
      body["bytes"] = usage->bytes;
      break;
    }
    case wire::RequestOp::gc: {
      auto collected = scheduler_.blobs().collect(scheduler_.config().blob_max_bytes);
      if (!collected) {
        co_await refuse(wire::RefusalCode::failed, collected.error().message);
        co_return;
      }
      body["removed_blobs"] = collected->blobs;
      body["removed_bytes"] = collected->bytes;
      break;
    }
  }
  const wire::Message message = wire::Answer{std::move(body)};
  co_await socket_.write(message);
}

}  // namespace errand::remote
