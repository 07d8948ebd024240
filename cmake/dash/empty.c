/* The only source of DASH's dart-mpi and dart-base targets when DASH is
 * built on libdart (dash-hooks.cmake): it defines nothing, so those
 * libraries add no symbol of their own and forward to libdart. */
typedef int dart_for_dash_empty_unit;
