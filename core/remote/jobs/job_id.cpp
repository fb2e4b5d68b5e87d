#include "core/remote/jobs/job_id.hpp"

#include <openssl/rand.h>

#include <array>
#include <cstdint>
#include <stdexcept>

namespace errand::remote {
namespace {

constexpr std::string_view kAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int digit_value(char c) noexcept {
  const auto at = kAlphabet.find(c);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

}  // namespace

bool is_job_id(std::string_view text) noexcept {
  if (text.size() != kJobIdLength) return false;
  for (char c : text)
    if (digit_value(c) < 0) return false;
  return digit_value(text.front()) <= 7;
}

std::string make_job_id(JobIdTime at) {
  const auto millis = static_cast<std::uint64_t>(at.time_since_epoch().count());
  std::array<unsigned char, 10> random{};
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1)
    throw std::runtime_error("OpenSSL's random generator failed");
  std::string id(kJobIdLength, '0');
  // Ten characters carry the 48-bit time (50 bits, the top two zero), most significant first.
  for (int i = 9; i >= 0; --i)
    id[static_cast<std::size_t>(i)] = kAlphabet[(millis >> (5 * (9 - i))) & 31];
  // Sixteen carry the 80 random bits, five at a time.
  for (std::size_t i = 0; i < 16; ++i) {
    const std::size_t bit = i * 5;
    unsigned value = 0;
    for (std::size_t b = 0; b < 5; ++b) {
      const std::size_t at_bit = bit + b;
      value = (value << 1) | ((random[at_bit / 8] >> (7 - at_bit % 8)) & 1u);
    }
    id[10 + i] = kAlphabet[value];
  }
  return id;
}

JobIdTime job_id_time(std::string_view id) noexcept {
  std::uint64_t millis = 0;
  for (std::size_t i = 0; i < 10 && i < id.size(); ++i)
    millis = (millis << 5) | static_cast<std::uint64_t>(digit_value(id[i]) & 31);
  return JobIdTime(std::chrono::milliseconds(millis));
}

}  // namespace errand::remote
