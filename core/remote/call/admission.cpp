#include "core/remote/call/admission.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <variant>

#include "core/remote/call/blob_upload.hpp"
#include "core/remote/call/runner_errors.hpp"
#include "core/remote/call/runner_waits.hpp"
#include "core/remote/call/terminal_writes.hpp"
#include "core/remote/wire/manifest_parts.hpp"

namespace errand::remote {

namespace {

constexpr std::string_view kBeforeAdmitted = "before the runner admitted the job";

// What the snapshot holds under each content hash: the blobs a need names are counted in the
// files and bytes the user recognises.
struct SnapshotContent {
  std::uint64_t size = 0;
  std::size_t files = 0;
  std::string first_path;  // a file holding it, to name if it changed
};

std::map<std::string, SnapshotContent> content_by_hash(const Manifest& manifest) {
  std::map<std::string, SnapshotContent> contents;
  for (const auto& entry : manifest.entries) {
    if (entry.kind == EntryKind::symlink) continue;
    auto& content = contents[entry.sha256];
    if (content.files == 0) content.first_path = entry.path;
    content.size = entry.size;
    ++content.files;
  }
  return contents;
}

// Sends the admit and, with a snapshot, the manifest: at most one part waits in the outbox
// beyond what the socket takes, so a manifest of tens of MiB is not copied whole.
sdk::Result<void> send_admit(RunnerChannel& channel, const CallRequest& request,
                             int interrupts_fd) {
  channel.send(admit_message(request));
  if (!request.snapshot) return {};
  for (auto& part : wire::split_manifest(encode_manifest(request.snapshot->manifest))) {
    if (auto room =
            await_room_to_send(channel, wire::kMaxChunkBytes, interrupts_fd, kBeforeAdmitted);
        !room)
      return room;
    channel.send(part);
  }
  return {};
}

void note_shipment(const CallRequest& request, int stderr_fd) {
  if (!request.snapshot) {
    write_note(stderr_fd, "no snapshot; the job starts in an empty workspace");
    return;
  }
  const auto& selection = *request.snapshot;
  write_note(
      stderr_fd,
      fmt::format("snapshot: {} files, {} bytes (from {})", selection.manifest.file_count(),
                  selection.manifest.total_bytes(), selection_source_name(selection.source)));
}

// Answers needs and waits for the runner's verdict on the job.
class AdmissionExchange {
 public:
  AdmissionExchange(RunnerChannel& channel, const CallRequest& request,
                    const CallTerminal& terminal)
      : channel_(channel), request_(request), terminal_(terminal) {
    if (request.snapshot) contents_ = content_by_hash(request.snapshot->manifest);
  }

  sdk::Result<wire::Admitted> run() {
    if (auto sent = send_admit(channel_, request_, terminal_.interrupts_fd); !sent) {
      if (auto refused = refusal_waiting(); refused) return *refused;
      return sent.error();
    }
    for (;;) {
      if (auto waited = await_runner_message(channel_, terminal_.interrupts_fd, kBeforeAdmitted);
          !waited)
        return waited.error();
      auto message = channel_.take();
      if (!message) return message.error();
      if (const auto* need = std::get_if<wire::Need>(&**message)) {
        if (auto sent = send_needed(*need); !sent) return sent.error();
        continue;
      }
      if (auto* admitted = std::get_if<wire::Admitted>(&**message)) {
        if (admitted->job != request_.job)
          return protocol_breach(fmt::format("it admitted job {} when asked for {}",
                                             printable_text(admitted->job), request_.job));
        if (request_.snapshot && !needs_seen_)
          write_note(terminal_.stderr_fd, fmt::format("all {} files are on the runner already",
                                                      request_.snapshot->manifest.file_count()));
        return std::move(*admitted);
      }
      if (const auto* refused = std::get_if<wire::Refused>(&**message))
        return refusal_error("the job", *refused);
      return unexpected_message(**message, "before admitting the job");
    }
  }

 private:
  sdk::Result<void> send_needed(const wire::Need& need) {
    if (!request_.snapshot)
      return protocol_breach("it asked for blobs for a job that carries no snapshot");
    std::uint64_t bytes = 0;
    std::size_t files = 0;
    for (const auto& blob : need.blobs) {
      const auto content = contents_.find(blob);
      if (content == contents_.end())
        return protocol_breach(fmt::format("it asked for blob {}, which is not in the snapshot",
                                           printable_text(blob)));
      if (sent_.contains(blob)) continue;
      bytes += content->second.size;
      files += content->second.files;
    }
    note_need(files, bytes);
    needs_seen_ = true;
    for (const auto& blob : need.blobs) {
      if (!sent_.insert(blob).second) continue;  // asked again: it is on its way already
      const auto& content = contents_.at(blob);
      const auto file = request_.snapshot->content_files.find(blob);
      if (file == request_.snapshot->content_files.end())
        return sdk::make_error(
            fmt::format("the selection has no file for {}'s content", content.first_path));
      const BlobSource source{.sha256 = blob,
                              .size = content.size,
                              .file = file->second,
                              .shown_name = content.first_path};
      if (auto uploaded = upload_blob(channel_, source, terminal_.interrupts_fd); !uploaded) {
        // A runner that gave up on the job may have said why before it closed the connection.
        if (auto refused = refusal_waiting(); refused) return *refused;
        return uploaded;
      }
    }
    return {};
  }

  void note_need(std::size_t files, std::uint64_t bytes) {
    const auto total = request_.snapshot->manifest.file_count();
    if (needs_seen_)
      write_note(terminal_.stderr_fd,
                 fmt::format("sending {} more of {} files ({} bytes)", files, total, bytes));
    else if (files == 0)
      write_note(terminal_.stderr_fd, fmt::format("all {} files are on the runner already", total));
    else if (files == total)
      write_note(terminal_.stderr_fd, fmt::format("sending all {} files ({} bytes)", total, bytes));
    else
      write_note(terminal_.stderr_fd,
                 fmt::format("sending {} of {} files ({} bytes); the rest is on the runner already",
                             files, total, bytes));
  }

  // A refusal among the messages that arrived while a blob was going out.
  std::optional<sdk::Error> refusal_waiting() {
    while (auto message = channel_.take()) {
      if (!*message) return std::nullopt;
      if (const auto* refused = std::get_if<wire::Refused>(&**message))
        return refusal_error("the job", *refused);
    }
    return std::nullopt;
  }

  RunnerChannel& channel_;
  const CallRequest& request_;
  const CallTerminal& terminal_;
  std::map<std::string, SnapshotContent> contents_;
  std::set<std::string> sent_;
  bool needs_seen_ = false;
};

}  // namespace

sdk::Result<wire::Admitted> admit_job(RunnerChannel& channel, const CallRequest& request,
                                      const CallTerminal& terminal) {
  note_shipment(request, terminal.stderr_fd);
  return AdmissionExchange(channel, request, terminal).run();
}

}  // namespace errand::remote
