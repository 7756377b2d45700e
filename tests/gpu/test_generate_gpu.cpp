// The generators' GPU fill (src/gpu/generate.hpp) gives the host fill's
// bits for every generator and dtype, and jitrun makes generated inputs in
// GPU memory without a host copy of their size.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cpu/generate_host.hpp"
#include "cujit/error.hpp"
#include "core/driver.hpp"
#include "gpu/generate.hpp"
#include "gpu_util.hpp"
#include "skip.hpp"

extern char** environ;

using namespace cujit;

namespace {

const DType kAll[] = {DType::Bool,    DType::Int8,     DType::Int16,   DType::Int32,     DType::Int64,
                      DType::UInt8,   DType::UInt16,   DType::UInt32,  DType::UInt64,    DType::Float16,
                      DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};

void check_same(const GeneratorSpec& spec, DType t, std::int64_t n) {
  CAPTURE(generator_name(spec.kind), dtype_name(t), n, spec.seed);
  HostArray host(t, Shape{n});
  generate_host(spec, host.view());
  Array dev = Array::empty(t, Shape{n}, Device::cuda(0));
  gputest::poison(dev.view(), dev.nbytes());
  generate_device(spec, dev.view());
  Array back = dev.to_host();
  REQUIRE(back.nbytes() == host.nbytes());
  const auto* a = static_cast<const unsigned char*>(host.data());
  const auto* b = static_cast<const unsigned char*>(back.data());
  std::size_t diff = 0;
  std::size_t first = 0;
  for (std::size_t k = 0; k < host.nbytes(); ++k)
    if (a[k] != b[k] && diff++ == 0) first = k / dtype_size(t);
  CAPTURE(first);
  CHECK(diff == 0);
}

}  // namespace

TEST_CASE("GPU fills are bit-identical to host fills, every generator and dtype", "[generate]") {
  const std::uint64_t seed = gputest::run_seed();
  // Odd sizes: a partial last block; 0 and 1 at the edges.
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000003}}) {
    for (DType t : kAll) {
      GeneratorSpec s;
      s.seed = seed;
      for (auto kind : {GeneratorSpec::Zeros, GeneratorSpec::Ones, GeneratorSpec::Full, GeneratorSpec::Arange,
                        GeneratorSpec::Linspace, GeneratorSpec::Rand, GeneratorSpec::Randn}) {
        if (kind == GeneratorSpec::Randn && (is_integer(t) || is_bool(t))) continue;
        s.kind = kind;
        s.value = -3.3;
        s.start = -7.25;
        s.stop = 1e4 / 3;
        check_same(s, t, n);
      }
    }
  }
}

TEST_CASE("GPU fills of a slice are the whole host fill's elements", "[generate]") {
  // jitrun --device all makes each GPU's rows where they are used.
  const std::int64_t n = 100003;
  for (GeneratorSpec::Kind kind : {GeneratorSpec::Rand, GeneratorSpec::Randn, GeneratorSpec::Linspace}) {
    GeneratorSpec s;
    s.kind = kind;
    s.seed = gputest::run_seed();
    s.start = -1;
    s.stop = 7;
    HostArray whole(DType::Float32, Shape{n});
    generate_host(s, whole.view());
    for (auto [first, count] : {std::pair<std::int64_t, std::int64_t>{0, 50001}, {50001, 50002}, {n - 1, 1}}) {
      CAPTURE(generator_name(kind), first, count);
      GeneratorSpec p = s;
      p.first = first;
      p.whole = n;
      Array dev = Array::empty(DType::Float32, Shape{count}, Device::cuda(device_count() - 1));
      gputest::poison(dev.view(), dev.nbytes());
      generate_device(p, dev.view());
      Array back = dev.to_host();
      CHECK(std::memcmp(back.data(), static_cast<const float*>(whole.data()) + first, back.nbytes()) == 0);
    }
  }
}

TEST_CASE("GPU fill: a generator error comes before any work", "[generate]") {
  Array dev = Array::empty(DType::Int32, Shape{16}, Device::cuda(0));
  GeneratorSpec s;
  s.kind = GeneratorSpec::Randn;
  try {
    generate_device(s, dev.view());
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "randn needs a float or complex dtype, got int32");
  }
}

TEST_CASE("jitrun makes a generated input on the GPU without a host array of its size", "[generate][generate_4gb]") {
  // 4 GB of float64 read through a raw index into a 1-element output: the
  // child's peak resident memory stays far below the input's size.
  const std::size_t bytes = 4000000000ull;
  std::size_t free_bytes = 0, total = 0;
  {
    ScopedContext ctx(0);
    CU_CALL(cuMemGetInfo, &free_bytes, &total);
  }
  if (free_bytes < bytes + (1ull << 30)) CUJIT_SKIP("the GPU has less than 5 GB free");
  std::vector<std::string> args = {CUJIT_JITRUN, "--device", "0", "--shape", "1",
                                   "-i", "x=ones((1000,1000,500)):float64", "out = x[i + 499999999]"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  int status = 0;
  struct rusage ru {};
  REQUIRE(wait4(pid, &status, 0, &ru) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const double peak_gb = static_cast<double>(ru.ru_maxrss) * 1024.0 / 1e9;  // ru_maxrss is in KiB
  CAPTURE(peak_gb);
  CHECK(peak_gb < 1.5);
}
