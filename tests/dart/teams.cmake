add_mpi_test(dart_teams SOURCES test_teams.cpp LIBRARIES DART::dart RMA_VARIANT LABELS dart TIMEOUT 180)
