# cmake -DBUILD_DIR= -DWORK_DIR= -DPYTHON= -DPYTHON_DIR= -DSCRIPT= -P python_example.cmake
#
# Installs the build into a scratch prefix and runs the seed's Python example
# with the interpreter the module was built for, PYTHONPATH naming only the
# installed module directory and no LD_LIBRARY_PATH: the module must load
# from the installed tree and find libpmix_shim there through its RPATH.
set(prefix ${WORK_DIR}/prefix)
set(site ${prefix}/${PYTHON_DIR})
file(REMOVE_RECURSE ${WORK_DIR})

execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()
# The install tells the user what to put in PYTHONPATH; it must be right.
string(REGEX MATCH "pmix Python module installed in [^\n]*" announced "${out}")
message(STATUS "${announced}")
string(FIND "${announced}" "installed in ${site} (" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the install did not announce ${site}:\n${out}")
endif()

execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH --unset=PYTHONHOME PYTHONPATH=${site}
    ${PYTHON} ${SCRIPT}
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "seed example (${PYTHON}, PYTHONPATH=${site}):\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the seed example failed (${rc})")
endif()
foreach(what "pmix module" "libpmix_shim")
  string(REGEX MATCHALL "${what}: [^\n]*" loaded "${out}")
  list(LENGTH loaded n)
  string(FIND "${loaded}" "${what}: ${prefix}/" at)
  if(NOT n EQUAL 1 OR NOT at EQUAL 0)
    message(FATAL_ERROR "${what} was not loaded (only) from the installed tree: ${loaded}")
  endif()
endforeach()
