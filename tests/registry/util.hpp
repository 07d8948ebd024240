// Helpers shared by the registry suites.
#pragma once

#include <registry/registry.hpp>

#include "mpi_test.hpp"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace registry {
inline std::ostream& operator<<(std::ostream& os, Status s) { return os << to_string(s); }
}  // namespace registry

namespace regtest {

// A registry on MPI_COMM_WORLD that checks after every sync that all
// replicas are identical (it aborts the job if not).
inline registry::Registry make_registry(bool log_errors = false) {
  registry::Options o;
  o.check_replicas = true;
  o.log_errors = log_errors;
  auto r = registry::Registry::create(MPI_COMM_WORLD, o);
  BOOST_REQUIRE_MESSAGE(r.ok(), "[rank " << mpitest::world_rank() << "] create: " << to_string(r.status()));
  return std::move(r).value();
}

inline void sync(registry::Registry& reg) {
  const registry::Status s = reg.sync();
  BOOST_REQUIRE_MESSAGE(s == registry::Status::ok, "[rank " << mpitest::world_rank() << "] sync: " << to_string(s));
}

// The objects of a get, as strings, in the order returned.
inline std::vector<std::string> objects(const registry::Result<std::vector<registry::Value>>& r) {
  std::vector<std::string> out;
  if (!r.ok()) return {"<" + std::string(to_string(r.status())) + ">"};
  for (const auto& v : *r) out.emplace_back(v.as_string());
  return out;
}

// FNV-1a, stable across processes (for comparing ranks).
inline std::uint64_t fnv(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// True on every rank iff `v` is the same on every rank.
inline bool same_on_all_ranks(std::uint64_t v) {
  std::uint64_t in[2] = {v, ~v};
  std::uint64_t out[2] = {0, 0};
  MPI_Allreduce(in, out, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  return out[0] == ~out[1];
}

// The replica's content through the public API only: every segment, and in
// each every object (tokens, bytes) in creation order.
inline std::string content(const registry::Registry& reg) {
  std::string out;
  for (const auto& seg : reg.index()) {
    out += "segment " + seg + "\n";
    auto toks = reg.index(seg);
    if (!toks.ok() || toks->empty()) continue;
    auto all = reg.get(seg, *toks, registry::kOr);
    for (const auto& v : *all) {
      for (const auto& t : v.tokens) out += t + ",";
      out += "=" + std::string(v.as_string()) + "\n";
    }
  }
  return out;
}

}  // namespace regtest

#define RANK_MSG "[rank " << mpitest::world_rank() << "] "
