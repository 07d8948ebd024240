// dart_group_*: set operations on sorted vectors of global unit ids.
#include "team/group.hpp"

#include "core/error.hpp"
#include "core/runtime.hpp"

#include <algorithm>
#include <climits>
#include <iterator>
#include <new>
#include <string>

namespace dart {

const dart_group_struct& group_of(const dart_group_t g, const char* what) {
  if (!g) invalid(std::string(what) + " is DART_GROUP_NULL");
  return *g;
}

dart_group_t new_group(std::vector<int> units) {
  auto* g = new (std::nothrow) dart_group_struct;
  if (!g) fail(DART_ERR_NOMEM, "out of memory for a group");
  g->units = std::move(units);
  return g;
}

namespace {

// Throws unless `unit` is a global unit id of this job.
void check_global_unit(dart_global_unit_t unit) {
  const int n = rt().size();
  if (unit.id < 0 || unit.id >= n)
    invalid("unit " + std::to_string(unit.id) + " is not a global unit id (the job has " + std::to_string(n) +
            " units)");
}

template <class SetOp>
void combine_groups(const dart_group_t g1, const dart_group_t g2, dart_group_t* gout, SetOp op) {
  if (gout) *gout = DART_GROUP_NULL;
  require(gout, "gout");
  (void)rt();
  const auto& a = group_of(g1, "g1").units;
  const auto& b = group_of(g2, "g2").units;
  std::vector<int> out;
  op(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  *gout = new_group(std::move(out));
}

}  // namespace

}  // namespace dart

using namespace dart;

extern "C" {

dart_ret_t dart_group_create(dart_group_t* group) {
  return entry("dart_group_create", [&] {
    require(group, "group");
    *group = DART_GROUP_NULL;
    (void)rt();
    *group = new_group({});
  });
}

dart_ret_t dart_group_destroy(dart_group_t* group) {
  return entry("dart_group_destroy", [&] {
    require(group, "group");
    delete *group;
    *group = DART_GROUP_NULL;
  });
}

dart_ret_t dart_group_clone(const dart_group_t gin, dart_group_t* gout) {
  if (gout) *gout = DART_GROUP_NULL;
  return entry("dart_group_clone", [&] {
    require(gout, "gout");
    (void)rt();
    *gout = new_group(group_of(gin, "gin").units);
  });
}

dart_ret_t dart_group_union(const dart_group_t g1, const dart_group_t g2, dart_group_t* gout) {
  return entry("dart_group_union",
               [&] { combine_groups(g1, g2, gout, [](auto... args) { std::set_union(args...); }); });
}

dart_ret_t dart_group_intersect(const dart_group_t g1, const dart_group_t g2, dart_group_t* gout) {
  return entry("dart_group_intersect",
               [&] { combine_groups(g1, g2, gout, [](auto... args) { std::set_intersection(args...); }); });
}

dart_ret_t dart_group_addmember(dart_group_t g, dart_global_unit_t unitid) {
  return entry("dart_group_addmember", [&] {
    check_global_unit(unitid);
    auto& units = const_cast<dart_group_struct&>(group_of(g, "group")).units;
    const auto pos = std::lower_bound(units.begin(), units.end(), unitid.id);
    if (pos == units.end() || *pos != unitid.id) units.insert(pos, unitid.id);
  });
}

dart_ret_t dart_group_delmember(dart_group_t g, dart_global_unit_t unitid) {
  return entry("dart_group_delmember", [&] {
    check_global_unit(unitid);
    auto& units = const_cast<dart_group_struct&>(group_of(g, "group")).units;
    const auto pos = std::lower_bound(units.begin(), units.end(), unitid.id);
    if (pos != units.end() && *pos == unitid.id) units.erase(pos);
  });
}

dart_ret_t dart_group_ismember(const dart_group_t g, dart_global_unit_t unitid, int32_t* ismember) {
  if (ismember) *ismember = 0;
  return entry("dart_group_ismember", [&] {
    require(ismember, "ismember");
    (void)rt();
    const auto& units = group_of(g, "group").units;
    *ismember = std::binary_search(units.begin(), units.end(), unitid.id) ? 1 : 0;
  });
}

dart_ret_t dart_group_size(const dart_group_t g, size_t* size) {
  return entry("dart_group_size", [&] {
    require(size, "size");
    (void)rt();
    *size = group_of(g, "group").units.size();
  });
}

dart_ret_t dart_group_getmembers(const dart_group_t g, dart_global_unit_t* unitids) {
  return entry("dart_group_getmembers", [&] {
    (void)rt();
    const auto& units = group_of(g, "group").units;
    if (units.empty()) return;
    require(unitids, "unitids");
    for (std::size_t i = 0; i < units.size(); ++i) unitids[i].id = units[i];
  });
}

dart_ret_t dart_group_split(const dart_group_t g, size_t n, size_t* nout, dart_group_t* gout) {
  return entry("dart_group_split", [&] {
    require(nout, "nout");
    require(gout, "gout");
    (void)rt();
    const auto& units = group_of(g, "group").units;
    if (n == 0 || n > static_cast<size_t>(INT_MAX))
      invalid("n = " + std::to_string(n) + " groups (must be 1 ... INT_MAX)");
    // Build every output first so a failure leaves nothing half-made.
    const std::size_t size = units.size();
    const std::size_t per = size == 0 ? 1 : (size + n - 1) / n;
    std::vector<dart_group_t> made;
    made.reserve(n);
    try {
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t lo = std::min(size, i * per), hi = std::min(size, lo + per);
        made.push_back(new_group(std::vector<int>(units.begin() + static_cast<std::ptrdiff_t>(lo),
                                                  units.begin() + static_cast<std::ptrdiff_t>(hi))));
      }
    } catch (...) {
      for (dart_group_t m : made) delete m;
      throw;
    }
    std::copy(made.begin(), made.end(), gout);
    *nout = size == 0 ? 0 : (size + per - 1) / per;
  });
}

}  // extern "C"
