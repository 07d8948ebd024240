// registry_watch: every rank publishes its host name and a status object in
// the registry, watches the other ranks' status objects, and prints the
// notifications it receives over a few syncs.
//
//   mpirun -n 4 registry_watch
//
// Each rank owns one segment ("rank.<r>", writable by that rank only) and
// subscribes to every other rank's status object. Round k, every rank
// overwrites its status with "round k"; each sync then delivers one
// MODIFICATION per other rank, in rank order, identical on every rank.
#include <registry/registry.hpp>

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failed = 0;
  {
    auto created = registry::Registry::create(MPI_COMM_WORLD);
    if (!created) {
      std::fprintf(stderr, "registry: %s\n", registry::to_string(created.status()));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    registry::Registry& reg = *created;
    const int me = reg.rank();
    const int n = reg.size();
    const std::string mine = "rank." + std::to_string(me);

    // Publish: a segment only this rank may write, the host name in the
    // shared world segment.
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    reg.define_segment(mine, {me});
    reg.put(reg.world_segment(), {"host", mine}, std::string_view(host));
    reg.sync();

    int received = 0;
    for (int r = 0; r < n; ++r) {
      if (r == me) continue;
      reg.subscribe("rank." + std::to_string(r), {"status"}, registry::kAnd, registry::kModification,
                    [&, me](const registry::Notification& note) {
                      ++received;
                      std::printf("rank %d: %s status -> \"%.*s\"\n", me, note.segment.c_str(),
                                  static_cast<int>(note.object.size()),
                                  reinterpret_cast<const char*>(note.object.data()));
                    });
    }
    // A write to another rank's segment is refused.
    registry::Ticket intrusion;
    if (n > 1) intrusion = reg.put("rank." + std::to_string((me + 1) % n), {"status"}, std::string_view("hijacked"));
    reg.sync();
    if (n > 1 && intrusion.status() != registry::Status::denied) failed = 1;

    const int rounds = 3;
    for (int k = 1; k <= rounds; ++k) {
      reg.put(mine, {"status"}, std::string_view("round " + std::to_string(k)), registry::kOverwrite);
      reg.sync();
    }

    auto hosts = reg.get(reg.world_segment(), {"host"});
    if (me == 0)
      for (const auto& v : *hosts)
        std::printf("rank 0: %s runs on %s\n", v.tokens[1].c_str(), std::string(v.as_string()).c_str());
    const int expected = rounds * (n - 1);
    if (received != expected || hosts->size() != static_cast<std::size_t>(n)) failed = 1;
    std::printf("rank %d: %d notifications, expected %d\n", me, received, expected);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) std::printf("registry_watch: %s\n", any ? "FAILED" : "PASSED");
    failed = any;
  }  // the registry is destroyed (collectively) before MPI_Finalize
  MPI_Finalize();
  return failed;
}
