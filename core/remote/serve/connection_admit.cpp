// RunnerConnection's admission: the manifest, the blobs the store lacks, then jobs.db.

#include <algorithm>
#include <map>
#include <vector>

#include "core/remote/jobs/job_id.hpp"
#include "core/remote/quoted_text.hpp"
#include "core/remote/serve/request_digest.hpp"
#include "core/remote/serve/runner_connection.hpp"
#include "core/remote/serve/wire_job_state.hpp"
#include "core/remote/wire/blob_assembler.hpp"
#include "core/remote/wire/manifest_parts.hpp"

namespace errand::remote {

namespace asio = boost::asio;

asio::awaitable<void> RunnerConnection::admit(wire::Admit admit) {
  if (!is_job_id(admit.job)) {
    co_await refuse(wire::RefusalCode::bad_request,
                    "admit: " + quote_text(admit.job) + " is not a job id");
    co_return;
  }
  std::optional<Manifest> manifest;
  if (admit.snapshot) {
    manifest = co_await read_manifest();
    if (!manifest) co_return;
  }

  // A retry of an admission that got through: answered from jobs.db, without blobs.
  if (auto known = scheduler_.jobs().get(admit.job); known) {
    std::optional<std::string> tree_hash;
    if (manifest) tree_hash = manifest_hash(*manifest);
    if (known->caller_uid != peer_.uid ||
        known->request_digest != admit_request_digest(admit, tree_hash)) {
      co_await refuse(wire::RefusalCode::conflict,
                      "job " + admit.job + " was already admitted with a different request");
      co_return;
    }
    wire::Admitted admitted{admit.job, wire_job_state(known->state), true, std::nullopt};
    if (known->state == JobState::queued) {
      auto position = scheduler_.jobs().queue_position(admit.job);
      admitted.position = (position && *position) ? **position : 1;
    }
    const wire::Message answer = admitted;
    const bool sent = co_await socket_.write(answer);
    if (sent) co_await stream(admit.job, 0);
    co_return;
  } else if (known.error().kind != sdk::Error::Kind::not_found) {
    co_await refuse(wire::RefusalCode::failed, known.error().message);
    co_return;
  }

  if (manifest) {
    const auto missing = scheduler_.blobs().missing(*manifest);
    for (std::size_t at = 0; at < missing.size(); at += wire::kMaxNeedBlobs) {
      const auto end = std::min(missing.size(), at + wire::kMaxNeedBlobs);
      wire::Need need;
      need.blobs.assign(missing.begin() + static_cast<std::ptrdiff_t>(at),
                        missing.begin() + static_cast<std::ptrdiff_t>(end));
      const wire::Message message = std::move(need);
      const bool sent = co_await socket_.write(message);
      if (!sent) co_return;
    }
    auto received =
        co_await receive_blobs(*manifest, std::set<std::string>(missing.begin(), missing.end()));
    if (!received) {
      if (received.error().kind != sdk::Error::Kind::unavailable)
        co_await refuse(wire::RefusalCode::bad_request, received.error().message);
      co_return;
    }
  }

  auto admission = scheduler_.admit(peer_, admit, std::move(manifest));
  if (!admission) {
    const auto kind = admission.error().kind;
    const auto code = kind == sdk::Error::Kind::limit     ? wire::RefusalCode::queue_full
                      : kind == sdk::Error::Kind::refused ? wire::RefusalCode::conflict
                                                          : wire::RefusalCode::failed;
    co_await refuse(code, admission.error().message);
    co_return;
  }
  wire::Admitted admitted{admit.job, wire_job_state(admission->state), admission->existing,
                          std::nullopt};
  if (admission->state == JobState::queued)
    admitted.position = std::max<std::size_t>(admission->position, 1);
  const wire::Message answer = admitted;
  const bool sent = co_await socket_.write(answer);
  if (sent) co_await stream(admit.job, 0);
}

asio::awaitable<std::optional<Manifest>> RunnerConnection::read_manifest() {
  wire::ManifestAssembler assembler;
  for (;;) {
    auto message = co_await socket_.read();
    if (!message) {
      if (message.error().kind == sdk::Error::Kind::refused)
        co_await refuse(wire::RefusalCode::bad_request, message.error().message);
      co_return std::nullopt;
    }
    const auto* part = std::get_if<wire::ManifestPart>(&*message);
    if (part == nullptr) {
      co_await refuse(wire::RefusalCode::bad_request,
                      "expected the manifest's parts after a snapshot job's admit");
      co_return std::nullopt;
    }
    auto added = assembler.add(*part);
    if (!added) {
      co_await refuse(wire::RefusalCode::bad_request, "manifest: " + added.error().message);
      co_return std::nullopt;
    }
    if (*added) co_return std::move(**added);
  }
}

asio::awaitable<sdk::Result<void>> RunnerConnection::receive_blobs(const Manifest& manifest,
                                                                   std::set<std::string> needed) {
  std::map<std::string, std::uint64_t> sizes;
  for (const auto& entry : manifest.entries)
    if (needed.contains(entry.sha256)) sizes[entry.sha256] = entry.size;
  wire::BlobAssembler assembler;
  std::optional<BlobWriter> writer;
  while (!needed.empty()) {
    auto message = co_await socket_.read();
    if (!message) co_return message.error();
    const auto* chunk = std::get_if<wire::BlobChunk>(&*message);
    if (chunk == nullptr)
      co_return sdk::refusal("expected the needed blobs, not " +
                             std::string(wire::frame_type_name(wire::frame_type_of(*message))));
    if (!writer) {
      if (!needed.contains(chunk->blob))
        co_return sdk::refusal("blob " + quote_text(chunk->blob) + " was not asked for");
      auto begun = scheduler_.blobs().begin(chunk->blob, sizes[chunk->blob]);
      if (!begun) co_return begun.error();
      writer.emplace(std::move(*begun));
    }
    auto whole = assembler.add(*chunk);
    if (!whole)
      co_return sdk::refusal("blob " + quote_text(chunk->blob) + ": " + whole.error().message);
    if (auto written = writer->write(chunk->data); !written)
      co_return sdk::refusal("blob " + chunk->blob + ": " + written.error().message);
    if (chunk->last) {
      if (auto finished = writer->finish(); !finished)
        co_return sdk::refusal("blob " + chunk->blob + ": " + finished.error().message);
      needed.erase(chunk->blob);
      writer.reset();
    }
  }
  co_return sdk::Result<void>{};
}

}  // namespace errand::remote
