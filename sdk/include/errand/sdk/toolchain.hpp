#pragma once

// The toolchain id: a plugin is loaded only when its id equals the host's byte for byte,
// because the C++ interfaces past the C descriptor share layouts (libstdc++, Boost, spdlog, fmt)
// and the SDK headers themselves. The SDK header hash is generated when the SDK is built.

#include <errand/sdk/sdk_hash.h>
#include <fmt/core.h>
#include <spdlog/version.h>
#include <boost/version.hpp>
#include <cstddef>

#define ERRAND_SDK_STR_(x) #x
#define ERRAND_SDK_STR(x) ERRAND_SDK_STR_(x)

#define ERRAND_TOOLCHAIN_ID \
  "compiler " __VERSION__ "; cxx11-abi " ERRAND_SDK_STR(_GLIBCXX_USE_CXX11_ABI) "; boost " \
      ERRAND_SDK_STR(BOOST_VERSION) "; spdlog " ERRAND_SDK_STR(SPDLOG_VER_MAJOR) "." ERRAND_SDK_STR(SPDLOG_VER_MINOR) "." ERRAND_SDK_STR(SPDLOG_VER_PATCH) "; fmt "     \
      ERRAND_SDK_STR(FMT_VERSION) "; sdk " ERRAND_SDK_HEADERS_SHA256
