# errand_add_setup_program(<plugin-target> SOURCES <files>... [INSTALL])
#
# Builds <plugin-target>-setup, a sandbox backend's own steps of `errand setup` and `errand up`
# (common/setup_steps/backend_hook.hpp), into the directory its plugin is built into, where core
# looks for it; INSTALL puts it beside the installed plugin too. Call it after the plugin's
# output directory is set. Building the plugin builds its setup program.
function(errand_add_setup_program plugin)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "INSTALL" "" "SOURCES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "errand_add_setup_program(${plugin}) needs SOURCES")
  endif()
  set(program ${plugin}-setup)
  add_executable(${program} ${ARG_SOURCES})
  target_link_libraries(${program} PRIVATE errand_setup_steps)
  get_target_property(beside ${plugin} LIBRARY_OUTPUT_DIRECTORY)
  set_target_properties(${program} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${beside}")
  add_dependencies(${plugin} ${program})
  if(ARG_INSTALL)
    install(TARGETS ${program} RUNTIME DESTINATION "${ERRAND_PLUGIN_INSTALL_DIR}")
  endif()
endfunction()
