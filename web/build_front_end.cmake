# Runs the Vite build of the front-end outside the checkout (cmake -P; web/CMakeLists.txt passes
# SOURCE_DIR, STAGE_DIR, NODE_MODULES, OUTPUT_DIR, LICENSES_OUT and NODE). The sources are copied to a stage
# beside a link to the shared npm packages, so the build writes nothing into the source tree.

set(vite "${NODE_MODULES}/vite/bin/vite.js")
if(NOT EXISTS "${vite}")
  message(FATAL_ERROR "the web front-end's npm packages are not installed at ${NODE_MODULES}; "
                      "run scripts/setup (it installs them from web/package-lock.json), or "
                      "configure with -DERRAND_BUILD_WEB=OFF to build errand without its web page")
endif()

# scripts/setup records which lockfile it installed from; packages from another one could build
# a page the committed lockfile never pinned.
get_filename_component(install_dir "${NODE_MODULES}" DIRECTORY)
file(SHA256 "${SOURCE_DIR}/package-lock.json" wanted)
set(installed "")
if(EXISTS "${install_dir}/.errand-lockfile-sha256")
  file(STRINGS "${install_dir}/.errand-lockfile-sha256" installed LIMIT_COUNT 1)
endif()
if(NOT installed STREQUAL wanted)
  message(FATAL_ERROR "the npm packages at ${NODE_MODULES} were not installed from this "
                      "checkout's web/package-lock.json; run scripts/setup to install them again")
endif()

file(REMOVE_RECURSE "${STAGE_DIR}")
file(MAKE_DIRECTORY "${STAGE_DIR}")
file(COPY "${SOURCE_DIR}/src" "${SOURCE_DIR}/index.html" "${SOURCE_DIR}/vite.config.js"
          "${SOURCE_DIR}/package.json" DESTINATION "${STAGE_DIR}")
file(CREATE_LINK "${NODE_MODULES}" "${STAGE_DIR}/node_modules" SYMBOLIC)

execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "ERRAND_WEB_CACHE_DIR=${STAGE_DIR}/.vite"
          "${NODE}" "${vite}" build --outDir "${OUTPUT_DIR}" --emptyOutDir --logLevel warn
  WORKING_DIRECTORY "${STAGE_DIR}"
  RESULT_VARIABLE built)
if(NOT built EQUAL 0)
  message(FATAL_ERROR "the Vite build of the web front-end failed (exit ${built}); its output is above")
endif()

# The list of bundled npm packages and their licences goes to the packaging, not to the page.
if(NOT EXISTS "${OUTPUT_DIR}/bundled-licenses.json")
  message(FATAL_ERROR "the Vite build wrote no bundled-licenses.json (build.license in "
                      "vite.config.js); the packages' copyright file is written from it")
endif()
file(RENAME "${OUTPUT_DIR}/bundled-licenses.json" "${LICENSES_OUT}")
