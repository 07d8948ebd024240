# Benchmarks of the PMIx shim (issue 7) and of the job's stdin path (issue
# 8). scripts run them at full size; the smoke tests only check that each
# runs to the end with small sizes (no timing assertion).
add_executable(bench_pmix_iof ${CMAKE_CURRENT_LIST_DIR}/bench_pmix_iof.cpp)
target_link_libraries(bench_pmix_iof PRIVATE pmix_shim Threads::Threads)
add_dependencies(bench_pmix_iof pmix_push)
add_test(NAME perf_smoke_pmix_iof
  COMMAND bench_pmix_iof --push $<TARGET_FILE:pmix_push> --size 33554432 --slow-seconds 0.5)
set_tests_properties(perf_smoke_pmix_iof PROPERTIES TIMEOUT 60 LABELS "perf;pmix_shim"
  PASS_REGULAR_EXPRESSION "bench_pmix_iof: done")

# bench_stdin.sh GEN SINK DARTRUN LAUNCHER [SIZE] [NP]: 1 GiB through
# dartrun, the bare launcher and a raw pipe (stdin_gen is in tests/stdin).
add_executable(bench_stdin_sink ${CMAKE_CURRENT_LIST_DIR}/bench_stdin_sink.cpp)
target_link_libraries(bench_stdin_sink PRIVATE DART::dart)
if(TARGET stdin_gen)
  add_test(NAME perf_smoke_stdin
    COMMAND ${DART_TIMEOUT_EXECUTABLE} --kill-after=5 120 ${CMAKE_CURRENT_LIST_DIR}/bench_stdin.sh
            $<TARGET_FILE:stdin_gen> $<TARGET_FILE:bench_stdin_sink> $<TARGET_FILE:dartrun>
            ${MPIEXEC_EXECUTABLE} 16M 1)
  set_tests_properties(perf_smoke_stdin PROPERTIES TIMEOUT 140 LABELS "perf;mpi;stdin"
    PASS_REGULAR_EXPRESSION "bench_stdin: done")
endif()
