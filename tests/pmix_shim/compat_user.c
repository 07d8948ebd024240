/* C code written the way an OpenPMIx program is (construct, load, check,
 * destruct, create/free through the macros), compiled as C against the
 * shim's headers: the macros must expand to valid C with OpenPMIx's
 * meaning.  Returns 0, or the line of the first check that failed. */
#include <pmix_server.h>
#include <pmix_tool.h>

#include <stdlib.h>
#include <string.h>

#define CHECK(c) \
  do {           \
    if (!(c)) return __LINE__; \
  } while (0)

int pmixshim_compat_c_user(void) {
  pmix_info_t dir;
  PMIX_INFO_LOAD(&dir, PMIX_IOF_PUSH_STDIN, NULL, PMIX_BOOL);
  CHECK(PMIX_CHECK_KEY(&dir, PMIX_IOF_PUSH_STDIN));
  CHECK(PMIX_INFO_TRUE(&dir));
  PMIX_INFO_DESTRUCT(&dir);

  pmix_info_t *info;
  PMIX_INFO_CREATE(info, 2);
  CHECK(info != NULL);
  PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, "c-user", PMIX_STRING);
  pmix_rank_t rank = 7;
  PMIX_INFO_LOAD(&info[1], PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
  CHECK(0 == strcmp(info[0].value.data.string, "c-user"));
  CHECK(7 == info[1].value.data.rank);
  pmix_info_t copy;
  PMIX_INFO_XFER(&copy, &info[0]);
  PMIX_INFO_FREE(info, 2);
  CHECK(info == NULL);
  CHECK(0 == strcmp(copy.value.data.string, "c-user"));
  PMIX_INFO_DESTRUCT(&copy);

  pmix_proc_t a, b, *procs;
  PMIX_PROC_CONSTRUCT(&a);
  CHECK(PMIX_RANK_UNDEF == a.rank);
  PMIX_LOAD_PROCID(&a, "ns", 3);
  PMIX_PROC_LOAD(&b, "ns", PMIX_RANK_WILDCARD);
  CHECK(PMIX_CHECK_PROCID(&a, &b));
  CHECK(PMIX_CHECK_NSPACE(a.nspace, "ns"));
  CHECK(PMIX_CHECK_RANK(a.rank, 3));
  CHECK(!PMIX_CHECK_RANK(a.rank, 4));
  PMIX_LOAD_NSPACE(b.nspace, "other");
  CHECK(!PMIX_CHECK_PROCID(&a, &b));
  PMIX_PROC_DESTRUCT(&a);
  PMIX_PROC_CREATE(procs, 2);
  CHECK(procs != NULL);
  PMIX_XFER_PROCID(&procs[1], &b);
  CHECK(PMIX_CHECK_PROCID(&procs[1], &b));
  PMIX_PROC_FREE(procs, 2);
  CHECK(procs == NULL);

  pmix_byte_object_t bo;
  PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
  char *d = (char *)malloc(3);
  CHECK(d != NULL);
  memcpy(d, "abc", 3);
  size_t sz = 3;
  PMIX_BYTE_OBJECT_LOAD(&bo, d, sz); /* moves: d and sz are cleared */
  CHECK(d == NULL && sz == 0 && bo.size == 3 && 0 == memcmp(bo.bytes, "abc", 3));
  pmix_value_t *v = NULL;
  pmix_status_t rc;
  pmix_value_t flag;
  PMIX_VALUE_LOAD(&flag, NULL, PMIX_BOOL);
  PMIX_VALUE_XFER(rc, v, &flag);
  CHECK(PMIX_SUCCESS == rc && v != NULL && PMIX_CHECK_TRUE(v));
  PMIX_VALUE_RELEASE(v);
  CHECK(v == NULL);
  pmix_value_t val;
  PMIX_VALUE_CONSTRUCT(&val);
  CHECK(PMIX_CHECK_TRUE(&val)); /* present without a value */
  PMIX_VALUE_LOAD(&val, &bo, PMIX_BYTE_OBJECT);
  PMIX_BYTE_OBJECT_DESTRUCT(&bo);
  CHECK(val.data.bo.size == 3 && 0 == memcmp(val.data.bo.bytes, "abc", 3));
  CHECK(!PMIX_CHECK_BOOL(&val));
  PMIX_VALUE_DESTRUCT(&val);
  CHECK(PMIX_ERR_IOF_XOFF == -405);
  return 0;
}
