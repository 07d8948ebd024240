# Registry benchmark (issue 6): get latency at several segment sizes, and
# sync against a raw MPI_Allgatherv of the same bytes. The smoke test runs
# it with tiny sizes and only checks that it completes.
add_executable(bench_registry ${CMAKE_CURRENT_LIST_DIR}/bench_registry.cpp)
target_link_libraries(bench_registry PRIVATE DART::registry)

dart_mpiexec_command(_cmd 2 60)
add_test(NAME perf_smoke_registry
  COMMAND ${_cmd} $<TARGET_FILE:bench_registry> --sizes 100,1000 --gets 1000 --puts 100 --rounds 1)
set_tests_properties(perf_smoke_registry PROPERTIES TIMEOUT 80 PROCESSORS 2 LABELS "perf;mpi;registry"
  PASS_REGULAR_EXPRESSION "bench_registry: done")
