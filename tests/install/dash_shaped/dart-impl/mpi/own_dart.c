/* Stands for DASH's own DART-MPI: defines dart_init, so a program that
 * binds to it instead of libdart's fails at once. */
#include <stdio.h>
#include <stdlib.h>

int dart_base_own_marker(void);

int dart_init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  fputs("the project's own dart_init ran\n", stderr);
  return dart_base_own_marker();
}
