// Per-unit metadata that does not grow with the job in the common case.
//
// A team of 10^6 units must not cost megabytes per segment on every unit.
// Most per-unit facts are the same on every unit (a window's padding, the
// size of a symmetric registration) or follow a formula (the members of a
// team made from a contiguous or strided group), so they are kept as one
// value or one formula, and only fall back to a table when the units really
// differ. The representation is decided collectively where the facts are
// gathered, so every member picks the same one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dart {

// One value per unit: a single word when all units agree, a table otherwise.
template <class T>
class PerUnit {
 public:
  PerUnit() = default;
  explicit PerUnit(T uniform) : uniform_(uniform) {}
  // Keeps the table only if its entries differ.
  explicit PerUnit(std::vector<T> table) {
    if (!table.empty() && std::all_of(table.begin(), table.end(), [&](const T& v) { return v == table.front(); }))
      uniform_ = table.front();
    else table_ = std::move(table);
  }

  [[nodiscard]] T operator[](std::size_t unit) const noexcept { return table_.empty() ? uniform_ : table_[unit]; }
  [[nodiscard]] bool uniform() const noexcept { return table_.empty(); }
  // Heap bytes beyond the object itself.
  [[nodiscard]] std::size_t heap_bytes() const noexcept { return table_.capacity() * sizeof(T); }

 private:
  T uniform_{};
  std::vector<T> table_;
};

// An ascending map from the dense indices 0..n-1 to integers (team rank ->
// global unit, node rank -> team rank): `first + i * stride` when the
// values form an arithmetic progression, a table otherwise. The inverse is
// arithmetic or a binary search.
class RankMap {
 public:
  RankMap() = default;
  // `values` must be strictly ascending.
  explicit RankMap(std::vector<int> values) : size_(static_cast<int>(values.size())) {
    if (values.empty()) return;
    first_ = values.front();
    stride_ = values.size() > 1 ? values[1] - values[0] : 1;
    bool progression = stride_ > 0;
    for (std::size_t i = 1; progression && i < values.size(); ++i) progression = values[i] - values[i - 1] == stride_;
    if (!progression) table_ = std::move(values);
  }

  [[nodiscard]] int size() const noexcept { return size_; }
  // Whether the values are first, first+1, ..., first+size-1.
  [[nodiscard]] bool contiguous() const noexcept { return table_.empty() && stride_ == 1; }
  [[nodiscard]] int first() const noexcept { return first_; }
  [[nodiscard]] int operator[](int i) const noexcept {
    return table_.empty() ? first_ + i * stride_ : table_[static_cast<std::size_t>(i)];
  }
  // Index of `value`, or -1 when it is not in the map.
  [[nodiscard]] int index_of(int value) const noexcept {
    if (table_.empty()) {
      const long long d = static_cast<long long>(value) - first_;
      // Contiguous members are the rule; skip the division for them.
      if (stride_ == 1) return d >= 0 && d < size_ ? static_cast<int>(d) : -1;
      if (d < 0 || d % stride_ != 0 || d / stride_ >= size_) return -1;
      return static_cast<int>(d / stride_);
    }
    const auto pos = std::lower_bound(table_.begin(), table_.end(), value);
    return pos != table_.end() && *pos == value ? static_cast<int>(pos - table_.begin()) : -1;
  }
  [[nodiscard]] std::vector<int> values() const {
    std::vector<int> out(static_cast<std::size_t>(size_));
    for (int i = 0; i < size_; ++i) out[static_cast<std::size_t>(i)] = (*this)[i];
    return out;
  }
  [[nodiscard]] std::size_t heap_bytes() const noexcept { return table_.capacity() * sizeof(int); }

 private:
  int size_ = 0;
  int first_ = 0;
  int stride_ = 1;
  std::vector<int> table_;
};

}  // namespace dart
