# cmake -DNM=<nm> -DPLUGIN=<file.so> -P exported_symbols.cmake
#
# Fails unless the plugin's dynamic symbol table defines nothing of errand's own but the entry
# symbol and the SDK's interfaces (whose type information is visible by design, so a dynamic_cast
# across the boundary works). Template code of the third-party headers errand uses (Boost, the
# standard library, fmt, spdlog) stays visible when those headers ask for it: Asio's unique
# thread-local records must bind to the daemon's one copy.
cmake_minimum_required(VERSION 3.25)
if(NOT NM OR NOT PLUGIN)
  message(FATAL_ERROR "usage: cmake -DNM=<nm> -DPLUGIN=<file.so> -P exported_symbols.cmake")
endif()
execute_process(COMMAND "${NM}" -D --defined-only "${PLUGIN}"
  OUTPUT_VARIABLE table ERROR_VARIABLE nm_error RESULT_VARIABLE nm_status)
if(NOT nm_status EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${PLUGIN} failed (${nm_status}): ${nm_error}")
endif()

set(allowed_c_symbols errand_plugin_entry_v1 boost_asio_detail_posix_thread_function)
set(allowed_owners boost std fmt spdlog __gnu_cxx errand::sdk)

# The namespace a mangled name belongs to: special prefixes (guard variables, type information,
# vtables, thunks) and local-entity markers are skipped to the first name of the encoding.
function(symbol_owner mangled out)
  string(REGEX REPLACE "^_Z" "" rest "${mangled}")
  string(REGEX REPLACE "^(GV|GR|TI|TS|TV|TT|Thn?[0-9]+_|Tvn?[0-9]+_n?[0-9]+_)" "" rest "${rest}")
  string(REGEX REPLACE "^Z+" "" rest "${rest}")
  # Type information of a function or pointer type belongs to the type it is built from.
  string(REGEX REPLACE "^[PRKOVF]+" "" rest "${rest}")
  string(REGEX REPLACE "^N[rVKRO]*" "" rest "${rest}")
  if(rest MATCHES "^S[tabsiod]")
    set(${out} std PARENT_SCOPE)
    return()
  endif()
  if(NOT rest MATCHES "^([0-9]+)")
    set(${out} "?" PARENT_SCOPE)
    return()
  endif()
  set(length ${CMAKE_MATCH_1})
  string(LENGTH "${length}" digits)
  string(SUBSTRING "${rest}" ${digits} ${length} first)
  if(first STREQUAL "errand")
    math(EXPR next "${digits} + ${length}")
    string(SUBSTRING "${rest}" ${next} -1 inner)
    if(inner MATCHES "^3sdk")
      set(first errand::sdk)
    endif()
  endif()
  set(${out} "${first}" PARENT_SCOPE)
endfunction()

string(REPLACE "\n" ";" lines "${table}")
set(unexpected "")
set(entry_found OFF)
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^[0-9a-fA-F]* *[A-Za-z] (.+)$")
    continue()
  endif()
  set(name "${CMAKE_MATCH_1}")
  if(name STREQUAL "errand_plugin_entry_v1")
    set(entry_found ON)
  endif()
  if(name IN_LIST allowed_c_symbols)
    continue()
  endif()
  if(name MATCHES "^_Z")
    symbol_owner("${name}" owner)
    # Asio puts its customisation points (query, prefer, require, ...) in top-level namespaces
    # of their own, boost_asio_<name>_fn; a sanitized build keeps their static instances visible.
    if(owner IN_LIST allowed_owners OR owner MATCHES "^boost_asio_")
      continue()
    endif()
  endif()
  list(APPEND unexpected "${name}")
endforeach()

if(NOT entry_found)
  message(FATAL_ERROR "${PLUGIN} does not export errand_plugin_entry_v1, the one symbol the daemon looks up")
endif()
list(LENGTH unexpected count)
if(count GREATER 0)
  list(JOIN unexpected "\n  " listed)
  message(FATAL_ERROR "${PLUGIN} exports ${count} symbol(s) of its own beyond the entry point; "
    "build its code with hidden visibility (errand_add_plugin does it for the static libraries "
    "it is given):\n  ${listed}")
endif()
message(STATUS "${PLUGIN}: only the entry symbol and the SDK's interfaces are errand's")
