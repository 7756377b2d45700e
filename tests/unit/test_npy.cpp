// .npy reading and writing against files NumPy wrote (tests/data/npy, made by
// make_npy.py).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "io/npy.hpp"

using namespace cujit;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(CUJIT_TEST_DATA) + "/npy/";

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The message of the cujit::Error that `f` raises, which must be a Data error.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Data);
    return e.what();
  }
  return "(no error)";
}

std::string bytes_of(const HostArray& a) {
  return std::string(static_cast<const char*>(a.data()), a.nbytes());
}

// A fresh directory for files a test writes, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::path(CUJIT_BINARY_DIR) / "npy_test_XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

struct GoldenCase {
  std::string name;
  DType dtype;
  Shape shape;
  std::string data;  // C order, little-endian
};

// tests/data/npy/cases.txt: "name dtype (d0,d1,...) hexdata"
std::vector<GoldenCase> golden_cases() {
  std::ifstream f(kData + "cases.txt");
  REQUIRE(f);
  std::vector<GoldenCase> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string name, dtype, shape, hex;
    in >> name >> dtype >> shape >> hex;
    GoldenCase c;
    c.name = name;
    auto t = dtype_from_name(dtype);
    REQUIRE(t);
    c.dtype = *t;
    std::string dims = shape.substr(1, shape.size() - 2);
    std::istringstream ds(dims);
    std::string d;
    while (std::getline(ds, d, ',')) c.shape[c.shape.ndim++] = std::stoll(d);
    if (hex != "-")
      for (std::size_t k = 0; k < hex.size(); k += 2)
        c.data.push_back(static_cast<char>(std::stoi(hex.substr(k, 2), nullptr, 16)));
    out.push_back(c);
  }
  return out;
}

}  // namespace

TEST_CASE("read_npy loads every golden file: all dtypes, byte orders, versions, layouts") {
  auto cases = golden_cases();
  REQUIRE(cases.size() >= 40);
  for (const auto& c : cases) {
    INFO(c.name);
    std::string path = kData + "good/" + c.name + ".npy";
    HostArray a = read_npy(path);
    CHECK(a.dtype() == c.dtype);
    CHECK(a.shape() == c.shape);
    // (ArrayView::is_c_contiguous says false for some empty shapes.)
    CHECK((a.size() == 0 || a.view().is_c_contiguous()));
    CHECK(bytes_of(a) == c.data);
    // The in-memory parser agrees with the file reader.
    HostArray b = parse_npy(slurp(path), c.name);
    CHECK(b.dtype() == c.dtype);
    CHECK(b.shape() == c.shape);
    CHECK(bytes_of(b) == c.data);
  }
}

TEST_CASE("malformed files give one clear Data error naming the file") {
  struct Case {
    const char* file;
    const char* message;
  };
  const Case cases[] = {
      {"bad_magic", "not a .npy file (bad magic)"},
      {"empty", "not a .npy file (bad magic)"},
      {"magic_only", "truncated header (the file has 6 bytes, the header needs at least 10)"},
      {"truncated_length", "truncated header (the file has 9 bytes, the header needs at least 10)"},
      {"truncated_header", "truncated header (the file has 50 bytes, the header needs 128)"},
      {"bad_version", "unsupported .npy format version 4.0 (cujit reads 1.0, 2.0 and 3.0)"},
      {"short_data",
       "data is truncated: shape (2, 3) of float64 needs 48 bytes, the file has 43 after the header"},
      {"missing_comma", "header is not a valid Python dict literal (expected ',' or '}' at header byte 16)"},
      {"not_a_dict", "header is not a valid Python dict literal (expected '{' at header byte 0)"},
      {"unterminated_dict",
       "header is not a valid Python dict literal (expected a quoted key at the end of the header)"},
      {"unterminated_string", "header is not a valid Python dict literal (unterminated string at header byte 53)"},
      {"trailing_text",
       "header is not a valid Python dict literal (unexpected text after the closing '}' at header byte 58)"},
      {"deep_nesting", "header is not a valid Python dict literal (values nested too deeply at header byte 83)"},
      {"missing_shape", "header has no 'shape' key"},
      {"extra_key",
       "header has an unexpected key 'x' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')"},
      {"duplicate_key", "header has the key 'descr' twice"},
      {"fortran_not_bool", "'fortran_order' is not True or False"},
      {"shape_not_tuple", "'shape' is not a tuple of non-negative integers"},
      {"shape_negative", "'shape' is not a tuple of non-negative integers"},
      {"shape_float", "'shape' is not a tuple of non-negative integers"},
      {"shape_overflow", "shape (4294967296, 4294967296) is too large (over 2^63 bytes)"},
      {"shape_huge_int", "shape (99999999999999999999,) is too large (over 2^63 bytes)"},
      {"dims9", "the array has 9 dimensions; cujit supports at most 8"},
      {"unicode_U3",
       "unsupported dtype '<U3' (supported: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16 in either byte "
       "order, and '<V2' for bfloat16)"},
      {"longdouble",
       "unsupported dtype '<f16' (supported: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16 in either byte "
       "order, and '<V2' for bfloat16)"},
      {"object", "object arrays (dtype '|O') are not supported; save a numeric array instead"},
      {"structured", "structured dtypes (a list as 'descr') are not supported"},
      {"odd_key",
       "header has an unexpected key 'a\\x01\\xe9' (a .npy header has exactly 'descr', 'fortran_order' and "
       "'shape')"},
      {"long_descr",
       "unsupported dtype '<fffffffffffffffffffffffffffffffffffffff...' (supported: b1 i1 i2 i4 i8 u1 u2 u4 u8 "
       "f2 f4 f8 c8 c16 in either byte order, and '<V2' for bfloat16)"},
      {"void2",
       "unsupported dtype '|V2' (raw 2-byte void); a bfloat16 array is stored as '<V2', as np.save writes "
       "ml_dtypes.bfloat16"},
  };
  for (const auto& c : cases) {
    std::string path = kData + "bad/" + c.file + ".npy";
    INFO(path);
    CHECK(error_of([&] { read_npy(path); }) == path + ": " + c.message);
    CHECK(error_of([&] { parse_npy(slurp(path), "x.npy"); }) == std::string("x.npy: ") + c.message);
  }
}

TEST_CASE("read_npy_header gives each golden file's dtype, shape, order and where its data lies") {
  for (const auto& c : golden_cases()) {
    INFO(c.name);
    const std::string path = kData + "good/" + c.name + ".npy";
    const NpyFile f = read_npy_header(path);
    CHECK(f.dtype == c.dtype);
    CHECK(f.shape == c.shape);
    CHECK(f.nbytes == c.data.size());
    CHECK(f.swap == (c.name.rfind("be_", 0) == 0 || c.name == "fortran_be_complex128"));
    CHECK(f.fortran == (c.name.rfind("fortran_", 0) == 0));
    // The data's bytes lie where it says (C-ordered native files: the data itself).
    const std::string all = slurp(path);
    REQUIRE(f.data_offset + f.nbytes <= all.size());
    CHECK(f.file_size == all.size());
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK(f.file_inode == static_cast<std::uint64_t>(st.st_ino));
    CHECK(f.file_device == static_cast<std::uint64_t>(st.st_dev));
    if (!f.swap && !f.fortran) CHECK(all.substr(f.data_offset, f.nbytes) == c.data);
  }
  // read_npy's errors, from the same checks.
  CHECK(error_of([] { read_npy_header("no/such/file.npy"); }) == "no/such/file.npy: cannot open: No such file or directory");
  int bad = 0;
  for (const auto& e : fs::directory_iterator(kData + "bad")) {
    const std::string path = e.path().string();
    INFO(path);
    const std::string want = error_of([&] { read_npy(path); });
    CHECK(want != "(no error)");
    CHECK(error_of([&] { read_npy_header(path); }) == want);
    ++bad;
  }
  CHECK(bad >= 25);
}

TEST_CASE("read_npy reports files it cannot open") {
  CHECK(error_of([] { read_npy("no/such/file.npy"); }) == "no/such/file.npy: cannot open: No such file or directory");
  std::string dir = kData + "good";
  CHECK(error_of([&] { read_npy(dir); }) == dir + ": cannot read a .npy file from a directory; give a regular file, or '-' for standard input");
}

TEST_CASE("parse_npy survives truncated and corrupted input") {
  // Every prefix of a valid file, and many single- and multi-byte
  // corruptions of it: each either loads or raises a Data error.
  const std::string valid = slurp(kData + "good/fortran_be_complex128.npy");
  int loaded = 0, refused = 0;
  auto attempt = [&](const std::string& bytes) {
    try {
      HostArray a = parse_npy(bytes, "fuzz.npy");
      (void)a;
      ++loaded;
    } catch (const Error& e) {
      REQUIRE(e.code() == ErrorCode::Data);
      ++refused;
    }
  };
  for (std::size_t n = 0; n < valid.size(); ++n) attempt(valid.substr(0, n));
  std::mt19937 rng(12345);
  const char interesting[] = {'(', ')', ',', '\'', '"', '{', '}', ':', '-', '9', '0', 'L', ' ', '\n', '[', '\0'};
  for (int i = 0; i < 4000; ++i) {
    std::string bytes = valid;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      std::size_t at = rng() % (i % 2 ? 128 : bytes.size());  // mostly inside the header
      bytes[at] = rng() % 2 ? static_cast<char>(rng()) : interesting[rng() % sizeof interesting];
    }
    attempt(bytes);
  }
  CHECK(loaded > 0);
  CHECK(refused > 0);
}

TEST_CASE("write_npy writes byte for byte what np.save writes") {
  TempDir tmp;
  for (const auto& c : golden_cases()) {
    // Only the files np.save itself wrote: C order, little-endian, version 1.0.
    if (c.name.rfind("dtype_", 0) != 0 && c.name.rfind("scalar_", 0) != 0 && c.name.rfind("empty_", 0) != 0 &&
        c.name.rfind("dims8_", 0) != 0)
      continue;
    INFO(c.name);
    std::string golden = kData + "good/" + c.name + ".npy";
    std::string out = tmp.file(c.name + ".npy");
    write_npy(out, read_npy(golden).view());
    CHECK(slurp(out) == slurp(golden));
  }
}

namespace {

// A host array of `dtype` and `shape` whose bytes all differ, so that any
// element or byte out of place shows.
HostArray patterned(DType dtype, const Shape& shape) {
  HostArray a(dtype, shape);
  auto* p = static_cast<unsigned char*>(a.data());
  for (std::size_t k = 0; k < a.nbytes(); ++k) p[k] = static_cast<unsigned char>(k * 131 + 7);
  return a;
}

// The elements of a view in C order, gathered the slow, obvious way.
std::string reference_bytes(const ArrayView& v) {
  std::string out;
  std::int64_t n = v.size();
  for (std::int64_t flat = 0; flat < n; ++flat) {
    std::int64_t rest = flat, offset = 0;
    for (int k = v.shape.ndim - 1; k >= 0; --k) {
      offset += (rest % v.shape[k]) * v.strides[k];
      rest /= v.shape[k];
    }
    out.append(static_cast<const char*>(v.data) + offset, v.itemsize());
  }
  return out;
}

}  // namespace

TEST_CASE("write_npy then read_npy round-trips strided views of every dtype") {
  TempDir tmp;
  for (int t = 0; t < kNumDTypes; ++t) {
    const auto dtype = static_cast<DType>(t);
    const auto item = static_cast<std::int64_t>(dtype_size(dtype));
    HostArray base = patterned(dtype, Shape{4, 5, 6});
    const ArrayView& b = base.view();
    char* data = static_cast<char*>(b.data);

    struct Case {
      const char* what;
      ArrayView view;
    };
    std::vector<Case> cases;
    cases.push_back({"contiguous", b});
    ArrayView transposed = b;  // axes reversed: (6, 5, 4)
    transposed.shape = Shape{6, 5, 4};
    transposed.strides = Shape{b.strides[2], b.strides[1], b.strides[0]};
    cases.push_back({"transposed", transposed});
    ArrayView reversed = b;  // [::-1, :, ::-2]
    reversed.data = data + 3 * b.strides[0] + 5 * b.strides[2];
    reversed.shape = Shape{4, 5, 3};
    reversed.strides = Shape{-b.strides[0], b.strides[1], -2 * b.strides[2]};
    cases.push_back({"reversed", reversed});
    ArrayView sliced = b;  // [1:3, ::2, 1]
    sliced.data = data + b.strides[0] + b.strides[2];
    sliced.shape = Shape{2, 3};
    sliced.strides = Shape{b.strides[0], 2 * b.strides[1]};
    cases.push_back({"sliced", sliced});
    ArrayView broadcast = b;  // one row repeated: stride 0
    broadcast.shape = Shape{3, 6};
    broadcast.strides = Shape{0, item};
    cases.push_back({"broadcast", broadcast});
    ArrayView scalar = b;
    scalar.data = data + item * 7;
    scalar.shape = Shape{};
    scalar.strides = Shape{};
    cases.push_back({"0-d", scalar});
    ArrayView empty = b;
    empty.shape = Shape{3, 0, 2};
    empty.strides = Shape{7 * item, item, 3 * item};
    cases.push_back({"empty", empty});

    for (const auto& c : cases) {
      INFO(dtype_name(dtype) << " " << c.what);
      std::string path = tmp.file(std::string(dtype_name(dtype)) + "_" + c.what + ".npy");
      write_npy(path, c.view);
      HostArray back = read_npy(path);
      CHECK(back.dtype() == dtype);
      CHECK(back.shape() == c.view.shape);
      CHECK(bytes_of(back) == reference_bytes(c.view));
    }
  }
}

TEST_CASE("write_npy replaces a file whole and cleans up after a failure") {
  TempDir tmp;
  std::string path = tmp.file("a.npy");
  write_npy(path, patterned(DType::Float64, Shape{1000}).view());
  HostArray small = patterned(DType::Int8, Shape{3});
  write_npy(path, small.view());
  CHECK(bytes_of(read_npy(path)) == bytes_of(small));

  CHECK(error_of([&] { write_npy("/no/such/dir/x.npy", small.view()); }) ==
        "/no/such/dir/x.npy: cannot write: No such file or directory");
  // A directory is refused before anything is written (it used to fail at
  // the rename): no temporary file may stay behind either way.
  fs::create_directory(tmp.file("dir.npy"));
  CHECK(error_of([&] { write_npy(tmp.file("dir.npy"), small.view()); }) ==
        tmp.file("dir.npy") + ": cannot write an output over a directory; outputs are written to regular files only (it "
                              "was left as it is)");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(tmp.path)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"a.npy", "dir.npy"});

  ArrayView on_gpu = small.view();
  on_gpu.device = Device{Device::CUDA, 0};
  CHECK(error_of([&] { write_npy(tmp.file("g.npy"), on_gpu); }) ==
        tmp.file("g.npy") + ": cannot write an array on a CUDA device; copy it to the host first");
}

TEST_CASE("write_npy writes through symbolic links and keeps the file's permissions") {
  TempDir tmp;
  HostArray a = patterned(DType::Int32, Shape{2, 2});
  std::string file = tmp.file("data.npy"), link = tmp.file("link.npy");
  write_npy(file, patterned(DType::Int8, Shape{1}).view());
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  fs::create_symlink("data.npy", link);
  write_npy(link, a.view());
  CHECK(fs::is_symlink(link));
  CHECK(bytes_of(read_npy(file)) == bytes_of(a));
  CHECK(fs::status(file).permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));

  CHECK(error_of([&] { write_npy("", a.view()); }) == "cannot write a .npy file: the file name is empty");
  CHECK(error_of([&] { read_npy(""); }) == "cannot read a .npy file: the file name is empty");
}

TEST_CASE("bfloat16 is written as ml_dtypes writes it: descr '<V2'") {
  TempDir tmp;
  HostArray a = patterned(DType::BFloat16, Shape{2});
  write_npy(tmp.file("bf.npy"), a.view());
  std::string bytes = slurp(tmp.file("bf.npy"));
  const std::string dict = "{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }";
  CHECK(bytes.substr(10, dict.size()) == dict);
  CHECK(bytes.size() == 128 + 4);
}

TEST_CASE("write_npy_with: data written at offsets, out of order, is write_npy's file; a failure leaves none") {
  TempDir tmp;
  HostArray a = patterned(DType::Int32, Shape{1000, 3});
  write_npy(tmp.file("want.npy"), a.view());
  const std::size_t half = a.view().size() / 2 * 4;
  const char* p = static_cast<const char*>(a.data());
  // The second half first, as a second GPU's thread may write it.
  write_npy_with(tmp.file("got.npy"), DType::Int32, a.view().shape, [&](int fd, std::size_t at) {
    return ::pwrite(fd, p + half, 12000 - half, static_cast<off_t>(at + half)) == static_cast<ssize_t>(12000 - half) &&
           ::pwrite(fd, p, half, static_cast<off_t>(at)) == static_cast<ssize_t>(half);
  });
  CHECK(slurp(tmp.file("got.npy")) == slurp(tmp.file("want.npy")));

  // A GPU copy that throws half way: the error comes through, the old file stays, no temporary is left.
  auto throws = [&](int fd, std::size_t at) -> bool {
    (void)::pwrite(fd, p, half, static_cast<off_t>(at));
    throw Error(ErrorCode::Device, "cuMemcpyDtoHAsync failed");
  };
  try {
    write_npy_with(tmp.file("got.npy"), DType::Int32, Shape{7}, throws);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cuMemcpyDtoHAsync failed");
  }
  CHECK(error_of([&] { write_npy_with(tmp.file("w.npy"), DType::Int32, Shape{2}, [](int, std::size_t) {
          errno = ENOSPC;
          return false;
        }); }) == tmp.file("w.npy") + ": cannot write: No space left on device");
  CHECK(slurp(tmp.file("got.npy")) == slurp(tmp.file("want.npy")));
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(tmp.path)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"got.npy", "want.npy"});
}
