// First-day program (a), issue 22: gamma and contrast stretch of an 8-bit
// grey image, as a NumPy user writes it,
//   out = np.clip(255 * (img.astype(np.float32) / 255) ** gamma * a + b, 0, 255).astype(np.uint8)
// read from and written to .npy with cujit's npy API, on host arrays (so on
// the CPU evaluator). Prints the milliseconds of loading, computing and
// saving for bench/first_day/first_day.py.
//   first_day_gamma IMG.npy OUT.npy GAMMA A B
#include <cujit/error.hpp>
#include <cujit/evaluate.hpp>
#include <cujit/npy.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: first_day_gamma IMG.npy OUT.npy GAMMA A B\n");
    return 2;
  }
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  try {
    auto t0 = clock::now();
    cujit::Array img = cujit::load_npy(argv[1]);
    auto t1 = clock::now();
    // The scalars are weak (NumPy 2's Python floats): the arithmetic stays float32.
    auto outs = cujit::evaluate("out = uint8(clip(255 * (float32(img) / 255) ** gamma * a + b, 0, 255))",
                                {{"img", img}, {"gamma", std::atof(argv[3])}, {"a", std::atof(argv[4])},
                                 {"b", std::atof(argv[5])}});
    auto t2 = clock::now();
    cujit::save_npy(argv[2], outs["out"]);
    auto t3 = clock::now();
    std::printf("load %.3f compute %.3f save %.3f\n", ms(t0, t1), ms(t1, t2), ms(t2, t3));
    return 0;
  } catch (const cujit::Error& e) {
    std::fprintf(stderr, "first_day_gamma: %s\n", e.what());
    return e.exit_code();
  }
}
