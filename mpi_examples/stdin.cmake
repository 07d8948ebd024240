# stdin_wordcount: the job's stdin path (issue 8) from a user's side. Its
# test feeds a generated text through dartrun and compares with `wc -w`.
add_executable(stdin_wordcount ${CMAKE_CURRENT_LIST_DIR}/stdin_wordcount.cpp)
target_link_libraries(stdin_wordcount PRIVATE DART::dart)

if(DART_BUILD_TESTS)
  set(np 4)
  if(DART_MPI_FLAVOR STREQUAL "mpich")
    set(np 2)  # busy-polling MPICH ranks crawl when they outnumber the cores
  endif()
  add_test(NAME example_stdin_wordcount
    COMMAND ${DART_TIMEOUT_EXECUTABLE} --kill-after=5 120 sh ${PROJECT_SOURCE_DIR}/tests/stdin/wordcount_test.sh
            $<TARGET_FILE:dartrun> $<TARGET_FILE:stdin_wordcount> ${np}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(example_stdin_wordcount PROPERTIES
    PASS_REGULAR_EXPRESSION "stdin_wordcount_test: OK"
    FAIL_REGULAR_EXPRESSION "FAIL|MISMATCH"
    TIMEOUT 140
    PROCESSORS ${np}
    LABELS "example;stdin"
    ENVIRONMENT "${DART_TEST_ENVIRONMENT}")
endif()
