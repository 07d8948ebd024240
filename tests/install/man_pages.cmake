# cmake -DBUILD_DIR= -DWORK_DIR= -DPYTHON= -DCHECK= -P man_pages.cmake
# Installs the build into a scratch prefix and checks its man pages from
# there (man_coverage.py): a page for every exported function and PMIx
# name, a page for every installed tool with every option of its --help.
set(LAUNCH "")
include(${CMAKE_CURRENT_LIST_DIR}/scratch_prefix.cmake)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
execute_process(COMMAND ${PYTHON} ${CHECK} ${prefix} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "man page coverage failed (see the lines above)")
endif()
