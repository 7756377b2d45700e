// The reduction kernels on the GPU against a host reference, on fresh random
// data, with the outputs poisoned first; and their determinism: the same bits
// on every run, for every grid size, and with aligned or misaligned inputs
// (vector or scalar loads).
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/driver.hpp"
#include "gpu/reduce_launch.hpp"
#include "gpu_util.hpp"
#include "core/half.hpp"
#include "skip.hpp"

using namespace cujit;

namespace {

ReduceKernels& kernels() {
  static ReduceKernels k;
  return k;
}

// Host data of one input, as doubles (the reference) and as stored bytes.
struct Data {
  DType dtype;
  std::vector<double> v;
  std::vector<unsigned char> bytes;
};

// Values in [-8, 8] (floats; a sprinkling of NaN when `nans`, of repeated
// values when `ties`), integers over [-1000, 1000], bools half true.
Data make_data(DType t, std::size_t n, std::mt19937_64& rng, bool nans = false, bool ties = false) {
  Data d{t, std::vector<double>(n), std::vector<unsigned char>(n * dtype_size(t))};
  std::uniform_real_distribution<double> uni(-8.0, 8.0);
  std::uniform_int_distribution<int> ints(-1000, 1000), pick(0, 999);
  for (std::size_t k = 0; k < n; ++k) {
    double x = 0;
    unsigned char* p = d.bytes.data() + k * dtype_size(t);
    if (t == DType::Bool) {
      const bool b = pick(rng) < 500;
      std::memcpy(p, &b, 1);
      x = b;
    } else if (t == DType::Int32) {
      const std::int32_t i = ties ? ints(rng) % 7 : ints(rng);
      std::memcpy(p, &i, 4);
      x = i;
    } else {
      x = ties ? std::floor(uni(rng)) : uni(rng);
      if (nans && pick(rng) < 2) x = NAN;
      if (t == DType::Float32) {
        const float f = static_cast<float>(x);
        std::memcpy(p, &f, 4);
        x = f;
      } else if (t == DType::Float64) {
        std::memcpy(p, &x, 8);
      } else if (t == DType::Float16) {
        const std::uint16_t h = float_to_half(static_cast<float>(x));
        std::memcpy(p, &h, 2);
        x = half_to_float(h);
      }
    }
    d.v[k] = x;
  }
  return d;
}

// Output element k as a double.
double out_value(DType t, const std::vector<unsigned char>& b, std::size_t k) {
  const unsigned char* p = b.data() + k * dtype_size(t);
  switch (t) {
    case DType::Float32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::Float64: { double f; std::memcpy(&f, p, 8); return f; }
    case DType::Float16: { std::uint16_t h; std::memcpy(&h, p, 2); return half_to_float(h); }
    case DType::Int64: { std::int64_t i; std::memcpy(&i, p, 8); return static_cast<double>(i); }
    case DType::Int32: { std::int32_t i; std::memcpy(&i, p, 4); return i; }
    case DType::Bool: return *p ? 1.0 : (*p == 0 ? 0.0 : -1.0);  // -1: not a bool (poison)
    default: return NAN;
  }
}

struct Ref {
  double value;
  double tol;  // absolute
};

// The reference of one output: the values along the reduced axis, in order.
Ref reference(ReduceOp op, const std::vector<double>& xs, DType value, int ddof) {
  const double eps = value == DType::Float64 ? 0x1p-52 : 0x1p-23;
  // Accumulated in long double: a sequential double sum over 2^22 terms errs
  // by more than the kernels' trees may (var of 2^22 doubles: 300 eps, H200).
  long double lsum = 0;
  double abs = 0;
  bool nan = false;
  for (double x : xs) {
    lsum += x;
    abs += std::fabs(x);
    nan = nan || std::isnan(x);
  }
  const double sum = static_cast<double>(lsum);
  // A tree's error bound: its depth (at most ~130 sequential additions here) times eps times sum |x|.
  const double tol = 160 * eps * abs + 1e-300;
  const double n = static_cast<double>(xs.size());
  switch (op) {
    case ReduceOp::Sum: return {sum, tol};
    case ReduceOp::Mean: return {sum / n, tol / n};
    case ReduceOp::Min:
    case ReduceOp::Max: {
      double m = op == ReduceOp::Min ? INFINITY : -INFINITY;
      for (double x : xs) m = op == ReduceOp::Min ? std::fmin(m, x) : std::fmax(m, x);
      return {nan ? NAN : m, 0};
    }
    case ReduceOp::ArgMin:
    case ReduceOp::ArgMax: {
      std::size_t best = 0;
      for (std::size_t k = 0; k < xs.size(); ++k) {
        if (std::isnan(xs[best])) break;
        if (std::isnan(xs[k]) || (op == ReduceOp::ArgMax ? xs[k] > xs[best] : xs[k] < xs[best])) best = k;
      }
      return {static_cast<double>(best), 0};
    }
    case ReduceOp::Any: {
      bool a = false;
      for (double x : xs) a = a || x != 0;
      return {a ? 1.0 : 0.0, 0};
    }
    case ReduceOp::All: {
      bool a = true;
      for (double x : xs) a = a && x != 0;
      return {a ? 1.0 : 0.0, 0};
    }
    case ReduceOp::Var:
    case ReduceOp::Std: {
      const long double mean = lsum / n;
      long double lss = 0;
      for (double x : xs) lss += (x - mean) * (x - mean);
      const double var = static_cast<double>(lss / std::max<double>(n - ddof, 0));  // NumPy: max(n - ddof, 0), so 0/0 = NaN when empty
      const double vtol = 200 * eps * (var + 1);
      return op == ReduceOp::Var ? Ref{var, vtol} : Ref{std::sqrt(var), vtol};
    }
    default: return {NAN, 0};
  }
}

struct Case {
  const char* what;
  ReduceOp op;
  DType in, value, out;
  bool two = false;  // sum(x*y)
  bool nans = false, ties = false;
  int ddof = 0;
};

const Case kCases[] = {
    {"sum f32", ReduceOp::Sum, DType::Float32, DType::Float32, DType::Float32},
    {"sum f64", ReduceOp::Sum, DType::Float64, DType::Float64, DType::Float64},
    {"sum f16", ReduceOp::Sum, DType::Float16, DType::Float16, DType::Float16},
    {"sum i32->i64", ReduceOp::Sum, DType::Int32, DType::Int64, DType::Int64},
    {"sum(x*y) f32", ReduceOp::Sum, DType::Float32, DType::Float32, DType::Float32, true},
    {"max f32 nan", ReduceOp::Max, DType::Float32, DType::Float32, DType::Float32, false, true},
    {"min i32", ReduceOp::Min, DType::Int32, DType::Int32, DType::Int32},
    {"max f64 nan", ReduceOp::Max, DType::Float64, DType::Float64, DType::Float64, false, true},
    {"min f64", ReduceOp::Min, DType::Float64, DType::Float64, DType::Float64},
    {"argmax f32 ties nan", ReduceOp::ArgMax, DType::Float32, DType::Float32, DType::Int64, false, true, true},
    {"argmin f64 ties", ReduceOp::ArgMin, DType::Float64, DType::Float64, DType::Int64, false, false, true},
    {"argmax f16 ties", ReduceOp::ArgMax, DType::Float16, DType::Float16, DType::Int64, false, false, true},
    {"argmin f32 ties nan", ReduceOp::ArgMin, DType::Float32, DType::Float32, DType::Int64, false, true, true},
    {"argmax i32 ties", ReduceOp::ArgMax, DType::Int32, DType::Int32, DType::Int64, false, false, true},
    {"any bool", ReduceOp::Any, DType::Bool, DType::Bool, DType::Bool},
    {"all bool", ReduceOp::All, DType::Bool, DType::Bool, DType::Bool},
    {"mean f32", ReduceOp::Mean, DType::Float32, DType::Float32, DType::Float32},
    {"var f64 ddof1", ReduceOp::Var, DType::Float64, DType::Float64, DType::Float64, false, false, false, 1},
    {"std f32", ReduceOp::Std, DType::Float32, DType::Float32, DType::Float32},
};

// [outer, len, inner] shapes covering every variant: whole reductions, short
// and long rows, columns with and without a split of the reduced axis, odd
// extents (scalar loads) and tails.
const ReduceShape kShapes[] = {
    {1, 1, 1},       {1, 1000, 1},    {1, 4099, 1},     {1, (1 << 20) + 3, 1}, {1, 1 << 22, 1},
    {1000, 1, 1},    {4096, 4, 1},    {5000, 37, 1},    {300, 1024, 1},        {64, 4096, 1},
    {3, 100001, 1},  {8, 1 << 18, 1}, {1, 1000, 3},     {2, 333, 17},          {1, 1 << 16, 4},
    {3, 7, 4096},    {1, 4, 1 << 18}, {2, 100, 1000},   {1, 1 << 13, 256},     {5, 0, 3},
    // Enough short rows for the group kernel's row sets (a last, partial set; a tail past the vectors).
    {(1 << 20) + 5, 4, 1}, {(1 << 18) + 3, 17, 1},
    // Axes of length 1 (the columns kernel's flat copy): many vectors per
    // thread, a last partial vector, outer rows folded into one.
    {3, 1, (1 << 18) + 5}, {7, 1, 4099},
};

struct Result {
  std::vector<unsigned char> bytes;
};

// Runs `spec` over `sh` with the inputs at element offset `offset` of their
// buffers (1: misaligned, scalar loads) and the given grid; the output is
// poisoned first.
Result run(const ReduceSpec& spec, const ReduceShape& sh, const std::vector<Data>& ins, int offset, unsigned grid,
           ReduceWorkspace& ws) {
  std::vector<DeviceBuffer> bufs;
  std::vector<CUdeviceptr> ptrs;
  for (const Data& d : ins) {
    const std::size_t item = dtype_size(d.dtype);
    bufs.emplace_back(0, d.bytes.size() + (offset + 1) * item);
    bufs.back().fill_bytes(0xA5);
    memcpy_htod(0, bufs.back().ptr() + offset * item, d.bytes.data(), d.bytes.size());
    ptrs.push_back(bufs.back().ptr() + offset * item);
  }
  const std::size_t nout = static_cast<std::size_t>(sh.outer * sh.inner);
  DeviceBuffer out(0, std::max<std::size_t>(1, nout) * dtype_size(spec.out));
  out.fill_bytes(0xFF);
  kernels().launch(0, spec, sh, ptrs.data(), out.ptr(), ws, nullptr, nullptr, grid);
  synchronize(0);
  Result r;
  r.bytes.resize(nout * dtype_size(spec.out));
  if (nout) out.download(r.bytes.data(), r.bytes.size());
  return r;
}

void check_against_reference(const Case& c, const ReduceSpec& spec, const ReduceShape& sh, const std::vector<Data>& ins,
                             const Result& r) {
  std::vector<double> xs(static_cast<std::size_t>(sh.len));
  int bad = 0;
  for (long long a = 0; a < sh.outer; ++a)
    for (long long b = 0; b < sh.inner; ++b) {
      for (long long k = 0; k < sh.len; ++k) {
        const std::size_t at = static_cast<std::size_t>((a * sh.len + k) * sh.inner + b);
        xs[static_cast<std::size_t>(k)] = c.two ? ins[0].v[at] * ins[1].v[at] : ins[0].v[at];
        if (c.two) xs[static_cast<std::size_t>(k)] = static_cast<float>(xs[static_cast<std::size_t>(k)]);
      }
      Ref ref = reference(c.op, xs, c.value, c.ddof);
      if (c.out == DType::Float16) ref.tol += std::fabs(ref.value) * 0x1p-11;
      const double got = out_value(c.out, r.bytes, static_cast<std::size_t>(a * sh.inner + b));
      const bool ok = std::isnan(ref.value) ? std::isnan(got) : std::fabs(got - ref.value) <= ref.tol;
      if (!ok && bad++ < 3)
        FAIL_CHECK(fmt::format("{} [{}, {}, {}] at ({}, {}): got {}, want {} (tolerance {}), plan {}", c.what, sh.outer,
                               sh.len, sh.inner, a, b, got, ref.value, ref.tol, reduce_plan(spec, sh).key()));
    }
  CHECK(bad == 0);
}

ReduceSpec spec_for(const Case& c) {
  ReduceSpec s;
  s.inputs = {{"x", c.in}};
  if (c.two) {
    s.inputs.push_back({"y", c.in});
    s.map = "x * y";
  }
  s.op = c.op;
  s.value = c.value;
  s.out = c.out;
  s.ddof = c.ddof;
  return s;
}

}  // namespace

TEST_CASE("reductions match the host reference in every variant, deterministically", "[reduce]") {
  std::mt19937_64 rng(gputest::run_seed());
  ReduceWorkspace ws(0);
  // CUJIT_TEST_REDUCE_MAX=n leaves out the shapes of more than n elements
  // (compute-sanitizer runs, tens of times slower).
  const char* max_env = std::getenv("CUJIT_TEST_REDUCE_MAX");
  const std::size_t max_n = max_env && *max_env ? std::strtoull(max_env, nullptr, 0) : ~std::size_t{0};
  for (const Case& c : kCases) {
    const ReduceSpec spec = spec_for(c);
    for (const ReduceShape& sh : kShapes) {
      const std::size_t n = static_cast<std::size_t>(sh.outer * sh.len * sh.inner);
      if (n > max_n) continue;
      if (sh.len == 0 && (c.op == ReduceOp::Min || c.op == ReduceOp::Max || c.op == ReduceOp::ArgMin ||
                          c.op == ReduceOp::ArgMax))
        continue;
      std::vector<Data> ins = {make_data(c.in, n, rng, c.nans, c.ties)};
      if (c.two) ins.push_back(make_data(c.in, n, rng));
      INFO(c.what << " [" << sh.outer << ", " << sh.len << ", " << sh.inner << "] " << reduce_plan(spec, sh).key());
      const Result r = run(spec, sh, ins, 0, 0, ws);
      check_against_reference(c, spec, sh, ins, r);
      // The same bits on a second run, on grids of 1 and 7 blocks, and from misaligned inputs.
      CHECK(run(spec, sh, ins, 0, 0, ws).bytes == r.bytes);
      CHECK(run(spec, sh, ins, 0, 1, ws).bytes == r.bytes);
      CHECK(run(spec, sh, ins, 0, 7, ws).bytes == r.bytes);
      CHECK(run(spec, sh, ins, 1, 0, ws).bytes == r.bytes);
    }
  }
}

// Exact reductions of rows of 2^23 and 2^24 elements (argmax's 64-step
// chunks, float16's eight elements a load) against the reference, with the
// same bits on grids of 7 and 100 blocks. Cutting such rows into one chunk
// per resident block when they fill less than one round was tried and
// measured slower (bench/results/h200_2026-11-28/NOTES.md).
TEST_CASE("exact reductions of long rows match the reference, with the same bits on any grid", "[reduce]") {
  std::mt19937_64 rng(gputest::run_seed() + 2);
  ReduceWorkspace ws(0);
  const char* max_env = std::getenv("CUJIT_TEST_REDUCE_MAX");
  const std::size_t max_n = max_env && *max_env ? std::strtoull(max_env, nullptr, 0) : ~std::size_t{0};
  const Case cases[] = {
      {"argmax f32", ReduceOp::ArgMax, DType::Float32, DType::Float32, DType::Int64},
      {"argmax f16 ties", ReduceOp::ArgMax, DType::Float16, DType::Float16, DType::Int64, false, false, true},
      {"argmin f64 ties", ReduceOp::ArgMin, DType::Float64, DType::Float64, DType::Int64, false, false, true},
      {"argmax i32 ties", ReduceOp::ArgMax, DType::Int32, DType::Int32, DType::Int64, false, false, true},
      {"max f32", ReduceOp::Max, DType::Float32, DType::Float32, DType::Float32},
      {"min i32", ReduceOp::Min, DType::Int32, DType::Int32, DType::Int32},
      {"sum i32->i64", ReduceOp::Sum, DType::Int32, DType::Int64, DType::Int64},
  };
  for (const ReduceShape sh : {ReduceShape{1, (1 << 23) + 5, 1}, ReduceShape{1, (1 << 24) + 5, 1}}) {
    const std::size_t n = static_cast<std::size_t>(sh.len);
    if (n > max_n) continue;
    for (const Case& c : cases) {
      const ReduceSpec spec = spec_for(c);
      const std::vector<Data> ins = {make_data(c.in, n, rng, c.nans, c.ties)};
      INFO(c.what << " [1, " << sh.len << ", 1]");
      const Result r = run(spec, sh, ins, 0, 0, ws);
      check_against_reference(c, spec, sh, ins, r);
      CHECK(run(spec, sh, ins, 0, 7, ws).bytes == r.bytes);
      CHECK(run(spec, sh, ins, 0, 100, ws).bytes == r.bytes);
    }
  }
}

TEST_CASE("row normalisation in one pass matches the host reference", "[reduce]") {
  std::mt19937_64 rng(gputest::run_seed() + 1);
  for (long long len : {1LL, 5LL, 1000LL, 1024LL, 4096LL, 4099LL, 8192LL}) {
    const long long rows = 37;
    const std::size_t n = static_cast<std::size_t>(rows * len);
    Data x = make_data(DType::Float32, n, rng);
    for (double& v : x.v) v = v * 3 + 100;  // a large mean: the two-pass formula keeps the variance accurate
    for (std::size_t k = 0; k < n; ++k) {
      const float f = static_cast<float>(x.v[k]);
      x.v[k] = f;
      std::memcpy(x.bytes.data() + 4 * k, &f, 4);
    }
    RowNormSpec spec;
    spec.inputs = {{"x", DType::Float32}};
    spec.ddof = len > 1 ? 1 : 0;
    DeviceBuffer in(0, x.bytes.size()), out(0, x.bytes.size());
    in.upload(x.bytes.data(), x.bytes.size());
    std::vector<unsigned char> first;
    for (unsigned grid : {0u, 3u}) {
      out.fill_bytes(0xFF);
      const CUdeviceptr p = in.ptr();
      kernels().normalize_rows(0, spec, rows, len, &p, out.ptr(), nullptr, grid);
      synchronize(0);
      std::vector<unsigned char> got(x.bytes.size());
      out.download(got.data(), got.size());
      if (first.empty()) first = got;
      CHECK(got == first);
    }
    int bad = 0;
    for (long long r = 0; r < rows; ++r) {
      double mean = 0, ss = 0;
      for (long long j = 0; j < len; ++j) mean += x.v[static_cast<std::size_t>(r * len + j)];
      mean /= static_cast<double>(len);
      for (long long j = 0; j < len; ++j) {
        const double d = x.v[static_cast<std::size_t>(r * len + j)] - mean;
        ss += d * d;
      }
      const double sd = std::sqrt(ss / static_cast<double>(len - spec.ddof));
      for (long long j = 0; j < len; ++j) {
        const std::size_t k = static_cast<std::size_t>(r * len + j);
        const double want = (x.v[k] - mean) / sd;
        const double got = out_value(DType::Float32, first, k);
        const bool ok = std::isnan(want) ? std::isnan(got) : std::fabs(got - want) <= 1e-3 * (std::fabs(want) + 1);
        if (!ok && bad++ < 3) FAIL_CHECK(fmt::format("row norm len {} at ({}, {}): got {}, want {}", len, r, j, got, want));
      }
    }
    CHECK(bad == 0);
  }
}

// argmin/argmax where lanes see nothing but the identity's value (an
// infinity, the integer type's extreme): the kernels skip equal elements, so
// such a lane ends on the identity's index, which must lose to every real
// index and read as 0 where every element equals it. Rows of: only that
// value; that value and one NaN; that value and one other number; random.
TEST_CASE("argmin/argmax over rows of the identity's value: the first index, the NaN, the number", "[reduce]") {
  std::mt19937_64 rng(gputest::run_seed() + 7);
  ReduceWorkspace ws(0);
  struct ArgCase {
    Case c;
    double extreme, other;
  };
  const ArgCase cases[] = {
      {{"argmax f32 -inf", ReduceOp::ArgMax, DType::Float32, DType::Float32, DType::Int64, false, true, false}, -INFINITY, 2.5},
      {{"argmin f64 +inf", ReduceOp::ArgMin, DType::Float64, DType::Float64, DType::Int64, false, true, false}, INFINITY, -3.0},
      {{"argmax i32 min", ReduceOp::ArgMax, DType::Int32, DType::Int32, DType::Int64}, -2147483648.0, 5.0},
  };
  const ReduceShape shapes[] = {{300, 1000, 1}, {64, 100, 1}, {8, (1 << 18) + 3, 1}, {1, 1 << 20, 1}, {4, 37, 300}};
  for (const ArgCase& ac : cases) {
    const ReduceSpec spec = spec_for(ac.c);
    for (const ReduceShape& sh : shapes) {
      const std::size_t n = static_cast<std::size_t>(sh.outer * sh.len * sh.inner), item = dtype_size(ac.c.in);
      Data d{ac.c.in, std::vector<double>(n, ac.extreme), std::vector<unsigned char>(n * item)};
      for (long long o = 0; o < sh.outer; ++o)
        for (long long i = 0; i < sh.inner; ++i) {
          const long long pattern = (o * sh.inner + i) % 4;
          const std::size_t at = static_cast<std::size_t>(rng() % static_cast<unsigned long long>(sh.len));
          for (long long j = 0; j < sh.len; ++j) {
            double& x = d.v[static_cast<std::size_t>((o * sh.len + j) * sh.inner + i)];
            if (pattern == 3) x = ac.c.in == DType::Int32 ? static_cast<double>(static_cast<int>(rng() % 2001) - 1000)
                                                           : static_cast<double>(rng() % 1000) / 7.0;
            if (pattern == 1 && static_cast<std::size_t>(j) == at) x = ac.c.in == DType::Int32 ? ac.other : NAN;
            if (pattern == 2 && static_cast<std::size_t>(j) == at) x = ac.other;
          }
        }
      for (std::size_t k = 0; k < n; ++k) {
        unsigned char* p = d.bytes.data() + k * item;
        if (ac.c.in == DType::Float32) {
          const float f = static_cast<float>(d.v[k]);
          std::memcpy(p, &f, 4);
        } else if (ac.c.in == DType::Float64) {
          std::memcpy(p, &d.v[k], 8);
        } else {
          const std::int32_t v = static_cast<std::int32_t>(d.v[k]);
          std::memcpy(p, &v, 4);
        }
      }
      INFO(ac.c.what << " [" << sh.outer << ", " << sh.len << ", " << sh.inner << "] " << reduce_plan(spec, sh).key());
      const Result r = run(spec, sh, {d}, 0, 0, ws);
      check_against_reference(ac.c, spec, sh, {d}, r);
      CHECK(run(spec, sh, {d}, 0, 7, ws).bytes == r.bytes);
      CHECK(run(spec, sh, {d}, 1, 0, ws).bytes == r.bytes);
    }
  }
}

// A reduced axis of 2^31 elements and more: the index in 64 bits (shorter
// axes take 32). The best value first appears past 2^31, ties after it.
TEST_CASE("argmin/argmax past 2^31 elements: the 64-bit index", "[gpu][huge][huge_index]") {
  const long long n = (1LL << 31) + 4099, far = (1LL << 31) + 17;
  std::size_t free_b = 0, total_b = 0;
  {
    ScopedContext ctx(0);
    CU_CALL(cuMemGetInfo, &free_b, &total_b);
  }
  if (free_b < static_cast<std::size_t>(n + (1LL << 30)))
    CUJIT_SKIP(std::to_string(free_b) + " bytes free on device 0, the >2^31 argmax test needs " + std::to_string(n + (1LL << 30)));
  std::mt19937_64 rng(gputest::run_seed() + 11);
  DeviceBuffer x(0, static_cast<std::size_t>(n));
  x.fill_bytes(100);
  const auto put = [&](long long at, unsigned char v) { memcpy_htod(0, x.ptr() + static_cast<CUdeviceptr>(at), &v, 1); };
  // Near-best values before the best; the best, then its ties; random bytes in between stay within them.
  std::vector<unsigned char> noise(1 << 20);
  for (unsigned char& b : noise) b = static_cast<unsigned char>(50 + rng() % 100);
  memcpy_htod(0, x.ptr() + (1LL << 30), noise.data(), noise.size());
  put(5, 199), put(7, 2), put(far, 200), put(far + 1000, 200), put(n - 1, 200), put(far + 9, 1), put(n - 2, 1);
  ReduceWorkspace ws(0);
  for (ReduceOp op : {ReduceOp::ArgMax, ReduceOp::ArgMin}) {
    ReduceSpec spec;
    spec.inputs = {{"x", DType::UInt8}};
    spec.op = op;
    spec.value = DType::UInt8;
    spec.out = DType::Int64;
    const ReduceShape sh{1, n, 1};
    INFO(reduce_plan(spec, sh).key() << " " << reduce_plan(spec, sh).source_key());
    CHECK(reduce_plan(spec, sh).source_key().find("i32") == std::string::npos);
    DeviceBuffer out(0, 8);
    out.fill_bytes(0xFF);
    const CUdeviceptr in = x.ptr();
    kernels().launch(0, spec, sh, &in, out.ptr(), ws, nullptr, nullptr, 0);
    synchronize(0);
    std::int64_t got = -1;
    out.download(&got, 8);
    CHECK(got == (op == ReduceOp::ArgMax ? far : far + 9));
  }
}
