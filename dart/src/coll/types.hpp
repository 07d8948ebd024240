// DART data types as the runtime sees them: the eleven basic types, and the
// derived types made by dart_type_create_{strided,indexed,custom}.
//
// A transfer of `nelem` elements with a type maps element k to a byte
// position relative to the buffer or global pointer it is given. A Layout
// walks those positions as contiguous runs, so copies between two layouts
// (load/store path) and RMA of non-contiguous data (one MPI call per run)
// never materialise the whole list of positions.
#pragma once

#include <dash/dart/if/dart_types.h>

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace dart {

// True for DART_TYPE_BYTE ... DART_TYPE_LONG_DOUBLE.
[[nodiscard]] constexpr bool is_basic_type(dart_datatype_t t) noexcept {
  return t > DART_TYPE_UNDEFINED && t < DART_TYPE_LAST;
}

// Size in bytes of a basic type; throws DART_ERR_INVAL for anything else.
std::size_t basic_type_size(dart_datatype_t t);

// Size in bytes of a basic type, 0 for anything else; for fast paths that
// hand everything else to the checked path.
[[nodiscard]] inline std::size_t basic_size_or_zero(dart_datatype_t t) noexcept {
  static constexpr std::size_t kSizes[] = {0,
                                           1,
                                           sizeof(short),
                                           sizeof(int),
                                           sizeof(unsigned int),
                                           sizeof(long),
                                           sizeof(unsigned long),
                                           sizeof(long long),
                                           sizeof(unsigned long long),
                                           sizeof(float),
                                           sizeof(double),
                                           sizeof(long double)};
  static_assert(sizeof(kSizes) / sizeof(kSizes[0]) == DART_TYPE_LAST, "one size per basic type");
  return is_basic_type(t) ? kSizes[t] : 0;
}

// The MPI type used for a basic type in accumulate-type operations and
// collectives (BYTE is treated as unsigned char there).
MPI_Datatype basic_mpi_type(dart_datatype_t t);

// nelem * size with an overflow check (DART_ERR_INVAL on overflow).
std::size_t checked_bytes(std::size_t nelem, std::size_t elem_size);

struct TypeDesc {
  enum class Kind { Basic, Custom, Strided, Indexed };
  Kind kind = Kind::Basic;
  dart_datatype_t base = DART_TYPE_UNDEFINED;  // basic type of the elements (BYTE for custom)
  std::size_t elem_size = 0;                   // bytes per element
  std::size_t count = 1;                       // elements per repetition of the layout
  std::size_t stride = 0;                      // strided: elements between block starts
  std::vector<std::size_t> blocklen;           // indexed: elements per block
  std::vector<std::size_t> offset;             // indexed: element position of each block
  std::size_t extent = 1;                      // elements one repetition spans (indexed, strided)

  [[nodiscard]] bool contiguous() const noexcept { return kind == Kind::Basic || kind == Kind::Custom; }
};

// The descriptor of `t` (basic or a live derived type); DART_ERR_INVAL
// otherwise. Lookups of derived types take a lock; basic types do not.
const TypeDesc& type_desc(dart_datatype_t t);

// Contiguous runs of a transfer of `nelem` elements laid out by `t`.
class Layout {
 public:
  Layout(const TypeDesc& t, std::size_t nelem);
  // Next run as (byte offset, byte length); false when exhausted.
  bool next(std::size_t* offset, std::size_t* length);
  [[nodiscard]] std::size_t total_bytes() const noexcept { return total_; }
  // Bytes from the start to one past the last byte touched.
  [[nodiscard]] std::size_t span_bytes() const noexcept { return span_; }

 private:
  const TypeDesc& t_;
  std::size_t nelem_;
  std::size_t done_ = 0;   // elements emitted
  std::size_t block_ = 0;  // indexed: next block within the repetition
  std::size_t total_ = 0;
  std::size_t span_ = 0;
};

// Bytes a put/get of `nelem` elements moves between `src` and `dst`
// layouts, after checking that the pair is allowed (same base type and
// element size; nelem a multiple of every non-contiguous element count).
std::size_t check_transfer_types(std::size_t nelem, const TypeDesc& src, const TypeDesc& dst);

// Calls fn(src_offset, dst_offset, length) for each piece where the runs of
// the two layouts overlap, in element order.
template <class Fn>
void for_each_matched_run(Layout src, Layout dst, Fn&& fn) {
  std::size_t so = 0, sl = 0, doff = 0, dl = 0;
  bool have_s = src.next(&so, &sl);
  bool have_d = dst.next(&doff, &dl);
  while (have_s && have_d) {
    const std::size_t n = sl < dl ? sl : dl;
    fn(so, doff, n);
    so += n;
    sl -= n;
    doff += n;
    dl -= n;
    if (sl == 0) have_s = src.next(&so, &sl);
    if (dl == 0) have_d = dst.next(&doff, &dl);
  }
}

}  // namespace dart
