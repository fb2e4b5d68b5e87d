#pragma once

// multipart/form-data bodies for Discord's uploads: a payload_json part holding the message and
// its attachments list, then one files[n] part per file.

#include <boost/json/value.hpp>
#include <errand/sdk/chat_transport.hpp>
#include <string>
#include <vector>

namespace errand::discord {

struct MultipartBody {
  std::string content_type;  // carries the boundary
  std::string body;
};

// payload must be a JSON object; its "attachments" array is filled in here.
MultipartBody build_multipart(boost::json::value payload, const std::vector<sdk::OutFile>& files);

}  // namespace errand::discord
