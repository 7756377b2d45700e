#include "sources.hpp"
#include "cpu/generate_host.hpp"

#include <cmath>
#include <complex>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/ranges.h>

#include "cujit/evaluate.hpp"
#include "core/fail.hpp"
#include "lang/lex.hpp"
#include "core/number.hpp"
#include "io/npy.hpp"
#include "cujit/npy.hpp"
#include "core/scalar.hpp"
#include "core/array.hpp"
#include "gpu/generate.hpp"

namespace cujit::jitrun {

namespace {

template <class F> void fill(HostArray& a, F value_at) {
  std::int64_t n = a.size();
  auto* base = static_cast<unsigned char*>(a.data());
  std::size_t item = dtype_size(a.dtype());
  for (std::int64_t k = 0; k < n; ++k) {
    std::complex<double> v = value_at(k);
    unsigned char* p = base + static_cast<std::size_t>(k) * item;
    using namespace scalar;
    switch (a.dtype()) {
      case DType::Bool: *reinterpret_cast<bool*>(p) = cast<bool>(v); break;
      case DType::Int8: *reinterpret_cast<std::int8_t*>(p) = cast<std::int8_t>(v.real()); break;
      case DType::Int16: *reinterpret_cast<std::int16_t*>(p) = cast<std::int16_t>(v.real()); break;
      case DType::Int32: *reinterpret_cast<std::int32_t*>(p) = cast<std::int32_t>(v.real()); break;
      case DType::Int64: *reinterpret_cast<std::int64_t*>(p) = cast<std::int64_t>(v.real()); break;
      case DType::UInt8: *reinterpret_cast<std::uint8_t*>(p) = cast<std::uint8_t>(v.real()); break;
      case DType::UInt16: *reinterpret_cast<std::uint16_t*>(p) = cast<std::uint16_t>(v.real()); break;
      case DType::UInt32: *reinterpret_cast<std::uint32_t*>(p) = cast<std::uint32_t>(v.real()); break;
      case DType::UInt64: *reinterpret_cast<std::uint64_t*>(p) = cast<std::uint64_t>(v.real()); break;
      case DType::Float16: *reinterpret_cast<Half*>(p) = cast<Half>(v.real()); break;
      case DType::BFloat16: *reinterpret_cast<BF16*>(p) = cast<BF16>(v.real()); break;
      case DType::Float32: *reinterpret_cast<float*>(p) = static_cast<float>(v.real()); break;
      case DType::Float64: *reinterpret_cast<double*>(p) = v.real(); break;
      case DType::Complex64: *reinterpret_cast<std::complex<float>*>(p) = std::complex<float>(v); break;
      case DType::Complex128: *reinterpret_cast<std::complex<double>*>(p) = v; break;
    }
  }
}

[[noreturn]] void bad(const std::string& name, const std::string& text, const std::string& why) {
  if (name == "--shape") fail(ErrorCode::Usage, "--shape {}: {}", text, why);
  fail(ErrorCode::Usage, "-i {}={}: {}", name, text, why);
}

// NumPy's kind order for same_kind casting: a cast within a kind, or to a
// later kind (bool -> int -> float -> complex, unsigned -> signed), is allowed.
int kind_order(DType t) {
  if (is_bool(t)) return 0;
  if (is_unsigned_int(t)) return 1;
  if (is_signed_int(t)) return 2;
  if (is_float(t)) return 3;
  return 4;
}

// FILE.npy:DTYPE: the file's array as a.astype(DTYPE, casting='same_kind')
// gives it, converted by the language's cast on the CPU evaluator.
HostArray cast_same_kind(HostArray a, DType to, const std::string& name, const std::string& text) {
  if (a.dtype() == to) return a;
  std::string from(dtype_name(a.dtype())), want(dtype_name(to));
  if (kind_order(a.dtype()) > kind_order(to))
    bad(name, text, fmt::format("the file holds {}, and {} -> {} is not a same_kind cast (NumPy's astype refuses it "
                                "too); load it as {} and cast in the program: {}({})",
                                from, from, want, from, want, name));
  NamedArrays outs = evaluate(fmt::format("y = {}(x)", want), {{"x", Arg(a.view())}});
  const Array& y = outs[0].array;
  HostArray out(to, a.shape());
  if (out.nbytes() != 0) std::memcpy(out.data(), y.data(), out.nbytes());
  return out;
}

double number(const std::string& name, const std::string& text, const std::string& s) {
  std::optional<double> v = parse_double(s);  // not std::stod, which follows the locale
  if (!v) bad(name, text, "'" + s + "' is not a number");
  return *v;
}

// NumPy's way of giving a generator its dtype, `float16`, `dtype=np.float16` or
// `dtype='f2'`: the dtype's spelling, if the argument is one.
std::optional<std::string> numpy_dtype_arg(std::string a) {
  const std::size_t eq = a.find('=');
  if (a.rfind("dtype", 0) == 0 && eq != std::string::npos) {
    const std::size_t b = a.find_first_not_of(' ', eq + 1);
    a = b == std::string::npos ? "" : a.substr(b);
  }
  if (a.size() >= 2 && (a.front() == '\'' || a.front() == '"') && a.back() == a.front()) a = a.substr(1, a.size() - 2);
  for (const char* prefix : {"np.", "numpy."})
    if (a.rfind(prefix, 0) == 0) a = a.substr(std::string(prefix).size());
  if (!dtype_from_numpy(a)) return std::nullopt;
  return a;
}

// Arguments split at the commas outside parentheses, so a shape tuple
// "(3, 4)" stays one argument.
std::vector<std::string> split_args(const std::string& s) {
  std::vector<std::string> out;
  std::string part;
  int depth = 0;
  auto push = [&] {
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    out.push_back(part);
    part.clear();
  };
  for (char c : s) {
    if (c == ',' && depth == 0) {
      push();
      continue;
    }
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    part += c;
  }
  push();
  return out;
}

// "1000", "1e6", "3x4", or a NumPy shape tuple "(1000, 1000, 1000)" / "(5,)".
Shape extents(const std::string& name, const std::string& text, const std::string& s) {
  std::vector<std::string> parts;
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    parts = split_args(s.substr(1, s.size() - 2));
    if (parts.size() > 1 && parts.back().empty()) parts.pop_back();  // (5,)
  } else {
    std::size_t b = 0;
    while (true) {
      std::size_t e = s.find('x', b);
      parts.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
      if (e == std::string::npos) break;
      b = e + 1;
    }
  }
  Shape shape;
  for (const std::string& part : parts) {
    double v = number(name, text, part);
    if (v < 0 || v != std::floor(v) || v > 9.0e15) bad(name, text, "'" + part + "' is not a valid length");
    if (shape.ndim == kMaxDims) bad(name, text, "too many dimensions");
    shape[shape.ndim++] = static_cast<std::int64_t>(v);
  }
  if (checked_size(shape) < 0) bad(name, text, "the shape has more elements than fit in 64 bits");
  return shape;
}

// A scalar literal in the language's own syntax: 3.5 and 7 are weak, 2.0f is float32.
bool scalar_literal(const std::string& text, Source& out) {
  std::string t = text;
  bool neg = false;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    neg = t[0] == '-';
    t = t.substr(1);
  }
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.')) return false;
  std::vector<Token> toks;
  try {
    toks = tokenize(t);
  } catch (const Error&) {
    return false;
  }
  if (toks.size() != 2 || (toks[0].kind != Tok::Int && toks[0].kind != Tok::Float)) return false;
  const Token& k = toks[0];
  double sign = neg ? -1.0 : 1.0;
  auto make = [&](DType dt, bool weak, std::complex<double> v) {
    out.array = HostArray(dt, Shape{});
    out.weak = weak;
    fill(out.array, [&](std::int64_t) { return v; });
  };
  switch (k.suffix) {
    case Suffix::F32: make(DType::Float32, false, sign * k.float_value); return true;
    case Suffix::Imag: make(DType::Complex128, true, std::complex<double>(0, sign * (k.kind == Tok::Int ? static_cast<double>(k.int_value) : k.float_value))); return true;
    case Suffix::U32: case Suffix::U64:
      if (neg) return false;
      out.array = HostArray(k.suffix == Suffix::U32 ? DType::UInt32 : DType::UInt64, Shape{});
      if (k.suffix == Suffix::U32) *out.array.as<std::uint32_t>() = static_cast<std::uint32_t>(k.int_value);
      else *out.array.as<std::uint64_t>() = k.int_value;
      return true;
    default: break;
  }
  if (k.kind == Tok::Float) {
    make(DType::Float64, true, sign * k.float_value);
    return true;
  }
  if (k.int_value > static_cast<std::uint64_t>(INT64_MAX) + (neg ? 1u : 0u)) return false;
  out.array = HostArray(DType::Int64, Shape{});
  *out.array.as<std::int64_t>() = neg ? static_cast<std::int64_t>(0 - k.int_value) : static_cast<std::int64_t>(k.int_value);
  out.weak = k.suffix != Suffix::I64;
  return true;
}

// The view a split source shows the program's check: the whole input's
// dtype and shape, where its first piece lies. Nothing reads through it:
// the split run takes the pieces (split.cpp).
ArrayView stand_in(const SplitArray& a) {
  ArrayView v = a.pieces.front().array.view();
  v.shape = a.shape;
  v.strides = ArrayView::contiguous_strides(a.shape, a.dtype);
  return v;
}

// A .npy file: straight into GPU memory where the program runs there and the
// bytes need no reordering (io/npy.hpp), else read on the host.
Source from_file(const std::string& path, int device, const std::vector<int>& split) {
  Source src;
  if (device < 0) {
    src.array = read_npy(path);
    return src;
  }
  const NpyFile f = read_npy_header(path);
  if (f.fortran || f.swap || f.shape.ndim == 0 || f.nbytes == 0) {
    src.array = read_npy(path);
    return src;
  }
  if (split.empty()) {
    src.device = load_npy(path, Device::cuda(device));
    return src;
  }
  src.split = split_empty(f.dtype, f.shape, split);
  const std::size_t row = f.nbytes / static_cast<std::size_t>(f.shape[0]);
  std::vector<DeviceTarget> runs;
  for (const ArrayPiece& p : src.split.pieces)
    runs.push_back(DeviceTarget{p.device, p.array.data(), p.array.nbytes(), static_cast<std::size_t>(p.begin) * row});
  read_npy_device(path, f, runs);
  src.whole = stand_in(src.split);
  return src;
}

}  // namespace

void unsplit_broadcast(std::vector<Source>& sources, const Shape* job_shape) {
  // The job's outermost extent: --shape's, else that of the input of the most dimensions.
  int ndim = 0;
  std::int64_t rows = 0;
  if (job_shape) {
    ndim = job_shape->ndim;
    rows = ndim > 0 ? (*job_shape)[0] : 0;
  } else {  // as broadcasting gives it: the inputs of the most dimensions, their largest first extent
    for (const Source& s : sources) {
      const Shape& sh = s.view().shape;
      if (s.weak || sh.ndim == 0 || sh.ndim < ndim) continue;
      rows = sh.ndim > ndim ? sh[0] : std::max(rows, sh[0]);
      ndim = sh.ndim;
    }
  }
  for (Source& s : sources)
    if (s.is_split() && (s.split.shape.ndim != ndim || s.split.shape[0] != rows)) {
      s.device = s.split.gather(Device::cuda(s.split.pieces.front().device));
      s.split = SplitArray();
      s.whole = ArrayView();
    }
}

// All of standard input; a Usage error when it is a terminal, where the
// user would wait for input that never comes.
static std::string read_stdin(const std::string& flag) {
  if (::isatty(STDIN_FILENO) == 1)
    fail(ErrorCode::Usage, "{}: standard input is a terminal; pipe or redirect the data in (e.g. < file)", flag);
  std::string data;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(ErrorCode::Data, "{}: cannot read standard input: {}", flag, std::strerror(errno));
    }
    data.append(buf, static_cast<std::size_t>(n));
  }
  return data;
}

Shape parse_shape(const std::string& text) { return extents("--shape", text, text); }

std::string read_text_file(const std::string& path) {
  if (path == "-") return read_stdin("-f -");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(ErrorCode::Data, "-f {}: is a directory, not a program file", path);
  std::ifstream f(path, std::ios::binary);
  std::string text;
  if (f) text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  if (!f && !f.eof()) fail(ErrorCode::Data, "-f {}: cannot read the program: {}", path, std::strerror(errno));
  return text;
}

Source make_source(const std::string& name, const std::string& text, std::uint64_t seed, int device,
                   const std::vector<int>& split) {
  Source src;
  struct stat st {};
  if (text == "-") {
    if (::isatty(STDIN_FILENO) == 1)
      fail(ErrorCode::Usage, "-i {}=-: standard input is a terminal; pipe or redirect the data in (e.g. < file)", name);
    // read_npy bounds what it reads by the header, so endless input (/dev/zero) is an error, not a hang.
    src.array = read_npy("-");
    return src;
  }
  if (text.size() > 4 && text.compare(text.size() - 4, 4, ".npy") == 0) return from_file(text, device, split);
  // Any existing path is a file to read: read_npy refuses what is not a
  // regular file (a device, a FIFO) with a clear error, instead of taking the
  // path for a malformed generator. "-" is standard input.
  if (is_standard_input(text)) {
    src.array = read_npy(text);
    return src;
  }
  if (stat(text.c_str(), &st) == 0) return from_file(text, device, split);
  if (std::size_t colon = text.rfind(':'); colon != std::string::npos && colon > 4 &&
      text.compare(colon - 4, 4, ".npy") == 0) {
    std::string dt = text.substr(colon + 1);
    auto t = dtype_from_numpy(dt);
    if (!t) bad(name, text, dtype_spelling_problem(dt));
    src.array = cast_same_kind(read_npy(text.substr(0, colon)), *t, name, text);
    return src;
  }
  if (scalar_literal(text, src)) return src;

  std::string body = text;
  DType dtype = DType::Float32;
  std::size_t colon = text.rfind(':');
  if (colon != std::string::npos && colon > text.rfind(')')) {
    std::string dt = text.substr(colon + 1);
    auto t = dtype_from_numpy(dt);
    if (!t) bad(name, text, dtype_spelling_problem(dt));
    dtype = *t;
    body = text.substr(0, colon);
  }
  std::size_t open = body.find('(');
  if (open == std::string::npos || body.back() != ')')
    bad(name, text, "expected a .npy file, a number (3.5, 2.0f, 7) or a generator: rand(N), randn(N), arange(N), linspace(A,B,N), full(N,V), zeros(N), ones(N)");
  std::string gen = body.substr(0, open);
  auto args = split_args(body.substr(open + 1, body.size() - open - 2));
  auto want = [&](std::size_t k) {
    if (args.size() != k) bad(name, text, gen + " takes " + std::to_string(k) + " argument" + (k == 1 ? "" : "s"));
  };
  GeneratorSpec spec;
  spec.seed = seed;
  Shape shape;
  if (gen == "rand" || gen == "randn" || gen == "zeros" || gen == "ones" || gen == "arange") {
    // NumPy's zeros(n, dtype) / zeros(n, dtype=...): the dtype goes after a colon here.
    if (args.size() == 2 && numpy_dtype_arg(args[1]))
      bad(name, text, fmt::format("{} takes 1 argument, the shape; a dtype goes after a colon: write {}({}):{}", gen, gen,
                                  args[0], *numpy_dtype_arg(args[1])));
    if (args.size() > 1)  // NumPy's rand(3, 4) and zeros((3, 4)) mix: say how a shape is written here
      bad(name, text, fmt::format("{} takes 1 argument, the shape: write {}({}) or {}(({}))", gen, gen,
                                  fmt::join(args, "x"), gen, fmt::join(args, ", ")));
    want(1);
    shape = extents(name, text, args[0]);
    spec.kind = gen == "rand"    ? GeneratorSpec::Rand
                : gen == "randn" ? GeneratorSpec::Randn
                : gen == "zeros" ? GeneratorSpec::Zeros
                : gen == "ones"  ? GeneratorSpec::Ones
                                 : GeneratorSpec::Arange;
    if (spec.kind == GeneratorSpec::Randn && (is_integer(dtype) || is_bool(dtype)))
      bad(name, text, "randn needs a float or complex dtype");
  } else if (gen == "full") {
    want(2);
    spec.kind = GeneratorSpec::Full;
    spec.value = number(name, text, args[1]);
    shape = extents(name, text, args[0]);
  } else if (gen == "linspace") {
    want(3);
    spec.kind = GeneratorSpec::Linspace;
    spec.start = number(name, text, args[0]);
    spec.stop = number(name, text, args[1]);
    shape = extents(name, text, args[2]);
    if (shape.ndim != 1) bad(name, text, "linspace takes one length");
  } else {
    bad(name, text, "unknown generator '" + gen + "' (use rand, randn, arange, linspace, full, zeros, ones)");
  }
  // On the GPU the array is made in its memory: nothing of its size on the
  // host (a 0-d one is a typed scalar, passed by value from the host).
  if (!split.empty() && shape.ndim > 0) {
    src.split = split_empty(dtype, shape, split);
    const std::int64_t row = shape.size() / std::max<std::int64_t>(1, shape[0]);
    for (const ArrayPiece& p : src.split.pieces) {
      GeneratorSpec part = spec;
      part.first = p.begin * row;
      part.whole = shape.size();
      generate_device(part, p.array.view());
    }
    src.whole = stand_in(src.split);
  } else if (device >= 0 && shape.ndim > 0) {
    src.device = Array::empty(dtype, shape, Device::cuda(device));
    generate_device(spec, src.device.view());
  } else {
    src.array = HostArray(dtype, shape);
    generate_host(spec, src.array.view());
  }
  return src;
}

}  // namespace cujit::jitrun
