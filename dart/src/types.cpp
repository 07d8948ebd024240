#include "types.hpp"

#include "error.hpp"

#include <string>

namespace dart {

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

std::size_t checked_bytes(std::size_t nelem, std::size_t elem_size) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(nelem, elem_size, &bytes))
    invalid(std::to_string(nelem) + " elements of " + std::to_string(elem_size) +
            " bytes overflow size_t");
  return bytes;
}

}  // namespace dart
