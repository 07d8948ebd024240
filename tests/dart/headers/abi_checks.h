/*
 * abi_checks.h -- size and offset assertions for the DART interface types
 * (spec section 1.4; LP64 Linux with DART_LOCALITY_HOST_MAX_SIZE == 64).
 *
 * Shared by the C and C++ header tests. The includer defines
 * HDR_ASSERT(cond, msg) (static assertion at namespace/file scope) and
 * includes <stddef.h> / <cstddef> for offsetof. Offsets not quoted in the
 * spec's table follow from its normative member order and types.
 */
#ifndef DART_TEST_ABI_CHECKS_H
#define DART_TEST_ABI_CHECKS_H

#define HDR_SIZE(T, n)      HDR_ASSERT(sizeof(T) == (n), "sizeof(" #T ")")
#define HDR_OFFSET(T, m, n) HDR_ASSERT(offsetof(T, m) == (n), \
                                       "offsetof(" #T ", " #m ")")

HDR_ASSERT(DART_LOCALITY_HOST_MAX_SIZE == 64,
           "HOST_NAME_MAX must be visible and 64 (-D_XOPEN_SOURCE=700)");

/* Global pointer: unitid/flags bit-fields share bytes 0-3. */
HDR_SIZE(dart_gptr_t, 16);
HDR_OFFSET(dart_gptr_t, segid, 4);
HDR_OFFSET(dart_gptr_t, teamid, 6);
HDR_OFFSET(dart_gptr_t, addr_or_offs, 8);

/* Ids and enums */
HDR_SIZE(dart_unit_t, 4);
HDR_SIZE(dart_global_unit_t, 4);
HDR_SIZE(dart_team_unit_t, 4);
HDR_SIZE(dart_team_t, 2);
HDR_SIZE(dart_ret_t, 4);
HDR_SIZE(dart_locality_scope_t, 4);
HDR_SIZE(dart_thread_support_level_t, 4);

/* Data types, operations and opaque handles */
HDR_SIZE(dart_datatype_t, 8);
HDR_SIZE(dart_operation_t, 8);
HDR_SIZE(dart_group_t, 8);
HDR_SIZE(dart_handle_t, 8);
HDR_SIZE(dart_lock_t, 8);
HDR_SIZE(dart_allocator_t, 8);

/* Locality structures */
HDR_SIZE(dart_locality_scope_pos_t, 8);
HDR_OFFSET(dart_locality_scope_pos_t, scope, 0);
HDR_OFFSET(dart_locality_scope_pos_t, index, 4);

HDR_SIZE(dart_hwinfo_t, 276);
HDR_OFFSET(dart_hwinfo_t, host, 0);
HDR_OFFSET(dart_hwinfo_t, num_cores, 64);
HDR_OFFSET(dart_hwinfo_t, num_numa, 68);
HDR_OFFSET(dart_hwinfo_t, numa_id, 72);
HDR_OFFSET(dart_hwinfo_t, num_sockets, 76);
HDR_OFFSET(dart_hwinfo_t, core_id, 80);
HDR_OFFSET(dart_hwinfo_t, cpu_id, 84);
HDR_OFFSET(dart_hwinfo_t, min_cpu_mhz, 88);
HDR_OFFSET(dart_hwinfo_t, max_cpu_mhz, 92);
HDR_OFFSET(dart_hwinfo_t, cache_sizes, 96);
HDR_OFFSET(dart_hwinfo_t, cache_line_sizes, 116);
HDR_OFFSET(dart_hwinfo_t, cache_ids, 136);
HDR_OFFSET(dart_hwinfo_t, min_threads, 156);
HDR_OFFSET(dart_hwinfo_t, max_threads, 160);
HDR_OFFSET(dart_hwinfo_t, max_shmem_mbps, 164);
HDR_OFFSET(dart_hwinfo_t, system_memory_bytes, 168);
HDR_OFFSET(dart_hwinfo_t, numa_memory_bytes, 172);
HDR_OFFSET(dart_hwinfo_t, scopes, 176);
HDR_OFFSET(dart_hwinfo_t, num_scopes, 272);

HDR_SIZE(dart_unit_locality_t, 316);
HDR_OFFSET(dart_unit_locality_t, unit, 0);
HDR_OFFSET(dart_unit_locality_t, team, 4);
HDR_OFFSET(dart_unit_locality_t, hwinfo, 8);
HDR_OFFSET(dart_unit_locality_t, domain_tag, 284);

HDR_SIZE(dart_domain_locality_t, 192);
HDR_OFFSET(dart_domain_locality_t, host, 0);
HDR_OFFSET(dart_domain_locality_t, domain_tag, 64);
HDR_OFFSET(dart_domain_locality_t, aliases, 96);
HDR_OFFSET(dart_domain_locality_t, num_aliases, 104);
HDR_OFFSET(dart_domain_locality_t, scope, 108);
HDR_OFFSET(dart_domain_locality_t, level, 112);
HDR_OFFSET(dart_domain_locality_t, global_index, 116);
HDR_OFFSET(dart_domain_locality_t, relative_index, 120);
HDR_OFFSET(dart_domain_locality_t, parent, 128);
HDR_OFFSET(dart_domain_locality_t, num_domains, 136);
HDR_OFFSET(dart_domain_locality_t, children, 144);
HDR_OFFSET(dart_domain_locality_t, is_symmetric, 152);
HDR_OFFSET(dart_domain_locality_t, team, 156);
HDR_OFFSET(dart_domain_locality_t, num_units, 160);
HDR_OFFSET(dart_domain_locality_t, unit_ids, 168);
HDR_OFFSET(dart_domain_locality_t, num_nodes, 176);
HDR_OFFSET(dart_domain_locality_t, node_id, 180);
HDR_OFFSET(dart_domain_locality_t, num_cores, 184);
HDR_OFFSET(dart_domain_locality_t, shared_mem_bytes, 188);

HDR_SIZE(dart_module_location_t, 136);
HDR_OFFSET(dart_module_location_t, host, 0);
HDR_OFFSET(dart_module_location_t, module, 64);
HDR_OFFSET(dart_module_location_t, pos, 128);

HDR_SIZE(dart_config_t, 4);
HDR_OFFSET(dart_config_t, log_enabled, 0);

#endif /* DART_TEST_ABI_CHECKS_H */
