# errand_linkable_into_static_launcher(<target>)
#
# The asan preset instruments everything, but errand-bailey is linked -static, which
# AddressSanitizer's runtime refuses. The launcher and every library it links are built with
# UndefinedBehaviorSanitizer only there (libubsan links statically); elsewhere this does nothing.
function(errand_linkable_into_static_launcher target)
  if(NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
    return()
  endif()
  target_compile_options(${target} PRIVATE -fno-sanitize=address)
  # UBSan's vptr check calls the C++ runtime's dynamic_cast, which a static link may order after
  # the sanitizer's library and so leave unresolved; the other UBSan checks need no runtime.
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*undefined")
    target_compile_options(${target} PRIVATE -fno-sanitize=vptr)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    target_link_options(${target} PRIVATE -fno-sanitize=address)
  endif()
endfunction()
