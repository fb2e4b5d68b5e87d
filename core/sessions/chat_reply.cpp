#include "core/sessions/chat_reply.hpp"

#include <fmt/format.h>

namespace errand::sessions {

ReplyTo ReplyTo::typed(const sdk::InboundMessage& message) {
  ReplyTo to;
  to.message = message.ref;
  to.author_id = message.author.id;
  return to;
}

ReplyTo ReplyTo::command(const sdk::CommandCall& call) {
  ReplyTo to;
  to.slash = call;
  to.message.channel_id = call.channel_id;
  to.author_id = call.user.id;
  return to;
}

const std::string& ReplyTo::channel_id() const {
  return message.channel_id;
}

boost::asio::awaitable<void> send_reply(sdk::ChatTransport& chat, const sdk::Secrets& secrets,
                                        const ReplyTo& to, const std::string& text) {
  sdk::OutMessage message;
  message.text = secrets.scrub(text);
  message.long_text_as_file = true;
  if (to.slash) {
    const sdk::CommandCall call = *to.slash;
    co_await chat.answer(call, message);
    co_return;
  }
  message.mention_user_ids.push_back(to.author_id);
  message.text = "<@" + to.author_id + "> " + message.text;
  const std::string channel = to.message.channel_id;
  co_await chat.post(channel, message);
}

boost::asio::awaitable<void> refuse_prompt(sdk::ChatTransport& chat, const sdk::Secrets& secrets,
                                           const ReplyTo& to, sdk::Reaction reaction,
                                           const std::string& sentence) {
  if (!to.slash) {
    const sdk::MessageRef ref = to.message;
    co_await chat.react(ref, reaction, true);
  }
  co_await send_reply(chat, secrets, to, sentence);
}

boost::asio::awaitable<void> post_in_thread(sdk::ChatTransport& chat, const sdk::Secrets& secrets,
                                            const std::string& thread_id, const std::string& text) {
  sdk::OutMessage message;
  message.text = secrets.scrub(text);
  message.long_text_as_file = true;
  const std::string channel = thread_id;
  co_await chat.post(channel, message);
}

boost::asio::awaitable<void> send_file_reply(sdk::ChatTransport& chat, const sdk::Secrets& secrets,
                                             const ReplyTo& to, const sdk::OutFile& file) {
  if (secrets.contains_secret(file.bytes) || secrets.contains_secret(file.filename)) {
    // send_reply scrubs the sentence, the file's name in it included.
    const std::string sentence = fmt::format(
        "`{}` was not uploaded: it holds a configured secret, a session credential or the "
        "house rules (agent.rulesPath), and uploads are never altered to hide them",
        file.filename);
    co_await send_reply(chat, secrets, to, sentence);
    co_return;
  }
  sdk::OutMessage message;
  message.files.push_back(file);
  if (to.slash) {
    message.text = secrets.scrub(file.filename);
    const sdk::CommandCall call = *to.slash;
    co_await chat.answer(call, message);
    co_return;
  }
  message.text = "<@" + to.author_id + "> " + secrets.scrub(file.filename);
  message.mention_user_ids.push_back(to.author_id);
  const std::string channel = to.message.channel_id;
  co_await chat.post(channel, message);
}

}  // namespace errand::sessions
