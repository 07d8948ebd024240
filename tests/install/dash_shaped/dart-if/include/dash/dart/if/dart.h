/* Stands for DASH's own DART headers: a program built on libdart must
 * find libdart's dart.h first. */
#error "the project's own DART headers were used instead of libdart's"
