// The CPU evaluator's blocked machinery: chunks, threads, gathers of broadcast
// and strided inputs across chunk edges, registers written in place, the
// error of the first failing element, progress. Each result is compared with
// a plain loop written here, over arrays of several chunks.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "catch.hpp"
#include "lang/check.hpp"
#include "cujit/error.hpp"
#include "cpu/eval.hpp"
#include "cpu/thread_pool.hpp"

using namespace cujit;

namespace {

HostArray iota_f32(Shape shape, float scale = 1.0f) {
  HostArray a(DType::Float32, shape);
  for (std::int64_t k = 0; k < a.size(); ++k) a.as<float>()[k] = static_cast<float>(k % 9973) * scale - 17.0f;
  return a;
}

std::vector<Output> run(const std::string& src, std::vector<Input> inputs, int threads, const Shape* shape = nullptr,
                        CpuOptions opt = {}) {
  std::vector<Param> params;
  for (const Input& in : inputs) params.push_back(Param{in.name, in.view.dtype, in.weak, in.raw});
  Program p = compile_program(src, params);
  opt.threads = threads;
  return evaluate_program(p, inputs, shape, opt);
}

// The float at byte offset `off` of a view.
float at(const ArrayView& v, std::int64_t off) {
  float f;
  std::memcpy(&f, static_cast<const unsigned char*>(v.data) + off, sizeof f);
  return f;
}

}  // namespace

TEST_CASE("blocked evaluator: broadcast and strided inputs across chunk edges, any thread count", "[eval][blocked]") {
  // (7, 3001): a row (3001,), a column (7, 1), a transposed view and a
  // reversed one; 21007 elements span several 4096-element chunks, and rows
  // end in the middle of chunks.
  const std::int64_t R = 7, C = 3001;
  HostArray m = iota_f32({R, C});
  HostArray row = iota_f32({C}, 0.5f);
  HostArray col = iota_f32({R, 1}, 3.0f);
  HostArray t = iota_f32({C, R}, 0.25f);
  ArrayView tv = t.view();  // t's transpose: shape (R, C), strides (4, 4R)
  tv.shape = Shape{R, C};
  tv.strides = Shape{4, 4 * R};
  HostArray flat = iota_f32({R * C}, 2.0f);
  ArrayView rv = flat.view();  // flat reversed, viewed as (R, C)
  rv.data = static_cast<float*>(flat.data()) + R * C - 1;
  rv.shape = Shape{R, C};
  rv.strides = Shape{-4 * C, -4};

  std::vector<float> want(static_cast<std::size_t>(R * C));
  for (std::int64_t r = 0; r < R; ++r)
    for (std::int64_t c = 0; c < C; ++c) {
      float a = m.as<float>()[r * C + c], b = row.as<float>()[c], d = col.as<float>()[r];
      float e = at(tv, r * 4 + c * 4 * R), f = at(rv, -r * 4 * C - c * 4);
      want[static_cast<std::size_t>(r * C + c)] = ((a * b + d) - e) * f;
    }
  for (int threads : {1, 2, 3, 8}) {
    INFO("threads " << threads);
    auto out = run("out = (m*row + col - t) * f",
                   {{"m", m.view()}, {"row", row.view()}, {"col", col.view()}, {"t", tv}, {"f", rv}}, threads);
    REQUIRE(out.size() == 1);
    REQUIRE(out[0].array.shape() == Shape{R, C});
    CHECK(std::memcmp(out[0].array.data(), want.data(), want.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("blocked evaluator: i, n, locals and outputs that share a value", "[eval][blocked]") {
  const std::int64_t N = 10007;
  HostArray x = iota_f32({N});
  // t is a local that two outputs take; u is assigned twice; c copies an input.
  auto out = run("t = x * 2; a = t; b = t; u = x + i; u = u * 3; c = x; k = i + n", {{"x", x.view()}}, 2);
  REQUIRE(out.size() == 5);
  for (std::int64_t j = 0; j < N; ++j) {
    float v = x.as<float>()[j];
    INFO("element " << j);
    REQUIRE(out[0].array.as<float>()[j] == v * 2);
    REQUIRE(out[1].array.as<float>()[j] == v * 2);
    REQUIRE(out[2].array.as<double>()[j] == (static_cast<double>(v) + static_cast<double>(j)) * 3);  // float32 + int64
    REQUIRE(out[3].array.as<float>()[j] == v);
    REQUIRE(out[4].array.as<std::int64_t>()[j] == j + N);
  }
}

TEST_CASE("blocked evaluator: the error is the first failing element's, whatever the threads", "[eval][blocked]") {
  // x[2*i] first leaves x (size 20000) at i = 10000, in the third chunk;
  // later chunks fail too, and may run first on other threads.
  const std::int64_t N = 40000;
  HostArray x = iota_f32({20000});
  HostArray y = iota_f32({N});
  for (int threads : {1, 2, 4}) {
    INFO("threads " << threads);
    try {
      run("out = x[2*i] + y", {{"x", x.view(), false, true}, {"y", y.view()}}, threads);
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Data);
      CHECK(std::string(e.what()) == "index 20000 is out of bounds for raw parameter 'x' of size 20000");
    }
  }
}

TEST_CASE("a reduction's map that indexes a raw parameter runs fused block by block", "[eval][blocked][reduce]") {
  // The map's plan outlives the input list it was made from (fuzz_frontend
  // found its raw index reading that list after it was freed, under ASan).
  const std::int64_t N = 200000;
  HostArray y = iota_f32({N});
  HostArray r = iota_f32({4}, 0.5f);
  double want = 0;
  for (std::int64_t k = 0; k < N; ++k) want += static_cast<double>(y.as<float>()[k]) + static_cast<double>(r.as<float>()[1]);
  for (int threads : {1, 2, 4}) {
    INFO("threads " << threads);
    std::vector<Output> out = run("out = sum(r[1] + y)", {{"r", r.view(), false, true}, {"y", y.view()}}, threads);
    CHECK(std::abs(static_cast<double>(out[0].array.as<float>()[0]) - want) <= 1e-5 * std::abs(want));
    // Out of bounds: the Data error, from whichever thread meets it first, never a crash.
    try {
      run("out = sum(r[9] + y)", {{"r", r.view(), false, true}, {"y", y.view()}}, threads);
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Data);
      CHECK(std::string(e.what()) == "index 9 is out of bounds for raw parameter 'r' of size 4");
    }
  }
}

TEST_CASE("blocked evaluator: progress reaches the total once, from the calling thread", "[eval][blocked]") {
  HostArray x = iota_f32({50000});
  std::vector<std::int64_t> seen;
  CpuOptions opt;
  opt.progress = [&](std::int64_t done, std::int64_t total) {
    CHECK(total == 50000);
    seen.push_back(done);
  };
  run("out = sin(x)", {{"x", x.view()}}, 2, nullptr, opt);
  REQUIRE(!seen.empty());
  CHECK(seen.back() == 50000);
  CHECK(std::count(seen.begin(), seen.end(), 50000) >= 1);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
}

TEST_CASE("blocked evaluator: empty outputs and scalar-only programs", "[eval][blocked]") {
  HostArray e = iota_f32({0});
  auto out = run("out = x + 1", {{"x", e.view()}}, 2);
  CHECK(out[0].array.size() == 0);
  Shape s{5000};
  auto filled = run("out = 3 + i * 2", {}, 2, &s);
  REQUIRE(filled[0].array.size() == 5000);
  for (std::int64_t j = 0; j < 5000; ++j) REQUIRE(filled[0].array.as<std::int64_t>()[j] == 3 + j * 2);
}

TEST_CASE("thread pool: every task runs once, on distinct worker slots", "[eval][blocked]") {
  for (int threads : {1, 2, 5}) {
    std::vector<std::atomic<int>> hits(1000);
    std::vector<std::atomic<int>> busy(static_cast<std::size_t>(threads));
    std::atomic<bool> shared{false};
    parallel_tasks(1000, threads, [&](int w, std::int64_t t) {
      if (busy[static_cast<std::size_t>(w)].fetch_add(1) != 0) shared = true;
      hits[static_cast<std::size_t>(t)]++;
      busy[static_cast<std::size_t>(w)].fetch_sub(1);
    });
    CHECK(!shared);
    for (auto& h : hits) REQUIRE(h.load() == 1);
  }
}
