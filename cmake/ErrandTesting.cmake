# errand_catch_test(<target> SOURCES <files>... [LIBRARIES <libs>...] [LABELS <label>...]
#                   [AS_ROOT])
#
# AS_ROOT: the tests stay root (what `errand setup` and the cgroup subtree need) instead of
# switching to the test account, and fail, saying why, when started as anyone else.
#
# A Catch2 test executable whose test cases are listed to CTest one by one at test time. The
# build and source directories reach the tests as compile definitions (ERRAND_BUILD_DIR,
# ERRAND_SOURCE_DIR) and ERRAND_BUILD_DIR also as an environment variable, for programs the
# tests start.
function(errand_catch_test target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "AS_ROOT" "" "SOURCES;LIBRARIES;LABELS")
  add_executable(${target} ${ARG_SOURCES})
  set(main errand_catch_main)
  if(ARG_AS_ROOT)
    set(main errand_root_catch_main)
  endif()
  target_link_libraries(${target} PRIVATE ${main} ${ARG_LIBRARIES})
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}")
  target_compile_definitions(${target} PRIVATE
    ERRAND_BUILD_DIR="${CMAKE_BINARY_DIR}" ERRAND_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  # catch_discover_tests splits list-valued properties, so the tests carry the first label.
  set(label unit)
  if(ARG_LABELS)
    list(GET ARG_LABELS 0 label)
  endif()
  # The key-coverage check (tests/tools) reads the tags of every Catch2 binary.
  set_property(GLOBAL APPEND PROPERTY ERRAND_CATCH_TEST_TARGETS ${target})
  catch_discover_tests(${target} DISCOVERY_MODE PRE_TEST TEST_PREFIX "${target}: "
    EXTRA_ARGS -w NoAssertions
    PROPERTIES LABELS ${label} ENVIRONMENT "ERRAND_BUILD_DIR=${CMAKE_BINARY_DIR}")
endfunction()

# Adds every child folder of the current directory that has a CMakeLists.txt.
function(errand_add_child_dirs)
  file(GLOB children LIST_DIRECTORIES true CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*")
  list(SORT children)
  foreach(dir IN LISTS children)
    if(IS_DIRECTORY "${dir}" AND EXISTS "${dir}/CMakeLists.txt")
      add_subdirectory("${dir}")
    endif()
  endforeach()
endfunction()

# A suite that starts the real `errand` binary with the fixture plugins (tests/support/
# daemon_harness.hpp) needs them built first, and the in-tree plugins where they are configured.
function(errand_runs_the_daemon target)
  add_dependencies(${target} errand sandbox-fixture chat-fixture errand_fixture_plugins
    fake-acp-agent)
  foreach(plugin chat-discord sandbox-bailey broker)
    if(TARGET ${plugin})
      add_dependencies(${target} ${plugin})
    endif()
  endforeach()
endfunction()

# A suite that drives the whole daemon through tests/e2e's harness needs the daemon, the fake
# agent and every in-tree plugin and program a scenario can configure, built first.
# errand_web: the front-end the browser tests' daemon serves (web/, when ERRAND_BUILD_WEB is on).
function(errand_e2e_dependencies target)
  add_dependencies(${target} errand fake-acp-agent fake-acp-agent-static)
  foreach(needed chat-discord sandbox-bailey sandbox-podman sandbox-incus errand-guest-init
                 errand-bailey broker delegate errand_web)
    if(TARGET ${needed})
      add_dependencies(${target} ${needed})
    endif()
  endforeach()
endfunction()
