// !ls, !cat and !file: a folder of the thread's project listed, a file shown inline, a file
// uploaded. Each reads the project on the host, confined to it (core/chat/project_files.hpp).

#include "core/chat/project_files.hpp"
#include "core/commands/command_call.hpp"

#include <string>

namespace errand::commands {

namespace {

std::string requested_path(const CommandCall& call) {
  const auto* path = call.command.argument("path");
  return path != nullptr ? *path : std::string(".");
}

boost::asio::awaitable<void> answer_ls(const CommandCall& call) {
  if (!call.thread) co_return;
  auto listing = chat::list_project_directory(call.thread->project_dir(), requested_path(call));
  call.host.reply(call.to, listing ? chat::format_listing(*listing) : listing.error().message);
}

boost::asio::awaitable<void> answer_cat(const CommandCall& call) {
  if (!call.thread) co_return;
  auto file = chat::read_project_file_inline(call.thread->project_dir(), requested_path(call));
  call.host.reply(call.to, file ? chat::format_inline_file(*file) : file.error().message);
}

boost::asio::awaitable<void> answer_file(const CommandCall& call) {
  if (!call.thread) co_return;
  auto file = chat::read_project_file_for_upload(call.thread->project_dir(), requested_path(call));
  if (!file) {
    call.host.reply(call.to, file.error().message);
    co_return;
  }
  sdk::OutFile out;
  out.filename = file->name;
  out.content_type = "application/octet-stream";
  out.bytes = std::move(file->bytes);
  const auto& services = call.host.services();
  co_await sessions::send_file_reply(services.chat, services.secrets, call.to, out);
}

}  // namespace

chat::CommandDefinition file_command() {
  return {
      .id = chat::CommandId::file,
      .name = "file",
      .description = "Upload a file from the project (up to 8 MiB)",
      .arguments = {{"path", "The file, relative to the project", chat::ArgumentKind::path, true}},
      .place = chat::CommandPlace::thread,
      .handle = &answer_file};
}

chat::CommandDefinition ls_command() {
  return {.id = chat::CommandId::ls,
          .name = "ls",
          .description = "List a folder of the project",
          .arguments = {{"path", "The folder, relative to the project (default: its top)",
                         chat::ArgumentKind::path, false}},
          .place = chat::CommandPlace::thread,
          .handle = &answer_ls};
}

chat::CommandDefinition cat_command() {
  return {
      .id = chat::CommandId::cat,
      .name = "cat",
      .description = "Show a file of the project inline (up to 12 KiB)",
      .arguments = {{"path", "The file, relative to the project", chat::ArgumentKind::path, true}},
      .place = chat::CommandPlace::thread,
      .handle = &answer_cat};
}

}  // namespace errand::commands
