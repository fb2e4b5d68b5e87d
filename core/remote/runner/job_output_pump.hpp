#pragma once

// Carries one of a job's output pipes into its log: each piece as it is read becomes a record
// (or several, for a piece over the record size) tagged with the pipe's stream, and the
// listener hears the number of the last record after each append, so a connection streaming
// the job reads on from where it was. stdout and stderr each have a pump, both on the job's
// strand, so records follow the order the pieces were read in.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "core/remote/jobs/job_log.hpp"

namespace errand::remote {

struct PumpTally {
  std::uint64_t data_bytes = 0;  // what the job wrote, without the records' headers
  std::string log_error;         // the first append that failed, when one did
};

// Reads until end-of-file, an error, or the pipe is closed. An append that fails is noted in
// tally and the pipe is still read (and what comes is dropped), so a job is never held up on a
// full pipe by a log it cannot write.
boost::asio::awaitable<void> pump_job_output(boost::asio::posix::stream_descriptor& pipe,
                                             LogStream stream, JobLog& log,
                                             const std::function<void(std::uint64_t)>& appended,
                                             PumpTally& tally);

}  // namespace errand::remote
