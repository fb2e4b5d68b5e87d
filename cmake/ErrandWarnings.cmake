# The project's warnings, in one place: every target builds with -Wall -Wextra -Wpedantic, as
# errors unless ERRAND_WERROR is off, and the one warning errand turns off is turned off here.

add_compile_options(-Wall -Wextra -Wpedantic)
if(ERRAND_WERROR)
  add_compile_options(-Werror)
endif()

# errand_allow_coroutine_frames(<target> [PUBLIC])
#
# For a target that compiles Asio coroutines (awaitable functions). GCC 12 at -O2 reports a
# mismatched new/delete when it inlines the destruction of an Asio coroutine frame: the frame's
# own operator new and operator delete do match, so the warning is a false positive of that
# compiler (clang and newer GCC do not report it). PUBLIC passes the exemption on to the
# targets that link this one, for libraries whose headers hold coroutines.
function(errand_allow_coroutine_frames target)
  set(scope PRIVATE)
  if(ARGC GREATER 1)
    if(NOT ARGV1 STREQUAL "PUBLIC")
      message(FATAL_ERROR "errand_allow_coroutine_frames(${target} ${ARGV1}): only PUBLIC may follow the target")
    endif()
    set(scope PUBLIC)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} ${scope} -Wno-mismatched-new-delete)
  endif()
endfunction()
