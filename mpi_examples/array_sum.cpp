// array_sum: fill a distributed array, reduce it, and check the result
// against the closed form.
//
// Every unit fills only the block of the array it holds (for_each_index
// runs on local memory); accumulate adds up each block locally and
// combines the partial sums with one collective.
//
// Run:  mpirun -np 4 ./array_sum [elements]
#include <dart/dart.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  dartpp::Runtime runtime(&argc, &argv);
  const std::size_t n = argc > 1 ? std::stoull(argv[1]) : 10000000;

  // Collective: every unit gets a block of about n / units elements.
  dartpp::Array<long long> a(n);
  dartpp::for_each_index(a.begin(), a.end(), [](std::size_t i, long long& v) { v = static_cast<long long>(i); });

  const long long sum = dartpp::accumulate(a.begin(), a.end(), 0LL);
  const long long closed = static_cast<long long>(n) * (static_cast<long long>(n) - 1) / 2;  // 0 + 1 + ... + n-1
  if (runtime.myid() == 0)
    std::printf("array_sum: %zu elements on %zu units, %zu per unit: sum %lld, closed form n(n-1)/2 = %lld: %s\n", n,
                runtime.size(), a.pattern().block(), sum, closed, sum == closed ? "OK" : "MISMATCH");
  return sum == closed ? 0 : 1;
}
