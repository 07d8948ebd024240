// Reductions: what an operation is to MPI and to our own folds, the fold
// loops, and the MPI reduction. Every path that folds (the node engine's
// slots and single copy, the leaders) folds through fold_in_order, so
// every path gives the same bits.
#pragma once

#include <dash/dart/if/dart_types.h>

#include "coll/elements.hpp"
#include "coll/ops.hpp"
#include "coll/types.hpp"

#include <cstddef>
#include <cstring>

namespace dart::coll {

// An operation as MPI applies it, and the MPI view of what it combines.
struct Reduction {
  Elem elem;              // DART_OP_MINMAX: a pair of scalars
  std::size_t count = 0;  // in elem units
  MPI_Op op = MPI_OP_NULL;
  mpi::Op owned;     // MINMAX and user operations
  UserOp user;  // a copy (dart_op_destroy may run meanwhile); fn is NULL for predefined ones
};

// `with_mpi` false: validation and sizes only, no MPI objects (the node
// engine applies operations itself).
Reduction reduction_of(dart_datatype_t dtype, dart_operation_t op, std::size_t nelem, bool with_mpi = true);

// io = in op from, element-wise over n scalars of basic type t (either of
// in and from may be io itself: see the overload below, and fold_in_order,
// which copies a part into the result before folding it there).
void combine_payload(dart_datatype_t t, dart_operation_t op, const unsigned char* in, const unsigned char* from,
                     unsigned char* io, std::size_t n);
// io = in op io.
void combine_payload(dart_datatype_t t, dart_operation_t op, const unsigned char* in, unsigned char* io,
                     std::size_t n);

// The fold of one piece (cnt elements of red, c bytes) of the n members'
// parts into acc, in the one order every path uses, so every path gives
// the same bits: predefined operations left to right (combine_payload
// computes b = a op b with b the running result, from c0 on), user
// operations c0 op (c1 op (... op c(n-1))) (the function computes
// in op inout). part(m, into) gives member m's part, where it is or
// copied into `into` (acc while acc holds no running result, else
// `spare`); NULL stops the fold, and the operation is not called again.
// The first predefined step reads c0 where it is, so it is not copied
// first, and it copies c1 into acc: the copy (the kernel's, for single
// copy) then claims the result's cache lines, and the fold rewrites lines
// this core holds. Copied into `spare` instead, a 1 MiB dart_reduce on 2
// units took 123-125 us against 114-116 (MPI_Reduce 106-109), the fold
// then waiting for each line of the result to arrive before writing it.
template <class Part>
void fold_in_order(const Reduction& red, dart_datatype_t dtype, dart_operation_t op, int n, unsigned char* acc,
                   unsigned char* spare, std::size_t cnt, Part&& part) {
  const std::size_t c = cnt * red.elem.bytes;
  if (red.user.fn) {
    const unsigned char* last = part(n - 1, acc);
    if (!last) return;
    if (last != acc) std::memcpy(acc, last, c);
    for (int m = n - 2; m >= 0; --m) {
      const unsigned char* in = part(m, spare);
      if (!in) return;
      red.user.fn(in, acc, cnt, red.user.userdata);
    }
    return;
  }
  const std::size_t scalars = cnt * (red.elem.bytes / basic_size_or_zero(dtype));
  const unsigned char* run = part(0, acc);
  if (run && n == 1 && run != acc) std::memcpy(acc, run, c);
  for (int m = 1; m < n && run; ++m) {
    const unsigned char* in = part(m, run != acc ? acc : spare);
    if (!in) return;
    combine_payload(dtype, op, in, run, acc, scalars);
    run = acc;
  }
}

inline bool is_logical_op(dart_operation_t op) { return op == DART_OP_LAND || op == DART_OP_LOR || op == DART_OP_LXOR; }

// DART's logical operations yield 0 or 1 (spec 2.3). MPI applies no
// operation at all when the team has one member (the result is a copy of
// sendbuf), so there the result is mapped to truth values here.
void to_truth_values(void* buf, std::size_t n, dart_datatype_t t);

// The MPI reduction of every piece, for dart_reduce (root >= 0) and
// dart_allreduce (root < 0); `result` is NULL where MPI ignores it.
// MPICH 4.0 to 4.1.1 crash in MPI_Reduce with MPI_IN_PLACE at a root other
// than 0 from a few KiB on (pmodels/mpich#6540), so under MPICH such a
// root reduces from a copy of its contribution instead.
void mpi_reduce_pieces(MPI_Comm comm, const void* sendbuf, void* result, bool in_place, const Reduction& red,
                       int root);

}  // namespace dart::coll
