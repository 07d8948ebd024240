// Algorithms on global ranges [first, last) of one allocation.
//
// Each unit works on the part of the range it holds, in local memory, and
// the units then combine with one collective: a barrier for the ones that
// write (fill, for_each, transform), one allgather for the ones that
// compute a value (reduce, accumulate, min_element, max_element). These are
// collective over the range's team: every unit calls them with the same
// range. copy() moves data between a global range and local memory and is
// not collective.
#pragma once

#include "core.hpp"
#include "glob_ptr.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <functional>
#include <numeric>
#include <type_traits>
#include <vector>

namespace dartpp {

namespace detail {

// The caller's part of [first, last): local pointer and global index of
// its first element, and its length (0 when it holds none of the range).
template <class T>
struct LocalPart {
  T* data = nullptr;
  std::size_t index = 0;
  std::size_t size = 0;
};

template <class T>
LocalPart<T> local_part(const GlobPtr<T>& first, const GlobPtr<T>& last) {
  LocalPart<T> part;
  if (!first.my_block() || last.index() <= first.index()) return part;
  const BlockPattern& p = first.pattern();
  const std::size_t lo = std::max(first.index(), p.begin_of(first.myid()));
  const std::size_t hi = std::min(last.index(), p.begin_of(first.myid()) + p.size_of(first.myid()));
  if (lo >= hi) return part;
  part.data = first.my_block() + p.offset_of(lo);
  part.index = lo;
  part.size = hi - lo;
  return part;
}

// Every unit's `value` (or none), in team order.
template <class V>
std::vector<std::pair<bool, V>> allgather_optional(dart_team_t team, bool has, const V& value) {
  static_assert(std::is_trivially_copyable_v<V>, "values combined across units must be trivially copyable");
  struct Slot {
    unsigned char has;
    unsigned char bytes[sizeof(V)];
  };
  Slot mine{};
  mine.has = has ? 1 : 0;
  if (has) std::memcpy(mine.bytes, &value, sizeof(V));
  size_t n = 0;
  check(dart_team_size(team, &n), "dart_team_size");
  std::vector<Slot> all(n);
  check(dart_allgather(&mine, all.data(), sizeof(Slot), DART_TYPE_BYTE, team), "dart_allgather");
  std::vector<std::pair<bool, V>> out(n);
  for (std::size_t u = 0; u < n; ++u) {
    out[u].first = all[u].has != 0;
    if (out[u].first) std::memcpy(&out[u].second, all[u].bytes, sizeof(V));
  }
  return out;
}

inline void barrier(dart_team_t team) { check(dart_barrier(team), "dart_barrier"); }

}  // namespace detail

// `value` combined over all units of `team` by `op` (DART_OP_SUM, _MIN,
// _MAX, ...), returned on every unit. Collective over the team.
template <class T>
T allreduce(const T& value, dart_operation_t op, const Team& team = Team::all()) {
  static_assert(has_dart_type<T>, "allreduce needs a DART basic type");
  T result{};
  check(dart_allreduce(&value, &result, 1, dart_type_of<T>(), op, team.id()), "dart_allreduce");
  return result;
}

// Every element of [first, last) = value.
template <class T>
void fill(GlobPtr<T> first, GlobPtr<T> last, const T& value) {
  const auto part = detail::local_part(first, last);
  std::fill(part.data, part.data + part.size, value);
  detail::barrier(first.team());
}

// f(element&) for every element.
template <class T, class F>
void for_each(GlobPtr<T> first, GlobPtr<T> last, F f) {
  const auto part = detail::local_part(first, last);
  std::for_each(part.data, part.data + part.size, f);
  detail::barrier(first.team());
}

// f(global index, element&) for every element.
template <class T, class F>
void for_each_index(GlobPtr<T> first, GlobPtr<T> last, F f) {
  const auto part = detail::local_part(first, last);
  for (std::size_t i = 0; i < part.size; ++i) f(part.index + i, part.data[i]);
  detail::barrier(first.team());
}

// out[k] = f(in[k]) for k in [0, last - first). Where `out` is laid out like
// the input (same pattern and index), each unit writes its own block in
// place; otherwise the results travel by one-sided puts.
template <class T, class U, class F>
void transform(GlobPtr<T> first, GlobPtr<T> last, GlobPtr<U> out, F f) {
  const auto part = detail::local_part(first, last);
  const std::ptrdiff_t shift = static_cast<std::ptrdiff_t>(out.index()) - static_cast<std::ptrdiff_t>(first.index());
  const bool aligned = shift == 0 && out.pattern().block() == first.pattern().block() && out.my_block();
  for (std::size_t i = 0; i < part.size; ++i) {
    const GlobPtr<U> dst = out + static_cast<std::ptrdiff_t>(part.index - first.index() + i);
    if (aligned) out.my_block()[out.pattern().offset_of(dst.index())] = f(part.data[i]);
    else (*dst).put(f(part.data[i]));
  }
  detail::barrier(first.team());
}

// init op x0 op x1 ... in index order, returned on every unit. Each unit
// folds its part, then the partial results are folded in unit order, so
// `op` must be associative; it need not be commutative.
template <class T, class V, class Op>
V reduce(GlobPtr<T> first, GlobPtr<T> last, V init, Op op) {
  const auto part = detail::local_part(first, last);
  const bool has = part.size > 0;
  const V partial = has ? std::accumulate(part.data + 1, part.data + part.size, static_cast<V>(part.data[0]), op) : V{};
  V result = init;
  for (const auto& [present, value] : detail::allgather_optional(first.team(), has, partial))
    if (present) result = op(result, value);
  return result;
}

template <class T, class V>
V accumulate(GlobPtr<T> first, GlobPtr<T> last, V init) {
  return reduce(first, last, init, std::plus<V>());
}

// The first position of the smallest element by `less` (last when empty).
template <class T, class Less = std::less<T>>
GlobPtr<T> min_element(GlobPtr<T> first, GlobPtr<T> last, Less less = Less()) {
  struct Best {
    T value;
    std::size_t index;
  };
  const auto part = detail::local_part(first, last);
  Best mine{};
  if (part.size > 0) {
    const T* m = std::min_element(part.data, part.data + part.size, less);
    mine = Best{*m, part.index + static_cast<std::size_t>(m - part.data)};
  }
  bool found = false;
  Best best{};
  // Units hold increasing index ranges, so on ties the earlier unit wins.
  for (const auto& [present, b] : detail::allgather_optional(first.team(), part.size > 0, mine))
    if (present && (!found || less(b.value, best.value))) {
      best = b;
      found = true;
    }
  return found ? first + static_cast<std::ptrdiff_t>(best.index - first.index()) : last;
}

// The first position of the largest element by `less` (last when empty).
template <class T, class Less = std::less<T>>
GlobPtr<T> max_element(GlobPtr<T> first, GlobPtr<T> last, Less less = Less()) {
  return min_element(first, last, [less](const T& a, const T& b) { return less(b, a); });
}

// Global -> local: out[0 .. last-first) = [first, last). One get per unit
// block, completed together. Not collective. Returns the end of the output.
template <class T>
T* copy(GlobPtr<T> first, GlobPtr<T> last, T* out) {
  const BlockPattern& p = first.pattern();
  std::size_t i = first.index();
  bool issued = false;
  while (i < last.index()) {
    const int u = p.unit_of(i);
    const std::size_t end = std::min(last.index(), p.begin_of(u) + p.size_of(u));
    const GlobPtr<T> at = first + static_cast<std::ptrdiff_t>(i - first.index());
    T* dst = out + (i - first.index());
    if (const T* l = at.local()) {
      std::memcpy(dst, l, (end - i) * sizeof(T));
    } else {
      check(
          dart_get(dst, at.dart_gptr(), detail::Wire<T>::count(end - i), detail::Wire<T>::type, detail::Wire<T>::type),
          "dart_get");
      issued = true;
    }
    i = end;
  }
  if (issued) check(dart_flush_local_all(first.base()), "dart_flush_local_all");
  return out + (last.index() - first.index());
}

// Local -> global: [out, out + (in_last - in_first)) = the input. One put
// per unit block; visible at every target when it returns. Not collective.
template <class T>
GlobPtr<T> copy(const T* in_first, const T* in_last, GlobPtr<T> out) {
  const BlockPattern& p = out.pattern();
  const std::size_t n = static_cast<std::size_t>(in_last - in_first);
  std::size_t i = out.index();
  const std::size_t stop = out.index() + n;
  bool issued = false;
  while (i < stop) {
    const int u = p.unit_of(i);
    const std::size_t end = std::min(stop, p.begin_of(u) + p.size_of(u));
    const GlobPtr<T> at = out + static_cast<std::ptrdiff_t>(i - out.index());
    const T* src = in_first + (i - out.index());
    if (T* l = at.local()) {
      std::memcpy(l, src, (end - i) * sizeof(T));
    } else {
      check(
          dart_put(at.dart_gptr(), src, detail::Wire<T>::count(end - i), detail::Wire<T>::type, detail::Wire<T>::type),
          "dart_put");
      issued = true;
    }
    i = end;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (issued) check(dart_flush_all(out.base()), "dart_flush_all");
  return out + static_cast<std::ptrdiff_t>(n);
}

}  // namespace dartpp
