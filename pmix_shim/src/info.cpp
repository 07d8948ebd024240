// The value helpers of the public headers: status strings, the version
// string, and the key/nspace/proc/byte-object/value/info families behind
// PMIX_INFO_LOAD, PMIX_INFO_DESTRUCT and friends.  They touch no library
// state, so any thread may call them at any time, before init and after
// finalize.
//
// Ownership follows OpenPMIx, because programs written for it rely on it:
// a loader copies strings, byte objects and procs into memory the value
// owns, and the destructors free exactly that.  A program that loads an
// info from a string literal and later calls PMIX_INFO_DESTRUCT must not
// free the literal, and one that lets the literal's buffer go away after
// loading must not leave a dangling pointer behind.
#include <pmix_common.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <strings.h>

namespace {

// Is s (after leading blanks) one of the spellings of yes/no that
// OpenPMIx accepts?  Prefix matches for the long words, exact ones for
// the single letters, so "t" is true but "tx" is no boolean at all.
pmix_boolean_t string_truth(const char *s) {
  if (!s) return PMIX_BOOL_TRUE;
  while (std::isspace(static_cast<unsigned char>(*s))) ++s;
  if (*s == '\0') return PMIX_BOOL_TRUE;
  if (std::isdigit(static_cast<unsigned char>(*s)))
    return std::strtol(s, nullptr, 10) != 0 ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
  auto starts = [s](const char *w) { return strncasecmp(s, w, std::strlen(w)) == 0; };
  auto is = [s](const char *w) { return strcasecmp(s, w) == 0; };
  if (starts("yes") || starts("true") || is("y") || is("t") || starts("enable")) return PMIX_BOOL_TRUE;
  if (starts("no") || starts("false") || is("n") || is("f") || starts("disable")) return PMIX_BOOL_FALSE;
  return PMIX_NON_BOOL;
}

template <typename T>
void put(T *dst, const void *src) {
  // memcpy: the caller's datum need not be aligned for T.
  std::memcpy(dst, src, sizeof(T));
}

// Copies a byte object's bytes; size 0 owns nothing.
pmix_status_t copy_bo(pmix_byte_object_t *dst, const pmix_byte_object_t *src) {
  if (src->size == 0) return PMIX_SUCCESS;
  if (!src->bytes) return PMIX_ERR_BAD_PARAM;
  auto *b = static_cast<char *>(std::malloc(src->size));
  if (!b) return PMIX_ERR_NOMEM;
  std::memcpy(b, src->bytes, src->size);
  dst->bytes = b;
  dst->size = src->size;
  return PMIX_SUCCESS;
}

pmix_status_t copy_proc(pmix_proc_t **dst, const pmix_proc_t *src) {
  pmix_proc_t *p = pmixshim_proc_create(1);
  if (!p) return PMIX_ERR_NOMEM;
  std::memcpy(p, src, sizeof *p);
  p->nspace[PMIX_MAX_NSLEN] = '\0';  // a source without a terminator stays readable
  *dst = p;
  return PMIX_SUCCESS;
}

}  // namespace

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

const char *pmixshim_get_version(void) { return "PMIx shim 1.1 (OpenPMIx 7.0.0 API)"; }

// ---- keys, nspaces, process names ------------------------------------

void pmixshim_load_key(pmix_key_t key, const char *src) {
  if (!key) return;
  std::memset(key, 0, PMIX_MAX_KEYLEN + 1);
  if (src) std::strncpy(key, src, PMIX_MAX_KEYLEN);
}

bool pmixshim_check_key(const char *key, const char *str) {
  return key && str && std::strncmp(key, str, PMIX_MAX_KEYLEN) == 0;
}

void pmixshim_load_nspace(pmix_nspace_t nspace, const char *str) {
  if (!nspace) return;
  std::memset(nspace, 0, PMIX_MAX_NSLEN + 1);
  if (str) std::strncpy(nspace, str, PMIX_MAX_NSLEN);
}

bool pmixshim_nspace_invalid(const char *nspace) { return !nspace || nspace[0] == '\0'; }

bool pmixshim_check_nspace(const char *ns1, const char *ns2) {
  // An unnamed nspace stands for all of them, so it matches anything.
  if (pmixshim_nspace_invalid(ns1) || pmixshim_nspace_invalid(ns2)) return true;
  return std::strncmp(ns1, ns2, PMIX_MAX_NSLEN) == 0;
}

void pmixshim_load_procid(pmix_proc_t *p, const char *nspace, pmix_rank_t rank) {
  if (!p) return;
  pmixshim_load_nspace(p->nspace, nspace);
  p->rank = rank;
}

void pmixshim_xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src) {
  if (!dst) return;
  if (src)
    std::memmove(dst, src, sizeof *dst);
  else
    std::memset(dst, 0, sizeof *dst);
}

bool pmixshim_check_rank(pmix_rank_t a, pmix_rank_t b) {
  return a == b || a == PMIX_RANK_WILDCARD || b == PMIX_RANK_WILDCARD;
}

bool pmixshim_rank_valid(pmix_rank_t rank) { return rank < PMIX_RANK_VALID; }

bool pmixshim_check_procid(const pmix_proc_t *a, const pmix_proc_t *b) {
  if (!a || !b) return a == b;
  return pmixshim_check_nspace(a->nspace, b->nspace) && pmixshim_check_rank(a->rank, b->rank);
}

bool pmixshim_procid_invalid(const pmix_proc_t *p) {
  return !p || pmixshim_nspace_invalid(p->nspace) || p->rank == PMIX_RANK_INVALID;
}

void pmixshim_proc_construct(pmix_proc_t *p) {
  if (!p) return;
  std::memset(p, 0, sizeof *p);
  p->rank = PMIX_RANK_UNDEF;
}

// A proc holds no heap memory; destructing only returns it to the
// constructed state so a stale name cannot be mistaken for a live one.
void pmixshim_proc_destruct(pmix_proc_t *p) { pmixshim_proc_construct(p); }

pmix_proc_t *pmixshim_proc_create(size_t n) {
  if (n == 0 || n > SIZE_MAX / sizeof(pmix_proc_t)) return nullptr;
  auto *p = static_cast<pmix_proc_t *>(std::malloc(n * sizeof(pmix_proc_t)));
  if (p)
    for (size_t i = 0; i < n; ++i) pmixshim_proc_construct(&p[i]);
  return p;
}

void pmixshim_proc_free(pmix_proc_t *p, size_t n) {
  if (!p) return;
  for (size_t i = 0; i < n; ++i) pmixshim_proc_destruct(&p[i]);
  std::free(p);
}

void pmixshim_proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank) {
  pmixshim_proc_construct(p);
  pmixshim_load_procid(p, nspace, rank);
}

// ---- byte objects -------------------------------------------------------

void pmixshim_byte_object_construct(pmix_byte_object_t *b) {
  if (!b) return;
  b->bytes = nullptr;
  b->size = 0;
}

void pmixshim_byte_object_destruct(pmix_byte_object_t *b) {
  if (!b) return;
  std::free(b->bytes);
  pmixshim_byte_object_construct(b);
}

pmix_byte_object_t *pmixshim_byte_object_create(size_t n) {
  if (n == 0 || n > SIZE_MAX / sizeof(pmix_byte_object_t)) return nullptr;
  auto *b = static_cast<pmix_byte_object_t *>(std::malloc(n * sizeof(pmix_byte_object_t)));
  if (b)
    for (size_t i = 0; i < n; ++i) pmixshim_byte_object_construct(&b[i]);
  return b;
}

void pmixshim_byte_object_free(pmix_byte_object_t *b, size_t n) {
  if (!b) return;
  for (size_t i = 0; i < n; ++i) pmixshim_byte_object_destruct(&b[i]);
  std::free(b);
}

void pmixshim_byte_object_load(pmix_byte_object_t *b, char *d, size_t size) {
  if (!b) return;
  b->bytes = d;
  b->size = d ? size : 0;
}

// ---- values ------------------------------------------------------------

void pmixshim_value_construct(pmix_value_t *v) {
  if (!v) return;
  std::memset(v, 0, sizeof *v);
  v->type = PMIX_UNDEF;
}

void pmixshim_value_destruct(pmix_value_t *v) {
  if (!v) return;
  switch (v->type) {
    case PMIX_STRING: std::free(v->data.string); break;
    case PMIX_BYTE_OBJECT: std::free(v->data.bo.bytes); break;
    case PMIX_PROC: std::free(v->data.proc); break;
    default: break;  // scalars live in the union; PMIX_POINTER is a reference
  }
  pmixshim_value_construct(v);
}

pmix_value_t *pmixshim_value_create(size_t n) {
  if (n == 0 || n > SIZE_MAX / sizeof(pmix_value_t)) return nullptr;
  auto *v = static_cast<pmix_value_t *>(std::malloc(n * sizeof(pmix_value_t)));
  if (v)
    for (size_t i = 0; i < n; ++i) pmixshim_value_construct(&v[i]);
  return v;
}

void pmixshim_value_free(pmix_value_t *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; ++i) pmixshim_value_destruct(&v[i]);
  std::free(v);
}

pmix_boolean_t pmixshim_value_true(const pmix_value_t *v) {
  if (!v) return PMIX_BOOL_FALSE;  // absent: not asserted
  switch (v->type) {
    case PMIX_UNDEF: return PMIX_BOOL_TRUE;  // present without a value: asserted
    case PMIX_BOOL: return v->data.flag ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
    case PMIX_STRING: return string_truth(v->data.string);
    default: return PMIX_NON_BOOL;
  }
}

pmix_status_t pmixshim_value_load(pmix_value_t *v, const void *data, pmix_data_type_t type) {
  if (!v) return PMIX_ERR_BAD_PARAM;
  std::memset(&v->data, 0, sizeof v->data);
  v->type = type;
  if (!data) {
    // OpenPMIx's rule: no datum means zero, except that a flag given
    // without a value is set -- its presence is the assertion.
    if (type == PMIX_BOOL) v->data.flag = true;
    return PMIX_SUCCESS;
  }
  switch (type) {
    case PMIX_UNDEF: return PMIX_SUCCESS;
    case PMIX_BOOL: {
      // Read the byte, not a bool: any non-zero byte is true, and no
      // invalid bool representation gets stored.
      unsigned char b;
      put(&b, data);
      v->data.flag = b != 0;
      return PMIX_SUCCESS;
    }
    case PMIX_BYTE: put(&v->data.byte, data); return PMIX_SUCCESS;
    case PMIX_STRING:
      v->data.string = strdup(static_cast<const char *>(data));
      return v->data.string ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    case PMIX_SIZE: put(&v->data.size, data); return PMIX_SUCCESS;
    case PMIX_PID: put(&v->data.pid, data); return PMIX_SUCCESS;
    case PMIX_INT: put(&v->data.integer, data); return PMIX_SUCCESS;
    case PMIX_INT8: put(&v->data.int8, data); return PMIX_SUCCESS;
    case PMIX_INT16: put(&v->data.int16, data); return PMIX_SUCCESS;
    case PMIX_INT32: put(&v->data.int32, data); return PMIX_SUCCESS;
    case PMIX_INT64: put(&v->data.int64, data); return PMIX_SUCCESS;
    case PMIX_UINT: put(&v->data.uint, data); return PMIX_SUCCESS;
    case PMIX_UINT8: put(&v->data.uint8, data); return PMIX_SUCCESS;
    case PMIX_UINT16: put(&v->data.uint16, data); return PMIX_SUCCESS;
    case PMIX_UINT32: put(&v->data.uint32, data); return PMIX_SUCCESS;
    case PMIX_UINT64: put(&v->data.uint64, data); return PMIX_SUCCESS;
    case PMIX_FLOAT: put(&v->data.fval, data); return PMIX_SUCCESS;
    case PMIX_DOUBLE: put(&v->data.dval, data); return PMIX_SUCCESS;
    case PMIX_TIMEVAL: put(&v->data.tv, data); return PMIX_SUCCESS;
    case PMIX_TIME: put(&v->data.time, data); return PMIX_SUCCESS;
    case PMIX_STATUS: put(&v->data.status, data); return PMIX_SUCCESS;
    case PMIX_PROC_RANK: put(&v->data.rank, data); return PMIX_SUCCESS;
    case PMIX_IOF_CHANNEL: put(&v->data.uint16, data); return PMIX_SUCCESS;
    case PMIX_PROC: return copy_proc(&v->data.proc, static_cast<const pmix_proc_t *>(data));
    case PMIX_BYTE_OBJECT: return copy_bo(&v->data.bo, static_cast<const pmix_byte_object_t *>(data));
    case PMIX_POINTER: v->data.ptr = const_cast<void *>(data); return PMIX_SUCCESS;
    default: return PMIX_ERR_NOT_SUPPORTED;
  }
}

pmix_status_t pmixshim_value_xfer(pmix_value_t *dest, const pmix_value_t *src) {
  if (!dest || !src) return PMIX_ERR_BAD_PARAM;
  if (dest == src) return PMIX_SUCCESS;
  switch (src->type) {
    case PMIX_STRING:
      if (!src->data.string) {
        pmixshim_value_construct(dest);
        dest->type = PMIX_STRING;
        return PMIX_SUCCESS;
      }
      return pmixshim_value_load(dest, src->data.string, PMIX_STRING);
    case PMIX_PROC:
      if (!src->data.proc) {
        pmixshim_value_construct(dest);
        dest->type = PMIX_PROC;
        return PMIX_SUCCESS;
      }
      return pmixshim_value_load(dest, src->data.proc, PMIX_PROC);
    case PMIX_BYTE_OBJECT: return pmixshim_value_load(dest, &src->data.bo, PMIX_BYTE_OBJECT);
    case PMIX_POINTER: return pmixshim_value_load(dest, src->data.ptr, PMIX_POINTER);
    default: {
      // Scalars (and types only carried, never interpreted) copy by value;
      // an unknown type is refused by the load.
      pmix_value_t tmp = *src;
      return pmixshim_value_load(dest, &tmp.data, src->type);
    }
  }
}

// ---- infos -------------------------------------------------------------

void pmixshim_info_construct(pmix_info_t *i) {
  if (!i) return;
  pmixshim_load_key(i->key, nullptr);
  i->flags = 0;
  pmixshim_value_construct(&i->value);
}

void pmixshim_info_destruct(pmix_info_t *i) {
  if (!i) return;
  if (i->flags & PMIX_INFO_PERSISTENT) return;
  pmixshim_value_destruct(&i->value);
}

pmix_info_t *pmixshim_info_create(size_t n) {
  if (n == 0 || n > SIZE_MAX / sizeof(pmix_info_t)) return nullptr;
  auto *p = static_cast<pmix_info_t *>(std::malloc(n * sizeof(pmix_info_t)));
  if (p)
    for (size_t k = 0; k < n; ++k) pmixshim_info_construct(&p[k]);
  return p;
}

void pmixshim_info_free(pmix_info_t *i, size_t n) {
  if (!i) return;
  for (size_t k = 0; k < n; ++k) pmixshim_info_destruct(&i[k]);
  std::free(i);
}

pmix_boolean_t pmixshim_info_true(const pmix_info_t *i) {
  return i ? pmixshim_value_true(&i->value) : PMIX_BOOL_FALSE;
}

pmix_status_t pmixshim_info_load(pmix_info_t *info, const char *key, const void *data,
                                 pmix_data_type_t type) {
  if (!info) return PMIX_ERR_BAD_PARAM;
  pmixshim_info_construct(info);
  if (!key) return PMIX_ERR_BAD_PARAM;
  pmixshim_load_key(info->key, key);
  return pmixshim_value_load(&info->value, data, type);
}

pmix_status_t pmixshim_info_xfer(pmix_info_t *dest, const pmix_info_t *src) {
  if (!dest || !src) return PMIX_ERR_BAD_PARAM;
  if (dest == src) return PMIX_SUCCESS;
  pmixshim_load_key(dest->key, src->key);
  dest->flags = src->flags;
  if (src->flags & PMIX_INFO_PERSISTENT) {
    dest->value = src->value;  // not ours to copy: the owner keeps it alive
    return PMIX_SUCCESS;
  }
  return pmixshim_value_xfer(&dest->value, &src->value);
}

void pmixshim_info_required(pmix_info_t *i) {
  if (i) i->flags |= PMIX_INFO_REQD;
}

void pmixshim_info_optional(pmix_info_t *i) {
  if (i) i->flags &= ~static_cast<pmix_info_directives_t>(PMIX_INFO_REQD);
}

bool pmixshim_info_is_required(const pmix_info_t *i) { return i && (i->flags & PMIX_INFO_REQD); }

bool pmixshim_info_is_optional(const pmix_info_t *i) { return i && !(i->flags & PMIX_INFO_REQD); }

void pmixshim_info_persistent(pmix_info_t *i) {
  if (i) i->flags |= PMIX_INFO_PERSISTENT;
}

bool pmixshim_info_is_persistent(const pmix_info_t *i) { return i && (i->flags & PMIX_INFO_PERSISTENT); }

}  // extern "C"
