#include "coll/ops.hpp"

#include "coll/types.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dart {

namespace {
// Live user operations. The handle is the descriptor's address, far above
// DART_OP_LAST; the registry rejects stale or made-up handles.
struct UserOps {
  std::mutex mutex;
  std::unordered_map<dart_operation_t, std::unique_ptr<UserOp>> live;
};
UserOps& user_ops() {
  static UserOps ops;
  return ops;
}
}  // namespace

const UserOp* find_user_op(dart_operation_t op) {
  if (op < DART_OP_LAST) return nullptr;
  std::lock_guard<std::mutex> lock(user_ops().mutex);
  auto it = user_ops().live.find(op);
  return it == user_ops().live.end() ? nullptr : it->second.get();
}

}  // namespace dart

using namespace dart;

extern "C" {

dart_ret_t dart_op_create(dart_operator_t op, void* userdata, bool commute, dart_datatype_t dtype, bool dtype_is_tmp,
                          dart_operation_t* new_op) {
  (void)dtype_is_tmp;  // descriptors are not copied per operation, so the promise changes nothing
  if (new_op) *new_op = DART_OP_UNDEFINED;
  return entry("dart_op_create", [&] {
    if (!new_op) invalid("new_op is NULL");
    if (!op) invalid("op is NULL");
    rt();
    if (!type_desc(dtype).contiguous()) invalid("the data type of a user operation must be contiguous");
    auto desc = std::make_unique<UserOp>();
    desc->fn = op;
    desc->userdata = userdata;
    desc->commute = commute;
    desc->dtype = dtype;
    const auto handle = reinterpret_cast<dart_operation_t>(desc.get());
    std::lock_guard<std::mutex> lock(user_ops().mutex);
    user_ops().live.emplace(handle, std::move(desc));
    *new_op = handle;
  });
}

dart_ret_t dart_op_destroy(dart_operation_t* op) {
  return entry("dart_op_destroy", [&] {
    if (!op) invalid("op is NULL");
    if (*op < DART_OP_LAST) invalid("predefined operations cannot be destroyed");
    std::unique_ptr<UserOp> owned;
    {
      std::lock_guard<std::mutex> lock(user_ops().mutex);
      auto it = user_ops().live.find(*op);
      if (it == user_ops().live.end()) invalid("operation " + std::to_string(*op) + " is not a live user operation");
      owned = std::move(it->second);
      user_ops().live.erase(it);
    }
    *op = DART_OP_UNDEFINED;
  });
}

}  // extern "C"
