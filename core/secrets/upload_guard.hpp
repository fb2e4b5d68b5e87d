#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace errand::secrets {

// Texts that are not secrets but must not leave the host as a file: the house rules each
// session of this daemon was given. An upload holding one is refused whole, like one holding a
// secret; the text itself is never scrubbed, so the transcript keeps it as given. Texts shorter
// than the scrubber's minimum are not kept, for the same reason short secrets are not: a file
// merely containing a few common words would be refused.
class UploadGuard {
 public:
  void keep(std::string_view text);
  bool found_in(std::string_view bytes) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> texts_;
};

}  // namespace errand::secrets
