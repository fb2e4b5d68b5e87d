// !guests, !allow and !deny: the thread's guests, kept in threads.db with the thread, so a
// resumed session and a restarted daemon know them, and read from there by every access check.

#include "core/chat/account_mention.hpp"
#include "core/chat/thread_guests.hpp"
#include "core/commands/command_call.hpp"

#include <fmt/format.h>

namespace errand::commands {

namespace {

// True when the command cannot act: outside a thread (the classifier refuses it there first),
// or, refused aloud, while the thread's first session is still starting and threads.db has no
// record of it.
bool refuse_unrecorded(const CommandCall& call) {
  if (!call.thread) return true;
  if (call.thread->record) return false;
  call.host.refuse(call.to,
                   "this thread's session is still starting and threads.db has no record of it "
                   "yet; try again in a moment");
  return true;
}

boost::asio::awaitable<void> answer_guests(const CommandCall& call) {
  if (refuse_unrecorded(call)) co_return;
  call.host.reply(call.to, chat::describe_guests(call.thread->owner_id(), call.thread->guests()));
}

boost::asio::awaitable<void> edit_guests(const CommandCall& call, bool allow) {
  if (refuse_unrecorded(call)) co_return;
  auto& host = call.host;
  const std::string account = *call.command.argument("user");
  const std::string owner = call.thread->owner_id();
  const std::string bot = host.services().chat.self_id();
  const std::string thread_id = call.thread->record->thread_id;
  const auto lists = host.access_lists();
  // Read, checked and written in one call on threads.db's worker, so the edit applies to the
  // list as it is now, whole or not at all.
  auto edit = [=](sessions::ThreadsDb& db) -> sdk::Result<std::vector<std::string>> {
    auto found = db.find_thread(thread_id);
    if (!found) return found.error();
    if (!*found)
      return sdk::make_error("threads.db no longer has this thread", sdk::Error::Kind::not_found);
    const chat::GuestEdit change{allow ? chat::GuestEdit::Kind::allow : chat::GuestEdit::Kind::deny,
                                 account, owner, bot};
    auto after = chat::edit_guests((**found).guests, change, lists);
    if (!after) return after.error();
    if (auto saved = db.set_thread_guests(thread_id, *after); !saved) return saved.error();
    return after;
  };
  auto edited = co_await host.services().threads.run(edit);
  if (!edited) {
    if (edited.error().kind == sdk::Error::Kind::refused) {
      host.refuse(call.to, edited.error().message);
    } else {
      host.log().error("threads.db: the guests of {} were not changed: {}", thread_id,
                       edited.error().message);
      host.refuse(call.to, "the guests were not changed: threads.db failed (" +
                               edited.error().message + "); try again");
    }
    co_return;
  }
  const auto who = chat::shown_account(account);
  host.log().info("{} {} {} in thread {}", call.to.author_id, allow ? "let in" : "took out",
                  account, thread_id);
  host.reply(call.to,
             allow ? fmt::format("{} is a guest of this thread now: they may prompt here (also "
                                 "with `!then`) and read the project with `!ls`, `!cat` and "
                                 "`!file`; `!deny` takes them out",
                                 who)
                   : fmt::format("{} is no longer a guest of this thread", who));
}

boost::asio::awaitable<void> answer_allow(const CommandCall& call) {
  co_await edit_guests(call, true);
}

boost::asio::awaitable<void> answer_deny(const CommandCall& call) {
  co_await edit_guests(call, false);
}

}  // namespace

chat::CommandDefinition guests_command() {
  return {.id = chat::CommandId::guests,
          .name = "guests",
          .description = "Who owns this thread and who its guests are",
          .place = chat::CommandPlace::thread,
          .handle = &answer_guests};
}

chat::CommandDefinition allow_command() {
  return {.id = chat::CommandId::allow,
          .name = "allow",
          .description = "Make someone a guest of this thread: they may prompt and read",
          .arguments = {{"user", "The person: a mention or an account id",
                         chat::ArgumentKind::account, true}},
          .access = chat::CommandAccess::owner,
          .place = chat::CommandPlace::thread,
          .handle = &answer_allow};
}

chat::CommandDefinition deny_command() {
  return {.id = chat::CommandId::deny,
          .name = "deny",
          .description = "Take a guest of this thread back out",
          .arguments = {{"user", "The guest: a mention or an account id",
                         chat::ArgumentKind::account, true}},
          .access = chat::CommandAccess::owner,
          .place = chat::CommandPlace::thread,
          .handle = &answer_deny};
}

}  // namespace errand::commands
