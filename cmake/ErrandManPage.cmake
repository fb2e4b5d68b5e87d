# Writes errand(1), compressed: the page `errand help --man` prints from the command table,
# through gzip -9n (no name or time stamp, as Debian asks, so the build is reproducible).
# Usage: cmake -DERRAND=<the built errand> -DOUTPUT=<errand.1.gz> -P ErrandManPage.cmake
get_filename_component(output_dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${output_dir}")
execute_process(COMMAND "${ERRAND}" help --man OUTPUT_FILE "${OUTPUT}.roff"
                RESULT_VARIABLE result ERROR_VARIABLE error)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "`${ERRAND} help --man` failed (${result}): ${error}")
endif()
file(SIZE "${OUTPUT}.roff" size)
if(size EQUAL 0)
  message(FATAL_ERROR "`${ERRAND} help --man` printed nothing")
endif()
execute_process(COMMAND gzip -9n INPUT_FILE "${OUTPUT}.roff" OUTPUT_FILE "${OUTPUT}"
                COMMAND_ERROR_IS_FATAL ANY)
file(REMOVE "${OUTPUT}.roff")
