# Collectives and two-sided messages: every collective for every basic type
# and a custom type, every reduction operation (MINMAX, user operations),
# in-place forms, zero counts, a sub-team, send/recv/sendrecv, isolation
# from the runtime's own messages, and bad input.
# The three files are listed in the order their cases run.
set(DART_COLLECTIVES_SOURCES test_collectives.cpp test_collectives_twosided.cpp test_collectives_bad_input.cpp)
add_mpi_test(dart_collectives SOURCES ${DART_COLLECTIVES_SOURCES} LIBRARIES DART::dart Threads::Threads LABELS dart
  TIMEOUT 120)

# Counts above INT_MAX: bcast, allgatherv, gather, scatter and allgather of
# more than 2 GiB on two units, about 2 GiB of memory per unit and 10-20 s.
# Runs alone, so it never competes with other tests for memory.
add_mpi_test(dart_collectives_large SOURCES test_collectives_large.cpp LIBRARIES DART::dart
  LABELS "dart;large" RANKS 2 MPICH_RANKS 2 TIMEOUT 300)
set_tests_properties(dart_collectives_large.np2 PROPERTIES RUN_SERIAL TRUE)

# The same and the case disabled by default (alltoall and allreduce beyond
# INT_MAX, a gigabyte more and three times as long): opt-in, like
# dart_large_transfer. Naming a disabled Boost.Test case enables it.
if(DART_LARGE_TESTS)
  add_mpi_test(dart_collectives_large_all SOURCES test_collectives_large.cpp LIBRARIES DART::dart
    LABELS "dart;large" RANKS 2 MPICH_RANKS 2 TIMEOUT 600
    ENVIRONMENT "BOOST_TEST_RUN_FILTERS=bcast_and_allgatherv_beyond_int_max:blocks_beyond_the_piece_size:alltoall_and_allreduce_beyond_int_max")
  set_tests_properties(dart_collectives_large_all.np2 PROPERTIES RUN_SERIAL TRUE)
endif()

# The same without the agreement round (DART_COLLECTIVE_CHECKS=0: MPI is
# called directly), except the case of bad input on one unit only, which
# would then wait forever as in MPI.
add_mpi_test(dart_collectives_nochecks EXECUTABLE dart_collectives
  LABELS dart RANKS 2 3 TIMEOUT 120
  ENVIRONMENT "DART_COLLECTIVE_CHECKS=0;BOOST_TEST_RUN_FILTERS=!bad_input_on_one_unit_fails_everywhere")

# Every collective against the raw MPI collective on the same data, at
# block sizes from 0 bytes to 1 MiB that straddle the shared-memory slot
# and round limits, on DART_TEAM_ALL and two sub-teams, plus a long run of
# small collectives (slot reuse). Again without shared memory (MPI RMA
# windows, collectives through MPI) and without the agreement round.
add_mpi_test(dart_collectives_sizes SOURCES test_collectives_sizes.cpp LIBRARIES DART::dart LABELS dart
  RANKS 1 2 3 4 MPICH_RANKS 1 2 3 TIMEOUT 120)
add_mpi_test(dart_collectives_sizes_noshm EXECUTABLE dart_collectives_sizes LABELS dart
  RANKS 2 3 MPICH_RANKS 2 3 TIMEOUT 120 ENVIRONMENT "DART_SHARED_MEMORY=0")
add_mpi_test(dart_collectives_sizes_nochecks EXECUTABLE dart_collectives_sizes LABELS dart
  RANKS 2 3 MPICH_RANKS 2 3 TIMEOUT 120 ENVIRONMENT "DART_COLLECTIVE_CHECKS=0")
# Large calls copy straight between the members' buffers where the node
# allows it (single copy, process_vm_readv); this run keeps them in the
# shared-memory slots, the path of nodes that forbid it.
add_mpi_test(dart_collectives_sizes_slots EXECUTABLE dart_collectives_sizes LABELS dart
  RANKS 2 3 MPICH_RANKS 2 TIMEOUT 120 ENVIRONMENT "DART_COLLECTIVE_SINGLE_COPY=0")

# A single copy the kernel refuses after the probe (here a seccomp filter on
# the odd units) falls back to the slots on every member instead of failing.
# DART_LOG_LEVEL=WARN: the odd units also check the warning of the fallback.
# A root buffer whose end is not mapped fails the call on every unit.
add_mpi_test(dart_collectives_refused_copy SOURCES test_collectives_refused_copy.cpp LIBRARIES DART::dart
  LABELS dart RANKS 2 3 4 MPICH_RANKS 2 3 TIMEOUT 60 ENVIRONMENT "DART_LOG_LEVEL=WARN")
