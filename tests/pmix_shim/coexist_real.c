/* The half of test_pmix_coexist that sees the REAL PMIx headers (Open MPI's
 * libpmix).  It must never include the shim's headers: both define the same
 * PMIx names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pmix.h>
#include <pmix_server.h>
#include <stdio.h>
#include <string.h>

/* Fills version with the real library's version string and lib with the
 * file that defines PMIx_server_init; returns PMIx_Initialized(). */
int coexist_real_probe(char *version, size_t vlen, char *lib, size_t llen) {
  snprintf(version, vlen, "%s", PMIx_Get_version());
  Dl_info info;
  void *sym = dlsym(RTLD_DEFAULT, "PMIx_server_init");
  if (sym && dladdr(sym, &info) && info.dli_fname) snprintf(lib, llen, "%s", info.dli_fname);
  else snprintf(lib, llen, "(none)");
  /* The program's own reference to PMIx_server_init (through the link,
   * not dlsym) must be the same function: the real one. */
  pmix_status_t (*volatile linked)(pmix_server_module_t *, pmix_info_t *, size_t) = PMIx_server_init;
  if ((void *)linked != sym) return -1;
  return PMIx_Initialized() ? 1 : 0;
}

/* The real library's name for a status code (checks a second entry point). */
const char *coexist_real_error_string(int st) { return PMIx_Error_string(st); }
