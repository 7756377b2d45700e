// The cujit side of bench/cpu_peers.py: a process that keeps its inputs in
// memory and times cujit::evaluate on the CPU, so the script can interleave
// it with numexpr and NumPy run by run. Commands, one a line on stdin:
//   load NAME PATH        read a .npy file as input NAME            -> "ok"
//   map NAME PATH         map a .npy file (in /dev/shm: the pages the script's
//                         own arrays map too) as input NAME          -> "ok"
//   clear                 drop every input                          -> "ok"
//   run NAMES PROGRAM     evaluate PROGRAM (inputs NAMES, comma-separated)
//                         once; prints the call's wall and CPU milliseconds
//                         (CPU: user + system time of every thread of the process)
//   save PATH NAMES PROGRAM   the same, and writes its first output to PATH
//   runs K NAMES PROGRAM  evaluate PROGRAM K times back to back; prints the
//                         mean wall and CPU milliseconds of one call (a small
//                         call's steady cost, which one call woken from a pipe
//                         read cannot show: its time is mostly the wake-up)
//   info                  which instruction set the loops and the math run on
//   target NAME           force the loops of one dispatch target (avx512, avx2,
//                         baseline), as the tests do -> "ok"
//   triad N               a STREAM triad a[i] = b[i] + 3 c[i] on N float64
//                         elements, split over the threads, arrays kept
//                         between calls (first touched by their thread);
//                         prints its wall and CPU milliseconds
// The timed call is the public API's whole CPU path (check, plan, allocate
// the outputs, compute); freeing the outputs comes after the clock stops.
// Threads: $CUJIT_NUM_THREADS (default: every core).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/eval_loops.hpp"
#include "cpu/vector_math.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "io/npy.hpp"

// User + system time of the whole process, every thread: what the call cost
// the machine, which a loaded machine's preemption does not inflate as it
// does the wall time.
double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
          static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3);
}

// The machine's streaming bandwidth, measured beside the programs: the
// reference the memory-bound programs are held to (24 bytes an element, as
// STREAM counts: b and c read, a written).
struct Triad {
  std::size_t n = 0;
  std::unique_ptr<double[]> a, b, c;
  int threads = 1;

  template <class F> void parallel(F f) {
    std::vector<std::thread> team;
    for (int t = 1; t < threads; ++t) team.emplace_back(f, t);
    f(0);
    for (auto& th : team) th.join();
  }
  void range(int t, std::size_t& lo, std::size_t& hi) const {
    lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
  }
  void resize(std::size_t size) {
    if (size == n) return;
    n = size;
    a.reset(new double[n]);
    b.reset(new double[n]);
    c.reset(new double[n]);
    parallel([&](int t) {
      std::size_t lo, hi;
      range(t, lo, hi);
      for (std::size_t i = lo; i < hi; ++i) a[i] = 0, b[i] = 1, c[i] = 2;
    });
  }
  // One triad; the threads are started outside the clock and meet at a
  // spin barrier, so the time is the sweep's.
  double run() {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<double> ms(static_cast<std::size_t>(threads));
    std::chrono::steady_clock::time_point t0;
    std::vector<std::thread> team;
    auto work = [&](int t) {
      std::size_t lo, hi;
      range(t, lo, hi);
      ready.fetch_add(1);
      while (!go.load()) {
      }
      double* __restrict x = a.get();
      const double* __restrict y = b.get();
      const double* __restrict z = c.get();
      for (std::size_t i = lo; i < hi; ++i) x[i] = y[i] + 3.0 * z[i];
    };
    for (int t = 1; t < threads; ++t) team.emplace_back(work, t);
    while (ready.load() < threads - 1) {
    }
    t0 = std::chrono::steady_clock::now();
    ready.fetch_add(1);
    go.store(true);
    work(0);
    for (auto& th : team) th.join();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
};

// An input mapped from a .npy file: the same physical pages as the script's
// np.load(..., mmap_mode='r') arrays, so cujit reads its inputs from the
// caches the other systems' calls leave them in, as it would when called from
// the same process (a private copy would be cold after every other system's
// call: at 10^5 elements, twice the time).
struct Mapped {
  void* base = MAP_FAILED;
  std::size_t size = 0;
  cujit::ArrayView view;
  Mapped() = default;
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  ~Mapped() {
    if (base != MAP_FAILED) munmap(base, size);
  }
};

std::unique_ptr<Mapped> map_npy(const std::string& path) {
  auto m = std::make_unique<Mapped>();
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  struct stat st {};
  fstat(fd, &st);
  m->size = static_cast<std::size_t>(st.st_size);
  m->base = mmap(nullptr, m->size, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (m->base == MAP_FAILED) throw std::runtime_error("cannot map " + path);
  // The header's dtype and shape (parse_npy copies the data once; the view
  // then points at the mapping's own bytes, the file's last nbytes).
  const cujit::HostArray a =
      cujit::parse_npy(std::string_view(static_cast<const char*>(m->base), m->size), path);
  m->view = a.view();
  const std::size_t nbytes = static_cast<std::size_t>(a.view().size()) * a.view().itemsize();
  m->view.data = static_cast<char*>(m->base) + (m->size - nbytes);
  return m;
}

int main() {
  Triad triad;
  if (const char* s = std::getenv("CUJIT_NUM_THREADS")) triad.threads = std::max(1, std::atoi(s));
  std::map<std::string, cujit::HostArray> arrays;
  std::map<std::string, std::unique_ptr<Mapped>> mapped;
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      std::istringstream in(line);
      std::string cmd, path, names;
      in >> cmd;
      if (cmd == "load") {
        std::string name;
        in >> name >> path;
        arrays[name] = cujit::read_npy(path);
        std::printf("ok\n");
      } else if (cmd == "map") {
        std::string name;
        in >> name >> path;
        mapped[name] = map_npy(path);
        std::printf("ok\n");
      } else if (cmd == "clear") {
        arrays.clear();
        mapped.clear();
        std::printf("ok\n");
      } else if (cmd == "run" || cmd == "save" || cmd == "runs") {
        int times = 1;
        if (cmd == "save") in >> path;
        if (cmd == "runs") in >> times;
        in >> names;
        std::string program;
        std::getline(in, program);
        std::vector<cujit::NamedArg> args;
        std::stringstream ns(names);
        for (std::string n; std::getline(ns, n, ',');) {
          auto m = mapped.find(n);
          args.push_back({n, cujit::Arg(m != mapped.end() ? m->second->view : arrays.at(n).view())});
        }
        cujit::EvaluateOptions opt;
        opt.device = cujit::Device::cpu();
        double c0 = cpu_ms();
        auto t0 = std::chrono::steady_clock::now();
        std::vector<cujit::NamedArray> outs = cujit::evaluate(program, args, opt);
        for (int k = 1; k < times; ++k) outs = cujit::evaluate(program, args, opt);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / times;
        double cpu = (cpu_ms() - c0) / times;
        if (cmd == "save") cujit::write_npy(path, outs.at(0).array.view());
        std::printf("%.4f %.4f\n", ms, cpu);
      } else if (cmd == "target") {  // the loops of one dispatch target (avx512, avx2, baseline), as the tests force them
        std::string name;
        in >> name;
        cujit::cpu::force_loop_target(name);
        std::printf("ok\n");
      } else if (cmd == "info") {
        std::printf("loops %s, math %s\n", cujit::cpu::loop_target().c_str(), cujit::cpu::cpu_math().c_str());
      } else if (cmd == "triad") {
        std::size_t n = 0;
        in >> n;
        triad.resize(n);
        double c0 = cpu_ms();
        double ms = triad.run();
        std::printf("%.4f %.4f\n", ms, cpu_ms() - c0);
      } else if (cmd == "quit") {
        return 0;
      } else {
        std::printf("error: unknown command '%s'\n", cmd.c_str());
      }
    } catch (const std::exception& e) {
      std::printf("error: %s\n", e.what());
    }
    std::fflush(stdout);
  }
  return 0;
}
