# The Debian packages, made by CPack from the install rules (cpack -G DEB in a build tree):
#   errand      the `runtime` component: every install rule without a component of its own
#               (the command, the plugins and launchers in /usr/lib/errand, the web interface),
#               the data directory (ErrandData.cmake), the man page, both init systems' service
#               files and the package documentation;
#   errand-dev  the `dev` component: the SDK headers, the static errand_sdk library, the sandbox
#               kit's libraries and headers (common/CMakeLists.txt) and the errand-sdk CMake
#               package (sdk/CMakeLists.txt), for building a plugin.
# Included by the top-level CMakeLists.txt after every subdirectory, so all install rules exist.

include("${CMAKE_CURRENT_LIST_DIR}/ErrandData.cmake")

set(ERRAND_PACKAGING_DIR "${PROJECT_SOURCE_DIR}/packaging")
set(ERRAND_PACKAGE_MAINTAINER "errand maintainers <maintainers@errand.example>" CACHE STRING
    "The Maintainer field of the Debian packages and their changelog")
# The packaged files point at each other through the compiled-in prefix (the plugin directory,
# the web root), and Debian packages live in /usr; the default preset configures that.
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  message(STATUS "Packaging: CMAKE_INSTALL_PREFIX is ${CMAKE_INSTALL_PREFIX}, so cpack would make "
                 "packages errand does not run from; configure with -DCMAKE_INSTALL_PREFIX=/usr")
endif()

# The man page, generated from the command table by the errand just built.
set(ERRAND_MAN_PAGE "${CMAKE_BINARY_DIR}/${CMAKE_INSTALL_MANDIR}/man1/errand.1.gz")
add_custom_command(
  OUTPUT "${ERRAND_MAN_PAGE}"
  COMMAND "${CMAKE_COMMAND}" -DERRAND=$<TARGET_FILE:errand> "-DOUTPUT=${ERRAND_MAN_PAGE}"
          -P "${CMAKE_CURRENT_LIST_DIR}/ErrandManPage.cmake"
  DEPENDS errand "${CMAKE_CURRENT_LIST_DIR}/ErrandManPage.cmake"
  COMMENT "Generating the errand(1) man page"
  VERBATIM)
add_custom_target(errand_man_page ALL DEPENDS "${ERRAND_MAN_PAGE}")
install(FILES "${ERRAND_MAN_PAGE}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT runtime)

# Service files. The OpenRC script is the one file under /etc, so it is a conffile (an edited
# copy is kept on upgrade); /etc/errand is shipped empty: `errand setup` writes the configuration
# there and no package ever overwrites it.
install(FILES "${ERRAND_PACKAGING_DIR}/systemd/errand.service"
        DESTINATION "lib/systemd/system" COMPONENT runtime)
install(PROGRAMS "${ERRAND_PACKAGING_DIR}/openrc/errand"
        DESTINATION "${CMAKE_INSTALL_FULL_SYSCONFDIR}/init.d" COMPONENT runtime)
install(PROGRAMS "${ERRAND_PACKAGING_DIR}/openrc/errand-supervised"
                 "${ERRAND_PACKAGING_DIR}/systemd/errand-systemd-start"
        DESTINATION "${ERRAND_PLUGIN_INSTALL_DIR}" COMPONENT runtime)
install(DIRECTORY DESTINATION "${CMAKE_INSTALL_FULL_SYSCONFDIR}/errand" COMPONENT runtime)
# lintian's errors that do not apply here, each with its reason in the file.
install(FILES "${ERRAND_PACKAGING_DIR}/debian/lintian-overrides"
        DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides" RENAME errand COMPONENT runtime)

# Each package's /usr/share/doc/<package>: the copyright file and the changelog, compressed as
# Debian policy asks (gzip -9n: no name or time stamp, so the build is reproducible).
configure_file("${ERRAND_PACKAGING_DIR}/debian/changelog.in"
               "${CMAKE_BINARY_DIR}/packaging/changelog" @ONLY)
set(ERRAND_PACKAGE_CHANGELOG "${CMAKE_BINARY_DIR}/packaging/changelog.gz")
execute_process(COMMAND gzip -9n INPUT_FILE "${CMAKE_BINARY_DIR}/packaging/changelog"
                OUTPUT_FILE "${ERRAND_PACKAGE_CHANGELOG}" COMMAND_ERROR_IS_FATAL ANY)
# The copyright file: packaging/debian/copyright.in, and what the web interface's script bundles
# from npm packages, read from the list the front-end's build makes (cmake/ErrandCopyright.cmake).
set(ERRAND_PACKAGE_COPYRIGHT "${CMAKE_BINARY_DIR}/packaging/copyright")
get_property(web_licenses GLOBAL PROPERTY ERRAND_WEB_LICENSES)
set(copyright_inputs "${ERRAND_PACKAGING_DIR}/debian/copyright.in"
    "${CMAKE_CURRENT_LIST_DIR}/ErrandCopyright.cmake")
set(licenses_argument)
if(web_licenses)
  list(APPEND copyright_inputs "${web_licenses}")
  set(licenses_argument "-DLICENSES=${web_licenses}")
endif()
add_custom_command(
  OUTPUT "${ERRAND_PACKAGE_COPYRIGHT}"
  COMMAND "${CMAKE_COMMAND}" "-DTEMPLATE=${ERRAND_PACKAGING_DIR}/debian/copyright.in"
          "-DOUTPUT=${ERRAND_PACKAGE_COPYRIGHT}" "-DMAINTAINER=${ERRAND_PACKAGE_MAINTAINER}"
          ${licenses_argument} -P "${CMAKE_CURRENT_LIST_DIR}/ErrandCopyright.cmake"
  DEPENDS ${copyright_inputs}
  COMMENT "Writing the packages' copyright file"
  VERBATIM)
add_custom_target(errand_package_copyright ALL DEPENDS "${ERRAND_PACKAGE_COPYRIGHT}")
if(TARGET errand_web)
  add_dependencies(errand_package_copyright errand_web)
endif()
foreach(component_package IN ITEMS runtime:errand dev:errand-dev)
  string(REPLACE ":" ";" component_package "${component_package}")
  list(GET component_package 0 component)
  list(GET component_package 1 package)
  install(FILES "${ERRAND_PACKAGE_COPYRIGHT}" "${ERRAND_PACKAGE_CHANGELOG}"
          DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}" COMPONENT ${component})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME errand)
set(CPACK_PACKAGE_VENDOR errand)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_PACKAGE_CONTACT "${ERRAND_PACKAGE_MAINTAINER}")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY "${CMAKE_BINARY_DIR}/packages")
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME errand)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION net)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# Beyond the shared libraries, the bailey backend (the default) needs nothing from another
# package: it makes its user namespace and writes its own uid and gid maps (no newuidmap), and
# loads Landlock and seccomp itself. pasta (passt) is Recommends, not Depends: only
# `hideHostAddress` uses it, and without it that setting is reported as an enforcement gap
# rather than silently dropped. nodejs is Recommends too: the bundled agents (the default
# agent.kind) are Node.js programs, but an operator may run another agent, or the agent from a
# podman or Incus image, where the host's node is not used. The podman and Incus backends' tools
# are Suggests: each is set up by `errand setup podman|incus` when an operator chooses that
# backend.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "passt, nodejs")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS
    "podman, runc, uidmap, catatonit, slirp4netns, mmdebstrap, incus-base, incus-client")
# CPack indents the extended description's lines itself.
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "coding agent driven from a chat channel, run in a sandbox
errand runs a coding agent (an ACP agent) for the members of a chat channel,
each session confined in a sandbox: user namespaces, Landlock, seccomp and
cgroups (the bailey backend), a rootless podman container or an Incus system
container. It ships a systemd unit and an OpenRC script; `errand setup`
prepares the host.")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA "${ERRAND_PACKAGING_DIR}/debian/conffiles")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME errand-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The SDK's CMake package finds Boost.JSON 1.81 exactly, spdlog, fmt and, for the kit, OpenSSL
# (errand-sdkConfig.cmake), and its headers include Boost's; a plugin is loaded only by the same
# errand version.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "errand (= ${PROJECT_VERSION}), libboost1.81-dev, libboost-json1.81-dev, libspdlog-dev, libfmt-dev, libssl-dev")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "plugin SDK for errand
The headers (the plugin interfaces and their extensions), the static
errand_sdk library, the sandbox kit (the lifecycle, the broker relay, the
disk budget, the in-sandbox supervisor and the setup steps, as static
libraries) and the errand-sdk CMake package a third party builds an errand
plugin (a chat channel or a sandbox backend) with, outside errand's own
source tree.")

include(CPack)
