# errand_catch_test(<target> SOURCES <files>... [LIBRARIES <libs>...] [LABELS <labels>...])
#
# A Catch2 test executable whose test cases are listed to CTest one by one at test time.
function(errand_catch_test target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBRARIES;LABELS")
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Catch2::Catch2WithMain ${ARG_LIBRARIES})
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}")
  set(props "")
  if(ARG_LABELS)
    set(props PROPERTIES LABELS "${ARG_LABELS}")
  endif()
  catch_discover_tests(${target} DISCOVERY_MODE PRE_TEST TEST_PREFIX "${target}: " ${props}
    PROPERTIES ENVIRONMENT "ERRAND_BUILD_DIR=${CMAKE_BINARY_DIR};ERRAND_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
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
