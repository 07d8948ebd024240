/*
 * dart_util.h -- attribute helper macros of the DART interface.
 *
 * Provides DART_NOTHROW (GNU nothrow attribute in C++, empty in C),
 * DART_MAYBE_UNUSED and DART_INLINE (static inline without "unused
 * function" warnings) for the other public DART headers. Contains macros
 * only: no includes, no declarations, no extern "C" block.
 */
#ifndef DART_UTIL_H_
#define DART_UTIL_H_

#define DART_INTERFACE_ON

/*
 * Placed after the parameter list of a prototype. In C++ it tells the
 * compiler that the function never throws; DART functions must therefore
 * never let a C++ exception escape. Expands to nothing in C.
 */
#ifdef __cplusplus
#define DART_NOTHROW __attribute__((nothrow))
#else
#define DART_NOTHROW
#endif

/* Marks an entity that may legitimately be left unused. */
#define DART_MAYBE_UNUSED __attribute__((unused))

/* Linkage of helper functions defined in the public headers. */
#define DART_INLINE static inline DART_MAYBE_UNUSED

#define DART_INTERFACE_OFF

#endif /* DART_UTIL_H_ */
