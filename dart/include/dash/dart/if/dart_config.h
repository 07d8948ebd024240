/*
 * dart_config.h -- access to the DART runtime configuration object.
 *
 * Declares dart_config(), which hands out the library's single,
 * statically allocated dart_config_t (type defined in dart_types.h).
 */
#ifndef DART__IF__CONFIG_H__
#define DART__IF__CONFIG_H__

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DART_INTERFACE_ON

/*
 * Stores in *config_out the address of the library's configuration
 * object, which clients may modify (e.g. log_enabled). Never fails and
 * may be called at any time, also before dart_init and after dart_exit.
 *   config_out  [out] receives the address of the configuration object
 * Not collective. Thread safety: not annotated.
 */
void dart_config(
  dart_config_t ** config_out) DART_NOTHROW;

#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__IF__CONFIG_H__ */
