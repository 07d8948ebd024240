/* The real values: compiled against the installed OpenPMIx headers only
 * (see CMakeLists.txt), never against the shim's. */
#include <pmix_common.h>

#include "compat_constants.h"

#define PMIXSHIM_INT_ROW(c) {#c, (long long)(c)},
#define PMIXSHIM_KEY_ROW(c) {#c, c},

const struct pmixshim_compat_int pmixshim_compat_real_ints[] = {PMIXSHIM_COMPAT_INTS(PMIXSHIM_INT_ROW)};
const size_t pmixshim_compat_real_nints = sizeof pmixshim_compat_real_ints / sizeof pmixshim_compat_real_ints[0];
const struct pmixshim_compat_key pmixshim_compat_real_keys[] = {PMIXSHIM_COMPAT_KEYS(PMIXSHIM_KEY_ROW)};
const size_t pmixshim_compat_real_nkeys = sizeof pmixshim_compat_real_keys / sizeof pmixshim_compat_real_keys[0];

#define PMIXSHIM_IS_LONG(x) _Generic((x), long: 1, default: 0)
const struct pmixshim_compat_version pmixshim_compat_real_version = {
    PMIX_VERSION_MAJOR, PMIX_VERSION_MINOR, PMIX_VERSION_RELEASE, PMIX_NUMERIC_VERSION,
    PMIXSHIM_IS_LONG(PMIX_VERSION_MAJOR) && PMIXSHIM_IS_LONG(PMIX_VERSION_MINOR) &&
        PMIXSHIM_IS_LONG(PMIX_VERSION_RELEASE)};
