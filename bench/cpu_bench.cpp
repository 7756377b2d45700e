// The cujit side of bench/cpu_peers.py: a process that keeps its inputs in
// memory and times cujit::evaluate on the CPU, so the script can interleave
// it with numexpr and NumPy run by run. Commands, one a line on stdin:
//   load NAME PATH        read a .npy file as input NAME            -> "ok"
//   clear                 drop every input                          -> "ok"
//   run NAMES PROGRAM     evaluate PROGRAM (inputs NAMES, comma-separated)
//                         once; prints the call's wall and CPU milliseconds
//                         (CPU: user + system time of every thread of the process)
//   save PATH NAMES PROGRAM   the same, and writes its first output to PATH
// The timed call is the public API's whole CPU path (check, plan, allocate
// the outputs, compute); freeing the outputs comes after the clock stops.
// Threads: $CUJIT_NUM_THREADS (default: every core).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

int main() {
  std::map<std::string, cujit::HostArray> arrays;
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
      } else if (cmd == "clear") {
        arrays.clear();
        std::printf("ok\n");
      } else if (cmd == "run" || cmd == "save") {
        if (cmd == "save") in >> path;
        in >> names;
        std::string program;
        std::getline(in, program);
        std::vector<cujit::NamedArg> args;
        std::stringstream ns(names);
        for (std::string n; std::getline(ns, n, ',');) args.push_back({n, cujit::Arg(arrays.at(n).view())});
        cujit::EvaluateOptions opt;
        opt.device = cujit::Device::cpu();
        double c0 = cpu_ms();
        auto t0 = std::chrono::steady_clock::now();
        std::vector<cujit::NamedArray> outs = cujit::evaluate(program, args, opt);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        double cpu = cpu_ms() - c0;
        if (cmd == "save") cujit::write_npy(path, outs.at(0).array.view());
        std::printf("%.4f %.4f\n", ms, cpu);
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
