#pragma once

// The value of one hexadecimal digit, for percent-decoding. Header-only and standard C++ alone,
// so the static delegate command can use it as well as the broker.

namespace errand::common {

// 0 to 15, or -1 when c is not a hexadecimal digit.
constexpr int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace errand::common
