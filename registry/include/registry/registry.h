/* The replicated general purpose registry: C API in the seed's shape.
 *
 * Same model and consistency rules as the C++ API (registry.hpp): mutations
 * are recorded and applied at the next registry_sync(), a collective; reads
 * are local and see the state of the last sync.
 *
 * Token lists are arrays of strings terminated by an empty string "" (as in
 * the seed). They are declared `const char *const *` rather than the seed's
 * `char **` so that a C caller can pass `const char *toks[] = {"a", ""}`.
 * A list with no token before the terminator, a NULL list, a NULL entry is
 * rejected with REGISTRY_ERR_INVALID. Lists are read up to the terminator
 * only, so a list without one is undefined behaviour, as in the seed.
 *
 * Every call returns REGISTRY_SUCCESS (0) or a negative error code; none
 * crashes on NULL or malformed arguments. Not thread-safe: use a registry
 * from one thread at a time. */
#ifndef REGISTRY_REGISTRY_H
#define REGISTRY_REGISTRY_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REGISTRY_C_API __attribute__((visibility("default")))

/* Notification actions (values of the seed). */
#define REGISTRY_NOTIFY_MODIFICATION 0x0001
#define REGISTRY_NOTIFY_ADD_SUBSCRIBER 0x0002
#define REGISTRY_NOTIFY_DELETE 0x0004
#define REGISTRY_NOTIFY_ALL 0xffff

/* Mode bits (values of the seed). At most one matching mode per call; none
 * means AND. OVERWRITE concerns put only. */
#define REGISTRY_OVERWRITE 0x0001
#define REGISTRY_AND 0x0002
#define REGISTRY_OR 0x0004
#define REGISTRY_XAND 0x0008
#define REGISTRY_XOR 0x0010

typedef uint16_t registry_action_t;
typedef uint16_t registry_mode_t;

/* Return codes. */
#define REGISTRY_SUCCESS 0
#define REGISTRY_PENDING 1        /* ticket: the next sync decides */
#define REGISTRY_ERR_INVALID -1   /* malformed argument; nothing recorded */
#define REGISTRY_ERR_NOT_FOUND -2 /* unknown segment, or delete matched nothing */
#define REGISTRY_ERR_EXISTS -3    /* segment exists / object exists without OVERWRITE */
#define REGISTRY_ERR_DENIED -4    /* segment is write-restricted to other ranks */
#define REGISTRY_ERR_TOO_LARGE -5 /* object above INT_MAX bytes */
#define REGISTRY_ERR_BUSY -6      /* sync called from a notification callback */
#define REGISTRY_ERR_MPI -7       /* an MPI call failed */
#define REGISTRY_ERR_NOMEM -8     /* out of memory */

typedef struct registry_s *registry_t;
/* The outcome of one recorded operation; see registry_ticket_status. */
typedef struct registry_ticket_s *registry_ticket_t;

/* One object returned by registry_get: a singly linked list of copies that
 * the caller frees with registry_values_free. */
typedef struct registry_value_t {
  struct registry_value_t *next;
  char *segment;      /* segment the object came from */
  char **tokens;      /* its tokens, sorted, terminated by "" */
  uint8_t *object;    /* copy of the object (NULL if size 0) */
  size_t object_size; /* in bytes */
} registry_value_t;

/* What a notification callback receives; valid during the call only. */
typedef struct registry_notification_t {
  registry_action_t action;
  const char *segment;
  const char *const *tokens; /* terminated by "" */
  const uint8_t *object;
  size_t object_size;
  int issuer; /* rank whose operation caused it */
} registry_notification_t;

typedef void (*registry_notify_fn)(const registry_notification_t *notification, void *user_data);

/* Collective over comm: create a registry (segments "universe" and
 * "world.<r>" exist from the start). *reg is set on success only. */
REGISTRY_C_API int registry_create(MPI_Comm comm, registry_t *reg);
/* Collective: destroy *reg and set it to NULL. NULL or *reg == NULL: no-op. */
REGISTRY_C_API int registry_destroy(registry_t *reg);
/* Collective: exchange and apply every rank's recorded operations. */
REGISTRY_C_API int registry_sync(registry_t reg);

/* Mutations. Each returns REGISTRY_SUCCESS when the operation was recorded
 * (or an error when the input is rejected; then nothing is recorded). If
 * `ticket` is not NULL, *ticket receives a handle to read the outcome after
 * sync; free it with registry_ticket_free. */

/* writers: NULL/0 = every rank may write; else the ranks that may. */
REGISTRY_C_API int registry_define_segment(registry_t reg, const char *segment, const int *writers, int nwriters,
                                           registry_ticket_t *ticket);
REGISTRY_C_API int registry_put(registry_t reg, registry_mode_t mode, const char *segment, const char *const *tokens,
                                const void *object, size_t size, registry_ticket_t *ticket);
REGISTRY_C_API int registry_delete(registry_t reg, registry_mode_t mode, const char *segment, const char *const *tokens,
                                   registry_ticket_t *ticket);
REGISTRY_C_API int registry_subscribe(registry_t reg, registry_mode_t mode, registry_action_t action,
                                      const char *segment, const char *const *tokens, registry_notify_fn callback,
                                      void *user_data, registry_ticket_t *ticket);
REGISTRY_C_API int registry_unsubscribe(registry_t reg, registry_mode_t mode, const char *segment,
                                        const char *const *tokens, registry_ticket_t *ticket);

/* REGISTRY_PENDING before the sync that applies the operation, then its
 * outcome; REGISTRY_ERR_INVALID for a NULL ticket. */
REGISTRY_C_API int registry_ticket_status(registry_ticket_t ticket);
REGISTRY_C_API void registry_ticket_free(registry_ticket_t ticket);

/* Reads (local). registry_get sets *values to the list of matches (NULL if
 * none; that is success). */
REGISTRY_C_API int registry_get(registry_t reg, registry_mode_t mode, const char *segment, const char *const *tokens,
                                registry_value_t **values);
REGISTRY_C_API void registry_values_free(registry_value_t *values);

/* *tokens: the tokens of `segment`, or every segment name if segment is
 * NULL; sorted, terminated by "". Free with registry_tokens_free. */
REGISTRY_C_API int registry_index(registry_t reg, const char *segment, char ***tokens);
REGISTRY_C_API void registry_tokens_free(char **tokens);

/* A static, human-readable description of a return code ("unknown error
 * code" for one that is not); never NULL, not to be freed. */
REGISTRY_C_API const char *registry_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif /* REGISTRY_REGISTRY_H */
