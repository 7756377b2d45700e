// The public cujit/npy.hpp (load_npy, save_npy) over the golden files NumPy
// wrote (tests/data/npy): the same arrays the tools' reader gives, saved back
// byte for byte as np.save writes them.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "cujit/npy.hpp"
#include "error_of.hpp"
#include "io/npy.hpp"

using namespace cujit;
namespace fs = std::filesystem;

namespace {

const std::string kGood = std::string(CUJIT_TEST_DATA) + "/npy/good/";

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string bytes_of(const ArrayView& a) {
  return std::string(static_cast<const char*>(a.data), static_cast<std::size_t>(a.size()) * a.itemsize());
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::path(CUJIT_BINARY_DIR) / "npy_api_test_XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace

TEST_CASE("load_npy gives what the tools' reader gives for every golden file") {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(kGood)) {
    std::string path = entry.path().string();
    INFO(path);
    Array a = load_npy(path);
    HostArray want = read_npy(path);
    CHECK(a.device() == Device::cpu());
    CHECK(a.dtype() == want.dtype());
    CHECK(a.shape() == want.shape());
    CHECK(bytes_of(a.view()) == bytes_of(want.view()));
    ++files;
  }
  CHECK(files >= 40);
}

TEST_CASE("load_npy reads Fortran order, big-endian data and format 2.0 and 3.0 headers into C order") {
  // The same 2x3 int32 values in C order, little-endian (dtype_int32.npy).
  Array want = load_npy(kGood + "dtype_int32.npy");
  for (const char* name : {"be_int32.npy"}) {
    INFO(name);
    CHECK(bytes_of(load_npy(kGood + name).view()) == bytes_of(want.view()));
  }
  int others = 0;
  for (const auto& entry : fs::directory_iterator(kGood)) {
    std::string n = entry.path().filename().string();
    if (n.find("fortran") == std::string::npos && n.find("v2") == std::string::npos && n.find("v3") == std::string::npos)
      continue;
    INFO(n);
    Array a = load_npy(entry.path().string());
    CHECK(bytes_of(a.view()) == bytes_of(read_npy(entry.path().string()).view()));
    ++others;
  }
  CHECK(others >= 3);
}

TEST_CASE("save_npy writes byte for byte what np.save wrote, from an Array and from a HostArray") {
  TempDir tmp;
  for (const char* name : {"dtype_bool", "dtype_uint8", "dtype_float16", "dtype_bfloat16", "dtype_float64",
                           "dtype_complex128"}) {
    INFO(name);
    std::string golden = kGood + std::string(name) + ".npy";
    std::string out = tmp.file(std::string(name) + ".npy");
    save_npy(out, load_npy(golden));
    CHECK(slurp(out) == slurp(golden));
    save_npy(out, read_npy(golden));
    CHECK(slurp(out) == slurp(golden));
  }
}

TEST_CASE("save_npy writes a strided view in C order") {
  TempDir tmp;
  HostArray base(DType::Int16, Shape{3, 4});
  for (int k = 0; k < 12; ++k) base.as<std::int16_t>()[k] = static_cast<std::int16_t>(k);
  ArrayView t = base.view();  // the transpose: (4, 3)
  t.shape = Shape{4, 3};
  t.strides = Shape{2, 8};
  std::string path = tmp.file("t.npy");
  save_npy(path, t);
  Array back = load_npy(path);
  REQUIRE(back.shape() == Shape{4, 3});
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) CHECK(back.as<std::int16_t>()[r * 3 + c] == c * 4 + r);
}

TEST_CASE("load_npy and save_npy failures are Data errors naming the file") {
  TempDir tmp;
  std::string missing = tmp.file("missing.npy");
  CHECK(test::error_of([&] { load_npy(missing); }, ErrorCode::Data).find(missing) != std::string::npos);
  std::string bad = tmp.file("bad.npy");
  std::ofstream(bad) << "not a numpy file";
  CHECK(test::error_of([&] { load_npy(bad); }, ErrorCode::Data).find(bad) != std::string::npos);
  HostArray one(DType::Float32, Shape{1});
  one.as<float>()[0] = 1;
  CHECK(test::error_of([&] { save_npy(tmp.path.string(), one); }, ErrorCode::Data).find(tmp.path.string()) !=
        std::string::npos);
}
