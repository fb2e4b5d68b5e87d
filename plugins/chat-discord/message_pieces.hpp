#pragma once

// A message as Discord takes it: text cut into messages of at most its character limit (or, when
// long, sent as a file with a summary), files riding on the last text message and then on
// messages of their own (at most ten and the upload limit per message), every text scrubbed and
// every file holding a secret refused. Posts, edits and interaction answers all go this way.

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/host_services.hpp>
#include <string>
#include <vector>

#include "plugins/chat-discord/rest_client.hpp"

namespace errand::discord {

struct MessagePiece {
  std::string content;
  std::vector<sdk::OutFile> files;
};

struct PieceLimits {
  sdk::TransportLimits reported;
  // Text needing more messages than this goes as a file when long_text_as_file is set.
  std::size_t max_messages_before_file = 3;
};

sdk::Result<std::vector<MessagePiece>> message_pieces(const sdk::OutMessage& message,
                                                      const sdk::Secrets& secrets,
                                                      const PieceLimits& limits);

// Pings only the given accounts (those that are Discord ids), never @everyone or roles.
boost::json::object allowed_mentions(const std::vector<std::string>& users);

// One piece: JSON alone, or multipart with its files.
boost::asio::awaitable<sdk::Result<boost::json::value>> send_piece(
    RestClient& rest, boost::beast::http::verb method, std::string path,
    boost::json::object payload, const std::vector<sdk::OutFile>& files, RestClient::Auth auth);

}  // namespace errand::discord
