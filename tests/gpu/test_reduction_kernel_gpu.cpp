// ReductionKernel on device arrays against the same kernel on host copies
// (the CPU evaluator): fresh random data, outputs poisoned first, given and
// allocated, on the legacy stream and on a stream of the caller's.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/driver.hpp"
#include "cujit/reduction.hpp"
#include "gpu_util.hpp"
#include "unit/error_of.hpp"
#include "unit/reference.hpp"

using namespace cujit;
using namespace cujit::gputest;

namespace {

HostArray random_array(DType t, const Shape& s, std::mt19937_64& rng) {
  HostArray a(t, s);
  std::uniform_real_distribution<double> uni(-4.0, 4.0);
  std::uniform_int_distribution<int> ints(-30000, 30000), bit(0, 3);
  for (std::int64_t k = 0; k < a.size(); ++k) {
    if (t == DType::Float32) a.as<float>()[k] = static_cast<float>(uni(rng));
    else if (t == DType::Float64) a.as<double>()[k] = uni(rng);
    else if (t == DType::Int32) a.as<std::int32_t>()[k] = ints(rng);
    else if (t == DType::Bool) a.as<bool>()[k] = bit(rng) != 0;  // rows of all true occur in short rows
    else FAIL("no random data of this dtype here");
  }
  return a;
}

Array poisoned(DType t, const Shape& s) {
  Array a = Array::empty(t, s, Device::cuda(0));
  poison(a.view(), a.nbytes());
  return a;
}

// Within `ulps` (floating results; integers and bools exact), NaN matching NaN.
void require_match(const Array& got_dev, const Array& want, int ulps) {
  Array got = got_dev.to_host();
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  std::string why;
  const bool ok = ref::values_match(want.dtype(), got.data(), want.data(), want.size(), ulps, &why);
  INFO(why);
  REQUIRE(ok);
}

// One call pattern on the GPU three ways (allocated; given, poisoned; given on
// the caller's stream), each against the CPU evaluator's result.
void check(const ReductionKernel& k, const HostArray& x, const ReduceOptions& r, int ulps) {
  INFO("kernel " << k.name() << ", input " << to_string(x.shape()) << " " << dtype_name(x.dtype()) << ", axes "
                 << (r.axis.list ? std::to_string(r.axis.list->size()) : std::string("all")) << ", keepdims "
                 << r.keepdims);
  OutputArrays cpu = k.call({x.view()}, r);
  const Array& want = cpu[0];
  CHECK(want.device() == Device::cpu());
  Array xd = Array::copy_of(x.view(), Device::cuda(0));

  OutputArrays made = k.call({xd}, r);
  CHECK(made[0].device() == Device::cuda(0));
  require_match(made[0], want, ulps);

  Array y = poisoned(want.dtype(), want.shape());
  CHECK(k.call({xd, y}, r).empty());
  synchronize(0);
  require_match(y, want, ulps);

  Stream s(0);
  Array ys = poisoned(want.dtype(), want.shape());
  synchronize(0);  // the legacy stream's copy and poison, before work on a non-blocking stream
  ReduceOptions on_stream = r;
  on_stream.stream = reinterpret_cast<StreamHandle>(s.get());
  k.call({xd, ys}, on_stream);
  s.synchronize();
  require_match(ys, want, ulps);
}

}  // namespace

TEST_CASE("ReductionKernel on device arrays: the CPU evaluator's results, outputs poisoned first", "[gpu][reduction_kernel]") {
  std::mt19937_64 rng(run_seed());
  const HostArray m32 = random_array(DType::Float32, {257, 1031}, rng);
  const HostArray m64 = random_array(DType::Float64, {129, 67}, rng);
  const HostArray c3 = random_array(DType::Float32, {16, 33, 65}, rng);
  const HostArray i32 = random_array(DType::Int32, {300, 41}, rng);
  const HostArray bits = random_array(DType::Bool, {500, 3}, rng);

  // Float sums and products: the GPU's order of operations is not the CPU's.
  // Sums are pairwise on both (docs/language.md bounds each within about
  // (log2(n) + 20) eps of the exact sum of these positive terms, so within
  // 64 ulps of each other after the square root); a product's rounding errors
  // add up along its n = 8643 factors (at most n ulps apart, far fewer in practice).
  ReductionKernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  for (const HostArray* x : {&m32, &m64})
    for (const ReduceOptions& r : {ReduceOptions(), ReduceOptions(0), ReduceOptions(1, true), ReduceOptions(-1)})
      check(l2norm, *x, r, 64);

  // A given output of the wrong shape is refused before anything is written.
  Array xd = Array::copy_of(m32.view(), Device::cuda(0));
  Array bad = poisoned(DType::Float32, {5});
  CHECK(test::error_of([&] { l2norm.call({xd, bad}, {0}); }, ErrorCode::Data) ==
        "output 'y' has shape (5,), but the inputs broadcast to (1031,)");
  Array bad_host = bad.to_host();
  const auto* bytes = static_cast<const unsigned char*>(bad_host.data());
  for (std::size_t k = 0; k < bad_host.nbytes(); ++k) REQUIRE(bytes[k] == 0xFF);

  ReductionKernel kmax("T x", "T y", "x", "max(a, b)", "y = a", "", "kmax");
  ReductionKernel kmin("T x", "T y", "-x", "minimum(b, a)", "y = -a", "", "kmin");
  for (const ReductionKernel* k : {&kmax, &kmin})
    for (const ReduceOptions& r : {ReduceOptions(0), ReduceOptions(1), ReduceOptions(-1, true), ReduceOptions({0, 2}),
                                   ReduceOptions({0, 2}, true), ReduceOptions()})
      check(*k, c3, r, 0);

  ReductionKernel ss("T x", "T y", "x * x", "a + b", "y = a", "0", "ss");
  ReductionKernel ss64("T x", "int64 y", "x", "a + b", "y = a", "0", "ss64", "int64");
  ReductionKernel prod("float64 x", "float64 y", "1 + x / 64", "a * b", "y = a", "1", "prod");
  for (const ReduceOptions& r : {ReduceOptions(), ReduceOptions(0), ReduceOptions(1, true)}) {
    check(ss, i32, r, 0);  // int32 wraps, exactly as on the CPU
    check(ss64, i32, r, 0);
    check(prod, m64, r, 1024);
  }

  ReductionKernel kany("bool x", "bool y", "x", "a || b", "y = a", "false", "kany");
  ReductionKernel kall("bool x", "bool y", "x", "b & a", "y = a", "true", "kall");
  for (const ReduceOptions& r : {ReduceOptions(), ReduceOptions(0), ReduceOptions(1), ReduceOptions(-1, true)}) {
    check(kany, bits, r, 0);
    check(kall, bits, r, 0);
  }
}
