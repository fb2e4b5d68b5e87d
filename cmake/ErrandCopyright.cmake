# Writes the packages' copyright file (Debian's machine-readable format) from
# packaging/debian/copyright.in, adding what the web interface's script bundles from npm packages.
# Run at build time (cmake -P), after the front-end is built:
#   -DTEMPLATE=<copyright.in> -DOUTPUT=<file> -DMAINTAINER=<contact>
#   [-DLICENSES=<the JSON list Vite's build.license writes>]
# Without LICENSES (a tree built without the web interface), no such paragraph is written.
#
cmake_minimum_required(VERSION 3.25)

# Every package the bundle holds must name its licence and at least one copyright holder in its
# licence text; one that does not fails the build, since the package would then ship code whose
# terms its copyright file does not state.

# One DEP-5 continuation block: each line indented by a space, an empty line written " .".
function(errand_dep5_block text out)
  string(REPLACE "\r" "" text "${text}")
  string(STRIP "${text}" text)
  string(REPLACE ";" "\\;" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(block "")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" stripped)
    if(stripped STREQUAL "")
      string(APPEND block "\n .")
    else()
      string(APPEND block "\n ${line}")
    endif()
  endforeach()
  set(${out} "${block}" PARENT_SCOPE)
endfunction()

set(paragraphs "")
if(LICENSES)
  file(READ "${LICENSES}" json)
  string(JSON count LENGTH "${json}")
  if(count EQUAL 0)
    message(FATAL_ERROR "${LICENSES} lists no bundled package; the front-end bundles Svelte at "
                        "least, so Vite's licence list is not what it should be")
  endif()
  set(holders "2026 the errand authors")
  set(identifiers MIT)  # errand's own part of the script, under one of its two licences
  set(bundled "")
  set(other_licences "")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" ${i} name)
    string(JSON version GET "${json}" ${i} version)
    string(JSON identifier ERROR_VARIABLE no_identifier GET "${json}" ${i} identifier)
    string(JSON text ERROR_VARIABLE no_text GET "${json}" ${i} text)
    if(no_identifier OR identifier STREQUAL "" OR no_text OR text STREQUAL "")
      message(FATAL_ERROR "the web front-end bundles ${name} ${version}, which states no licence "
                          "Vite could read; its terms would be missing from the copyright file")
    endif()
    string(REGEX MATCHALL "(^|\n)[ \t]*Copyright[^\n]*" found "${text}")
    if(NOT found)
      message(FATAL_ERROR "the licence text of ${name} ${version}, bundled into the web "
                          "front-end, names no copyright holder")
    endif()
    foreach(line IN LISTS found)
      string(STRIP "${line}" line)
      string(REGEX REPLACE "^Copyright[ \t]*(\\([cC]\\)|©)?[ \t]*" "" line "${line}")
      string(REPLACE ";" "," line "${line}")
      list(APPEND holders "${line}")
    endforeach()
    list(APPEND bundled "${name} ${version}")
    if(NOT identifier IN_LIST identifiers)
      list(APPEND identifiers "${identifier}")
      if(NOT identifier STREQUAL "Apache-2.0")
        errand_dep5_block("${text}" block)
        string(APPEND other_licences "\nLicense: ${identifier}${block}\n")
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES holders)
  list(JOIN holders "\n " holder_lines)
  list(JOIN identifiers " and " licence_expression)
  list(JOIN bundled ", " bundled_list)
  set(paragraphs "
Files: usr/share/errand/web/*
Copyright: ${holder_lines}
License: ${licence_expression}
Comment: Besides errand's own code, the web interface's script holds these npm
 packages, as Vite bundled them: ${bundled_list}.
${other_licences}")
endif()

file(READ "${TEMPLATE}" copyright)
string(REPLACE "@ERRAND_PACKAGE_MAINTAINER@" "${MAINTAINER}" copyright "${copyright}")
string(REPLACE "@ERRAND_BUNDLED_WEB_PARAGRAPHS@" "${paragraphs}" copyright "${copyright}")
file(WRITE "${OUTPUT}.new" "${copyright}")
file(RENAME "${OUTPUT}.new" "${OUTPUT}")
