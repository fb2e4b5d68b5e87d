# Hides the symbols of a plugin's static libraries, and of the static libraries they link in
# turn: a default-visibility object linked into the module would be exported by it, and a
# module exporting its internals lets one plugin's copy of a function bind to another's.
function(_errand_hide_static_libraries)
  foreach(lib IN LISTS ARGN)
    if(NOT TARGET ${lib})
      continue()
    endif()
    get_target_property(aliased ${lib} ALIASED_TARGET)
    if(aliased)
      set(lib ${aliased})
    endif()
    get_target_property(imported ${lib} IMPORTED)
    get_target_property(type ${lib} TYPE)
    get_property(seen GLOBAL PROPERTY _ERRAND_HIDDEN_STATIC_LIBRARIES)
    if(imported OR NOT type STREQUAL "STATIC_LIBRARY" OR lib IN_LIST seen)
      continue()
    endif()
    set_property(GLOBAL APPEND PROPERTY _ERRAND_HIDDEN_STATIC_LIBRARIES ${lib})
    set_target_properties(${lib} PROPERTIES
      CXX_VISIBILITY_PRESET hidden
      C_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON)
    get_target_property(linked ${lib} LINK_LIBRARIES)
    if(linked)
      _errand_hide_static_libraries(${linked})
    endif()
  endforeach()
endfunction()

# errand_add_plugin(<target> SOURCES <files>... [LIBRARIES <libs>...])
#
# Builds a plugin module against the errand SDK: hidden visibility, for the module and the
# static libraries it links, so nothing but the entry symbol is exported; -z defs so an
# unresolved symbol fails the link rather than the load; and no "lib" prefix, so the file is
# <target>.so. Shared by the in-tree build and the installed SDK package.
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
  _errand_hide_static_libraries(${ARG_LIBRARIES})
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  target_link_options(${target} PRIVATE "LINKER:-z,defs")
  # The tests check what each plugin built in this tree exports.
  set_property(GLOBAL APPEND PROPERTY ERRAND_PLUGIN_TARGETS ${target})
  if(DEFINED ERRAND_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ERRAND_PLUGIN_OUTPUT_DIR}")
  endif()
endfunction()
