// User-defined reduction operations (dart_op_create / dart_op_destroy).
#pragma once

#include <dash/dart/if/dart_types.h>

namespace dart {

struct UserOp {
  dart_operator_t fn = nullptr;
  void* userdata = nullptr;
  bool commute = true;
  dart_datatype_t dtype = DART_TYPE_UNDEFINED;
};

// The user operation behind `op`, or nullptr if `op` is not a live one.
const UserOp* find_user_op(dart_operation_t op);

}  // namespace dart
