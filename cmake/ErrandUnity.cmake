# Batched ("unity") compilation: each target's C++ sources are compiled a few at a time, as one
# translation unit that includes them. errand's sources are small files over the same heavy
# headers (Asio and Beast coroutines, Boost.JSON), and most of a file's compile time is spent
# instantiating and generating code for templates its neighbours instantiate too; a batch does
# that once. docs/testing.md has the figures.
#
# CMake's own UNITY_BUILD is not used because its batch files include the sources by absolute
# path: every clone of the checkout would then write different batch files, and ccache, which
# keys on what the compiler reads, would compile everything again in each new clone. The batch
# files here name each source by its path relative to the batch file, which is the same in every
# clone whose build tree sits at the same place inside the checkout (the presets' build/<name>).
#
# Sources in one folder of one target share a batch, in name order, at most
# ERRAND_UNITY_BATCH_SIZE to a batch; a file added or removed changes only its own folder's
# batches. A source with compile options or definitions of its own, a generated source, one
# outside the checkout, and one marked SKIP_UNITY_BUILD_INCLUSION are compiled alone, as is
# every source of a target whose ERRAND_NO_UNITY property is set.
#
# Sources in one batch share a translation unit, so names at namespace scope that a .cpp file
# keeps to itself (an anonymous namespace, `static`) must differ between the files of a folder.
option(ERRAND_UNITY_BUILD "Compile each target's sources in batches (cmake/ErrandUnity.cmake)" OFF)
# 32: compiling sandbox-broker's 40 sources cost 129 CPU-seconds in batches of 8, 96 in batches
# of 16 and 52 in batches of 32 under the asan preset (111 and 44 for 8 and 32 under the default
# preset), since each batch parses and generates the same inline templates once. A build tree for
# editing one file at a time may want fewer.
set(ERRAND_UNITY_BATCH_SIZE 32 CACHE STRING "At most this many sources in one batch")
if(NOT ERRAND_UNITY_BATCH_SIZE MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "ERRAND_UNITY_BATCH_SIZE is '${ERRAND_UNITY_BATCH_SIZE}'; it must be a whole number of at least 1")
endif()

# GCC's -Wsubobject-linkage warns of a type with linkage that holds a type of an anonymous
# namespace only when that happens outside the file being compiled, which it takes for a
# header. In a batch every source is outside the batch file, so the warning would fire on
# every coroutine frame that holds a file's own helper type; an ordinary build still checks it.
if(ERRAND_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
endif()

# Called once, at the end of the top-level CMakeLists.txt, when every target exists.
function(errand_unity_batches)
  if(NOT ERRAND_UNITY_BUILD)
    return()
  endif()
  _errand_unity_directory("${PROJECT_SOURCE_DIR}")
endfunction()

function(_errand_unity_directory dir)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    _errand_unity_target(${target})
  endforeach()
  get_property(children DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(child IN LISTS children)
    _errand_unity_directory("${child}")
  endforeach()
endfunction()

# Whether <source> of <target> may share a translation unit; sets <out> to TRUE or FALSE.
function(_errand_unity_batchable target source out)
  set(${out} FALSE PARENT_SCOPE)
  cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${source}" NORMALIZE in_checkout)
  if(NOT source MATCHES "\\.cpp$" OR NOT in_checkout)
    return()
  endif()
  foreach(property GENERATED COMPILE_OPTIONS COMPILE_DEFINITIONS COMPILE_FLAGS INCLUDE_DIRECTORIES
                   SKIP_UNITY_BUILD_INCLUSION)
    get_source_file_property(value "${source}" TARGET_DIRECTORY ${target} ${property})
    if(value)
      return()
    endif()
  endforeach()
  set(${out} TRUE PARENT_SCOPE)
endfunction()

function(_errand_unity_target target)
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
    return()
  endif()
  get_target_property(opted_out ${target} ERRAND_NO_UNITY)
  if(opted_out)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(alone)
  set(folders)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\$<")
      list(APPEND alone "${source}")
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}" NORMALIZE OUTPUT_VARIABLE path)
    _errand_unity_batchable(${target} "${path}" batchable)
    if(NOT batchable)
      list(APPEND alone "${source}")
      continue()
    endif()
    cmake_path(GET path PARENT_PATH folder)
    string(MD5 key "${folder}")
    if(NOT key IN_LIST folders)
      list(APPEND folders ${key})
      set(folder_sources_${key})
    endif()
    list(APPEND folder_sources_${key} "${path}")
  endforeach()

  set(batch_dir "${CMAKE_BINARY_DIR}/unity/${target}")
  set(batches)
  set(count 0)
  foreach(key IN LISTS folders)
    list(SORT folder_sources_${key})
    list(LENGTH folder_sources_${key} in_folder)
    if(in_folder EQUAL 1)
      list(APPEND alone ${folder_sources_${key}})
      continue()
    endif()
    set(content "")
    set(in_batch 0)
    foreach(path IN LISTS folder_sources_${key})
      file(RELATIVE_PATH relative "${batch_dir}" "${path}")
      string(APPEND content "#include \"${relative}\"\n")
      math(EXPR in_batch "${in_batch} + 1")
      if(in_batch EQUAL ERRAND_UNITY_BATCH_SIZE)
        _errand_unity_write("${batch_dir}" ${count} "${content}" batch)
        list(APPEND batches "${batch}")
        math(EXPR count "${count} + 1")
        set(content "")
        set(in_batch 0)
      endif()
    endforeach()
    if(in_batch GREATER 0)
      _errand_unity_write("${batch_dir}" ${count} "${content}" batch)
      list(APPEND batches "${batch}")
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  if(batches)
    set_property(TARGET ${target} PROPERTY SOURCES ${alone} ${batches})
  endif()
endfunction()

# Writes batch <index> of a target only when its text changed, so that a reconfigure leaves
# unchanged batches alone (ninja and ccache see the same file).
function(_errand_unity_write dir index content out)
  set(path "${dir}/batch_${index}.cpp")
  set(text "// Generated by cmake/ErrandUnity.cmake: these sources compile as one translation unit.\n${content}")
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${path}" "${text}")
  endif()
  set(${out} "${path}" PARENT_SCOPE)
endfunction()
