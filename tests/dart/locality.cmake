# Locality: the hwloc domain hierarchy, unit hardware info, domain
# manipulation and dart_group_locality_split. The test queries hwloc itself
# to check DART's answers on the live machine, and feeds DART the fixed
# hwloc XML topologies of topologies/ (see topologies/README.md) through
# HWLOC_XMLFILE; their directory is compiled in (DART_TEST_TOPOLOGY_DIR,
# which the environment variable of the same name overrides).
add_mpi_test(dart_locality SOURCES test_locality.cpp test_locality_domains.cpp
  LIBRARIES DART::dart PkgConfig::HWLOC LABELS dart TIMEOUT 120)
target_compile_definitions(dart_locality PRIVATE
  DART_TEST_TOPOLOGY_DIR="${CMAKE_CURRENT_SOURCE_DIR}/topologies")
