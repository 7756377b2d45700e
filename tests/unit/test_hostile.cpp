// Hostile input through the API (issue 13): names at every way in, the limits
// on programs, .npy files that are not what they claim, outputs over things
// that are not files, shape products that overflow. Each case was a crash, a
// hang, an injection or an internal error before; each must now be a clear
// error with its code, quickly. tests/hostile/ holds the command-line corpus.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "lang/diagnostic.hpp"
#include "io/format.hpp"
#include "core/limits.hpp"
#include "core/names.hpp"
#include "io/npy.hpp"
#include "lang/parse.hpp"
#include "core/array.hpp"

using namespace cujit;
namespace fs = std::filesystem;

namespace {

struct Caught {
  ErrorCode code = ErrorCode::Internal;
  std::string what;
  double seconds = 0;
};

template <class F>
Caught caught(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  Caught c;
  try {
    f();
    FAIL("no cujit::Error was thrown");
  } catch (const Error& e) {
    c.code = e.code();
    c.what = e.what();
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

const std::string kRule =
    "a name is 1 to 64 ASCII letters, digits and '_', starts with a letter, does not start with 'cj_' "
    "(cujit's own names) and is not a reserved word of C++ or CUDA";

std::vector<Param> f32(std::initializer_list<const char*> names) {
  std::vector<Param> v;
  for (const char* n : names) v.push_back(Param{n, DType::Float32, false, false});
  return v;
}

// The names the probe of issue 13 used to reach the generated source.
const std::vector<std::string> kBadNames = {
    "x\n#include \"/etc/hostname\"",
    "x){asm(\"trap\");}//",
    "x, float* y",
    "x /* c */",
    "x\\",
    "x y",
    std::string("x\0y", 3),
    "x\x01",
    "x\xc3\xa9",
    "int",
    "asm",
    "main",
    "__global__",
    "threadIdx",
    "_x",
    "cj_n",
    "1x",
    "",
    std::string(65, 'a'),
    std::string(1000000, 'a'),
};

std::string tmp_dir() {
  fs::path d = fs::temp_directory_path() / ("cujit_hostile_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d.string();
}

std::string npy_bytes(const std::string& dict, const std::string& data = "") {
  std::string h = dict;
  h.append(64 - (10 + h.size() + 1) % 64, ' ');
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(h.size() & 0xff));
  out.push_back(static_cast<char>(h.size() >> 8));
  return out + h + data;
}

}  // namespace

TEST_CASE("names: one rule", "[hostile][names]") {
  CHECK(name_problem("x").empty());
  CHECK(name_problem("out_2").empty());
  CHECK(name_problem("cujit_kernel").empty());
  CHECK(name_problem(std::string(64, 'a')).empty());
  CHECK(name_problem("") == "it is empty");
  CHECK(name_problem(std::string(65, 'a')) == "it is 65 characters long");
  CHECK(name_problem("x\ny") == "it holds the control character \\x0a");
  CHECK(name_problem("x y") == "it holds ' '");
  CHECK(name_problem("x\xc3\xa9") == "it holds a non-ASCII byte");
  CHECK(name_problem("1x") == "it starts with a digit");
  CHECK(name_problem("__global__") == "names starting with '_' are reserved");
  CHECK(name_problem("cj_k") == "names starting with 'cj_' are cujit's");
  for (const char* w : {"int", "asm", "main", "and", "xor_eq", "threadIdx", "blockIdx", "blockDim", "gridDim",
                        "warpSize", "template", "nullptr", "co_await"})
    CHECK(name_problem(w) == std::string("'") + w + "' is a reserved word of C++ or CUDA");
  for (const auto& n : kBadNames) CHECK_FALSE(name_problem(n).empty());

  auto c = caught([] { check_name("x\n#include <a>", "-i"); });
  CHECK(c.code == ErrorCode::Usage);
  CHECK(c.what == "-i 'x\\x0a#include <a>' is not a valid name: it holds the control character \\x0a; " + kRule);
  // A megabyte name is cut short in the message.
  c = caught([] { check_name(std::string(1000000, 'a'), "input"); });
  CHECK(c.what == "input '" + std::string(40, 'a') + "... (1000000 bytes)' is not a valid name: it is 1000000 "
                  "characters long; " + kRule);
}

TEST_CASE("names: every way in of the API checks them", "[hostile][names]") {
  for (const auto& bad : kBadNames) {
    INFO(quoted_text(bad));
    // check (jitrun, jitcache and evaluate reach it): inputs and declared outputs.
    CHECK(caught([&] { compile_program("out = 1", {Param{bad, DType::Float32, false, false}}); }).code == ErrorCode::Usage);
    CHECK(caught([&] { compile_program("out = 1", {}, {OutputDecl{bad, DType::Float32}}); }).code == ErrorCode::Usage);
    // evaluate(): input names and output dtypes' names.
    CHECK(caught([&] { evaluate("out = 1", {{bad, 1.0}}); }).code == ErrorCode::Usage);
    EvaluateOptions o;
    o.output_dtypes = {{bad, DType::Float32}};
    CHECK(caught([&] { evaluate("out = 1", {}, o); }).code == ErrorCode::Usage);
    // ElementwiseKernel: kernel name, parameter names, in both modes.
    CHECK(caught([&] { ElementwiseKernel("float32 x", "float32 y", "y = x", bad); }).code == ErrorCode::Usage);
    ElementwiseOptions raw;
    raw.raw_cuda = true;
    CHECK(caught([&] { ElementwiseKernel("float32 x", "float32 y", "y = x;", bad, raw); }).code == ErrorCode::Usage);
    if (bad.find_first_of(" ,\t\r\n") == std::string::npos && !bad.empty()) {
      CHECK(caught([&] { ElementwiseKernel("float32 " + bad, "float32 y", "y = 1", "k"); }).code == ErrorCode::Usage);
      CHECK(caught([&] { ElementwiseKernel("float32 x", "float32 " + bad, "y = 1", "k", raw); }).code == ErrorCode::Usage);
    }
  }
  // Placeholders are pasted as typedef names in raw CUDA mode: the same rule.
  ElementwiseOptions raw;
  raw.raw_cuda = true;
  auto c = caught([&] { ElementwiseKernel("asm x", "float32 y", "y = x;", "k", raw); });
  CHECK(c.code == ErrorCode::Usage);
  CHECK(c.what == "in_params: 'asm' is neither a dtype nor a type placeholder (a name such as T: " + kRule + ")");
  c = caught([] { ElementwiseKernel("float32 x", "float32 y", "y = x", "main"); });
  CHECK(c.what == "kernel name 'main' is not a valid name: 'main' is a reserved word of C++ or CUDA; " + kRule);
  // The generator refuses a program whose names break the rule, however it was built.
  Program p = compile_program("out = x", f32({"x"}));
  p.inputs[0].name = "x){asm(\"trap\");}//";
  c = caught([&] { generate_source(p, contiguous_layout(p), "k"); });
  CHECK(c.code == ErrorCode::Usage);
  CHECK(c.what.rfind("input 'x){asm(\"trap\");}//' is not a valid name: it holds ')'", 0) == 0);
  p = compile_program("out = x", f32({"x"}));
  CHECK(caught([&] { generate_source(p, contiguous_layout(p), "int"); }).code == ErrorCode::Usage);
}

TEST_CASE("names: program targets follow the rule too", "[hostile][names]") {
  auto c = caught([] { compile_program("asm = x", f32({"x"})); });
  CHECK(c.code == ErrorCode::Program);
  CHECK(c.what == "error: 'asm' is not a valid name: 'asm' is a reserved word of C++ or CUDA\n  asm = x\n  ^~~\nhint: " + kRule);
  CHECK(caught([] { compile_program("cj_n = x", f32({"x"})); }).code == ErrorCode::Program);
  // NUL and other control bytes in program text.
  c = caught([] { compile_program(std::string("out = x\0", 8), f32({"x"})); });
  CHECK(c.what == "error: unexpected control character 0x00\n  out = x?\n         ^");
  c = caught([] { compile_program("out = \x1b[2J\xc3\xa9", f32({"x"})); });
  CHECK(c.what == "error: unexpected control character 0x1b\n  out = ?[2J??\n        ^");
  c = caught([] { compile_program("out = " + std::string(65, 'a'), f32({"x"})); });
  CHECK(c.code == ErrorCode::Program);
  CHECK(c.what.rfind("error: name of 65 characters; the limit is 64\n", 0) == 0);
}

TEST_CASE("limits: program length, statements, nesting, parameters", "[hostile][limits]") {
  // Over 1 MiB: refused before the lexer looks at it.
  auto c = caught([] { parse("out = 1 " + std::string(kMaxProgramBytes, ' ')); });
  CHECK(c.code == ErrorCode::Program);
  CHECK(c.what == "error: the program is 1048584 bytes long; the limit is 1048576 bytes (1 MiB)\n"
                  "hint: split it into several programs");
  CHECK(c.seconds < 2);
  // 10^5 statements (under 1 MiB): refused at the limit, quickly.
  std::string many;
  for (int k = 0; k < 100000; ++k) many += "a" + std::to_string(k) + "=x\n";
  REQUIRE(many.size() < kMaxProgramBytes);
  c = caught([&] { compile_program(many, f32({"x"})); });
  CHECK(c.code == ErrorCode::Program);
  CHECK(c.what.rfind("error: too many statements (the limit is 10000) (line 10001)\n", 0) == 0);
  CHECK(c.seconds < 2);
  // The limit itself: 10^4 statements check in linear time (it was quadratic).
  std::string limit;
  for (std::size_t k = 0; k < kMaxStatements; ++k) limit += "a" + std::to_string(k) + "=x\n";
  auto t0 = std::chrono::steady_clock::now();
  Program p = compile_program(limit, f32({"x"}));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 2);
  CHECK(p.outputs.size() == kMaxStatements);

  // Right-associative chains nest one level per operator: 20,000 terms were a SIGSEGV.
  std::string pow = "out = x", tern = "out = ";
  for (int k = 0; k < 20000; ++k) pow += " ** x", tern += "c ? x : ";
  tern += "x";
  c = caught([&] { compile_program(pow, f32({"x"})); });
  CHECK(c.code == ErrorCode::Program);
  CHECK(c.what.rfind("error: expression nested too deeply (more than 200 levels)\n", 0) == 0);
  c = caught([&] { compile_program(tern, f32({"x", "c"})); });
  CHECK(c.what.rfind("error: expression nested too deeply (more than 200 levels)\n", 0) == 0);
  // Through the API as well (the probe crashed there too).
  CHECK(caught([&] { ElementwiseKernel("float32 x", "float32 out", pow, "k"); }).code == ErrorCode::Program);
  CHECK(caught([&] { evaluate(tern, {{"x", 1.0}, {"c", 1.0}}); }).code == ErrorCode::Program);
  // Within the limits a chain checks, evaluates and generates code.
  std::string ok_pow = "out = x", ok_tern = "out = ", ok_add = "out = x";
  for (int k = 0; k < 150; ++k) ok_pow += " ** x", ok_tern += "c ? x : ";
  for (int k = 0; k < 990; ++k) ok_add += " + x";
  ok_tern += "x";
  for (const std::string& prog : {ok_pow, ok_tern, ok_add}) {
    Program q = compile_program(prog, f32({"x", "c"}));
    CHECK_FALSE(generate_source(q, contiguous_layout(q), "k").empty());
    CHECK(evaluate(prog, {{"x", 1.0}, {"c", 1.0}}).size() == 1);
  }
  // Long left-associative chains raise the tree: refused past 1000 levels.
  std::string deep = "out = x";
  for (int k = 0; k < 100000; ++k) deep += "+x";
  c = caught([&] { compile_program(deep, f32({"x"})); });
  CHECK(c.what.rfind("error: expression too deep (more than 1000 levels)\n", 0) == 0);
  CHECK(c.seconds < 2);

  // Parameters: 10^4 were an internal error at compile time.
  std::vector<Param> params;
  for (int k = 0; k < 10000; ++k) params.push_back(Param{"x" + std::to_string(k), DType::Float32, false, false});
  c = caught([&] { compile_program("out = x0", params); });
  CHECK(c.code == ErrorCode::Usage);
  CHECK(c.what == "10000 parameters (10000 inputs, 0 declared outputs) are more than the limit of 128");
  params.resize(kMaxParams);
  CHECK(compile_program("out = x0", params).inputs.size() == kMaxParams);
  std::string ins;
  for (int k = 0; k < 200; ++k) ins += (k ? ", float32 x" : "float32 x") + std::to_string(k);
  c = caught([&] { ElementwiseKernel(ins, "float32 y", "y = x0", "k"); });
  CHECK(c.what == "kernel 'k': 201 parameters are more than the limit of 128");
}

TEST_CASE("did-you-mean is bounded", "[hostile][limits]") {
  // Two 60,000-character names took over 5 s: now names past 64 get no suggestion.
  std::string a(60000, 'a'), b(60000, 'b');
  std::string_view cands[] = {a, b, "sin"};
  auto t0 = std::chrono::steady_clock::now();
  CHECK(closest_name(std::string(60000, 'c'), cands, 3).empty());
  CHECK(closest_name("sinn", cands, 3) == "sin");
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1);
  // A near miss whose length differs by more than the limit is never a candidate.
  std::string_view far[] = {"abcdefgh"};
  CHECK(closest_name("abcde", far, 1).empty());
}

TEST_CASE("diagnostics show a window of a very long line", "[hostile][limits]") {
  std::string src = "out = 1" + std::string(5000, ' ') + "+ foo" + std::string(5000, ' ');
  auto c = caught([&] { compile_program(src, {}); });
  CHECK(c.code == ErrorCode::Program);
  CHECK(c.what.size() < 600);
  c = caught([&] { compile_program("out = " + std::string(5000, '1'), {}); });
  CHECK(c.what.size() < 1000);
  c = caught([&] { compile_program(src, {}); });
  CHECK(c.what == "error: unknown name 'foo'\n  ..." + std::string(58, ' ') + "+ foo" + std::string(97, ' ') + "...\n     " +
                      std::string(60, ' ') + "^~~");
}

TEST_CASE(".npy: empty Fortran-order arrays, non-regular files, huge headers", "[hostile][npy]") {
  const std::string dir = tmp_dir();
  // Fortran order with a zero-length dimension was a SIGSEGV (big-endian: a write through null).
  for (const char* descr : {"<f4", ">f4"})
    for (const char* shape : {"(0, 3)", "(3, 0)", "(2, 0, 2)"}) {
      INFO(descr << " " << shape);
      std::string bytes = npy_bytes(std::string("{'descr': '") + descr + "', 'fortran_order': True, 'shape': " + shape + ", }");
      std::string path = dir + "/f.npy";
      std::ofstream(path, std::ios::binary) << bytes;
      HostArray a = read_npy(path);
      HostArray b = parse_npy(bytes, "f.npy");
      CHECK(to_string(a.shape()) == shape);
      CHECK(to_string(b.shape()) == shape);
      CHECK(a.size() == 0);
    }
  // Devices and FIFOs never end (or never start): refused, at once.
  auto c = caught([] { read_npy("/dev/zero"); });
  CHECK(c.code == ErrorCode::Data);
  CHECK(c.what == "/dev/zero: cannot read a .npy file from a character device; give a regular file, or '-' for standard input");
  CHECK(caught([] { read_npy("/dev/urandom"); }).seconds < 1);
  std::string fifo = dir + "/fifo";
  ::unlink(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  c = caught([&] { read_npy(fifo); });  // no writer: opening must not wait
  CHECK(c.what == fifo + ": cannot read a .npy file from a FIFO; give a regular file, or '-' for standard input");
  CHECK(caught([&] { read_npy(dir); }).what == dir + ": cannot read a .npy file from a directory; give a regular file, or '-' for standard input");
  // A shape whose bytes overflow, and one the file cannot hold: refused before allocating.
  c = caught([] { parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"), "h.npy"); });
  CHECK(c.what == "h.npy: shape (4294967296, 4294967296) is too large (over 2^63 bytes)");
  c = caught([] { parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (1000000000, 1000), }"), "h.npy"); });
  CHECK(c.what == "h.npy: data is truncated: shape (1000000000, 1000) of float64 needs 8000000000000 bytes, the file has 0 after the header");
  // A header length field of 4 GiB in a 12-byte file.
  c = caught([] { parse_npy(std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12), "h.npy"); });
  CHECK(c.what == "h.npy: truncated header (the file has 12 bytes, the header needs 4294967307)");
  fs::remove_all(dir);
}

TEST_CASE("outputs: only regular files are replaced, atomically", "[hostile][npy]") {
  const std::string dir = tmp_dir();
  HostArray a(DType::Float32, Shape{2});
  static_cast<float*>(a.data())[0] = 1;
  static_cast<float*>(a.data())[1] = 2;
  // A FIFO: refused and left a FIFO (a reader would otherwise wait forever).
  std::string fifo = dir + "/fifo";
  ::unlink(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto c = caught([&] { write_npy(fifo, a.view()); });
  CHECK(c.code == ErrorCode::Data);
  CHECK(c.what == fifo + ": cannot write an output over a FIFO; outputs are written to regular files only (it was left as it is)");
  struct stat st;
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  // Through a symbolic link too.
  std::string link = dir + "/link";
  REQUIRE(::symlink(fifo.c_str(), link.c_str()) == 0);
  CHECK(caught([&] { write_npy(link, a.view()); }).code == ErrorCode::Data);
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  // A directory: refused and left as it is.
  std::string sub = dir + "/sub";
  fs::create_directories(sub);
  c = caught([&] { write_npy(sub, a.view()); });
  CHECK(c.what == sub + ": cannot write an output over a directory; outputs are written to regular files only (it was left as it is)");
  CHECK(fs::is_directory(sub));
  // A character device: only when this process could replace one (root), and
  // on a private copy of /dev/null, so that a regression cannot break the system's.
  std::string null = dir + "/null";
  if (::geteuid() == 0 && ::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    c = caught([&] { write_npy(null, a.view()); });
    CHECK(c.what == null + ": cannot write an output over a character device; outputs are written to regular files only (it was left as it is)");
    REQUIRE(::stat(null.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    ::unlink(null.c_str());
  }
  // A regular file is replaced, and nothing else is left in the folder.
  std::string file = dir + "/out.npy";
  write_npy(file, a.view());
  write_npy(file, a.view());
  CHECK(read_npy(file).size() == 2);
  write_file(dir + "/bytes", "abc");
  std::size_t entries = 0;
  for (auto& e : fs::directory_iterator(dir)) entries += e.path().filename().string().find(".tmp") == std::string::npos;
  CHECK(entries == 5);  // fifo, link, sub, out.npy, bytes: no temporary left
  fs::remove_all(dir);
}

TEST_CASE("shape products are checked", "[hostile][shape]") {
  Shape huge{4294967296, 4294967296};
  CHECK(checked_size(huge) == -1);
  CHECK(checked_size(Shape{0, 4294967296, 4294967296}) == 0);
  CHECK(checked_size(Shape{3, 4}) == 12);
  auto c = caught([&] { HostArray(DType::Float32, huge); });
  CHECK(c.code == ErrorCode::Data);
  CHECK(c.what == "array of shape (4294967296, 4294967296) and dtype float32 is too large (its size in bytes does not fit in 64 bits)");
  CHECK(caught([] { HostArray(DType::Float64, Shape{1ll << 61}); }).code == ErrorCode::Data);
  CHECK(caught([&] { Array::empty(DType::Float32, huge, Device::cuda(0)); }).code == ErrorCode::Data);
  // Printing a view whose count wraps was a hang.
  ArrayView v;
  v.dtype = DType::Float32;
  v.shape = Shape{1ll << 32, 1ll << 32};
  float x = 0;
  v.data = &x;
  c = caught([&] { format_array(v); });
  CHECK(c.what == "cannot print an array of shape (4294967296, 4294967296): its element count does not fit in 64 bits");
  // The API's shapes.
  EvaluateOptions o;
  o.shape = huge;
  CHECK(caught([&] { evaluate("out = i", {}, o); }).code == ErrorCode::Data);
}
