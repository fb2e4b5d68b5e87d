// !allow, !deny and !guests: the thread's guests, kept in threads.db with the thread, so a
// resumed session and a restarted daemon know them, and read from there by every access check.

#include "core/chat/account_mention.hpp"
#include "core/chat/thread_guests.hpp"
#include "core/sessions/session_manager.hpp"

#include <fmt/format.h>

namespace errand::sessions {

namespace asio = boost::asio;

asio::awaitable<void> SessionManager::guests_command(const chat::ParsedCommand& command,
                                                     const ReplyTo& to, const KnownThread& thread) {
  if (!thread.record) {
    refuse(to,
           "this thread's session is still starting and threads.db has no record of it yet; "
           "try again in a moment");
    co_return;
  }
  if (command.id() == chat::CommandId::guests) {
    reply(to, chat::describe_guests(thread.owner_id(), thread.guests()));
    co_return;
  }
  const bool allow = command.id() == chat::CommandId::allow;
  const std::string account = *command.argument("user");
  const std::string owner = thread.owner_id();
  const std::string bot = services_->chat.self_id();
  const std::string thread_id = thread.record->thread_id;
  const auto lists = settings_.access;
  // Read, checked and written in one call on threads.db's worker, so the edit applies to the
  // list as it is now, whole or not at all.
  auto edit = [=](ThreadsDb& db) -> sdk::Result<std::vector<std::string>> {
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
  auto edited = co_await services_->threads.run(edit);
  if (!edited) {
    if (edited.error().kind == sdk::Error::Kind::refused) {
      refuse(to, edited.error().message);
    } else {
      log_->error("threads.db: the guests of {} were not changed: {}", thread_id,
                  edited.error().message);
      refuse(to, "the guests were not changed: threads.db failed (" + edited.error().message +
                     "); try again");
    }
    co_return;
  }
  const auto who = chat::shown_account(account);
  log_->info("{} {} {} in thread {}", to.author_id, allow ? "let in" : "took out", account,
             thread_id);
  reply(to, allow ? fmt::format("{} is a guest of this thread now: they may prompt here (also "
                                "with `!then`) and read the project with `!ls`, `!cat` and "
                                "`!file`; `!deny` takes them out",
                                who)
                  : fmt::format("{} is no longer a guest of this thread", who));
}

}  // namespace errand::sessions
