/* Stands for DASH's dart-base: must not be linked into the program. */
#include <stdio.h>
#include <stdlib.h>

int dart_base_own_marker(void) {
  fputs("the project's own dart-base ran\n", stderr);
  abort();
}
