/* The constants the shim's headers share with OpenPMIx 4.2, as one list
 * that two translation units expand: compat_real.c against the installed
 * OpenPMIx headers, test_pmix_compat.cpp against ours.  One list, so a
 * constant cannot be compared on one side only.  Constants OpenPMIx 4.2
 * lacks (PMIX_ERR_IOF_XOFF, PMIX_CAP_IOF_FLOW_CONTROL) are checked in the
 * test against OpenPMIx 7's values directly.  No PMIx header is included
 * here: the includer brings its own. */
#ifndef PMIXSHIM_COMPAT_CONSTANTS_H
#define PMIXSHIM_COMPAT_CONSTANTS_H

#include <stddef.h>

#define PMIXSHIM_COMPAT_INTS(X)                                                          \
  /* sizes */                                                                          \
  X(PMIX_MAX_NSLEN) X(PMIX_MAX_KEYLEN)                                                 \
  /* ranks */                                                                          \
  X(PMIX_RANK_UNDEF) X(PMIX_RANK_WILDCARD) X(PMIX_RANK_LOCAL_NODE) X(PMIX_RANK_INVALID) \
  X(PMIX_RANK_VALID)                                                                   \
  /* status codes */                                                                   \
  X(PMIX_SUCCESS) X(PMIX_ERROR) X(PMIX_ERR_EXISTS) X(PMIX_ERR_INVALID_CRED)            \
  X(PMIX_ERR_WOULD_BLOCK) X(PMIX_ERR_UNPACK_FAILURE) X(PMIX_ERR_NO_PERMISSIONS)        \
  X(PMIX_ERR_TIMEOUT) X(PMIX_ERR_UNREACH) X(PMIX_ERR_BAD_PARAM)                        \
  X(PMIX_ERR_RESOURCE_BUSY) X(PMIX_ERR_OUT_OF_RESOURCE) X(PMIX_ERR_INIT)               \
  X(PMIX_ERR_NOMEM) X(PMIX_ERR_NOT_FOUND) X(PMIX_ERR_NOT_SUPPORTED)                    \
  X(PMIX_ERR_COMM_FAILURE) X(PMIX_ERR_LOST_CONNECTION) X(PMIX_ERR_NOT_AVAILABLE)       \
  X(PMIX_OPERATION_IN_PROGRESS) X(PMIX_OPERATION_SUCCEEDED) X(PMIX_ERR_IOF_FAILURE)    \
  X(PMIX_ERR_IOF_COMPLETE) X(PMIX_EXTERNAL_ERR_BASE)                                   \
  /* data types */                                                                     \
  X(PMIX_UNDEF) X(PMIX_BOOL) X(PMIX_BYTE) X(PMIX_STRING) X(PMIX_SIZE) X(PMIX_PID)      \
  X(PMIX_INT) X(PMIX_INT8) X(PMIX_INT16) X(PMIX_INT32) X(PMIX_INT64) X(PMIX_UINT)      \
  X(PMIX_UINT8) X(PMIX_UINT16) X(PMIX_UINT32) X(PMIX_UINT64) X(PMIX_FLOAT)             \
  X(PMIX_DOUBLE) X(PMIX_TIMEVAL) X(PMIX_TIME) X(PMIX_STATUS) X(PMIX_PROC)              \
  X(PMIX_BYTE_OBJECT) X(PMIX_POINTER) X(PMIX_PROC_RANK) X(PMIX_IOF_CHANNEL)            \
  /* info directives */                                                                \
  X(PMIX_INFO_REQD) X(PMIX_INFO_PERSISTENT)                                            \
  /* IOF channels */                                                                   \
  X(PMIX_FWD_NO_CHANNELS) X(PMIX_FWD_STDIN_CHANNEL) X(PMIX_FWD_STDOUT_CHANNEL)         \
  X(PMIX_FWD_STDERR_CHANNEL) X(PMIX_FWD_STDDIAG_CHANNEL) X(PMIX_FWD_ALL_CHANNELS)      \
  /* boolean answers */                                                                \
  X(PMIX_BOOL_TRUE) X(PMIX_BOOL_FALSE) X(PMIX_NON_BOOL)                                \
  /* type sizes: the same layout where a program could depend on it */                 \
  X(sizeof(pmix_nspace_t)) X(sizeof(pmix_key_t)) X(sizeof(pmix_rank_t))                \
  X(sizeof(pmix_proc_t)) X(sizeof(pmix_status_t)) X(sizeof(pmix_data_type_t))          \
  X(sizeof(pmix_iof_channel_t)) X(sizeof(pmix_info_directives_t))                      \
  X(sizeof(pmix_byte_object_t)) X(offsetof(pmix_proc_t, rank))                         \
  X(offsetof(pmix_info_t, flags)) X(offsetof(pmix_info_t, value))                      \
  X(offsetof(pmix_value_t, data)) X(sizeof(pmix_boolean_t))

#define PMIXSHIM_COMPAT_KEYS(X)                                                          \
  X(PMIX_SERVER_NSPACE) X(PMIX_SERVER_RANK) X(PMIX_TOOL_NSPACE) X(PMIX_TOOL_RANK)      \
  X(PMIX_SERVER_URI) X(PMIX_IOF_PUSH_STDIN)

#ifdef __cplusplus
extern "C" {
#endif

struct pmixshim_compat_int {
  const char *name;
  long long value;
};
struct pmixshim_compat_key {
  const char *name;
  const char *value;
};
struct pmixshim_compat_version {
  long long major, minor, release, numeric;
  int long_literals; /* the three parts are long, as OpenPMIx writes them */
};

/* Filled by compat_real.c from the installed OpenPMIx headers. */
extern const struct pmixshim_compat_int pmixshim_compat_real_ints[];
extern const size_t pmixshim_compat_real_nints;
extern const struct pmixshim_compat_key pmixshim_compat_real_keys[];
extern const size_t pmixshim_compat_real_nkeys;
extern const struct pmixshim_compat_version pmixshim_compat_real_version;

#ifdef __cplusplus
}
#endif

#endif
