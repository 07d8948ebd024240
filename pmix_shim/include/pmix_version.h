/*
 * pmix_version.h -- version and capability flags of the PMIx IOF shim.
 *
 * The shim implements a subset of PMIx (server IOF stdin path, tool stdin
 * push, PMIx_server_IOF_flow_control, the info/value/proc helpers).  It
 * reports the OpenPMIx release whose API it follows -- 7.0.0, the first
 * with the flow-control call -- and its own version.
 */
#ifndef PMIX_SHIM_VERSION_H
#define PMIX_SHIM_VERSION_H

/* The OpenPMIx release whose names, values and semantics these headers
 * follow, in OpenPMIx's shapes (long literals; 0xMMMMmmrr), so a host's
 * "#if PMIX_NUMERIC_VERSION >= 0x00070000" picks the flow-control path. */
#define PMIX_VERSION_MAJOR 7L
#define PMIX_VERSION_MINOR 0L
#define PMIX_VERSION_RELEASE 0L
#define PMIX_NUMERIC_VERSION 0x00070000

/* The shim's own version (independent of the PMIx one).  1.1: loaders copy
 * and destructors free, as in OpenPMIx. */
#define PMIX_SHIM_VERSION_MAJOR 1
#define PMIX_SHIM_VERSION_MINOR 1

/* Capability flags.  As in OpenPMIx, only the existence of a flag means
 * anything, and only capabilities this library really has are defined (the
 * value is OpenPMIx 7's, for hosts that print or compare it).  A host tests
 * it at build time:  #ifdef PMIX_CAP_IOF_FLOW_CONTROL
 *
 * PMIx_server_IOF_flow_control() and PMIX_ERR_IOF_XOFF exist: */
#define PMIX_CAP_IOF_FLOW_CONTROL 14
/* Deliberately absent, because the shim lacks the feature a host would
 * then rely on: PMIX_CAP_BASE, _LTO, _INMEMHELP (help-text machinery),
 * _UPCALLS2, _STOP_PRGTHRD, _GET_NUMBER_FN, _REGEX2, _GROUP_FT,
 * _CLI_QUAL_VALUE, _IOF_FILE_PATTERN, _CLI_ORDER, _TOOL_FINALIZED,
 * _IOF_DELIVER_LOCAL, _GROUP_JOIN_COMPLETES, _DEVICE_ENUM, _MCA_FW_VERSION,
 * _DATA_DELETE, and the legacy PMIX_CAPABILITIES mask. */

/* Wire protocol version spoken on tool <-> server sockets.  Version 1 peers
 * announce their capabilities in the handshake (see src/wire.hpp). */
#define PMIX_SHIM_PROTOCOL_VERSION 1

#endif
