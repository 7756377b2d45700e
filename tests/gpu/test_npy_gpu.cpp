// .npy files written straight from GPU memory and read straight into it
// (io/npy_device.cpp): the bytes write_npy writes and read_npy reads through
// the host, across the staging chunks' seams, in runs out of order and on two
// GPUs when there are two.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "core/driver.hpp"
#include "cujit/error.hpp"
#include "cujit/npy.hpp"
#include "gpu_util.hpp"
#include "io/npy.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using namespace cujit::gputest;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Dir {
  fs::path path;
  Dir() {
    std::string t = (fs::temp_directory_path() / "cujit_npy_gpu_XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~Dir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("save_npy and write_npy_device write from GPU memory what write_npy writes from the host", "[gpu][npy]") {
  Dir dir;
  std::mt19937_64 rng(run_seed());
  // Two 16 MiB staging chunks and a tail of an odd number of bytes.
  HostArray h(DType::Int16, Shape{(std::int64_t{16} << 20) + 12345});
  fill_random(h, rng);
  const Array d = Array::copy_of(h.view(), Device::cuda(0));
  write_npy((dir.path / "want.npy").string(), h.view());
  const std::string want = slurp(dir.path / "want.npy");

  save_npy((dir.path / "saved.npy").string(), d.view());
  CHECK(slurp(dir.path / "saved.npy") == want);

  // Three runs, the last first; the middle one from GPU 1 when there is one.
  const std::size_t n = d.nbytes(), a = 5 << 20, b = (21 << 20) + 7;
  Array other;
  int mid_device = 0;
  const void* mid = static_cast<const char*>(d.data()) + a;
  if (device_count() > 1) {
    other = Array::copy_of(ArrayView::host(static_cast<const char*>(h.data()) + a, DType::UInt8, Shape{std::int64_t(b - a)}),
                           Device::cuda(1));
    mid_device = 1;
    mid = other.data();
  }
  const char* base = static_cast<const char*>(d.data());
  write_npy_device((dir.path / "runs.npy").string(), DType::Int16, h.view().shape,
                   {DeviceBytes{0, base + b, n - b, b}, DeviceBytes{mid_device, mid, b - a, a}, DeviceBytes{0, base, a, 0}});
  CHECK(slurp(dir.path / "runs.npy") == want);

  // Empty and 0-d arrays.
  const Array empty = Array::empty(DType::Float64, Shape{0, 3}, Device::cuda(0));
  save_npy((dir.path / "empty.npy").string(), empty.view());
  write_npy((dir.path / "empty_want.npy").string(), HostArray(DType::Float64, Shape{0, 3}).view());
  CHECK(slurp(dir.path / "empty.npy") == slurp(dir.path / "empty_want.npy"));
  HostArray s(DType::Float32, Shape{});
  *static_cast<float*>(s.data()) = 2.5f;
  save_npy((dir.path / "scalar.npy").string(), Array::copy_of(s.view(), Device::cuda(0)).view());
  write_npy((dir.path / "scalar_want.npy").string(), s.view());
  CHECK(slurp(dir.path / "scalar.npy") == slurp(dir.path / "scalar_want.npy"));

  // A directory that does not exist: the Data error write_npy gives, and no file.
  try {
    save_npy((dir.path / "no" / "x.npy").string(), d.view());
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Data);
    CHECK(std::string(e.what()) == (dir.path / "no" / "x.npy").string() + ": cannot write: No such file or directory");
  }
}

TEST_CASE("read_npy_device reads into GPU memory what read_npy reads", "[gpu][npy]") {
  Dir dir;
  std::mt19937_64 rng(run_seed());
  // Several of a reader's 4 MiB chunks and an odd tail, in three runs read
  // out of order, the middle one onto GPU 1 when there is one.
  HostArray h(DType::Float32, Shape{(std::int64_t{9} << 20) + 4321, 1});
  fill_random(h, rng);
  const std::string path = (dir.path / "x.npy").string();
  write_npy(path, h.view());
  const NpyFile f = read_npy_header(path);
  REQUIRE(f.nbytes == h.nbytes());
  const std::size_t n = f.nbytes, a = (5 << 20) + 4, b = (21 << 20) + 8;
  Array d0 = Array::empty(DType::UInt8, Shape{std::int64_t(n)}, Device::cuda(0));
  const int mid_device = device_count() > 1 ? 1 : 0;
  Array mid = Array::empty(DType::UInt8, Shape{std::int64_t(b - a)}, Device::cuda(mid_device));
  poison(d0.view(), d0.nbytes());
  poison(mid.view(), mid.nbytes());
  char* base = static_cast<char*>(d0.data());
  read_npy_device(path, f, {DeviceTarget{0, base + b, n - b, b}, DeviceTarget{mid_device, mid.data(), b - a, a},
                            DeviceTarget{0, base, a, 0}});
  const Array back = d0.to_host(), back_mid = mid.to_host();
  const char* want = static_cast<const char*>(h.data());
  CHECK(std::memcmp(back.data(), want, a) == 0);
  CHECK(std::memcmp(static_cast<const char*>(back.data()) + b, want + b, n - b) == 0);
  CHECK(std::memcmp(back_mid.data(), want + a, b - a) == 0);

  // A file cut short, or another put in its place, after its header was
  // read: a Data error naming it, and nothing read.
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(f.data_offset + n - 100)) == 0);
  const std::string changed = path + ": the file changed after its header was read; read it again";
  auto read_all = [&] { read_npy_device(path, f, {DeviceTarget{0, base, n, 0}}); };
  CHECK(test::error_of(read_all, ErrorCode::Data) == changed);
  write_npy(path, h.view());  // the same bytes again, in a new file (write_npy renames one over the path)
  CHECK(test::error_of(read_all, ErrorCode::Data) == changed);
  read_npy_device(path, read_npy_header(path), {DeviceTarget{0, base, a, 0}});  // read again: fine
  // Bytes that need reordering are read_npy's; a run past the data is refused.
  const std::string be = std::string(CUJIT_TEST_DATA) + "/npy/good/be_float32.npy";
  CHECK(test::error_of([&] { read_npy_device(be, read_npy_header(be), {DeviceTarget{0, base, 24, 0}}); },
                        ErrorCode::Usage) ==
        be + ": read_npy_device reads C-ordered native-endian data; the file is big-endian; read it with read_npy");
  const std::string le = std::string(CUJIT_TEST_DATA) + "/npy/good/dtype_float32.npy";
  CHECK(test::error_of([&] { read_npy_device(le, read_npy_header(le), {DeviceTarget{0, base, 8, 20}}); },
                        ErrorCode::Usage) == le + ": read_npy_device: bytes [20, 28) are past the data's 24 bytes");
}
