#pragma once

// Answering someone in the chat outside a session's rendered output: a command's answer (typed
// or slash), a refusal on a prompt that started nothing. This is the door for channel replies:
// every text is scrubbed here, once, so callers pass raw text and never scrub it themselves.

#include <boost/asio/awaitable.hpp>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/host_services.hpp>
#include <optional>
#include <string>

namespace errand::sessions {

// Who to answer, and how: a slash command is answered through its interaction, a typed message
// by a message in the channel or thread it was typed in.
struct ReplyTo {
  std::optional<sdk::CommandCall> slash;
  sdk::MessageRef message;  // typed: the message itself
  std::string author_id;

  static ReplyTo typed(const sdk::InboundMessage& message);
  static ReplyTo command(const sdk::CommandCall& call);
  // Where the answer appears: the thread or channel it was asked in.
  const std::string& channel_id() const;
};

// Never throws; a failure to answer is logged by the transport and otherwise dropped.
boost::asio::awaitable<void> send_reply(sdk::ChatTransport& chat, const sdk::Secrets& secrets,
                                        const ReplyTo& to, const std::string& text);

// A reaction and a sentence addressed to the author, for a typed prompt that got no session or
// no turn. A slash command gets only the sentence.
boost::asio::awaitable<void> refuse_prompt(sdk::ChatTransport& chat, const sdk::Secrets& secrets,
                                           const ReplyTo& to, sdk::Reaction reaction,
                                           const std::string& sentence);

// A sentence of errand's own in a thread, addressed to nobody: what befell a session's sandbox
// after the session ended.
boost::asio::awaitable<void> post_in_thread(sdk::ChatTransport& chat, const sdk::Secrets& secrets,
                                            const std::string& thread_id, const std::string& text);

// Uploads a file in answer, refusing one that holds a secret (uploads are never altered).
boost::asio::awaitable<void> send_file_reply(sdk::ChatTransport& chat, const sdk::Secrets& secrets,
                                             const ReplyTo& to, const sdk::OutFile& file);

}  // namespace errand::sessions
