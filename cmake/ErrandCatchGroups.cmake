# Read by CTest, not by a configure: lists a sanitized suite's cases to CTest in groups of
# ERRAND_CASES_PER_PROCESS, one process per group (Catch2's --shard-count and --shard-index).
#
# Why groups: a sanitized suite's process spends about half a second starting and, at its exit,
# looking for leaks, whatever its case does. One process per case made that the larger part of
# the asan tree's test time. A group is small enough that CTest still spreads the work over every
# core, and a failing group's output names the failing case.
#
# errand_catch_groups(EXECUTABLE <file> PREFIX <name prefix> LABEL <label> BUILD_DIR <dir>
#                     PER_PROCESS <n> COUNT_FILE <file> [SPEC <Catch2 test spec>])
#
# COUNT_FILE keeps the number of cases (and the spec) until the suite is rebuilt, so that CTest does not start
# every suite once more on each run just to count them.
function(errand_catch_groups)
  cmake_parse_arguments(ARG "" "EXECUTABLE;PREFIX;LABEL;BUILD_DIR;PER_PROCESS;COUNT_FILE;SPEC" ""
    ${ARGN})
  set(spec)
  if(ARG_SPEC)
    set(spec "${ARG_SPEC}")
  endif()
  set(listing_failed FALSE)
  set(count 0)
  # The kept count holds the spec it was counted under: a reconfigure that changed the tree's
  # filter must count again even though the suite was not rebuilt.
  set(kept "")
  if(EXISTS "${ARG_COUNT_FILE}" AND "${ARG_COUNT_FILE}" IS_NEWER_THAN "${ARG_EXECUTABLE}")
    file(READ "${ARG_COUNT_FILE}" kept)
  endif()
  if(kept MATCHES "^([0-9]+) (.*)$" AND CMAKE_MATCH_2 STREQUAL "${spec}")
    set(count "${CMAKE_MATCH_1}")
  elseif(NOT EXISTS "${ARG_EXECUTABLE}")
    set(listing_failed "the suite ${ARG_EXECUTABLE} is not built")
  else()
    execute_process(
      COMMAND "${ARG_EXECUTABLE}" --list-tests --verbosity quiet ${spec}
      OUTPUT_VARIABLE listing ERROR_VARIABLE listing_errors RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      set(listing_failed "listing its cases failed (${status}): ${listing_errors}")
    endif()
    if(NOT listing_failed)
      string(REGEX MATCHALL "[^\n]+" names "${listing}")
      list(LENGTH names count)
      if(count GREATER 0)
        file(WRITE "${ARG_COUNT_FILE}" "${count} ${spec}")
      endif()
    endif()
  endif()
  if(NOT listing_failed)
    if(count EQUAL 0)
      set(listing_failed "no case matches '${spec}'")
    endif()
  endif()
  if(listing_failed)
    # A test that fails, saying why, rather than a suite that silently runs nothing.
    add_test("${ARG_PREFIX}listing its cases" /bin/sh -c "echo \"$1\" >&2; exit 1" sh
      "${listing_failed}")
    set_tests_properties("${ARG_PREFIX}listing its cases" PROPERTIES LABELS "${ARG_LABEL}")
    return()
  endif()
  math(EXPR groups "(${count} + ${ARG_PER_PROCESS} - 1) / ${ARG_PER_PROCESS}")
  math(EXPR last "${groups} - 1")
  foreach(index RANGE ${last})
    math(EXPR number "${index} + 1")
    set(name "${ARG_PREFIX}group ${number} of ${groups}")
    # Declaration order: every group's process must order the cases alike for the groups to
    # cover each case exactly once.
    add_test("${name}" "${ARG_EXECUTABLE}" --order decl --shard-count ${groups}
      --shard-index ${index} ${spec})
    set_tests_properties("${name}" PROPERTIES
      LABELS "${ARG_LABEL}" ENVIRONMENT "ERRAND_BUILD_DIR=${ARG_BUILD_DIR}")
  endforeach()
endfunction()
