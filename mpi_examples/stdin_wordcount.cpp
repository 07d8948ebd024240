// stdin_wordcount: unit 0 reads text from std::cin, every unit counts the
// words of its share, and unit 0 prints the total, like `wc -w`.
//
//   dartrun -n 4 ./stdin_wordcount < book.txt
//   cat book.txt | dartrun -n 4 ./stdin_wordcount
//
// Plain std::cin: dart_init made unit 0's fd 0 a pipe that the runtime
// fills from dartrun (or from the launcher's stdin), with flow control, so
// the input may be of any size. The text moves in blocks of 1 MiB, so no
// unit ever holds more than one block whatever the input size.
#include <dash/dart/if/dart.h>

#include <cctype>
#include <cstdio>
#include <iostream>
#include <vector>

namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

int main(int argc, char** argv) {
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  dart_global_unit_t me;
  size_t units = 0;
  dart_myid(&me);
  dart_size(&units);
  const dart_team_unit_t root = {0};

  constexpr size_t kBlock = 1 << 20;
  // One extra byte in front: the last character of the previous block, so
  // a word that straddles two blocks is counted once, where it starts.
  std::vector<char> block(kBlock + 1, ' ');
  unsigned long long words = 0, bytes = 0;
  for (;;) {
    unsigned long long n = 0;
    if (me.id == 0) {
      std::cin.read(block.data() + 1, kBlock);
      n = static_cast<unsigned long long>(std::cin.gcount());
    }
    if (dart_bcast(&n, 1, DART_TYPE_LONGLONG, root, DART_TEAM_ALL) != DART_OK) dart_abort(1);
    if (n == 0) break;
    if (dart_bcast(block.data() + 1, n, DART_TYPE_BYTE, root, DART_TEAM_ALL) != DART_OK) dart_abort(1);
    // My share of this block: a word is counted at its first character.
    const size_t lo = static_cast<size_t>(n * me.id / units), hi = static_cast<size_t>(n * (me.id + 1) / units);
    for (size_t i = lo + 1; i <= hi; ++i)
      if (!is_space(block[i]) && is_space(block[i - 1])) ++words;
    block[0] = block[n];
    bytes += n;
  }
  unsigned long long total = 0;
  dart_allreduce(&words, &total, 1, DART_TYPE_LONGLONG, DART_OP_SUM, DART_TEAM_ALL);
  if (me.id == 0) std::printf("stdin_wordcount: %llu words in %llu bytes on %zu units\n", total, bytes, units);
  dart_exit();
  return 0;
}
