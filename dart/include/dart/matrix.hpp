// Matrix<T>: a rows x cols matrix distributed over a team by blocks of
// whole rows (row-major inside each block), with halo rows.
//
// Unit u holds rows [u * B, min(rows, (u+1) * B)) with B = ceil(rows /
// units). update_halo() fetches the row just above and just below the
// caller's rows from the units that hold them, by one-sided gets, so a
// stencil can run on local memory only. Collective: construction,
// destruction and barrier(); update_halo() is not (but its result is only
// meaningful after the neighbours finished writing, i.e. after a barrier).
#pragma once

#include "array.hpp"
#include "core.hpp"
#include "glob_ptr.hpp"

#include <cstddef>
#include <vector>

namespace dartpp {

template <class T>
class Matrix {
 public:
  Matrix(std::size_t rows, std::size_t cols, const Team& team = Team::all())
      : rows_(rows),
        cols_(cols),
        row_pattern_(rows, detail::team_size(team)),
        pattern_(rows * cols, detail::team_size(team), row_pattern_.block() * cols),
        mem_(team.id(), row_pattern_.block() * cols),
        above_(cols),
        below_(cols) {}

  [[nodiscard]] std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] dart_team_t team() const noexcept { return mem_.team(); }
  [[nodiscard]] int myid() const noexcept { return mem_.myid(); }
  // Which unit holds row r, and which rows a unit holds.
  [[nodiscard]] int unit_of_row(std::size_t r) const noexcept { return row_pattern_.unit_of(r); }
  [[nodiscard]] std::size_t first_row_of(int u) const noexcept { return row_pattern_.begin_of(u); }
  [[nodiscard]] std::size_t rows_of(int u) const noexcept { return row_pattern_.size_of(u); }

  // The caller's rows.
  [[nodiscard]] std::size_t local_rows() const noexcept { return rows_of(myid()); }
  [[nodiscard]] std::size_t first_local_row() const noexcept { return first_row_of(myid()); }
  [[nodiscard]] T* local_row(std::size_t local_r) const noexcept { return mem_.my_block() + local_r * cols_; }
  [[nodiscard]] LocalView<T> local() const noexcept { return LocalView<T>(mem_.my_block(), local_rows() * cols_); }

  // Element (r, c) from any unit.
  GlobRef<T> operator()(std::size_t r, std::size_t c) const noexcept {
    return *GlobPtr<T>(mem_.base(), pattern_, r * cols_ + c, mem_.my_block(), mem_.myid());
  }
  // Row-major global iteration over all elements.
  [[nodiscard]] GlobPtr<T> begin() const noexcept {
    return GlobPtr<T>(mem_.base(), pattern_, 0, mem_.my_block(), mem_.myid());
  }
  [[nodiscard]] GlobPtr<T> end() const noexcept { return begin() + static_cast<std::ptrdiff_t>(rows_ * cols_); }

  // Fetches the rows adjacent to the caller's block. Returns nothing; see
  // halo_above() / halo_below().
  void update_halo() {
    has_above_ = has_below_ = false;
    const std::size_t n = local_rows();
    if (n == 0 || cols_ == 0) return;
    const std::size_t first = first_local_row();
    if (first > 0) {
      fetch_row(first - 1, above_.data());
      has_above_ = true;
    }
    if (first + n < rows_) {
      fetch_row(first + n, below_.data());
      has_below_ = true;
    }
    if (has_above_ || has_below_) {
      // One local completion for both gets (they target the same segment).
      check(dart_flush_local_all(mem_.base()), "dart_flush_local_all");
    }
  }
  // The row above / below the caller's block as of the last update_halo(),
  // or nullptr at the matrix's edge (or when the caller holds no rows).
  [[nodiscard]] const T* halo_above() const noexcept { return has_above_ ? above_.data() : nullptr; }
  [[nodiscard]] const T* halo_below() const noexcept { return has_below_ ? below_.data() : nullptr; }

  void barrier() const { check(dart_barrier(team()), "dart_barrier"); }

 private:
  void fetch_row(std::size_t r, T* into) const {
    dart_gptr_t g = mem_.base();
    g.unitid = unit_of_row(r);
    g.addr_or_offs.offset = (r - first_row_of(g.unitid)) * cols_ * sizeof(T);
    check(dart_get(into, g, detail::Wire<T>::count(cols_), detail::Wire<T>::type, detail::Wire<T>::type), "dart_get");
  }

  std::size_t rows_;
  std::size_t cols_;
  BlockPattern row_pattern_;
  BlockPattern pattern_;
  detail::Allocation<T> mem_;
  std::vector<T> above_;
  std::vector<T> below_;
  bool has_above_ = false;
  bool has_below_ = false;
};

}  // namespace dartpp
