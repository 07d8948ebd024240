// The value helpers of the public headers: status strings, the version
// string, and the loaders behind PMIX_LOAD_PROCID / PMIX_INFO_LOAD.  They
// touch no library state, so any thread may call them at any time, before
// init and after finalize.
#include <pmix_common.h>

#include <cstring>

extern "C" {

const char *pmixshim_error_string(pmix_status_t st) {
  switch (st) {
    case PMIX_SUCCESS: return "SUCCESS";
    case PMIX_ERROR: return "ERROR";
    case PMIX_ERR_EXISTS: return "ERR-EXISTS";
    case PMIX_ERR_INVALID_CRED: return "ERR-INVALID-CRED";
    case PMIX_ERR_WOULD_BLOCK: return "ERR-WOULD-BLOCK";
    case PMIX_ERR_UNPACK_FAILURE: return "ERR-UNPACK-FAILURE";
    case PMIX_ERR_NO_PERMISSIONS: return "ERR-NO-PERMISSIONS";
    case PMIX_ERR_TIMEOUT: return "ERR-TIMEOUT";
    case PMIX_ERR_UNREACH: return "ERR-UNREACH";
    case PMIX_ERR_BAD_PARAM: return "ERR-BAD-PARAM";
    case PMIX_ERR_RESOURCE_BUSY: return "ERR-RESOURCE-BUSY";
    case PMIX_ERR_OUT_OF_RESOURCE: return "ERR-OUT-OF-RESOURCE";
    case PMIX_ERR_INIT: return "ERR-INIT";
    case PMIX_ERR_NOMEM: return "ERR-NOMEM";
    case PMIX_ERR_NOT_FOUND: return "ERR-NOT-FOUND";
    case PMIX_ERR_NOT_SUPPORTED: return "ERR-NOT-SUPPORTED";
    case PMIX_ERR_COMM_FAILURE: return "ERR-COMM-FAILURE";
    case PMIX_ERR_LOST_CONNECTION: return "ERR-LOST-CONNECTION";
    case PMIX_ERR_NOT_AVAILABLE: return "ERR-NOT-AVAILABLE";
    case PMIX_OPERATION_IN_PROGRESS: return "OPERATION-IN-PROGRESS";
    case PMIX_OPERATION_SUCCEEDED: return "OPERATION-SUCCEEDED";
    case PMIX_ERR_IOF_FAILURE: return "ERR-IOF-FAILURE";
    case PMIX_ERR_IOF_COMPLETE: return "ERR-IOF-COMPLETE";
    case PMIX_ERR_IOF_XOFF: return "ERR-IOF-XOFF";
    default: return "UNKNOWN";
  }
}

const char *pmixshim_get_version(void) { return "PMIx shim 1.0 (PMIx API 4.2.2)"; }

void pmixshim_load_procid(pmix_proc_t *p, const char *nspace, pmix_rank_t rank) {
  if (!p) return;
  std::memset(p->nspace, 0, sizeof p->nspace);
  if (nspace) std::strncpy(p->nspace, nspace, PMIX_MAX_NSLEN);
  p->rank = rank;
}

void pmixshim_info_load(pmix_info_t *info, const char *key, const void *data, pmix_data_type_t type) {
  if (!info) return;
  std::memset(info, 0, sizeof *info);
  if (key) std::strncpy(info->key, key, PMIX_MAX_KEYLEN);
  info->value.type = type;
  if (!data) return;
  switch (type) {
    case PMIX_BOOL: info->value.data.flag = *static_cast<const bool *>(data); break;
    case PMIX_BYTE: info->value.data.byte = *static_cast<const uint8_t *>(data); break;
    case PMIX_STRING: info->value.data.string = const_cast<char *>(static_cast<const char *>(data)); break;
    case PMIX_SIZE: info->value.data.size = *static_cast<const size_t *>(data); break;
    case PMIX_PID: info->value.data.pid = *static_cast<const pid_t *>(data); break;
    case PMIX_INT: info->value.data.integer = *static_cast<const int *>(data); break;
    case PMIX_INT32: info->value.data.int32 = *static_cast<const int32_t *>(data); break;
    case PMIX_INT64: info->value.data.int64 = *static_cast<const int64_t *>(data); break;
    case PMIX_UINT32:
    case PMIX_PROC_RANK: info->value.data.uint32 = *static_cast<const uint32_t *>(data); break;
    case PMIX_UINT64: info->value.data.uint64 = *static_cast<const uint64_t *>(data); break;
    case PMIX_STATUS: info->value.data.status = *static_cast<const pmix_status_t *>(data); break;
    case PMIX_BYTE_OBJECT: info->value.data.bo = *static_cast<const pmix_byte_object_t *>(data); break;
    default: info->value.data.ptr = const_cast<void *>(data); break;
  }
}

}  // extern "C"
