# cmake -DCOMMAND=<arg|arg|...> -DEXPECT_RC=<n> -DMAX_SECONDS=<s> [-DEXPECT_OUTPUT=<regex>] -P expect_exit.cmake
# Runs COMMAND and succeeds only if it exits with EXPECT_RC within MAX_SECONDS
# and, given EXPECT_OUTPUT, its stdout and stderr together match that regex.
string(REPLACE "|" ";" COMMAND "${COMMAND}")
string(TIMESTAMP t0 "%s")
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(TIMESTAMP t1 "%s")
math(EXPR elapsed "${t1} - ${t0}")
message("${out}")
message(STATUS "exit code ${rc} after ${elapsed} s")
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "expected exit code ${EXPECT_RC}, got ${rc}")
endif()
if(elapsed GREATER MAX_SECONDS)
  message(FATAL_ERROR "took ${elapsed} s, more than ${MAX_SECONDS} s")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT out MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "the output does not match \"${EXPECT_OUTPUT}\"")
endif()
