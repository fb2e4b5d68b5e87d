# The sanitizer trees (the asan and tsan presets) set ERRAND_SANITIZER_TREE. Such a tree lists
# to CTest only the suites that run under its sanitizer, and builds only those: the target
# sanitized_suites depends on each of them (the presets' build target).
set(ERRAND_SANITIZER_TREE "" CACHE STRING
  "empty for an ordinary tree; address or thread for a tree that builds and runs only the suites meant for that sanitizer")
set_property(CACHE ERRAND_SANITIZER_TREE PROPERTY STRINGS "" address thread)
if(NOT ERRAND_SANITIZER_TREE MATCHES "^(|address|thread)$")
  message(FATAL_ERROR "ERRAND_SANITIZER_TREE is '${ERRAND_SANITIZER_TREE}'; it must be empty, address or thread")
endif()
# The suites the asan tree runs (every suite but the end-to-end and soak ones) need not run again
# in an ordinary tree beside it: scripts/test turns this off for build/default, whose own pass
# then holds the end-to-end, soak, install and script tests, and runs the rest sanitized.
option(ERRAND_BUILD_SANITIZED_SUITES
  "In an ordinary tree, also build and list the suites that the asan tree runs" ON)
if(ERRAND_SANITIZER_TREE AND NOT TARGET sanitized_suites)
  add_custom_target(sanitized_suites)
endif()

# errand_catch_test(<target> SOURCES <files>... [LIBRARIES <libs>...] [LABELS <label>...]
#                   [AS_ROOT] [SANITIZED <address|thread>...] [SANITIZED_SPEC <test spec>]
#                   [TEST_PROPERTIES <name> <value>...])
#
# AS_ROOT: the tests stay root (what `errand setup` and the cgroup subtree need) instead of
# switching to the test account, and fail, saying why, when started as anyone else.
#
# SANITIZED: the sanitizer trees this suite runs in. Every suite but the end-to-end, soak and VM
# ones (labels e2e, soak and vm) runs in the address tree without saying so; thread is only ever
# named. With ERRAND_BUILD_SANITIZED_SUITES off, an ordinary tree leaves out (neither builds nor
# lists) the suites that run in the address tree. SANITIZED_SPEC: in a sanitizer tree, only the
# cases this Catch2 test spec selects are listed (the end-to-end scenarios worth a sanitized
# daemon, by tag). TEST_PROPERTIES: more CTest properties for every case (a fixture, a timeout).
#
# A Catch2 test executable whose test cases are listed to CTest one by one at test time. Its main
# (tests/support/catch_session.hpp) turns on -w NoAssertions, so a case that checks nothing
# fails however the binary is run. The build directory
# reaches the tests as the environment variable ERRAND_BUILD_DIR, also for programs the tests
# start; tests/support/test_paths.hpp finds the checkout from it. Neither is compiled in (see
# errand_test_build_path).
function(errand_catch_test target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "AS_ROOT" "SANITIZED_SPEC"
    "SOURCES;LIBRARIES;LABELS;SANITIZED;TEST_PROPERTIES")
  # catch_discover_tests splits list-valued properties, so the tests carry the first label.
  set(label unit)
  if(ARG_LABELS)
    list(GET ARG_LABELS 0 label)
  endif()
  set(trees ${ARG_SANITIZED})
  set(end_to_end FALSE)
  if(label MATCHES "^(e2e|soak|vm)$")
    set(end_to_end TRUE)
  else()
    list(APPEND trees address)
  endif()
  add_executable(${target} ${ARG_SOURCES})
  set(main errand_catch_main)
  if(ARG_AS_ROOT)
    set(main errand_root_catch_main)
  endif()
  target_link_libraries(${target} PRIVATE ${main} ${ARG_LIBRARIES})
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}")
  # CTest starts the binary once for each of its cases. Linked position-dependent, it is loaded
  # without the millions of relocations a position-independent one needs at every start (most of
  # a sanitized suite's start-up time); a test binary gains nothing from being movable.
  # ThreadSanitizer's memory layout expects a position-independent executable, so the thread
  # tree keeps it.
  if(NOT ERRAND_SANITIZER_TREE STREQUAL "thread")
    target_link_options(${target} PRIVATE -no-pie)
  endif()
  set(spec)
  if(ERRAND_SANITIZER_TREE)
    if(NOT ERRAND_SANITIZER_TREE IN_LIST trees)
      return()
    endif()
    add_dependencies(sanitized_suites ${target})
    set(sanitized_spec "${ARG_SANITIZED_SPEC}")
    # A case tagged [own_network] runs its inner half in a user namespace it makes, which the
    # kernel refuses to a process with more than one thread, and ThreadSanitizer's runtime
    # thread makes every process so. Those cases run in the other trees.
    if(ERRAND_SANITIZER_TREE STREQUAL "thread")
      string(APPEND sanitized_spec "~[own_network]")
    endif()
    if(sanitized_spec)
      set(spec TEST_SPEC "${sanitized_spec}")
    endif()
  elseif(NOT ERRAND_BUILD_SANITIZED_SUITES AND NOT end_to_end)
    # Defined, so that what the folder says of it still holds, but neither built nor listed.
    set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL ON)
    return()
  endif()
  # The key-coverage check (tests/tools) reads the tags of every Catch2 binary this tree builds.
  set_property(GLOBAL APPEND PROPERTY ERRAND_CATCH_TEST_TARGETS ${target})
  if(ERRAND_SANITIZER_TREE AND NOT end_to_end)
    errand_list_catch_groups(${target} "${label}" "${sanitized_spec}")
    return()
  endif()
  catch_discover_tests(${target} DISCOVERY_MODE PRE_TEST TEST_PREFIX "${target}: " ${spec}
    PROPERTIES LABELS ${label} ENVIRONMENT "ERRAND_BUILD_DIR=${CMAKE_BINARY_DIR}"
    ${ARG_TEST_PROPERTIES})
endfunction()

# How many cases of a unit or live suite one process runs in a sanitizer tree
# (cmake/ErrandCatchGroups.cmake says why). Small enough for CTest to keep two cores busy with
# the larger suites. A live case runs real sandboxes for seconds, next to which a process's start
# costs little, so live suites go two to a process, which keeps their slow cases spread over
# both cores. The end-to-end scenarios, each a daemon's life,
# keep a process each.
set(ERRAND_CASES_PER_PROCESS 8)
set(ERRAND_LIVE_CASES_PER_PROCESS 2)

# Lists <target>'s cases to CTest in groups, when CTest runs (as catch_discover_tests'
# PRE_TEST mode does), so that a rebuilt suite's new cases are counted without a configure.
function(errand_list_catch_groups target label spec)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_groups.cmake")
  set(per_process ${ERRAND_CASES_PER_PROCESS})
  if(label STREQUAL "live")
    set(per_process ${ERRAND_LIVE_CASES_PER_PROCESS})
  endif()
  file(GENERATE OUTPUT "${include_file}" CONTENT
"include([==[${PROJECT_SOURCE_DIR}/cmake/ErrandCatchGroups.cmake]==])
errand_catch_groups(EXECUTABLE [==[$<TARGET_FILE:${target}>]==] PREFIX [==[${target}: ]==]
  LABEL [==[${label}]==] BUILD_DIR [==[${CMAKE_BINARY_DIR}]==]
  PER_PROCESS ${per_process} COUNT_FILE [==[${include_file}.count]==]
  SPEC [==[${spec}]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()

# errand_test_build_path(<target> <macro> <path in the build tree>)
#
# Defines <macro> for <target> as <path> (generator expressions such as $<TARGET_FILE:...>
# allowed) relative to the build tree; the test makes it whole at run time with
# errand::test::build_path(). An absolute path in a compile command differs in every clone, and
# ccache, which hashes the command, would then compile every test again in each new clone.
function(errand_test_build_path target macro path)
  target_compile_definitions(${target} PRIVATE
    "${macro}=\"$<PATH:RELATIVE_PATH,${path},${CMAKE_BINARY_DIR}>\"")
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
  add_dependencies(${target} errand sandbox-fixture chat-fixture sandbox-unused
    errand_fixture_plugins fake-acp-agent)
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
