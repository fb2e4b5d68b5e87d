# errand_linkable_into_static_launcher(<target>)
#
# The asan and tsan presets instrument everything, but errand-bailey and the other programs
# errand puts inside a sandbox are linked -static, which the AddressSanitizer and
# ThreadSanitizer runtimes refuse. Those programs and every library they link are built with
# UndefinedBehaviorSanitizer only in the asan tree (libubsan links statically) and with no
# sanitizer in the tsan tree, whose suites are about the daemon's threads; elsewhere this does
# nothing.
function(errand_linkable_into_static_launcher target)
  get_target_property(type ${target} TYPE)
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*thread")
    target_compile_options(${target} PRIVATE -fno-sanitize=thread)
    if(type STREQUAL "EXECUTABLE")
      target_link_options(${target} PRIVATE -fno-sanitize=thread)
    endif()
    return()
  endif()
  if(NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
    return()
  endif()
  target_compile_options(${target} PRIVATE -fno-sanitize=address)
  # UBSan's vptr check calls the C++ runtime's dynamic_cast, which a static link may order after
  # the sanitizer's library and so leave unresolved; the other UBSan checks need no runtime.
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*undefined")
    target_compile_options(${target} PRIVATE -fno-sanitize=vptr)
  endif()
  if(type STREQUAL "EXECUTABLE")
    target_link_options(${target} PRIVATE -fno-sanitize=address)
  endif()
endfunction()
