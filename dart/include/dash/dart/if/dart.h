/*
 * dart.h -- umbrella header of the DART runtime interface.
 *
 * Includes the type, configuration, initialisation, team/group, global
 * memory, communication and synchronisation headers, and defines the
 * interface version and a build stamp. Locality functions are not
 * included: use <dash/dart/if/dart_locality.h> for them (the locality
 * types are always available through dart_types.h).
 */
#ifndef DART__DART_H_
#define DART__DART_H_

/* Version of the DART interface implemented by these headers. */
#define DART_VERSION_STR     "3.2.0"
/* Date and time at which the including translation unit was compiled. */
#define DART_BUILD_STR       (__DATE__ " " __TIME__)

#include "dart_types.h"
#include "dart_config.h"
#include "dart_initialization.h"
#include "dart_team_group.h"
#include "dart_globmem.h"
#include "dart_communication.h"
#include "dart_synchronization.h"

#endif /* DART__DART_H_ */
