# errand's data directory: what an installed errand finds in /usr/share/errand, and a build tree's
# errand in <build>/share/errand (the running executable's ../share/errand). The one list below
# makes both: the build-tree copy is made from it at configure time, and that copy is what is
# installed, so the two cannot differ. Scripts keep their mode (executable).
#
# Each entry is <source, relative to the checkout, a glob allowed> <directory under share/errand>.
set(ERRAND_DATA_LAYOUT
  config.example.json            .
  config.schema.json             .
  agents/package.json            agents
  agents/package-lock.json       agents
  scripts/prepare-podman-account scripts
  scripts/end-podman-pause       scripts
  scripts/start-incus            scripts
  scripts/stop-incus             scripts
  scripts/add-backports          scripts
  scripts/debian-mirror          scripts
  plugins/sandbox-podman/containers.conf plugins/sandbox-podman
  image/README.md                image
  image/build                    image
  image/podman-target            image
  image/incus-target             image
  image/packages/*               image/packages
  image/guest/*                  image/guest)

set(ERRAND_DATA_BUILD_DIR "${CMAKE_BINARY_DIR}/${CMAKE_INSTALL_DATADIR}/errand")

# Made afresh at each configure, so a file dropped from the list leaves the build tree too
# (web/ and the man page are built elsewhere and installed by their own rules).
file(REMOVE_RECURSE "${ERRAND_DATA_BUILD_DIR}")
list(LENGTH ERRAND_DATA_LAYOUT _errand_data_entries)
math(EXPR _errand_data_last "${_errand_data_entries} - 1")
foreach(_errand_data_at RANGE 0 ${_errand_data_last} 2)
  math(EXPR _errand_data_dir_at "${_errand_data_at} + 1")
  list(GET ERRAND_DATA_LAYOUT ${_errand_data_at} _errand_data_pattern)
  list(GET ERRAND_DATA_LAYOUT ${_errand_data_dir_at} _errand_data_dir)
  file(GLOB _errand_data_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${_errand_data_pattern}")
  if(NOT _errand_data_sources)
    message(FATAL_ERROR "ErrandData.cmake: ${_errand_data_pattern} matches no file in the checkout; "
                        "fix ERRAND_DATA_LAYOUT")
  endif()
  foreach(_errand_data_source IN LISTS _errand_data_sources)
    get_filename_component(_errand_data_name "${_errand_data_source}" NAME)
    # configure_file keeps the source's permissions and re-runs the configure when it changes.
    configure_file("${_errand_data_source}"
                   "${ERRAND_DATA_BUILD_DIR}/${_errand_data_dir}/${_errand_data_name}" COPYONLY)
  endforeach()
endforeach()

install(DIRECTORY "${ERRAND_DATA_BUILD_DIR}/" DESTINATION "${CMAKE_INSTALL_DATADIR}/errand"
        USE_SOURCE_PERMISSIONS COMPONENT runtime)
