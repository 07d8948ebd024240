// The C++ layer (dart/include/dart/): block patterns for every size class
// (0, fewer elements than units, not a multiple of the unit count, large);
// global iterator arithmetic and comparison across block boundaries;
// standard algorithms on global ranges; local views against the global
// view; atomic GlobRef operations from all units with exact results;
// the layer's algorithms (fill, for_each_index, transform aligned and
// shifted, reduce with a non-commutative operation, accumulate, min/max
// with ties, copy both ways across blocks); Matrix halos at the edges and
// with units that hold no rows; arrays on a sub-team; DART errors as
// exceptions.
#include "mpi_test.hpp"

#include <dart/dart.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

struct LayerFixture {
  LayerFixture()
      : runtime(nullptr, nullptr), me(dartpp::Runtime::myid()), n(static_cast<int>(dartpp::Runtime::size())) {}
  dartpp::Runtime runtime;
  const int me;
  const int n;
};

// Sizes that hit every case of the block distribution for n units.
std::vector<std::size_t> sizes_for(int n) {
  const auto u = static_cast<std::size_t>(n);
  return {0, 1, u > 1 ? u - 1 : 2, u, u + 1, 10 * u + 3, 1000};
}

long value_at(std::size_t i) { return static_cast<long>(i) * 3 + 1; }

// x -> a x + b modulo a prime; compose(f, g) applies f, then g.
struct Affine {
  long a;
  long b;
};
constexpr long kPrime = 1000000007L;
Affine compose(const Affine& f, const Affine& g) { return Affine{g.a * f.a % kPrime, (g.a * f.b + g.b) % kPrime}; }

}  // namespace

BOOST_FIXTURE_TEST_SUITE(cxx_layer, LayerFixture)

BOOST_AUTO_TEST_CASE(block_pattern_covers_every_index_once) {
  for (std::size_t size : sizes_for(n)) {
    const dartpp::BlockPattern p(size, static_cast<std::size_t>(n));
    std::size_t total = 0;
    for (int u = 0; u < n; ++u) {
      BOOST_CHECK_EQUAL(p.begin_of(u), std::min(size, static_cast<std::size_t>(u) * p.block()));
      total += p.size_of(u);
      for (std::size_t k = 0; k < p.size_of(u); ++k) {
        const std::size_t i = p.begin_of(u) + k;
        BOOST_CHECK_EQUAL(p.unit_of(i), u);
        BOOST_CHECK_EQUAL(p.offset_of(i), k);
      }
    }
    BOOST_CHECK_EQUAL(total, size);
  }
}

BOOST_AUTO_TEST_CASE(iterators_and_standard_algorithms_on_global_ranges) {
  for (std::size_t size : sizes_for(n)) {
    BOOST_TEST_CONTEXT("size " << size << " over " << n << " units") {
      dartpp::Array<long> a(size);
      BOOST_CHECK_EQUAL(a.size(), size);
      // Each unit fills its block through the local view.
      auto mine = a.local();
      BOOST_CHECK_EQUAL(mine.size(), a.pattern().size_of(me));
      for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = value_at(a.local_begin_index() + k);
      a.barrier();

      // Every element from every unit, by index and by iterator.
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < size; ++i) wrong += static_cast<long>(a[i]) != value_at(i);
      BOOST_CHECK_EQUAL(wrong, 0u);
      BOOST_CHECK_EQUAL(static_cast<std::size_t>(std::distance(a.begin(), a.end())), size);
      if (size > 0) {
        auto it = a.begin();
        for (std::size_t i = 0; i < size; ++i, ++it) wrong += static_cast<long>(*it) != value_at(i);
        BOOST_CHECK(it == a.end());
        --it;
        BOOST_CHECK_EQUAL(static_cast<long>(*it), value_at(size - 1));
        // Jumps across block boundaries both ways.
        const std::ptrdiff_t jump = static_cast<std::ptrdiff_t>(a.pattern().block()) + 1;
        for (std::ptrdiff_t d = 0; d + jump < static_cast<std::ptrdiff_t>(size); d += jump) {
          const auto p = a.begin() + d;
          const auto q = p + jump;
          BOOST_CHECK_EQUAL(static_cast<long>(q[0]), value_at(static_cast<std::size_t>(d + jump)));
          BOOST_CHECK_EQUAL(static_cast<long>(*(q - jump)), value_at(static_cast<std::size_t>(d)));
          BOOST_CHECK(p < q && q > p && p <= p && q >= p && q - p == jump);
          BOOST_CHECK_EQUAL(q.unit(), a.pattern().unit_of(static_cast<std::size_t>(d + jump)));
        }
      }
      BOOST_CHECK_EQUAL(wrong, 0u);

      // Standard algorithms through the proxy references.
      const long sum = std::accumulate(a.begin(), a.end(), 0L);
      const long expect = static_cast<long>(size) * (3 * static_cast<long>(size) - 1) / 2;  // sum of 3i+1
      BOOST_CHECK_EQUAL(sum, expect);
      if (size > 2) {
        BOOST_CHECK_EQUAL(std::count_if(a.begin(), a.end(), [](long v) { return v % 2 == 0; }),
                          static_cast<std::ptrdiff_t>(size / 2));
        const auto found = std::find(a.begin(), a.end(), value_at(size - 2));
        BOOST_CHECK_EQUAL(found.index(), size - 2);
      }
      // Local view and global view are the same memory.
      for (std::size_t k = 0; k < mine.size(); ++k)
        BOOST_CHECK(a[a.local_begin_index() + k].operator&().local() == mine.data() + k);
      a.barrier();
      // The last unit writes all but the ends with std::fill; everyone sees it.
      if (me == n - 1 && size > 2) std::fill(a.begin() + 1, a.end() - 1, -7L);
      a.barrier();
      for (std::size_t i = 0; i < size; ++i) {
        const long want = (size > 2 && i > 0 && i + 1 < size) ? -7L : value_at(i);
        wrong += static_cast<long>(a[i]) != want;
      }
      BOOST_CHECK_EQUAL(wrong, 0u);
      a.barrier();
    }
  }
}

BOOST_AUTO_TEST_CASE(atomic_references_from_all_units) {
  dartpp::Array<long> counters(static_cast<std::size_t>(n) + 2);
  if (me == 0)
    for (std::size_t i = 0; i < counters.size(); ++i) counters[i] = 0L;
  counters.barrier();
  constexpr int kRounds = 300;
  auto c = counters[counters.size() - 1];  // held by the last unit with elements
  for (int r = 0; r < kRounds; ++r) {
    c += 1L;
    ++c;
    (void)c.fetch_add(2L);
    long expected = c.load();
    while (!c.compare_exchange(expected, expected + 1)) {
    }
  }
  counters[0] |= (1L << me);  // every unit sets its own bit
  counters.barrier();
  BOOST_CHECK_EQUAL(c.load(), static_cast<long>(n) * kRounds * 5);
  BOOST_CHECK_EQUAL(static_cast<long>(counters[0]), (1L << n) - 1);
  counters.barrier();
  if (me == 0) {
    BOOST_CHECK_EQUAL(c.exchange(-1L), static_cast<long>(n) * kRounds * 5);
    c -= 4L;
    c *= 3L;
    BOOST_CHECK_EQUAL(c.get(), -15L);
  }
  counters.barrier();
}

BOOST_AUTO_TEST_CASE(layer_algorithms) {
  for (std::size_t size : sizes_for(n)) {
    BOOST_TEST_CONTEXT("size " << size << " over " << n << " units") {
      dartpp::Array<long> a(size), b(size), shifted(size + 3);
      dartpp::fill(a.begin(), a.end(), 5L);
      BOOST_CHECK_EQUAL(dartpp::accumulate(a.begin(), a.end(), 0L), 5L * static_cast<long>(size));
      dartpp::for_each_index(a.begin(), a.end(), [](std::size_t i, long& v) { v = value_at(i); });
      dartpp::transform(a.begin(), a.end(), b.begin(), [](long v) { return 2 * v; });
      dartpp::transform(a.begin(), a.end(), shifted.begin() + 3, [](long v) { return -v; });
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < size; ++i) {
        wrong += static_cast<long>(b[i]) != 2 * value_at(i);
        wrong += static_cast<long>(shifted[i + 3]) != -value_at(i);
      }
      BOOST_CHECK_EQUAL(wrong, 0u);
      // An associative, non-commutative operation shows the order: the
      // composition of affine maps x -> a x + b (mod p).
      dartpp::Array<Affine> maps(size);
      dartpp::for_each_index(maps.begin(), maps.end(), [](std::size_t i, Affine& f) {
        f = Affine{static_cast<long>(i % 5) + 2, value_at(i)};
      });
      Affine serial{1, 0};
      for (std::size_t i = 0; i < size; ++i)
        serial = compose(serial, Affine{static_cast<long>(i % 5) + 2, value_at(i)});
      const Affine folded = dartpp::reduce(maps.begin(), maps.end(), Affine{1, 0}, compose);
      BOOST_CHECK_EQUAL(folded.a, serial.a);
      BOOST_CHECK_EQUAL(folded.b, serial.b);
      // A sub-range that starts and ends inside blocks.
      if (size > 4) {
        long part = 0;
        for (std::size_t i = 1; i + 1 < size; ++i) part += value_at(i);
        BOOST_CHECK_EQUAL(dartpp::accumulate(a.begin() + 1, a.end() - 1, 0L), part);
      }
      // min/max with ties: the first occurrence wins.
      dartpp::for_each_index(b.begin(), b.end(), [](std::size_t i, long& v) { v = static_cast<long>(i % 5); });
      const auto mn = dartpp::min_element(b.begin(), b.end());
      const auto mx = dartpp::max_element(b.begin(), b.end());
      if (size == 0) {
        BOOST_CHECK(mn == b.end() && mx == b.end());
      } else {
        BOOST_CHECK_EQUAL(mn.index(), 0u);
        BOOST_CHECK_EQUAL(mx.index(), std::min<std::size_t>(size - 1, 4));
      }
      // copy global -> local across blocks, and local -> global.
      std::vector<long> all(size, -1);
      dartpp::copy(a.begin(), a.end(), all.data());
      for (std::size_t i = 0; i < size; ++i) wrong += all[i] != value_at(i);
      a.barrier();
      if (me == 0 && size > 2) {
        std::vector<long> src(size - 2);
        std::iota(src.begin(), src.end(), 100L);
        dartpp::copy(src.data(), src.data() + src.size(), a.begin() + 1);
      }
      a.barrier();
      dartpp::copy(a.begin(), a.end(), all.data());
      for (std::size_t i = 0; i < size; ++i)
        wrong += all[i] != ((size > 2 && i > 0 && i + 1 < size) ? static_cast<long>(99 + i) : value_at(i));
      BOOST_CHECK_EQUAL(wrong, 0u);
      a.barrier();
    }
  }
}

BOOST_AUTO_TEST_CASE(matrix_halos_at_the_edges) {
  const auto u = static_cast<std::size_t>(n);
  for (const std::size_t rows : {std::size_t{1}, u, 2 * u + 1, 3 * u}) {
    const std::size_t cols = 7;
    BOOST_TEST_CONTEXT(rows << " x " << cols << " over " << n << " units") {
      dartpp::Matrix<double> m(rows, cols);
      auto cell = [](std::size_t r, std::size_t c) { return static_cast<double>(r * 1000 + c); };
      for (std::size_t lr = 0; lr < m.local_rows(); ++lr)
        for (std::size_t c = 0; c < cols; ++c) m.local_row(lr)[c] = cell(m.first_local_row() + lr, c);
      m.barrier();
      m.update_halo();
      const std::size_t first = m.first_local_row(), count = m.local_rows();
      const bool want_above = count > 0 && first > 0;
      const bool want_below = count > 0 && first + count < rows;
      BOOST_CHECK_EQUAL(m.halo_above() != nullptr, want_above);
      BOOST_CHECK_EQUAL(m.halo_below() != nullptr, want_below);
      for (std::size_t c = 0; c < cols; ++c) {
        if (want_above) BOOST_CHECK_EQUAL(m.halo_above()[c], cell(first - 1, c));
        if (want_below) BOOST_CHECK_EQUAL(m.halo_below()[c], cell(first + count, c));
      }
      // Global element access agrees.
      std::size_t wrong = 0;
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; c += 3) wrong += static_cast<double>(m(r, c)) != cell(r, c);
      BOOST_CHECK_EQUAL(wrong, 0u);
      m.barrier();
    }
  }
}

BOOST_AUTO_TEST_CASE(arrays_on_a_sub_team) {
  std::vector<int> evens;
  for (int u = 0; u < n; u += 2) evens.push_back(u);
  dartpp::Team team = dartpp::Team::create(dartpp::Team::all(), evens);
  BOOST_CHECK_EQUAL(team.valid(), me % 2 == 0);
  if (team.valid()) {
    BOOST_CHECK_EQUAL(team.size(), evens.size());
    BOOST_CHECK_EQUAL(team.global_id(team.myid()), me);
    dartpp::Array<int> a(25, team);
    dartpp::for_each_index(a.begin(), a.end(), [](std::size_t i, int& v) { v = static_cast<int>(i * i); });
    BOOST_CHECK_EQUAL(dartpp::accumulate(a.begin(), a.end(), 0), 4900);  // sum of i^2, i < 25
    BOOST_CHECK_EQUAL(static_cast<int>(a[24]), 576);
    a.barrier();
  }
}

BOOST_AUTO_TEST_CASE(dart_errors_become_exceptions) {
  dart_config_t* cfg = nullptr;
  dart_config(&cfg);
  const int saved = cfg->log_enabled;
  cfg->log_enabled = 0;  // the failures below are expected
  // Unit n is no unit: every caller fails, none hangs.
  try {
    (void)dartpp::Team::create(dartpp::Team::all(), {0, n});
    BOOST_ERROR("Team::create with a unit outside the job did not throw");
  } catch (const dartpp::Error& e) {
    BOOST_CHECK_EQUAL(e.code(), DART_ERR_INVAL);
    BOOST_CHECK(std::string(e.what()).find("dart_group_addmember") != std::string::npos);
  }
  dartpp::Array<int> a(3);
  BOOST_CHECK_THROW((void)a.at(3), std::out_of_range);
  cfg->log_enabled = saved;
  a.barrier();
}

BOOST_AUTO_TEST_SUITE_END()
