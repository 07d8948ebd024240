# What the install tests (-P scripts) share: LAUNCH as a list, a fresh
# WORK_DIR with the install prefix below it, and run(), which runs a
# command, fails the test with its output when it fails, and leaves its
# standard output in last_output.
string(REPLACE "|" ";" LAUNCH "${LAUNCH}")
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
