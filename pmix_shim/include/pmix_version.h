/*
 * pmix_version.h -- version and capability flags of the PMIx IOF shim.
 *
 * The shim implements a subset of the PMIx Standard (server IOF stdin path,
 * tool stdin push) plus PMIx_server_IOF_flow_control.  It reports the PMIx
 * release whose names and numeric values it follows, and its own version.
 */
#ifndef PMIX_SHIM_VERSION_H
#define PMIX_SHIM_VERSION_H

/* The PMIx release whose names and constants these headers follow. */
#define PMIX_VERSION_MAJOR 4L
#define PMIX_VERSION_MINOR 2L
#define PMIX_VERSION_RELEASE 2L
#define PMIX_NUMERIC_VERSION 0x00040202

/* The shim's own version (independent of the PMIx one). */
#define PMIX_SHIM_VERSION_MAJOR 1
#define PMIX_SHIM_VERSION_MINOR 0

/* Capability: PMIx_server_IOF_flow_control() and PMIX_ERR_IOF_XOFF exist.
 * A host tests it at build time:  #ifdef PMIX_CAP_IOF_FLOW_CONTROL */
#define PMIX_CAP_IOF_FLOW_CONTROL 1

/* Wire protocol version spoken on tool <-> server sockets.  Version 1 peers
 * announce their capabilities in the handshake (see src/wire.hpp). */
#define PMIX_SHIM_PROTOCOL_VERSION 1

#endif
