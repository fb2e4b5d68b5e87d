// Lines the daemon says in a session's thread on its own account, outside any turn.

#include "core/sessions/session.hpp"

#include <boost/asio/post.hpp>

namespace errand::sessions {

void Session::tell(std::string notice) {
  boost::asio::post(strand_, [self = shared_from_this(), notice = std::move(notice)] {
    if (!self->renderer_ || self->phase_ == Phase::stopping || self->phase_ == Phase::ended) return;
    self->renderer_->notice(notice);
  });
}

}  // namespace errand::sessions
