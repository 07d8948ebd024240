# Locality: the hwloc domain hierarchy, unit hardware info, domain
# manipulation and dart_group_locality_split. The test queries hwloc itself
# to check DART's answers and writes a fixed XML topology for DART to read.
add_mpi_test(dart_locality SOURCES test_locality.cpp LIBRARIES DART::dart PkgConfig::HWLOC LABELS dart
  TIMEOUT 120)
