// heat2d: 2-D heat diffusion on a distributed matrix.
//
// A square plate whose top edge is held at 100 degrees and the other edges
// at 0 relaxes by Jacobi steps: every interior point becomes the mean of
// its four neighbours. The plate is a dartpp::Matrix split over the units
// by blocks of rows. Before each step a unit fetches the row just above and
// just below its block from the neighbouring units (one-sided gets,
// Matrix::update_halo), computes its rows in local memory, and waits at a
// barrier so nobody reads a row that is still being written.
//
// At the end unit 0 gathers the plate and writes it as a PNG image. With --verify it also computes the same problem
// alone and compares.
//
// Run:  mpirun -np 4 ./heat2d [--size 256] [--steps 2000] [--out heat2d.png] [--verify]
#include <dart/dart.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

namespace {

constexpr double kHot = 100.0;

// One Jacobi step for rows [0, nrows) of a block whose neighbours are
// `above` and `below` (nullptr at the plate's edge). `first` is the global
// index of the block's first row, `n` the plate's size.
void step_rows(const double* in, double* out, std::size_t first, std::size_t nrows, std::size_t n, const double* above,
               const double* below) {
  for (std::size_t lr = 0; lr < nrows; ++lr) {
    const std::size_t r = first + lr;
    const double* row = in + lr * n;
    double* dst = out + lr * n;
    if (r == 0 || r == n - 1) {  // fixed edges
      std::copy(row, row + n, dst);
      continue;
    }
    const double* up = lr == 0 ? above : row - n;
    const double* down = lr + 1 == nrows ? below : row + n;
    dst[0] = row[0];
    dst[n - 1] = row[n - 1];
    for (std::size_t c = 1; c + 1 < n; ++c) dst[c] = 0.25 * (up[c] + down[c] + row[c - 1] + row[c + 1]);
  }
}

// The initial plate, row r.
void initial_row(double* row, std::size_t r, std::size_t n) { std::fill(row, row + n, r == 0 ? kHot : 0.0); }

// The same problem on one process, for --verify.
std::vector<double> solve_alone(std::size_t n, int steps) {
  std::vector<double> a(n * n), b(n * n);
  for (std::size_t r = 0; r < n; ++r) initial_row(&a[r * n], r, n);
  for (int s = 0; s < steps; ++s) {
    step_rows(a.data(), b.data(), 0, n, n, nullptr, nullptr);
    std::swap(a, b);
  }
  return a;
}

// Colour of temperature t in [0, kHot]: black -> red -> yellow -> white.
std::array<unsigned char, 3> colour(double t) {
  const double x = std::clamp(t / kHot, 0.0, 1.0) * 3;
  auto ramp = [](double v) { return static_cast<unsigned char>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
  return {ramp(x), ramp(x - 1), ramp(x - 2)};
}

// The plate as an RGB PNG: signature, header, one zlib-compressed data
// chunk (each row led by filter type 0), end; chunk CRCs from zlib.
bool write_png(const std::string& path, const std::vector<double>& plate, std::size_t n) {
  std::vector<unsigned char> raw;
  raw.reserve(n * (3 * n + 1));
  for (std::size_t r = 0; r < n; ++r) {
    raw.push_back(0);
    for (std::size_t c = 0; c < n; ++c) {
      const auto rgb = colour(plate[r * n + c]);
      raw.insert(raw.end(), rgb.begin(), rgb.end());
    }
  }
  uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<unsigned char> packed(packed_size);
  if (compress(packed.data(), &packed_size, raw.data(), static_cast<uLong>(raw.size())) != Z_OK) return false;
  packed.resize(packed_size);

  std::ofstream out(path, std::ios::binary);
  auto be32 = [&](std::uint32_t v) {
    const unsigned char b[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                                static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
    out.write(reinterpret_cast<const char*>(b), 4);
  };
  auto chunk = [&](const char* type, const std::vector<unsigned char>& data) {
    be32(static_cast<std::uint32_t>(data.size()));
    out.write(type, 4);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type), 4);
    crc = crc32(crc, data.data(), static_cast<uInt>(data.size()));
    be32(static_cast<std::uint32_t>(crc));
  };
  out.write("\x89PNG\r\n\x1a\n", 8);
  const auto w = static_cast<std::uint32_t>(n);
  std::vector<unsigned char> header = {static_cast<unsigned char>(w >> 24), static_cast<unsigned char>(w >> 16),
                                       static_cast<unsigned char>(w >> 8), static_cast<unsigned char>(w)};
  header.insert(header.end(), header.begin(), header.end());  // height = width
  header.insert(header.end(), {8, 2, 0, 0, 0});               // 8-bit RGB, no interlace
  chunk("IHDR", header);
  chunk("IDAT", packed);
  chunk("IEND", {});
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  dartpp::Runtime runtime(&argc, &argv);
  std::size_t n = 256;
  int steps = 2000;
  std::string out_path = "heat2d.png";
  bool verify = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--size") && i + 1 < argc) n = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out_path = argv[++i];
    else if (!std::strcmp(argv[i], "--verify")) verify = true;
  }
  n = std::max<std::size_t>(n, 3);
  const bool root = runtime.myid() == 0;

  // Two plates: each step reads one and writes the other.
  dartpp::Matrix<double> plate_a(n, n), plate_b(n, n);
  dartpp::Matrix<double>* cur = &plate_a;
  dartpp::Matrix<double>* next = &plate_b;
  const std::size_t first = cur->first_local_row(), nrows = cur->local_rows();
  for (std::size_t lr = 0; lr < nrows; ++lr) initial_row(cur->local_row(lr), first + lr, n);
  cur->barrier();
  if (root)
    std::printf("heat2d: %zu x %zu plate on %zu units (%zu rows each), %d steps\n", n, n, runtime.size(),
                cur->rows_of(0), steps);

  const int report_every = std::max(1, steps / 10);
  for (int s = 1; s <= steps; ++s) {
    cur->update_halo();
    const double* in = nrows > 0 ? cur->local_row(0) : nullptr;
    double* out = nrows > 0 ? next->local_row(0) : nullptr;
    if (nrows > 0) step_rows(in, out, first, nrows, n, cur->halo_above(), cur->halo_below());
    if (s % report_every == 0 || s == steps) {
      // Largest change of this step, over all units (a collective, which
      // also serves as this step's barrier).
      double change = 0;
      for (std::size_t i = 0; i < nrows * n; ++i) change = std::max(change, std::fabs(out[i] - in[i]));
      change = dartpp::allreduce(change, DART_OP_MAX);
      if (root) std::printf("heat2d: step %5d: largest change %.3e\n", s, change);
    } else {
      next->barrier();
    }
    std::swap(cur, next);
  }

  // Unit 0 gathers the plate (one get per unit block) and writes it out.
  std::vector<double> plate;
  if (root) {
    plate.resize(n * n);
    dartpp::copy(cur->begin(), cur->end(), plate.data());
    double sum = 0;
    for (double v : plate) sum += v;
    std::printf("heat2d: checksum (sum of all temperatures) %.9f\n", sum);
    char where[PATH_MAX];
    if (write_png(out_path, plate, n))
      std::printf("heat2d: wrote %s (%zu x %zu PNG, black = 0, white = %.0f degrees)\n",
                  realpath(out_path.c_str(), where) ? where : out_path.c_str(), n, n, kHot);
    else std::printf("heat2d: could not write %s\n", out_path.c_str());
    if (verify) {
      const std::vector<double> alone = solve_alone(n, steps);
      double worst = 0;
      for (std::size_t i = 0; i < plate.size(); ++i) worst = std::max(worst, std::fabs(plate[i] - alone[i]));
      std::printf("heat2d: verify: largest difference to one process %.3e: %s\n", worst,
                  worst <= 1e-9 ? "matches the single-process computation" : "MISMATCH");
    }
  }
  cur->barrier();  // nobody frees the plates while unit 0 reads them
  return 0;
}
