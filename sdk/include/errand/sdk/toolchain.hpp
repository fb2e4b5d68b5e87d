#pragma once

// The toolchain id: a plugin is loaded only when its id equals the host's byte for byte,
// because the C++ interfaces past the C descriptor share layouts that belong to the compiler
// and the libraries it was built with (libstdc++, Boost, spdlog, fmt). The SDK's own layout is
// not part of it: that is what ERRAND_ABI_MAJOR and ERRAND_ABI_MINOR promise (plugin_abi.h),
// and CI holds the headers to that promise with libabigail, so a comment edit in a header
// refuses no plugin.

#include <fmt/core.h>
#include <spdlog/version.h>
#include <boost/version.hpp>
#include <cstddef>

#define ERRAND_SDK_STR_(x) #x
#define ERRAND_SDK_STR(x) ERRAND_SDK_STR_(x)

#define ERRAND_TOOLCHAIN_ID \
  "compiler " __VERSION__ "; cxx11-abi " ERRAND_SDK_STR(_GLIBCXX_USE_CXX11_ABI) "; boost " \
      ERRAND_SDK_STR(BOOST_VERSION) "; spdlog " ERRAND_SDK_STR(SPDLOG_VER_MAJOR) "." ERRAND_SDK_STR(SPDLOG_VER_MINOR) "." ERRAND_SDK_STR(SPDLOG_VER_PATCH) "; fmt "     \
      ERRAND_SDK_STR(FMT_VERSION)
