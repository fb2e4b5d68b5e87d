#pragma once

// A job's id, made by the caller before it connects so that a retried admission names the same
// job: a ULID (48 bits of milliseconds since the epoch, then 80 random bits, in 26 characters of
// Crockford's base 32, upper case). Ids sort by the time they were made.

#include <chrono>
#include <string>
#include <string_view>

namespace errand::remote {

inline constexpr std::size_t kJobIdLength = 26;

// True when text is a ULID as make_job_id writes it: 26 characters of 0-9 and A-Z without I, L,
// O and U, the first at most 7 (so the time fits 48 bits).
bool is_job_id(std::string_view text) noexcept;

// In milliseconds, the ids' own unit: the latest time an id holds (2^48 ms, in the year 10889) is
// past what the system clock's nanoseconds can count.
using JobIdTime = std::chrono::sys_time<std::chrono::milliseconds>;

// A fresh id for a job made at `at`; its random part comes from OpenSSL's generator.
std::string make_job_id(JobIdTime at);

// The time an id was made at (its first ten characters); the id must be valid.
JobIdTime job_id_time(std::string_view id) noexcept;

}  // namespace errand::remote
