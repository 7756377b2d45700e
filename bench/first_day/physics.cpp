// First-day program (c), issue 22: a particle loop updated in place, STEPS
// explicit Euler steps of
//   v += dt * a;  x += dt * v
// as CuPy's in-place idiom k(x, v, a, dt, x, v): the arrays given as inputs
// are given again as the outputs, so the kernel writes into them (no new
// array per step). Positions, velocities and accelerations are .npy files
// read and written with cujit's npy API; host arrays, so the CPU evaluator
// runs it. Prints the milliseconds of loading, computing and saving.
//   first_day_physics DIR STEPS DT
//   (reads DIR/x.npy, DIR/v.npy, DIR/a.npy; writes DIR/x_end.npy, DIR/v_end.npy)
#include <cujit/elementwise.hpp>
#include <cujit/error.hpp>
#include <cujit/npy.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: first_day_physics DIR STEPS DT\n");
    return 2;
  }
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const std::string dir = argv[1];
  const int steps = std::atoi(argv[2]);
  const double dt = std::atof(argv[3]);
  try {
    cujit::ElementwiseKernel step("T x0, T v0, T a, T dt", "T x, T v", "v = v0 + dt * a; x = x0 + dt * v", "euler");
    auto t0 = clock::now();
    cujit::Array x = cujit::load_npy(dir + "/x.npy"), v = cujit::load_npy(dir + "/v.npy"),
                 a = cujit::load_npy(dir + "/a.npy");
    auto t1 = clock::now();
    for (int k = 0; k < steps; ++k) step(x, v, a, dt, x, v);
    auto t2 = clock::now();
    cujit::save_npy(dir + "/x_end.npy", x);
    cujit::save_npy(dir + "/v_end.npy", v);
    auto t3 = clock::now();
    std::printf("load %.3f compute %.3f save %.3f\n", ms(t0, t1), ms(t1, t2), ms(t2, t3));
    return 0;
  } catch (const cujit::Error& e) {
    std::fprintf(stderr, "first_day_physics: %s\n", e.what());
    return e.exit_code();
  }
}
