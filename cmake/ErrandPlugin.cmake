# errand_add_plugin(<target> SOURCES <files>... [LIBRARIES <libs>...])
#
# Builds a plugin module against the errand SDK: hidden visibility so nothing but the entry
# symbol is exported, -z defs so an unresolved symbol fails the link rather than the load, and
# no "lib" prefix, so the file is <target>.so. Shared by the in-tree build and the installed
# SDK package.
function(errand_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "errand_add_plugin(${target}) needs SOURCES")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  if(TARGET errand::sdk)
    target_link_libraries(${target} PRIVATE errand::sdk)
  else()
    target_link_libraries(${target} PRIVATE errand_sdk)
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES})
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  target_link_options(${target} PRIVATE "LINKER:-z,defs")
  if(DEFINED ERRAND_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ERRAND_PLUGIN_OUTPUT_DIR}")
  endif()
endfunction()
