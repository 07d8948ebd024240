# registry_watch: ranks publish host and status objects and watch each
# other's updates. Its test (run at 4 ranks, 2 under MPICH) is registered in
# tests/registry/, because this file is read before the test helpers are.
add_executable(registry_watch ${CMAKE_CURRENT_LIST_DIR}/registry_watch.cpp)
target_link_libraries(registry_watch PRIVATE DART::registry)
