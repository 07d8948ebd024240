#include "coll/types.hpp"

#include "core/error.hpp"
#include "core/runtime.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dart {

namespace {

// Descriptors of the basic types, indexed by their value.
const TypeDesc* basic_descs() {
  static const auto* table = [] {
    auto* t = new TypeDesc[DART_TYPE_LAST];
    for (dart_datatype_t i = DART_TYPE_BYTE; i < DART_TYPE_LAST; ++i) {
      t[i].kind = TypeDesc::Kind::Basic;
      t[i].base = i;
      t[i].elem_size = basic_type_size(i);
    }
    return t;
  }();
  return table;
}

// Derived types live until dart_type_destroy. The handle is the address of
// the descriptor (values far above DART_TYPE_LAST); the registry lets a
// stale or made-up handle be rejected instead of dereferenced.
struct DerivedTypes {
  std::mutex mutex;
  std::unordered_map<dart_datatype_t, std::unique_ptr<TypeDesc>> live;
};
DerivedTypes& derived() {
  static DerivedTypes d;
  return d;
}

dart_datatype_t publish(std::unique_ptr<TypeDesc> desc) {
  const auto handle = reinterpret_cast<dart_datatype_t>(desc.get());
  std::lock_guard<std::mutex> lock(derived().mutex);
  derived().live.emplace(handle, std::move(desc));
  return handle;
}

const TypeDesc& contiguous_base(dart_datatype_t basetype) {
  const TypeDesc& b = type_desc(basetype);
  if (!b.contiguous()) invalid("the base type must be a basic or custom type");
  return b;
}

void check_int(std::size_t v, const char* what) {
  if (v > static_cast<std::size_t>(INT_MAX)) invalid(std::string(what) + " exceeds INT_MAX");
}

}  // namespace

std::size_t basic_type_size(dart_datatype_t t) {
  switch (t) {
    case DART_TYPE_BYTE: return 1;
    case DART_TYPE_SHORT: return sizeof(short);
    case DART_TYPE_INT: return sizeof(int);
    case DART_TYPE_UINT: return sizeof(unsigned int);
    case DART_TYPE_LONG: return sizeof(long);
    case DART_TYPE_ULONG: return sizeof(unsigned long);
    case DART_TYPE_LONGLONG: return sizeof(long long);
    case DART_TYPE_ULONGLONG: return sizeof(unsigned long long);
    case DART_TYPE_FLOAT: return sizeof(float);
    case DART_TYPE_DOUBLE: return sizeof(double);
    case DART_TYPE_LONG_DOUBLE: return sizeof(long double);
    default: break;
  }
  invalid("data type " + std::to_string(static_cast<long long>(t)) + " is not a basic DART type");
}

MPI_Datatype basic_mpi_type(dart_datatype_t t) {
  switch (t) {
    case DART_TYPE_BYTE: return MPI_UNSIGNED_CHAR;
    case DART_TYPE_SHORT: return MPI_SHORT;
    case DART_TYPE_INT: return MPI_INT;
    case DART_TYPE_UINT: return MPI_UNSIGNED;
    case DART_TYPE_LONG: return MPI_LONG;
    case DART_TYPE_ULONG: return MPI_UNSIGNED_LONG;
    case DART_TYPE_LONGLONG: return MPI_LONG_LONG;
    case DART_TYPE_ULONGLONG: return MPI_UNSIGNED_LONG_LONG;
    case DART_TYPE_FLOAT: return MPI_FLOAT;
    case DART_TYPE_DOUBLE: return MPI_DOUBLE;
    case DART_TYPE_LONG_DOUBLE: return MPI_LONG_DOUBLE;
    default: break;
  }
  invalid("data type " + std::to_string(static_cast<long long>(t)) + " is not a basic DART type");
}

std::size_t checked_bytes(std::size_t nelem, std::size_t elem_size) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(nelem, elem_size, &bytes))
    invalid(std::to_string(nelem) + " elements of " + std::to_string(elem_size) + " bytes overflow size_t");
  return bytes;
}

const TypeDesc& type_desc(dart_datatype_t t) {
  if (is_basic_type(t)) return basic_descs()[t];
  {
    std::lock_guard<std::mutex> lock(derived().mutex);
    auto it = derived().live.find(t);
    if (it != derived().live.end()) return *it->second;
  }
  invalid("data type " + std::to_string(static_cast<long long>(t)) +
          " is neither a basic type nor a live derived type");
}

Layout::Layout(const TypeDesc& t, std::size_t nelem) : t_(t), nelem_(nelem) {
  total_ = checked_bytes(nelem, t.elem_size);
  if (nelem == 0) return;
  switch (t.kind) {
    case TypeDesc::Kind::Basic:
    case TypeDesc::Kind::Custom: span_ = total_; break;
    case TypeDesc::Kind::Strided: {
      const std::size_t blocks = nelem / t.count;
      span_ = checked_bytes((blocks - 1) * t.stride + t.count, t.elem_size);
      break;
    }
    case TypeDesc::Kind::Indexed: {
      const std::size_t reps = nelem / t.count;
      std::size_t hi = 0;
      for (std::size_t b = 0; b < t.blocklen.size(); ++b)
        if (t.blocklen[b] > 0) hi = std::max(hi, t.offset[b] + t.blocklen[b]);
      span_ = checked_bytes((reps - 1) * t.extent + hi, t.elem_size);
      break;
    }
  }
}

bool Layout::next(std::size_t* offset, std::size_t* length) {
  if (done_ >= nelem_) return false;
  const std::size_t es = t_.elem_size;
  switch (t_.kind) {
    case TypeDesc::Kind::Basic:
    case TypeDesc::Kind::Custom:
      *offset = 0;
      *length = total_;
      done_ = nelem_;
      return true;
    case TypeDesc::Kind::Strided: {
      const std::size_t block = done_ / t_.count;
      *offset = block * t_.stride * es;
      *length = t_.count * es;
      done_ += t_.count;
      return true;
    }
    case TypeDesc::Kind::Indexed: {
      // Skip empty blocks; every repetition has count > 0 elements.
      while (t_.blocklen[block_] == 0) block_ = (block_ + 1) % t_.blocklen.size();
      const std::size_t rep = done_ / t_.count;
      *offset = (rep * t_.extent + t_.offset[block_]) * es;
      *length = t_.blocklen[block_] * es;
      done_ += t_.blocklen[block_];
      block_ = (block_ + 1) % t_.blocklen.size();
      return true;
    }
  }
  return false;
}

std::size_t check_transfer_types(std::size_t nelem, const TypeDesc& src, const TypeDesc& dst) {
  if (src.base != dst.base || src.elem_size != dst.elem_size)
    invalid("source and destination types have different base types");
  if ((src.count != 1 && nelem % src.count != 0) || (dst.count != 1 && nelem % dst.count != 0))
    invalid(std::to_string(nelem) + " elements is not a multiple of the element count of a non-contiguous type");
  return checked_bytes(nelem, src.elem_size);
}

}  // namespace dart

using namespace dart;

extern "C" {

dart_ret_t dart_type_create_strided(dart_datatype_t basetype, size_t stride, size_t blocklen,
                                    dart_datatype_t* newtype) {
  return entry("dart_type_create_strided", [&] {
    if (!newtype) invalid("newtype is NULL");
    *newtype = DART_TYPE_UNDEFINED;
    rt();
    const TypeDesc& b = contiguous_base(basetype);
    check_int(stride, "stride");
    check_int(blocklen, "blocklen");
    if (blocklen == 0) invalid("blocklen is 0");
    auto d = std::make_unique<TypeDesc>();
    d->kind = TypeDesc::Kind::Strided;
    d->base = b.base;
    d->elem_size = b.elem_size;
    d->count = blocklen;
    d->stride = stride;
    d->extent = stride;
    *newtype = publish(std::move(d));
  });
}

dart_ret_t dart_type_create_indexed(dart_datatype_t basetype, size_t count, const size_t blocklen[],
                                    const size_t offset[], dart_datatype_t* newtype) {
  return entry("dart_type_create_indexed", [&] {
    if (!newtype) invalid("newtype is NULL");
    *newtype = DART_TYPE_UNDEFINED;
    rt();
    const TypeDesc& b = contiguous_base(basetype);
    check_int(count, "count");
    if (count == 0) invalid("count is 0");
    if (!blocklen || !offset) invalid("blocklen or offset is NULL");
    auto d = std::make_unique<TypeDesc>();
    d->kind = TypeDesc::Kind::Indexed;
    d->base = b.base;
    d->elem_size = b.elem_size;
    d->blocklen.assign(blocklen, blocklen + count);
    d->offset.assign(offset, offset + count);
    std::size_t total = 0, lo = SIZE_MAX, hi = 0;
    for (std::size_t i = 0; i < count; ++i) {
      check_int(blocklen[i], "a block length");
      check_int(offset[i], "an offset");
      total += blocklen[i];
      if (blocklen[i] == 0) continue;
      lo = std::min(lo, offset[i]);
      hi = std::max(hi, offset[i] + blocklen[i]);
    }
    if (total == 0) invalid("all blocks are empty");
    d->count = total;
    d->extent = hi - lo;  // as MPI_Type_indexed: lowest to one past highest
    *newtype = publish(std::move(d));
  });
}

dart_ret_t dart_type_create_custom(size_t num_bytes, dart_datatype_t* newtype) {
  return entry("dart_type_create_custom", [&] {
    if (!newtype) invalid("newtype is NULL");
    *newtype = DART_TYPE_UNDEFINED;
    rt();
    check_int(num_bytes, "num_bytes");
    if (num_bytes == 0) invalid("num_bytes is 0");
    auto d = std::make_unique<TypeDesc>();
    d->kind = TypeDesc::Kind::Custom;
    d->base = DART_TYPE_BYTE;
    d->elem_size = num_bytes;
    *newtype = publish(std::move(d));
  });
}

dart_ret_t dart_type_destroy(dart_datatype_t* dart_type) {
  return entry("dart_type_destroy", [&] {
    if (!dart_type) invalid("dart_type is NULL");
    if (is_basic_type(*dart_type)) invalid("basic types cannot be destroyed");
    std::unique_ptr<TypeDesc> owned;
    {
      std::lock_guard<std::mutex> lock(derived().mutex);
      auto it = derived().live.find(*dart_type);
      if (it == derived().live.end())
        invalid("data type " + std::to_string(static_cast<long long>(*dart_type)) + " is not a live derived type");
      owned = std::move(it->second);
      derived().live.erase(it);
    }
    *dart_type = DART_TYPE_UNDEFINED;
  });
}

}  // extern "C"
