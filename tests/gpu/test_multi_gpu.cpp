// evaluate_split (cujit/multi_gpu.hpp) on device lists that repeat GPU 0,
// so the split, the per-slice streams, copies and gathers run on a 1-GPU
// machine: every result equals evaluate() on one GPU, bit for bit (the same
// kernels, element for element), on fresh random data.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "cujit/multi_gpu.hpp"
#include "core/driver.hpp"
#include "unit/error_of.hpp"
#include "gpu_util.hpp"
#include "unit/reference.hpp"
#include "io/npy.hpp"

using namespace cujit;

namespace {

HostArray random_host(DType t, const Shape& s, std::mt19937_64& rng) {
  HostArray h(t, s);
  gputest::fill_random(h, rng);
  return h;
}

bool same_bytes(const Array& a, const Array& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  Array ha = a.device().kind == Device::CPU ? a : a.to_host();
  Array hb = b.device().kind == Device::CPU ? b : b.to_host();
  return std::memcmp(ha.data(), hb.data(), ha.nbytes()) == 0;
}

// evaluate_split over `devices` against evaluate() on GPU 0.
void check_split(const std::string& program, const std::vector<NamedArg>& in, const std::vector<int>& devices,
                 std::size_t want_pieces, const EvaluateOptions& opt = {}) {
  CAPTURE(program, devices.size());
  EvaluateOptions one = opt;
  one.device = Device::cuda(0);
  NamedArrays ref = evaluate(program, in, one);
  std::vector<SplitArray> got = evaluate_split(program, in, devices, opt);
  REQUIRE(got.size() == ref.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CAPTURE(got[k].name);
    CHECK(got[k].name == ref[k].name);
    CHECK(got[k].pieces.size() == want_pieces);
    std::int64_t next = 0;
    for (const ArrayPiece& p : got[k].pieces) {
      CHECK(p.begin == next);
      next = p.end;
      CHECK(p.array.device() == Device::cuda(p.device));
    }
    CHECK(same_bytes(got[k].gather(), ref[k].array));
    CHECK(same_bytes(got[k].gather(Device::cuda(0)), ref[k].array));
  }
}

}  // namespace

TEST_CASE("evaluate_split: slices on one GPU listed twice equal one launch", "[multi_gpu]") {
  std::mt19937_64 rng(gputest::run_seed() + 31);
  HostArray x = random_host(DType::Float32, Shape{1001, 37}, rng);
  HostArray y = random_host(DType::Float32, Shape{37}, rng);
  HostArray c = random_host(DType::Float32, Shape{1001, 1}, rng);
  Array xd = Array::copy_of(x.view(), Device::cuda(0));
  // Resident, host, broadcast (c,), (r,1), a weak and a typed scalar; two outputs.
  std::vector<NamedArg> in = {{"x", xd}, {"y", y}, {"c", c}, {"a", 5}, {"b", Arg::typed(DType::Float32, 0.25)}};
  const std::string prog = "out = x*y + a; m = sin(x) * c > b";
  check_split(prog, in, {0, 0}, 2);
  check_split(prog, in, {0, 0, 0}, 3);
  // Inputs resident as strided views (every other element): sliced in place.
  gputest::Spread sx = gputest::spread_to_device(x, 0, 2);
  std::vector<NamedArg> strided = {{"x", sx.view}, {"y", y}, {"c", c}, {"a", 5}, {"b", Arg::typed(DType::Float32, 0.25)}};
  check_split(prog, strided, {0, 0}, 2);
  // 3-D with a (1, r, c) input and float64 / int32 mixes.
  HostArray p = random_host(DType::Float64, Shape{5, 6, 7}, rng);
  HostArray q = random_host(DType::Int32, Shape{1, 6, 7}, rng);
  check_split("out = p * q - 1", {{"p", p}, {"q", q}}, {0, 0, 0, 0}, 4);
  if (device_count() >= 2) {  // real GPUs: x resident on GPU 0 is copied once for GPU 1's slice
    check_split(prog, in, {0, 1}, 2);
    check_split(prog, strided, {1, 0}, 2);
    check_split("out = p * q - 1", {{"p", p}, {"q", q}}, {0, 1, 0, 1}, 4);
  } else {
    std::printf("note: one CUDA device here; evaluate_split over two GPUs is checked where there are two\n");
  }
}

TEST_CASE("evaluate_split: few rows, empty, 0-d and position-dependent programs", "[multi_gpu]") {
  std::mt19937_64 rng(gputest::run_seed() + 32);
  HostArray two = random_host(DType::Float32, Shape{2, 9}, rng);
  check_split("out = x * 3", {{"x", two}}, {0, 0, 0, 0}, 2);  // two rows: two pieces
  HostArray one = random_host(DType::Float32, Shape{1, 9}, rng);
  check_split("out = x * 3", {{"x", one}}, {0, 0}, 1);
  HostArray none(DType::Float32, Shape{0, 4});
  check_split("out = x * 3", {{"x", none}}, {0, 0}, 1);
  check_split("out = a * 2", {{"a", Arg::typed(DType::Int16, 7)}}, {0, 0}, 1);
  HostArray v = random_host(DType::Float32, Shape{100}, rng);
  check_split("out = x[n - 1 - i]", {{"x", v}}, {0, 0}, 1);  // raw index: whole on the first device
  check_split("out = x * i", {{"x", v}}, {0, 0}, 1);         // `i`: whole on the first device
  EvaluateOptions shaped;
  shaped.shape = Shape{6, 100};
  check_split("out = x + 1", {{"x", v}}, {0, 0}, 2, shaped);  // --shape widens the outer dimension
}

TEST_CASE("evaluate_split: distributed inputs are read in place, chained outputs feed the next job", "[multi_gpu]") {
  std::mt19937_64 rng(gputest::run_seed() + 33);
  HostArray x = random_host(DType::Float32, Shape{1001, 40}, rng);
  HostArray y = random_host(DType::Float32, Shape{1, 40}, rng);
  SplitArray xs = scatter(x.view(), {0, 0});
  REQUIRE(xs.pieces.size() == 2);
  CHECK(same_bytes(xs.gather(), Array(x)));
  SplitArray ys = scatter(y.view(), {0, 0});
  REQUIRE(ys.pieces.size() == 1);  // one row: one piece
  EvaluateOptions one;
  one.device = Device::cuda(0);
  NamedArrays ref = evaluate("out = x*y + 5", {{"x", x}, {"y", y}}, one);
  // The same cut (in place), a finer cut (rows spanning two pieces are copied), one device.
  for (const std::vector<int>& devices : {std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}, std::vector<int>{0}}) {
    CAPTURE(devices.size());
    std::vector<SplitArray> got = evaluate_split("out = x*y + 5", {}, {{"x", xs}, {"y", ys}}, devices);
    REQUIRE(got.size() == 1);
    CHECK(got[0].pieces.size() == devices.size());
    CHECK(same_bytes(got[0].gather(), ref[0].array));
  }
  // A split output as the next job's input, mixed with an ordinary one.
  std::vector<SplitArray> first = evaluate_split("t = x*y + 5", {}, {{"x", xs}, {"y", ys}}, {0, 0});
  std::vector<SplitArray> second = evaluate_split("out = t * 2 - y", {{"y", y}}, {{"t", first[0]}}, {0, 0});
  NamedArrays ref2 = evaluate("out = t * 2 - y", {{"t", ref[0].array}, {"y", y}}, one);
  CHECK(same_bytes(second[0].gather(), ref2[0].array));
  // A position-dependent program gathers distributed inputs and runs whole.
  std::vector<SplitArray> pos = evaluate_split("out = x + i", {}, {{"x", xs}}, {0, 0});
  NamedArrays ref3 = evaluate("out = x + i", {{"x", x}}, one);
  REQUIRE(pos[0].pieces.size() == 1);
  CHECK(same_bytes(pos[0].gather(), ref3[0].array));
}

TEST_CASE("evaluate_split: errors", "[multi_gpu]") {
  HostArray x(DType::Float32, Shape{4});
  auto message = [&](const std::vector<int>& devices, const EvaluateOptions& opt) -> std::string {
    try {
      evaluate_split("out = x", {{"x", x}}, devices, opt);
    } catch (const Error& e) {
      return std::to_string(static_cast<int>(e.code())) + " " + e.what();
    }
    return "no error";
  };
  EvaluateOptions with_device;
  with_device.device = Device::cuda(0);
  CHECK(message({0}, with_device) == "1 evaluate_split: the devices are its list; leave EvaluateOptions::device unset");
  Stream s(0);
  EvaluateOptions with_stream;
  with_stream.stream = reinterpret_cast<StreamHandle>(s.get());
  CHECK(message({0}, with_stream) ==
        "1 evaluate_split: each slice runs on a stream of its own; leave EvaluateOptions::stream null");
  CHECK(message({0, 4096}, {}).rfind("4 ", 0) == 0);  // no such GPU: a Device error
  CHECK(all_devices().size() == static_cast<std::size_t>(device_count()));
  // What a split does not combine is refused before anything runs, by the
  // API and by jitrun --device all alike (tests/gpu/test_split_reduce_gpu.cpp
  // has the rest).
  const std::string refused =
      "`nanargmax(x)`: a split run does not combine this reduction's per-GPU partials in a program that reduces "
      "over the split axis (it combines every reduction of real values but nanargmin and nanargmax); run it on one "
      "GPU (evaluate(), jitrun --device N)";
  try {
    evaluate_split("out = x / nanargmax(x)", {{"x", x}}, {0, 0});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Usage);
    CHECK(std::string(e.what()) == "evaluate_split: " + refused);
  }
  const auto [status, out] =
      gputest::shell_output(std::string("'") + CUJIT_JITRUN + "' --device all -i 'x=rand(100)' 's = nanargmax(x)' 2>&1");
  CHECK(status == 1);
  CHECK(out.find("evaluate_split: " + refused) != std::string::npos);
}

TEST_CASE("jitrun --device all writes what --device 0 writes", "[multi_gpu]") {
  char dir[] = "/tmp/cujit_split_XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string d = dir;
  auto run = [&](const std::string& device, const std::string& out) {
    std::string cmd = std::string("'") + CUJIT_JITRUN + "' --device " + device +
                      " -i 'x=randn((301,17))' -i 'y=linspace(0,1,17):float64' -o out=" + d + "/" + out +
                      " 'out = x*y + 5' > /dev/null 2>&1";
    return std::system(cmd.c_str());
  };
  REQUIRE(run("all", "all.npy") == 0);
  REQUIRE(run("0", "one.npy") == 0);
  auto slurp = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  };
  const std::string a = slurp(d + "/all.npy"), b = slurp(d + "/one.npy");
  CHECK(!a.empty());
  CHECK(a == b);
  std::remove((d + "/all.npy").c_str());
  std::remove((d + "/one.npy").c_str());
  ::rmdir(dir);
}

TEST_CASE("jitrun reads .npy inputs into the GPUs' memory: the CPU's results", "[multi_gpu]") {
  // --device 0 reads a file straight into GPU 0, --device all each GPU's rows
  // into that GPU; a file that broadcasts along the rows, a big-endian one
  // and one in Fortran order take the host's way. `x + 2*y` rounds once, so
  // every back end gives the same bits, as do max and argmax.
  char dir[] = "/tmp/cujit_npy_in_XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string d = dir;
  std::mt19937_64 rng(gputest::run_seed());
  HostArray x(DType::Float32, Shape{4099, 33}), y(DType::Float32, Shape{33}), z(DType::Float64, Shape{4099, 33});
  HostArray w(DType::Float32, Shape{1, 33});
  gputest::fill_random(w, rng);
  gputest::fill_random(x, rng);
  gputest::fill_random(y, rng);
  gputest::fill_random(z, rng);
  write_npy(d + "/x.npy", x.view());
  write_npy(d + "/y.npy", y.view());
  write_npy(d + "/z.npy", z.view());
  write_npy(d + "/w.npy", w.view());
  const std::string good = std::string(CUJIT_TEST_DATA) + "/npy/good/";
  auto slurp = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-i x=" + d + "/x.npy -i y=" + d + "/y.npy", "out = x + 2*y"},
      {"-i x=" + d + "/x.npy -i y=" + d + "/z.npy", "out = x + 2*y"},
      {"-i x=" + d + "/w.npy -i y=" + d + "/x.npy", "out = x + 2*y"},  // a row of one, broadcast
      {"-i x=" + d + "/z.npy -i y=" + d + "/x.npy", "s = max(x*y, axis=0); m = argmax(y)"},
      {"-i x=" + good + "be_float32.npy -i y=" + good + "dtype_float32.npy", "out = x + 2*y"},
      {"-i x=" + good + "fortran_float64.npy", "out = x + 2*x"},
      {"-i x=" + d + "/x.npy", "x *= 2"},
  };
  for (const auto& [in, program] : cases) {
    INFO(in << " '" << program << "'");
    HostArray want;
    for (const std::string device : {"cpu", "0", "all"}) {
      if (device == "all" && program == "x *= 2") continue;  // a split run does not update in place
      const std::string out = d + "/out_" + device + ".npy";
      const std::string name = program.rfind("s = ", 0) == 0 ? "s" : program.rfind("x *=", 0) == 0 ? "x" : "out";
      const auto [status, text] = gputest::shell_output(std::string("'") + CUJIT_JITRUN + "' --device " + device + " " +
                                                        in + " -o " + name + "=" + out + " '" + program + "' 2>&1");
      INFO(device << ": " << text);
      REQUIRE(status == 0);
      const HostArray got = read_npy(out);
      REQUIRE(got.size() > 0);
      if (device == "cpu") {
        want = got;
      } else {
        REQUIRE(got.dtype() == want.dtype());
        REQUIRE(got.shape() == want.shape());
        std::string why;  // (a NaN's payload may differ between back ends)
        const bool same = ref::values_match(got.dtype(), got.data(), want.data(), got.size(), 0, &why);
        INFO(why);
        CHECK(same);
      }
      std::remove(out.c_str());
    }
  }
  // The input files are as they were (x *= 2 updated jitrun's copy).
  CHECK(slurp(d + "/x.npy").size() == 128 + x.nbytes());
  HostArray x_again = read_npy(d + "/x.npy");
  CHECK(std::memcmp(x_again.data(), x.data(), x.nbytes()) == 0);
  for (const char* f : {"/x.npy", "/y.npy", "/z.npy", "/w.npy"}) std::remove((d + f).c_str());
  ::rmdir(dir);
}

TEST_CASE("jitrun's summary lines, reduced on the GPUs, are the CPU's", "[multi_gpu]") {
  // Each line is reduced where its output is (tools/jitrun/summary.hpp): on
  // GPU 0, on every GPU's pieces, or by the CPU evaluator; NaNs counted and
  // left out, integers exact, complex and 0-d outputs as they were.
  auto line = [](const std::string& device, const std::string& args) {
    const auto [status, out] = gputest::shell_output(std::string("'") + CUJIT_JITRUN + "' --device " + device +
                                                     " --seed 7 " + args + " 2>/dev/null");
    CHECK(status == 0);
    return out;
  };
  // From 32 MiB an output is reduced on its GPU(s); smaller ones on the host.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-i 'x=rand((1048583,9))'", "out = where(x > 0.9, nan, x*4 - 1)"},
      {"-i 'x=randn(16777259):float16'", "out = x*2"},
      {"-i 'x=arange(4194319):int64'", "out = x*3 - 7"},
      {"-i 'x=rand(33554467):uint8'", "out = x + 1"},
      {"-i 'x=rand(33554467)'", "out = x > 0.25"},
      {"-i 'x=rand(3001)'", "out = where(x > 0.5, nan, x)"},
      {"-i 'x=rand(1001)'", "out = x + 2j"},
      {"-i 'x=rand(4001):float64'", "s = max(x); m = min(x, axis=0)"},
      {"-i 'x=full(8388617, nan)'", "out = x*2"},
      {"-i 'x=rand((4194319,3))'", "x *= 2"},
  };
  for (const auto& [in, program] : cases) {
    const std::string args = in + " '" + program + "'";
    INFO(args);
    const std::string cpu = line("cpu", args);
    CHECK(!cpu.empty());
    CHECK(line("0", args) == cpu);
    if (program != "x *= 2") CHECK(line("all", args) == cpu);  // a split run does not update in place
  }
}

namespace {

// The CPU evaluator's outputs: the reference for evaluate_split_into.
NamedArrays on_cpu(const std::string& program, const std::vector<NamedArg>& in) {
  EvaluateOptions o;
  o.device = Device::cpu();
  return evaluate(program, in, o);
}

void check_against(const SplitArray& got, const Array& want) {
  CAPTURE(got.name);
  Array g = got.gather();
  REQUIRE(g.shape() == want.shape());
  REQUIRE(g.dtype() == want.dtype());
  std::string why;
  const bool ok = ref::values_match(want.dtype(), g.data(), want.data(), want.size(), 0, &why);
  INFO(why);
  CHECK(ok);
}

void poison_all(const std::vector<SplitArray>& outs) {
  for (const SplitArray& s : outs)
    for (const ArrayPiece& p : s.pieces) gputest::poison(p.array.view(), p.array.nbytes());
}

bool still_poisoned(const std::vector<SplitArray>& outs) {
  for (const SplitArray& s : outs)
    for (const ArrayPiece& p : s.pieces) {
      Array h = p.array.to_host();
      const auto* b = static_cast<const unsigned char*>(h.data());
      for (std::size_t k = 0; k < h.nbytes(); ++k)
        if (b[k] != 0xFF) return false;
    }
  return true;
}

// Two calls into the same outputs, each on fresh random inputs (x resident
// on the first device, the rest on the host), against the CPU evaluator.
void check_reuse(const std::vector<int>& devices, std::mt19937_64& rng) {
  CAPTURE(devices);
  const std::string prog = "out = x*y + a; m = x * c > b";
  const Shape shape{1001, 37};
  std::vector<SplitArray> outs = {split_empty(DType::Float32, shape, devices), split_empty(DType::Bool, shape, devices)};
  outs[0].name = "out";  // a name is checked when given; m's is left empty
  REQUIRE(outs[0].pieces.size() == devices.size());
  for (int call = 0; call < 2; ++call) {
    CAPTURE(call);
    poison_all(outs);
    HostArray x = random_host(DType::Float32, shape, rng);
    HostArray y = random_host(DType::Float32, Shape{37}, rng);
    HostArray c = random_host(DType::Float32, Shape{1001, 1}, rng);
    Array xd = Array::copy_of(x.view(), Device::cuda(devices[0]));
    const Arg b = Arg::typed(DType::Float32, 0.25);
    evaluate_split_into(prog, {{"x", xd}, {"y", y}, {"c", c}, {"a", 5}, {"b", b}}, {}, outs);
    NamedArrays want = on_cpu(prog, {{"x", x}, {"y", y}, {"c", c}, {"a", 5}, {"b", b}});
    check_against(outs[0], want["out"]);
    check_against(outs[1], want["m"]);
  }
  // An earlier evaluate_split's result as the outputs, and distributed inputs.
  HostArray x = random_host(DType::Float32, shape, rng);
  HostArray y = random_host(DType::Float32, Shape{37}, rng);
  std::vector<SplitArray> earlier = evaluate_split("out = x*y + 5", {{"x", x}, {"y", y}}, devices);
  poison_all(earlier);
  x = random_host(DType::Float32, shape, rng);
  SplitArray xs = scatter(x.view(), devices);
  evaluate_split_into("out = x*y + 5", {{"y", y}}, {{"x", xs}}, earlier);
  check_against(earlier[0], on_cpu("out = x*y + 5", {{"x", x}, {"y", y}})[0].array);
}

}  // namespace

TEST_CASE("evaluate_split_into: the same outputs across calls, fresh inputs each time", "[multi_gpu]") {
  std::mt19937_64 rng(gputest::run_seed() + 34);
  check_reuse({0, 0}, rng);
  check_reuse({0, 0, 0}, rng);
  if (device_count() >= 2) {
    check_reuse({0, 1}, rng);
    check_reuse({1, 0}, rng);
  } else {
    std::printf("note: one CUDA device here; evaluate_split_into over two GPUs is checked where there are two\n");
  }
}

TEST_CASE("evaluate_split_into: programs that are not split, 0-d, one row and empty outputs", "[multi_gpu]") {
  std::mt19937_64 rng(gputest::run_seed() + 35);
  auto check = [&](const std::string& prog, const std::vector<NamedArg>& in, DType t, const Shape& shape,
                   const std::vector<int>& devices, std::size_t want_pieces) {
    CAPTURE(prog, devices);
    std::vector<SplitArray> outs = {split_empty(t, shape, devices)};
    REQUIRE(outs[0].pieces.size() == want_pieces);
    poison_all(outs);
    evaluate_split_into(prog, in, {}, outs);
    check_against(outs[0], on_cpu(prog, in)[0].array);
  };
  HostArray v = random_host(DType::Float32, Shape{100}, rng);
  check("out = x[n - 1 - i]", {{"x", v}}, DType::Float32, Shape{100}, {0}, 1);  // raw index: whole on one GPU
  check("out = x * i", {{"x", v}}, DType::Float64, Shape{100}, {0}, 1);         // `i`: whole on one GPU
  check("out = a * 2", {{"a", Arg::typed(DType::Int16, 7)}}, DType::Int16, Shape{}, {0, 0}, 1);
  HostArray row = random_host(DType::Float32, Shape{1, 9}, rng);
  check("out = x * 3", {{"x", row}}, DType::Float32, Shape{1, 9}, {0, 0}, 1);
  HostArray none(DType::Float32, Shape{0, 4});
  check("out = x * 3", {{"x", none}}, DType::Float32, Shape{0, 4}, {0, 0}, 1);
  if (device_count() >= 2) check("out = x * i", {{"x", v}}, DType::Float64, Shape{100}, {1}, 1);
  // Split outputs for a program that is not split: refused, untouched.
  std::vector<SplitArray> two = {split_empty(DType::Float64, Shape{100}, {0, 0})};
  poison_all(two);
  CHECK(cujit::test::error_of([&] { evaluate_split_into("out = x * i", {{"x", v}}, {}, two); }, ErrorCode::Usage) ==
        "evaluate_split_into: output 'out' is cut as [0, 50) on GPU 0, [50, 100) on GPU 0, but the job cuts it as "
        "[0, 100) on GPU 0 (the program is not split: it uses `i` or `n`, or indexes an input, so it runs whole on one "
        "GPU); make every output with split_empty(dtype, shape, {0})");
  CHECK(still_poisoned(two));
}

TEST_CASE("evaluate_split_into: outputs sharing memory with an input or each other are refused, untouched", "[multi_gpu]") {
  std::mt19937_64 rng(gputest::run_seed() + 36);
  HostArray x = random_host(DType::Float32, Shape{10, 3}, rng);
  std::vector<SplitArray> outs = {split_empty(DType::Float32, Shape{10, 3}, {0, 0})};
  // A broadcast input that is the first 3 elements of the first piece.
  ArrayView y = outs[0].pieces[0].array.view();
  y.shape = Shape{3};
  y.strides = ArrayView::contiguous_strides(y.shape, y.dtype);
  poison_all(outs);
  CHECK(cujit::test::error_of([&] { evaluate_split_into("out = x*y", {{"x", x}, {"y", y}}, {}, outs); },
                              ErrorCode::Usage) ==
        "evaluate_split_into: output 'out' (rows [0, 5) on GPU 0) shares memory with input 'y', which the slices still "
        "read; write to arrays no input uses (split_empty), or update in place on one device with evaluate()");
  CHECK(still_poisoned(outs));
  // A result written over itself as the next job's distributed input.
  CHECK(cujit::test::error_of([&] { evaluate_split_into("out = t * 2", {}, {{"t", outs[0]}}, outs); },
                              ErrorCode::Usage) ==
        "evaluate_split_into: output 'out' (rows [0, 5) on GPU 0) shares memory with input 't' (its piece of rows "
        "[0, 5) on GPU 0), which the slices still read; write to arrays no input uses (split_empty), or update in "
        "place on one device with evaluate()");
  CHECK(still_poisoned(outs));
  // One SplitArray passed for two outputs.
  CHECK(cujit::test::error_of([&] { evaluate_split_into("out = x*2; o2 = x + 1", {{"x", x}}, {}, {outs[0], outs[0]}); },
                              ErrorCode::Usage) ==
        "evaluate_split_into: output 'out' (rows [0, 5) on GPU 0) and output 'o2' (rows [0, 5) on GPU 0) share "
        "memory; give every piece of every output its own array (split_empty)");
  CHECK(still_poisoned(outs));
}
