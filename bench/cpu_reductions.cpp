// Reductions on the CPU evaluator against NumPy's own (issue 20: "at least as
// fast as NumPy's own reductions from 10^6 elements"). One case per line on
// stdin, `ID|PROGRAM|DTYPE|SHAPE` (SHAPE as 1000x1000), inputs x and y filled
// with the values bench/cpu_reductions.py gives NumPy; prints `ID MEDIAN_MS`,
// the median of REPS evaluate() calls on host arrays after a warm-up.
//   bench_cpu_reductions [REPS] < cases
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cujit/evaluate.hpp"

using namespace cujit;

namespace {

template <class F> double median_ms(int reps, const F& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, c);) v.push_back(part);
  return v;
}

// x[k] = ((k * 7919) % 1000) / 1000 - 0.5 and y[k] = ((k * 104729) % 1000) / 1000: the
// same values cpu_reductions.py makes with NumPy.
HostArray filled(DType t, const Shape& s, std::int64_t prime) {
  HostArray a(t, s);
  for (std::int64_t k = 0; k < a.size(); ++k) {
    const double v = static_cast<double>((k * prime) % 1000) / 1000.0 - (prime == 7919 ? 0.5 : 0.0);
    if (t == DType::Float32) a.as<float>()[k] = static_cast<float>(v);
    else a.as<double>()[k] = v;
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 11;
  for (std::string line; std::getline(std::cin, line);) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split(line, '|');
    const DType t = f[2] == "float64" ? DType::Float64 : DType::Float32;
    Shape s;
    for (const std::string& e : split(f[3], 'x')) {
      s[s.ndim] = std::atoll(e.c_str());
      ++s.ndim;
    }
    const HostArray x = filled(t, s, 7919), y = filled(t, s, 104729);
    const double ms = median_ms(reps, [&] { evaluate(f[1], {{"x", x}, {"y", y}}); });
    std::printf("%s %.4f\n", f[0].c_str(), ms);
    std::fflush(stdout);
  }
  return 0;
}
