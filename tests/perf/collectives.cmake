# Collectives and team creation against raw MPI on the same ranks
# (bench_collectives.cpp): every DART collective with the agreement check
# on and off, at 8 B ... 1 MiB, and dart_team_create + dart_team_destroy
# against MPI_Comm_split + MPI_Comm_free. The smoke test only checks that
# it runs to the end (few iterations, small sizes, no timing assertion).
add_executable(bench_collectives bench_collectives.cpp)
target_link_libraries(bench_collectives PRIVATE DART::dart MPI::MPI_CXX)

dart_mpiexec_command(_cmd 2 60)
add_test(NAME perf_smoke_collectives
  COMMAND ${_cmd} $<TARGET_FILE:bench_collectives> --iterations 20 --rounds 1 --max-bytes 65536)
set_tests_properties(perf_smoke_collectives PROPERTIES TIMEOUT 80 PROCESSORS 2 LABELS "perf;mpi"
  PASS_REGULAR_EXPRESSION "dart_team_create\\+destroy")
