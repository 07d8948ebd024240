// The reductions of reduction.hpp: validating an operation and making its
// MPI objects, the fold loops, and the MPI reduction in pieces.
#include "coll/reduction.hpp"

#include "abort.hpp"
#include "coll/pieces.hpp"
#include "core/activity.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dart::coll {

namespace {

mpi::Op create_op(MPI_User_function* fn, bool commute) {
  mpi::Op owned;
  mpi_check(MPI_Op_create(fn, commute ? 1 : 0, owned.out()), "MPI_Op_create");
  return owned;
}

bool is_integer_type(dart_datatype_t t) { return t >= DART_TYPE_BYTE && t <= DART_TYPE_ULONGLONG; }

// DART_OP_MINMAX on pairs of T (spec 2.3): the first components reduce
// with min, the second with max. len counts pairs.
template <class T>
void minmax_pairs(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i, a += 2, b += 2) {
    if (a[DART_OP_MINMAX_MIN] < b[DART_OP_MINMAX_MIN]) b[DART_OP_MINMAX_MIN] = a[DART_OP_MINMAX_MIN];
    if (a[DART_OP_MINMAX_MAX] > b[DART_OP_MINMAX_MAX]) b[DART_OP_MINMAX_MAX] = a[DART_OP_MINMAX_MAX];
  }
}

MPI_User_function* minmax_function(dart_datatype_t t) {
  switch (t) {
    case DART_TYPE_BYTE: return &minmax_pairs<unsigned char>;
    case DART_TYPE_SHORT: return &minmax_pairs<short>;
    case DART_TYPE_INT: return &minmax_pairs<int>;
    case DART_TYPE_UINT: return &minmax_pairs<unsigned int>;
    case DART_TYPE_LONG: return &minmax_pairs<long>;
    case DART_TYPE_ULONG: return &minmax_pairs<unsigned long>;
    case DART_TYPE_LONGLONG: return &minmax_pairs<long long>;
    case DART_TYPE_ULONGLONG: return &minmax_pairs<unsigned long long>;
    case DART_TYPE_FLOAT: return &minmax_pairs<float>;
    case DART_TYPE_DOUBLE: return &minmax_pairs<double>;
    case DART_TYPE_LONG_DOUBLE: return &minmax_pairs<long double>;
    default: break;
  }
  invalid("DART_OP_MINMAX needs a basic type, not data type " + type_name(t));
}

// User operations. MPI hands its user functions no context pointer, so the
// operation of the reduction in progress is found through a thread-local
// pointer that the reduction sets around its MPI calls (UserOpScope). MPI
// runs the reduction steps of a blocking collective on the thread that
// called it (Open MPI 4.1's coll/tuned and MPICH 4.0's algorithms combine
// data in the caller after each receive), so concurrent reductions on
// different threads each see their own operation, with no lock and no
// limit on their number. Should a library ever call the function from
// another thread, it finds no operation and the job aborts with a message
// rather than computing wrong results.
thread_local const UserOp* t_user_op = nullptr;

void apply_user_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const UserOp* op = t_user_op;
  if (!op) {
    log(LogLevel::Error, "dart_reduce/dart_allreduce",
        "the MPI library called a user operation outside the thread of its reduction; aborting the job");
    mpifix::abort_job(MPI_COMM_WORLD, DART_EXIT_ABORT);
  }
  op->fn(in, inout, static_cast<std::size_t>(*len), op->userdata);
}

class UserOpScope {
 public:
  explicit UserOpScope(const UserOp* op) : saved_(std::exchange(t_user_op, op)) {}
  ~UserOpScope() { t_user_op = saved_; }
  UserOpScope(const UserOpScope&) = delete;
  UserOpScope& operator=(const UserOpScope&) = delete;

 private:
  const UserOp* saved_;
};

}  // namespace

// The fold loops compiled for the widest vector unit the CPU has, chosen
// once when the library is loaded (an ifunc): a default build targets the
// baseline x86-64 ISA, whose SSE2 adds two doubles at a time. On the
// root of a 1 MiB dart_reduce of doubles (2 units, AVX-512 CPU) the SSE2
// fold held 37% of the samples, where Open MPI's AVX-512 operation held
// 22% of MPI_Reduce's; the call as a whole gained 1-4% at 1 MiB and 3-9%
// at 64 KiB (the rest is reading the other's data and writing the
// result). Each element is still a op b on its own, so every clone gives
// the same bits. Not under the sanitizers: their instrumented ifunc
// resolver runs while the library is relocated, before their runtime is
// set up (a ThreadSanitizer build crashed at load).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
// The loops below are inlined into each clone, which compiles them for its
// target.
#define DART_FOLD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define DART_FOLD_INLINE __attribute__((always_inline)) inline
#else
#define DART_FOLD_CLONES
#define DART_FOLD_INLINE inline
#endif

// One step of a predefined operation on n scalars of T, unaligned.
// Integer arithmetic wraps (as in MPI), so it runs in the unsigned type.
template <class T, bool = std::is_integral<T>::value>
struct Arith {
  using type = T;
};
template <class T>
struct Arith<T, true> {
  using type = unsigned long long;  // wraps; truncating the result is exact
};

// out = a op b element-wise over n scalars of T, a from `in` and b from
// `from` (unaligned; a fold calls it with b the running result, usually
// from == out). The operation is chosen once per call, not per element,
// so the loops vectorise.
template <class T, class F>
DART_FOLD_INLINE void combine_each(const unsigned char* in, const unsigned char* from, unsigned char* out,
                                   std::size_t n, F f) {
  // Element i reads in[i] and from[i] and writes out[i] only; each of
  // `in` and `from` is `out` or apart from it.
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, in + i * sizeof(T), sizeof(T));
    std::memcpy(&b, from + i * sizeof(T), sizeof(T));
    b = f(a, b);
    std::memcpy(out + i * sizeof(T), &b, sizeof(T));
  }
}

template <class T>
DART_FOLD_INLINE void combine_scalars(dart_operation_t op, const unsigned char* in, const unsigned char* from,
                                      unsigned char* io, std::size_t n) {
  using A = typename Arith<T>::type;
  switch (op) {
    case DART_OP_MIN: combine_each<T>(in, from, io, n, [](T a, T b) { return a < b ? a : b; }); return;
    case DART_OP_MAX: combine_each<T>(in, from, io, n, [](T a, T b) { return a > b ? a : b; }); return;
    case DART_OP_SUM:
      combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(static_cast<A>(a) + static_cast<A>(b)); });
      return;
    case DART_OP_PROD:
      combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(static_cast<A>(a) * static_cast<A>(b)); });
      return;
    case DART_OP_LAND: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>((a != 0) && (b != 0)); }); return;
    case DART_OP_LOR: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>((a != 0) || (b != 0)); }); return;
    case DART_OP_LXOR: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>((a != 0) != (b != 0)); }); return;
    case DART_OP_MINMAX:
      // Pairs: the first component reduces with min, the second with max.
      for (std::size_t i = 0; i + 1 < n; i += 2) {
        combine_each<T>(in + (i + DART_OP_MINMAX_MIN) * sizeof(T), from + (i + DART_OP_MINMAX_MIN) * sizeof(T),
                        io + (i + DART_OP_MINMAX_MIN) * sizeof(T), 1,
                        [](T a, T b) { return a < b ? a : b; });
        combine_each<T>(in + (i + DART_OP_MINMAX_MAX) * sizeof(T), from + (i + DART_OP_MINMAX_MAX) * sizeof(T),
                        io + (i + DART_OP_MINMAX_MAX) * sizeof(T), 1,
                        [](T a, T b) { return a > b ? a : b; });
      }
      return;
    default: break;
  }
  if constexpr (std::is_integral<T>::value) {
    switch (op) {
      case DART_OP_BAND: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(a & b); }); return;
      case DART_OP_BOR: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(a | b); }); return;
      case DART_OP_BXOR: combine_each<T>(in, from, io, n, [](T a, T b) { return static_cast<T>(a ^ b); }); return;
      default: break;
    }
  }
}

DART_FOLD_CLONES void combine_payload(dart_datatype_t t, dart_operation_t op, const unsigned char* in,
                                      const unsigned char* from, unsigned char* io, std::size_t n) {
  switch (t) {
    case DART_TYPE_BYTE: combine_scalars<unsigned char>(op, in, from, io, n); return;
    case DART_TYPE_SHORT: combine_scalars<short>(op, in, from, io, n); return;
    case DART_TYPE_INT: combine_scalars<int>(op, in, from, io, n); return;
    case DART_TYPE_UINT: combine_scalars<unsigned int>(op, in, from, io, n); return;
    case DART_TYPE_LONG: combine_scalars<long>(op, in, from, io, n); return;
    case DART_TYPE_ULONG: combine_scalars<unsigned long>(op, in, from, io, n); return;
    case DART_TYPE_LONGLONG: combine_scalars<long long>(op, in, from, io, n); return;
    case DART_TYPE_ULONGLONG: combine_scalars<unsigned long long>(op, in, from, io, n); return;
    case DART_TYPE_FLOAT: combine_scalars<float>(op, in, from, io, n); return;
    case DART_TYPE_DOUBLE: combine_scalars<double>(op, in, from, io, n); return;
    case DART_TYPE_LONG_DOUBLE: combine_scalars<long double>(op, in, from, io, n); return;
    default: return;
  }
}

void combine_payload(dart_datatype_t t, dart_operation_t op, const unsigned char* in, unsigned char* io,
                     std::size_t n) {
  combine_payload(t, op, in, io, io, n);
}

Reduction reduction_of(dart_datatype_t dtype, dart_operation_t op, std::size_t nelem, bool with_mpi) {
  Reduction red;
  if (op >= DART_OP_LAST) {
    const UserOp* u = find_user_op(op);
    if (!u) invalid("operation " + std::to_string(op) + " is neither predefined nor a live user operation");
    red.user = *u;
    if (red.user.dtype != dtype)
      invalid("user operation " + std::to_string(op) + " was created for data type " + type_name(red.user.dtype) +
              ", not " + type_name(dtype));
    red.count = nelem;
    if (!with_mpi) {
      red.elem.bytes = elem_bytes(dtype);
      return red;
    }
    red.elem = elem_of(dtype);
    red.owned = create_op(&apply_user_op, red.user.commute);
    red.op = red.owned.get();
    return red;
  }
  if (type_desc(dtype).kind != TypeDesc::Kind::Basic)
    invalid("predefined operations reduce basic types only, not data type " + type_name(dtype) +
            " (use dart_op_create)");
  switch (op) {
    case DART_OP_MIN: red.op = MPI_MIN; break;
    case DART_OP_MAX: red.op = MPI_MAX; break;
    case DART_OP_SUM: red.op = MPI_SUM; break;
    case DART_OP_PROD: red.op = MPI_PROD; break;
    case DART_OP_BAND: red.op = MPI_BAND; break;
    case DART_OP_LAND: red.op = MPI_LAND; break;
    case DART_OP_BOR: red.op = MPI_BOR; break;
    case DART_OP_LOR: red.op = MPI_LOR; break;
    case DART_OP_BXOR: red.op = MPI_BXOR; break;
    case DART_OP_LXOR: red.op = MPI_LXOR; break;
    case DART_OP_MINMAX: {
      if (nelem % 2 != 0) invalid("DART_OP_MINMAX reduces pairs, so nelem must be even, not " + std::to_string(nelem));
      (void)minmax_function(dtype);  // rejects types that are not basic
      red.elem.bytes = 2 * basic_type_size(dtype);
      red.count = nelem / 2;
      if (!with_mpi) return red;
      MPI_Datatype pair = MPI_DATATYPE_NULL;
      mpi_check(MPI_Type_contiguous(2, basic_mpi_type(dtype), &pair), "MPI_Type_contiguous");
      red.elem.owned = commit_type(pair);
      red.elem.type = red.elem.owned.get();
      red.elem.bytes = 2 * basic_type_size(dtype);
      red.count = nelem / 2;
      red.owned = create_op(minmax_function(dtype), true);
      red.op = red.owned.get();
      return red;
    }
    default: invalid("operation " + std::to_string(op) + " is not allowed in reductions");
  }
  if (op >= DART_OP_BAND && op <= DART_OP_LXOR && !is_integer_type(dtype))
    invalid("bitwise and logical operations need an integer type, not data type " + type_name(dtype));
  red.count = nelem;
  if (!with_mpi) {
    red.elem.bytes = basic_type_size(dtype);
    return red;
  }
  red.elem = elem_of(dtype);
  return red;
}

template <class T>
void to_truth_values(void* buf, std::size_t n) {
  T* v = static_cast<T*>(buf);
  for (std::size_t i = 0; i < n; ++i) v[i] = v[i] != 0 ? T(1) : T(0);
}

void to_truth_values(void* buf, std::size_t n, dart_datatype_t t) {
  switch (t) {
    case DART_TYPE_BYTE: to_truth_values<unsigned char>(buf, n); return;
    case DART_TYPE_SHORT: to_truth_values<short>(buf, n); return;
    case DART_TYPE_INT: to_truth_values<int>(buf, n); return;
    case DART_TYPE_UINT: to_truth_values<unsigned int>(buf, n); return;
    case DART_TYPE_LONG: to_truth_values<long>(buf, n); return;
    case DART_TYPE_ULONG: to_truth_values<unsigned long>(buf, n); return;
    case DART_TYPE_LONGLONG: to_truth_values<long long>(buf, n); return;
    case DART_TYPE_ULONGLONG: to_truth_values<unsigned long long>(buf, n); return;
    default: break;
  }
  invalid("logical operations need an integer type, not data type " + type_name(t));
}

// The MPI reduction of every piece, for dart_reduce (root >= 0) and
// dart_allreduce (root < 0); `result` is NULL where MPI ignores it.
// MPICH 4.0 to 4.1.1 crash in MPI_Reduce with MPI_IN_PLACE at a root other
// than 0 from a few KiB on (pmodels/mpich#6540), so under MPICH such a
// root reduces from a copy of its contribution instead.
void mpi_reduce_pieces(MPI_Comm comm, const void* sendbuf, void* result, bool in_place, const Reduction& red,
                       int root) {
  const Elem& e = red.elem;
  std::vector<unsigned char> staged;
#ifdef MPICH_NUMVERSION
  if (in_place && root > 0) {
    const auto* r = static_cast<const unsigned char*>(result);
    staged.assign(r, r + red.count * e.bytes);
    sendbuf = staged.data();
    in_place = false;
  }
#endif
  const UserOpScope scope(red.user.fn ? &red.user : nullptr);
  for_each_piece(red.count, piece_limit(e, 1), [&](std::size_t first, int n) {
    const void* src = in_place ? MPI_IN_PLACE : at(sendbuf, first, e);
    activity::InMpi in_mpi;
    if (root < 0) mpi_check(MPI_Allreduce(src, at(result, first, e), n, e.type, red.op, comm), "MPI_Allreduce");
    else mpi_check(MPI_Reduce(src, at(result, first, e), n, e.type, red.op, root, comm), "MPI_Reduce");
  });
}

}  // namespace dart::coll
