#include "cleanup.hpp"

#include <dirent.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace dartrun {

std::string random_secret() {
  unsigned char raw[24];
  size_t got = 0;
  while (got < sizeof raw) {
    ssize_t n = ::getrandom(raw + got, sizeof raw - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  static const char hex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : raw) {
    s += hex[c >> 4];
    s += hex[c & 15];
  }
  return s;
}

std::string job_key() {
  const char *k = std::getenv("DART_JOB_KEY");
  if (k && std::strlen(k) == 16 && std::strspn(k, "0123456789abcdefABCDEF") == 16 && std::strspn(k, "0") != 16)
    return k;
  std::string key = random_secret().substr(0, 16);
  if (key.find_first_not_of('0') == std::string::npos) key[15] = '1';
  return key;
}

int remove_job_objects(const std::string &key) {
  DIR *d = ::opendir("/dev/shm");
  if (!d) return 0;
  const std::string prefix = "dart-" + key + "-";
  int removed = 0;
  while (dirent *e = ::readdir(d))
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0 &&
        ::unlink((std::string("/dev/shm/") + e->d_name).c_str()) == 0)
      ++removed;
  ::closedir(d);
  return removed;
}

std::string private_dir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/dartrun-XXXXXX";
  std::vector<char> t(tmpl.begin(), tmpl.end());
  t.push_back('\0');
  if (!::mkdtemp(t.data())) {
    std::perror("dartrun: mkdtemp");
    return {};
  }
  return t.data();
}

std::string host_identity() {
  char boot[64] = "";
  if (FILE *f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (!std::fgets(boot, sizeof boot, f)) boot[0] = '\0';
    std::fclose(f);
  }
  boot[std::strcspn(boot, "\n")] = '\0';
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  return std::string(boot) + "/" + host;
}

}  // namespace dartrun
