/*
 * The type-generic shmemx_ names (Sandia OpenSHMEM's; included by shmemx.h).
 * Written by dart/shmem/gen_generic.py from its type tables; edit the
 * generator, not this file.
 *
 * C11: a routine name selects its typed routine by _Generic on the type
 * its first pointer argument points to (qualifiers dropped by lvalue
 * conversion), and the form with a context by the number of arguments.
 * C++: the same names as inline overloads.
 */
#ifndef DART_SHMEMX_GENERIC_H_
#define DART_SHMEMX_GENERIC_H_

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#ifndef DART_SHMEM_CAT
#define DART_SHMEM_CAT_(a, b) a##b
#define DART_SHMEM_CAT(a, b) DART_SHMEM_CAT_(a, b)
#define DART_SHMEM_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N
#define DART_SHMEM_NARGS(...) DART_SHMEM_NARGS_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#endif

#define shmemx_ibput(...) DART_SHMEM_CAT(shmemx_ibput_dart_, DART_SHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmemx_ibput_dart_7(dest, source, dst, sst, bsize, nblocks, pe) _Generic(*(dest), float: shmemx_float_ibput, double: shmemx_double_ibput, long double: shmemx_longdouble_ibput, char: shmemx_char_ibput, signed char: shmemx_schar_ibput, short: shmemx_short_ibput, int: shmemx_int_ibput, long: shmemx_long_ibput, long long: shmemx_longlong_ibput, unsigned char: shmemx_uchar_ibput, unsigned short: shmemx_ushort_ibput, unsigned int: shmemx_uint_ibput, unsigned long: shmemx_ulong_ibput, unsigned long long: shmemx_ulonglong_ibput)(dest, source, dst, sst, bsize, nblocks, pe)
#define shmemx_ibput_dart_8(ctx, dest, source, dst, sst, bsize, nblocks, pe) _Generic(*(dest), float: shmemx_ctx_float_ibput, double: shmemx_ctx_double_ibput, long double: shmemx_ctx_longdouble_ibput, char: shmemx_ctx_char_ibput, signed char: shmemx_ctx_schar_ibput, short: shmemx_ctx_short_ibput, int: shmemx_ctx_int_ibput, long: shmemx_ctx_long_ibput, long long: shmemx_ctx_longlong_ibput, unsigned char: shmemx_ctx_uchar_ibput, unsigned short: shmemx_ctx_ushort_ibput, unsigned int: shmemx_ctx_uint_ibput, unsigned long: shmemx_ctx_ulong_ibput, unsigned long long: shmemx_ctx_ulonglong_ibput)(ctx, dest, source, dst, sst, bsize, nblocks, pe)
#define shmemx_ibget(...) DART_SHMEM_CAT(shmemx_ibget_dart_, DART_SHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define shmemx_ibget_dart_7(dest, source, dst, sst, bsize, nblocks, pe) _Generic(*(dest), float: shmemx_float_ibget, double: shmemx_double_ibget, long double: shmemx_longdouble_ibget, char: shmemx_char_ibget, signed char: shmemx_schar_ibget, short: shmemx_short_ibget, int: shmemx_int_ibget, long: shmemx_long_ibget, long long: shmemx_longlong_ibget, unsigned char: shmemx_uchar_ibget, unsigned short: shmemx_ushort_ibget, unsigned int: shmemx_uint_ibget, unsigned long: shmemx_ulong_ibget, unsigned long long: shmemx_ulonglong_ibget)(dest, source, dst, sst, bsize, nblocks, pe)
#define shmemx_ibget_dart_8(ctx, dest, source, dst, sst, bsize, nblocks, pe) _Generic(*(dest), float: shmemx_ctx_float_ibget, double: shmemx_ctx_double_ibget, long double: shmemx_ctx_longdouble_ibget, char: shmemx_ctx_char_ibget, signed char: shmemx_ctx_schar_ibget, short: shmemx_ctx_short_ibget, int: shmemx_ctx_int_ibget, long: shmemx_ctx_long_ibget, long long: shmemx_ctx_longlong_ibget, unsigned char: shmemx_ctx_uchar_ibget, unsigned short: shmemx_ctx_ushort_ibget, unsigned int: shmemx_ctx_uint_ibget, unsigned long: shmemx_ctx_ulong_ibget, unsigned long long: shmemx_ctx_ulonglong_ibget)(ctx, dest, source, dst, sst, bsize, nblocks, pe)
#define shmemx_sum_inscan(team, dest, source, nelems) _Generic(*(dest), char: shmemx_char_sum_inscan, signed char: shmemx_schar_sum_inscan, short: shmemx_short_sum_inscan, int: shmemx_int_sum_inscan, long: shmemx_long_sum_inscan, long long: shmemx_longlong_sum_inscan, unsigned char: shmemx_uchar_sum_inscan, unsigned short: shmemx_ushort_sum_inscan, unsigned int: shmemx_uint_sum_inscan, unsigned long: shmemx_ulong_sum_inscan, unsigned long long: shmemx_ulonglong_sum_inscan, float: shmemx_float_sum_inscan, double: shmemx_double_sum_inscan, long double: shmemx_longdouble_sum_inscan, DART_SHMEM_COMPLEXD: shmemx_complexd_sum_inscan, DART_SHMEM_COMPLEXF: shmemx_complexf_sum_inscan)(team, dest, source, nelems)
#define shmemx_sum_exscan(team, dest, source, nelems) _Generic(*(dest), char: shmemx_char_sum_exscan, signed char: shmemx_schar_sum_exscan, short: shmemx_short_sum_exscan, int: shmemx_int_sum_exscan, long: shmemx_long_sum_exscan, long long: shmemx_longlong_sum_exscan, unsigned char: shmemx_uchar_sum_exscan, unsigned short: shmemx_ushort_sum_exscan, unsigned int: shmemx_uint_sum_exscan, unsigned long: shmemx_ulong_sum_exscan, unsigned long long: shmemx_ulonglong_sum_exscan, float: shmemx_float_sum_exscan, double: shmemx_double_sum_exscan, long double: shmemx_longdouble_sum_exscan, DART_SHMEM_COMPLEXD: shmemx_complexd_sum_exscan, DART_SHMEM_COMPLEXF: shmemx_complexf_sum_exscan)(team, dest, source, nelems)
#define shmemx_signal_add(...) DART_SHMEM_CAT(dart_shmemx_signal_add_, DART_SHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define dart_shmemx_signal_add_3(sig_addr, signal, pe) shmemx_signal_add(sig_addr, signal, pe)
#define dart_shmemx_signal_add_4(ctx, sig_addr, signal, pe) shmemx_ctx_signal_add(ctx, sig_addr, signal, pe)
#define shmemx_signal_set(...) DART_SHMEM_CAT(dart_shmemx_signal_set_, DART_SHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define dart_shmemx_signal_set_3(sig_addr, signal, pe) shmemx_signal_set(sig_addr, signal, pe)
#define dart_shmemx_signal_set_4(ctx, sig_addr, signal, pe) shmemx_ctx_signal_set(ctx, sig_addr, signal, pe)
#endif /* C11 */

#ifdef __cplusplus
inline void shmemx_ibput(float* dest, const float* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_float_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, float* dest, const float* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_float_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(double* dest, const double* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_double_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, double* dest, const double* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_double_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(long double* dest, const long double* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_longdouble_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, long double* dest, const long double* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_longdouble_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(char* dest, const char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_char_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, char* dest, const char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_char_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(signed char* dest, const signed char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_schar_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, signed char* dest, const signed char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_schar_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(short* dest, const short* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_short_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, short* dest, const short* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_short_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(int* dest, const int* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_int_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, int* dest, const int* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_int_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(long* dest, const long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_long_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, long* dest, const long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_long_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(long long* dest, const long long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_longlong_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, long long* dest, const long long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_longlong_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(unsigned char* dest, const unsigned char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_uchar_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, unsigned char* dest, const unsigned char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_uchar_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(unsigned short* dest, const unsigned short* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ushort_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, unsigned short* dest, const unsigned short* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_ushort_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(unsigned int* dest, const unsigned int* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_uint_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, unsigned int* dest, const unsigned int* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_uint_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(unsigned long* dest, const unsigned long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ulong_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, unsigned long* dest, const unsigned long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_ulong_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(unsigned long long* dest, const unsigned long long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ulonglong_ibput(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibput(shmem_ctx_t ctx, unsigned long long* dest, const unsigned long long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_ulonglong_ibput(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(float* dest, const float* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_float_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, float* dest, const float* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_float_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(double* dest, const double* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_double_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, double* dest, const double* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_double_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(long double* dest, const long double* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_longdouble_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, long double* dest, const long double* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_longdouble_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(char* dest, const char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_char_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, char* dest, const char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_char_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(signed char* dest, const signed char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_schar_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, signed char* dest, const signed char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_schar_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(short* dest, const short* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_short_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, short* dest, const short* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_short_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(int* dest, const int* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_int_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, int* dest, const int* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_int_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(long* dest, const long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_long_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, long* dest, const long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_long_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(long long* dest, const long long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_longlong_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, long long* dest, const long long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_longlong_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(unsigned char* dest, const unsigned char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_uchar_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, unsigned char* dest, const unsigned char* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_uchar_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(unsigned short* dest, const unsigned short* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ushort_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, unsigned short* dest, const unsigned short* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_ushort_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(unsigned int* dest, const unsigned int* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_uint_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, unsigned int* dest, const unsigned int* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_uint_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(unsigned long* dest, const unsigned long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ulong_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, unsigned long* dest, const unsigned long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_ulong_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(unsigned long long* dest, const unsigned long long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ulonglong_ibget(dest, source, dst, sst, bsize, nblocks, pe); }
inline void shmemx_ibget(shmem_ctx_t ctx, unsigned long long* dest, const unsigned long long* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) { shmemx_ctx_ulonglong_ibget(ctx, dest, source, dst, sst, bsize, nblocks, pe); }
inline int shmemx_sum_inscan(shmem_team_t team, char* dest, const char* source, size_t nelems) { return shmemx_char_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, signed char* dest, const signed char* source, size_t nelems) { return shmemx_schar_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, short* dest, const short* source, size_t nelems) { return shmemx_short_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, int* dest, const int* source, size_t nelems) { return shmemx_int_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, long* dest, const long* source, size_t nelems) { return shmemx_long_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, long long* dest, const long long* source, size_t nelems) { return shmemx_longlong_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, unsigned char* dest, const unsigned char* source, size_t nelems) { return shmemx_uchar_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, unsigned short* dest, const unsigned short* source, size_t nelems) { return shmemx_ushort_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, unsigned int* dest, const unsigned int* source, size_t nelems) { return shmemx_uint_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, unsigned long* dest, const unsigned long* source, size_t nelems) { return shmemx_ulong_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, unsigned long long* dest, const unsigned long long* source, size_t nelems) { return shmemx_ulonglong_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, float* dest, const float* source, size_t nelems) { return shmemx_float_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, double* dest, const double* source, size_t nelems) { return shmemx_double_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, long double* dest, const long double* source, size_t nelems) { return shmemx_longdouble_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, DART_SHMEM_COMPLEXD* dest, const DART_SHMEM_COMPLEXD* source, size_t nelems) { return shmemx_complexd_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_inscan(shmem_team_t team, DART_SHMEM_COMPLEXF* dest, const DART_SHMEM_COMPLEXF* source, size_t nelems) { return shmemx_complexf_sum_inscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, char* dest, const char* source, size_t nelems) { return shmemx_char_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, signed char* dest, const signed char* source, size_t nelems) { return shmemx_schar_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, short* dest, const short* source, size_t nelems) { return shmemx_short_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, int* dest, const int* source, size_t nelems) { return shmemx_int_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, long* dest, const long* source, size_t nelems) { return shmemx_long_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, long long* dest, const long long* source, size_t nelems) { return shmemx_longlong_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, unsigned char* dest, const unsigned char* source, size_t nelems) { return shmemx_uchar_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, unsigned short* dest, const unsigned short* source, size_t nelems) { return shmemx_ushort_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, unsigned int* dest, const unsigned int* source, size_t nelems) { return shmemx_uint_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, unsigned long* dest, const unsigned long* source, size_t nelems) { return shmemx_ulong_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, unsigned long long* dest, const unsigned long long* source, size_t nelems) { return shmemx_ulonglong_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, float* dest, const float* source, size_t nelems) { return shmemx_float_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, double* dest, const double* source, size_t nelems) { return shmemx_double_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, long double* dest, const long double* source, size_t nelems) { return shmemx_longdouble_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, DART_SHMEM_COMPLEXD* dest, const DART_SHMEM_COMPLEXD* source, size_t nelems) { return shmemx_complexd_sum_exscan(team, dest, source, nelems); }
inline int shmemx_sum_exscan(shmem_team_t team, DART_SHMEM_COMPLEXF* dest, const DART_SHMEM_COMPLEXF* source, size_t nelems) { return shmemx_complexf_sum_exscan(team, dest, source, nelems); }
inline void shmemx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) { shmemx_ctx_signal_add(ctx, sig_addr, signal, pe); }
inline void shmemx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) { shmemx_ctx_signal_set(ctx, sig_addr, signal, pe); }
#endif /* __cplusplus */

#endif /* DART_SHMEMX_GENERIC_H_ */
