// Groups: sets of global unit ids (dart_group_t), local objects that never
// communicate. The members are kept ascending and unique, which is the
// order DART promises to every reader.
#pragma once

#include <dash/dart/if/dart_team_group.h>

#include <vector>

struct dart_group_struct {
  std::vector<int> units;  // global unit ids, ascending, unique
};

namespace dart {

// The group behind a handle; throws DART_ERR_INVAL naming `what` when it is
// null.
const dart_group_struct& group_of(const dart_group_t g, const char* what);

// A new group holding `units` (already ascending and unique). The caller
// owns it (dart_group_destroy).
dart_group_t new_group(std::vector<int> units);

}  // namespace dart
