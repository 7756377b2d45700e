#include "eval.hpp"

#include <cstring>
#include <string>

#include "check.hpp"
#include "codegen.hpp"
#include "fail.hpp"
#include "scalar.hpp"

namespace cujit {

namespace {

using namespace scalar;
using c64 = std::complex<float>;
using c128 = std::complex<double>;


// A chunk of values of one dtype: what every node of the tree evaluates to.
struct Col {
  DType t = DType::Bool;
  std::size_t n = 0;
  std::vector<unsigned char> data;
  Col() = default;
  Col(DType type, std::size_t count) : t(type), n(count), data(count * dtype_size(type)) {}
  template <class T> T* as() { return reinterpret_cast<T*>(data.data()); }
  template <class T> const T* as() const { return reinterpret_cast<const T*>(data.data()); }
};

Col convert(const Col& c, DType to) {
  if (c.t == to) return c;
  Col r(to, c.n);
  visit(c.t, [&](auto from) {
    using F = decltype(from);
    visit(to, [&](auto tag) {
      using T = decltype(tag);
      const F* x = c.as<F>();
      T* y = r.as<T>();
      for (std::size_t k = 0; k < c.n; ++k) y[k] = cast<T>(x[k]);
    });
  });
  return r;
}

// 16-bit floats compute in float32 and round once per operation, as NumPy's loops do.
DType compute_type(DType t) { return is_half(t) ? DType::Float32 : t; }

[[noreturn]] void no_loop(const std::string& what, DType t) {
  fail(ErrorCode::Internal, "CPU evaluator has no {} loop for {} (a checked program should not get here)", what, dtype_name(t));
}

template <class T, class R, class F> void map1(const Col& a, Col& r, F f) {
  const T* x = a.as<T>();
  R* y = r.as<R>();
  for (std::size_t k = 0; k < a.n; ++k) y[k] = f(x[k]);
}
template <class T, class R, class F> void map2(const Col& a, const Col& b, Col& r, F f) {
  const T* x = a.as<T>();
  const T* z = b.as<T>();
  R* y = r.as<R>();
  for (std::size_t k = 0; k < a.n; ++k) y[k] = f(x[k], z[k]);
}

template <class T> struct RealOf { using type = T; };
template <class T> struct RealOf<std::complex<T>> { using type = T; };
template <class T> using Real = typename RealOf<T>::type;

template <class T> T float_fn(std::string_view f, T x) {
  using std::sin, std::cos, std::tan, std::asin, std::acos, std::atan, std::sinh, std::cosh, std::tanh,
      std::asinh, std::acosh, std::atanh, std::exp, std::log, std::log10, std::sqrt;
  using P = Real<T>;
  const P ln2 = P(0.693147180559945309417232121458176568);
  if (f == "sin") return sin(x);
  if (f == "cos") return cos(x);
  if (f == "tan") return tan(x);
  if (f == "arcsin") return asin(x);
  if (f == "arccos") return acos(x);
  if (f == "arctan") return atan(x);
  if (f == "sinh") return sinh(x);
  if (f == "cosh") return cosh(x);
  if (f == "tanh") return tanh(x);
  if (f == "arcsinh") return asinh(x);
  if (f == "arccosh") return acosh(x);
  if (f == "arctanh") return atanh(x);
  if (f == "exp") return exp(x);
  if (f == "log") return log(x);
  if (f == "log10") return log10(x);
  if (f == "sqrt") return sqrt(x);
  if constexpr (is_cplx_v<T>) {
    if (f == "exp2") return exp(x * ln2);
    if (f == "expm1") return cexpm1(x);
    if (f == "log2") return log(x) / ln2;
    if (f == "log1p") return clog1p(x);
    if (f == "rint") return T(std::nearbyint(x.real()), std::nearbyint(x.imag()));
  } else {
    if (f == "exp2") return std::exp2(x);
    if (f == "expm1") return std::expm1(x);
    if (f == "log2") return std::log2(x);
    if (f == "log1p") return std::log1p(x);
    if (f == "rint" || f == "round") return std::nearbyint(x);
    if (f == "cbrt") return std::cbrt(x);
    if (f == "deg2rad") return x * static_cast<T>(3.141592653589793238462643383279502884 / 180.0);
    if (f == "rad2deg") return x * static_cast<T>(180.0 / 3.141592653589793238462643383279502884);
    if (f == "erf") return std::erf(x);
    if (f == "erfc") return std::erfc(x);
    if (f == "lgamma") return std::lgamma(x);
    if (f == "tgamma") return std::tgamma(x);
    if (f == "floor") return std::floor(x);
    if (f == "ceil") return std::ceil(x);
    if (f == "trunc") return std::trunc(x);
  }
  fail(ErrorCode::Internal, "CPU evaluator: no float function '{}'", f);
}

// Unary operators and one-argument functions, computed in T.
template <class T> void unary(std::string_view f, const Col& a, Col& r) {
  if (f == "isnan" || f == "isinf" || f == "isfinite" || f == "signbit" || f == "!" || f == "logical_not") {
    return map1<T, bool>(a, r, [f](T x) -> bool {
      if (f == "!" || f == "logical_not") return !truth(x);
      if constexpr (is_cplx_v<T>) {
        bool inf = std::isinf(x.real()) || std::isinf(x.imag());
        if (f == "isnan") return is_nan(x);
        if (f == "isinf") return inf;
        return !inf && !is_nan(x);
      } else if constexpr (std::is_floating_point_v<T>) {
        if (f == "isnan") return x != x;
        if (f == "isinf") return std::isinf(x);
        if (f == "isfinite") return std::isfinite(x);
        return std::signbit(x);
      } else {
        return f == "isfinite";
      }
    });
  }
  if constexpr (is_cplx_v<T>) {
    using P = typename T::value_type;
    if (f == "absolute") return map1<T, P>(a, r, [](T x) { return std::abs(x); });
    if (f == "real") return map1<T, P>(a, r, [](T x) { return x.real(); });
    if (f == "imag") return map1<T, P>(a, r, [](T x) { return x.imag(); });
  }
  if (f == "imag") return map1<T, T>(a, r, [](T) { return T(0); });
  map1<T, T>(a, r, [f](T x) -> T {
    if (f == "real" || f == "+" || (f == "floor" && !std::is_floating_point_v<T> && !is_cplx_v<T>)) return x;
    if constexpr (std::is_same_v<T, bool>) {
      if (f == "~") return !x;
      if (f == "absolute" || f == "ceil" || f == "trunc") return x;
    } else if constexpr (is_int_v<T>) {
      if (f == "-") return wrap_neg(x);
      if (f == "~") return static_cast<T>(~x);
      if (f == "square") return wrap_mul(x, x);
      if (f == "reciprocal") return int_reciprocal(x);
      if (f == "absolute") { if constexpr (std::is_signed_v<T>) return x < 0 ? wrap_neg(x) : x; else return x; }
      if (f == "sign") return sign(x);
      if (f == "ceil" || f == "trunc" || f == "round" || f == "conj") return x;
    } else {
      if (f == "-") return -x;
      if constexpr (is_cplx_v<T>) {
        if (f == "square") return cmul(x, x);
        if (f == "reciprocal") return creciprocal(x);
      }
      if (f == "square") return x * x;
      if (f == "reciprocal") return T(1) / x;
      if (f == "sign") return sign(x);
      if (f == "conj") { if constexpr (is_cplx_v<T>) return std::conj(x); else return x; }
      if constexpr (!is_cplx_v<T>) {
        if (f == "absolute") return std::fabs(x);
      } else {
        if (f == "round") return T(std::nearbyint(x.real()), std::nearbyint(x.imag()));
      }
      return float_fn(f, x);
    }
    fail(ErrorCode::Internal, "CPU evaluator: no unary '{}'", f);
  });
}

bool is_cmp(std::string_view f) {
  return f == "<" || f == "<=" || f == ">" || f == ">=" || f == "==" || f == "!=";
}

template <class T> bool compare(std::string_view f, T x, T y) {
  if (f == "==") return x == y;
  if (f == "!=") return x != y;
  if constexpr (is_cplx_v<T>) {
    if (is_nan(x) || is_nan(y)) return false;
  }
  if (f == "<") return lt(x, y);
  if (f == ">") return lt(y, x);
  if (f == "<=") return lt(x, y) || x == y;
  return lt(y, x) || x == y;
}

template <class T> void binary(std::string_view f, const Col& a, const Col& b, Col& r) {
  if (is_cmp(f)) return map2<T, bool>(a, b, r, [f](T x, T y) { return compare(f, x, y); });
  if (f == "&&" || f == "logical_and") return map2<T, bool>(a, b, r, [](T x, T y) { return truth(x) && truth(y); });
  if (f == "||" || f == "logical_or") return map2<T, bool>(a, b, r, [](T x, T y) { return truth(x) || truth(y); });
  if (f == "logical_xor") return map2<T, bool>(a, b, r, [](T x, T y) { return truth(x) != truth(y); });
  map2<T, T>(a, b, r, [f](T x, T y) -> T {
    if (f == "maximum") return maximum(x, y);
    if (f == "minimum") return minimum(x, y);
    if (f == "fmax") return scalar::fmax(x, y);
    if (f == "fmin") return scalar::fmin(x, y);
    if constexpr (std::is_same_v<T, bool>) {
      if (f == "+" || f == "|") return x || y;
      if (f == "*" || f == "&") return x && y;
      if (f == "^") return x != y;
    } else if constexpr (is_int_v<T>) {
      if (f == "+") return wrap_add(x, y);
      if (f == "-") return wrap_sub(x, y);
      if (f == "*") return wrap_mul(x, y);
      if (f == "%" || f == "remainder") return int_remainder(x, y);
      if (f == "floor_divide") return int_floordiv(x, y);
      if (f == "fmod") return int_fmod(x, y);
      if (f == "**" || f == "power") return int_power(x, y);
      if (f == "<<") return int_shl(x, y);
      if (f == ">>") return int_shr(x, y);
      if (f == "&") return static_cast<T>(x & y);
      if (f == "|") return static_cast<T>(x | y);
      if (f == "^") return static_cast<T>(x ^ y);
    } else {
      if constexpr (is_cplx_v<T>) {
        if (f == "*") return cmul(x, y);
        if (f == "/") return cdiv(x, y);
        if (f == "**" || f == "power") return cpow(x, y);
      }
      if (f == "+") return x + y;
      if (f == "-") return x - y;
      if (f == "*") return x * y;
      if (f == "/") return x / y;
      if constexpr (!is_cplx_v<T>) {
        if (f == "**" || f == "power") return fpow(x, y);
        if (f == "%" || f == "remainder") return float_remainder(x, y);
        if (f == "floor_divide") return float_floordiv(x, y);
        if (f == "fmod") return std::fmod(x, y);
        if (f == "arctan2") return std::atan2(x, y);
        if (f == "hypot") return std::hypot(x, y);
        if (f == "copysign") return std::copysign(x, y);
      }
    }
    fail(ErrorCode::Internal, "CPU evaluator: no binary '{}'", f);
  });
}

class Evaluator {
 public:
  Evaluator(const Program& p, const std::vector<Input>& in) : p_(p), in_(in) {}

  std::vector<Output> run(const Shape* given) {
    Shape shape = broadcast_shape();
    if (given) {
      if (!broadcasts_to(shape, *given))
        fail(ErrorCode::Data, "the output shape {} does not match the inputs' broadcast shape {}", to_string(*given),
             to_string(shape));
      shape = *given;
    }
    std::vector<Output> outs;
    for (const Var& v : p_.outputs) outs.push_back({v.name, HostArray(v.dtype, shape)});
    total_ = shape.size();
    offsets_.resize(in_.size());
    constexpr std::int64_t kChunk = 4096;
    for (std::int64_t start = 0; start < total_; start += kChunk) {
      std::int64_t len = std::min(kChunk, total_ - start);
      start_ = start;
      len_ = static_cast<std::size_t>(len);
      gather_offsets(shape);
      locals_.assign(p_.locals.size(), Col());
      outputs_.assign(p_.outputs.size(), Col());
      for (const Stmt& s : p_.ast.stmts) {
        const Var& v = s.sym == Sym::Local ? p_.locals[static_cast<std::size_t>(s.slot)] : p_.outputs[static_cast<std::size_t>(s.slot)];
        Col c = convert(eval(*s.expr), v.dtype);
        (s.sym == Sym::Local ? locals_ : outputs_)[static_cast<std::size_t>(s.slot)] = std::move(c);
      }
      for (std::size_t k = 0; k < outs.size(); ++k) {
        std::size_t item = dtype_size(outs[k].array.dtype());
        std::memcpy(static_cast<unsigned char*>(outs[k].array.data()) + static_cast<std::size_t>(start) * item,
                    outputs_[k].data.data(), len_ * item);
      }
    }
    return outs;
  }

 private:
  // NumPy broadcasting over the array inputs (not weak scalars, not raw arrays).
  Shape broadcast_shape() {
    Shape s;
    for (std::size_t k = 0; k < in_.size(); ++k) {
      const Param& q = p_.inputs[k];
      if (q.weak || q.raw) continue;
      const Shape& t = in_[k].view.shape;
      s = broadcast_input(s, t, q.name);
    }
    return s;
  }



  // Byte offset of each element of the chunk in each broadcast input.
  void gather_offsets(const Shape& shape) {
    for (std::size_t k = 0; k < in_.size(); ++k) {
      const Param& q = p_.inputs[k];
      auto& off = offsets_[k];
      off.assign(len_, 0);
      if (q.weak || q.raw) continue;
      const ArrayView& v = in_[k].view;
      int shift = shape.ndim - v.shape.ndim;
      for (std::size_t j = 0; j < len_; ++j) {
        std::int64_t flat = start_ + static_cast<std::int64_t>(j), o = 0;
        for (int d = shape.ndim - 1; d >= 0; --d) {
          std::int64_t idx = flat % shape[d];
          flat /= shape[d];
          int dv = d - shift;
          if (dv >= 0 && v.shape[dv] != 1) o += idx * v.strides[dv];
        }
        off[j] = o;
      }
    }
  }

  Col input(const Expr& e) {
    std::size_t k = static_cast<std::size_t>(e.slot);
    const ArrayView& v = in_[k].view;
    Col c(v.dtype, len_);
    std::size_t item = dtype_size(v.dtype);
    const unsigned char* base = static_cast<const unsigned char*>(v.data);
    for (std::size_t j = 0; j < len_; ++j) std::memcpy(c.data.data() + j * item, base + offsets_[k][j], item);
    return c;
  }

  Col literal(const Expr& e) {
    const Value& v = e.value;
    DType t = v.big ? DType::UInt64 : e.type;
    Col c(t, len_);
    visit(t, [&](auto tag) {
      using T = decltype(tag);
      T x;
      if (v.kind == Value::Bool) x = cast<T>(v.b);
      else if (v.kind == Value::Int) x = v.big ? cast<T>(v.u) : cast<T>(v.i);
      else if (v.kind == Value::Float) x = cast<T>(v.f);
      else x = cast<T>(v.c);
      T* y = c.as<T>();
      for (std::size_t j = 0; j < len_; ++j) y[j] = x;
    });
    return c;
  }

  // Converts an operand to the dtype its operation computes in. A weak scalar
  // parameter must fit an integer type, as a literal must at check time.
  Col operand(const Expr& a, DType to) {
    Col c = eval(a);
    if (a.weak && !a.folded && is_integer(to) && c.t == DType::Int64) {
      for (std::size_t j = 0; j < c.n; ++j) {
        std::int64_t x = c.as<std::int64_t>()[j];
        bool ok = visit(to, [&](auto tag) {
          using T = decltype(tag);
          if constexpr (is_int_v<T>) {
            if constexpr (std::is_signed_v<T>) return x >= std::numeric_limits<T>::min() && x <= std::numeric_limits<T>::max();
            else return x >= 0 && static_cast<std::uint64_t>(x) <= std::numeric_limits<T>::max();
          } else {
            return true;
          }
        });
        if (!ok) fail(ErrorCode::Data, "scalar value {} does not fit in {}", x, dtype_name(to));
      }
    }
    // A weak float meets a 16-bit float operand as NumPy does: rounded to that type first.
    if (is_half(to) && c.t != to) c = convert(c, to);
    return convert(c, compute_type(to));
  }

  Col eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Literal: return literal(e);
      case Expr::Name: return name(e);
      case Expr::Unary: return apply(e, op_text(e.op));
      case Expr::Binary: return e.builtin ? apply(e, e.builtin->name) : binary_op(e);
      case Expr::Ternary: return select(e, *e.args[0], *e.args[1], *e.args[2]);
      case Expr::Call: return call(e);
      case Expr::Index: return index(e);
    }
    return Col();
  }

  Col name(const Expr& e) {
    switch (e.sym) {
      case Sym::Input: return input(e);
      case Sym::Local: return locals_[static_cast<std::size_t>(e.slot)];
      case Sym::Output: return outputs_[static_cast<std::size_t>(e.slot)];
      case Sym::Index: {
        Col c(DType::Int64, len_);
        for (std::size_t j = 0; j < len_; ++j) c.as<std::int64_t>()[j] = start_ + static_cast<std::int64_t>(j);
        return c;
      }
      case Sym::Count: {
        Col c(DType::Int64, len_);
        for (std::size_t j = 0; j < len_; ++j) c.as<std::int64_t>()[j] = total_;
        return c;
      }
      default: return literal(e);
    }
  }

  Col binary_op(const Expr& e) {
    std::string_view f = op_text(e.op);
    // A literal above INT64_MAX is held as uint64 (see literal()).
    auto held = [](const Expr& a) { return a.folded && a.value.big ? DType::UInt64 : a.type; };
    DType ta = held(*e.args[0]), tb = held(*e.args[1]);
    // int64 against uint64: NumPy compares exactly, with no common dtype.
    if (is_cmp(f) && is_integer(ta) && is_integer(tb) && is_signed_int(ta) != is_signed_int(tb) &&
        (ta == DType::UInt64 || tb == DType::UInt64)) {
      Col a = convert(eval(*e.args[0]), is_signed_int(ta) ? DType::Int64 : DType::UInt64);
      Col b = convert(eval(*e.args[1]), is_signed_int(tb) ? DType::Int64 : DType::UInt64);
      Col r(DType::Bool, len_);
      for (std::size_t j = 0; j < len_; ++j) {
        // Order as a sign flag then magnitude: a negative signed value is below every unsigned one.
        auto key = [&](const Col& c, std::size_t k, bool sgn) -> std::pair<int, std::uint64_t> {
          if (sgn) { std::int64_t v = c.as<std::int64_t>()[k]; return {v < 0 ? 0 : 1, static_cast<std::uint64_t>(v)}; }
          return {1, c.as<std::uint64_t>()[k]};
        };
        auto x = key(a, j, is_signed_int(ta)), y = key(b, j, is_signed_int(tb));
        bool res = f == "<" ? x < y : f == "<=" ? x <= y : f == ">" ? x > y : f == ">=" ? x >= y : f == "==" ? x == y : x != y;
        r.as<bool>()[j] = res;
      }
      return r;
    }
    return apply(e, f);
  }

  Col apply(const Expr& e, std::string_view f) {
    DType ct = compute_type(e.op_type);
    std::vector<Col> args;
    for (auto& a : e.args) args.push_back(operand(*a, e.op_type));
    DType rt = compute_type(e.type);
    if (f == "/" && !is_complex(ct)) rt = ct;
    Col r(rt, len_);
    if (args.size() == 1) {
      visit(ct, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BF16>) no_loop(std::string(f), e.op_type);
        else unary<T>(f, args[0], r);
      });
    } else if (args.size() == 2) {
      visit(ct, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BF16>) no_loop(std::string(f), e.op_type);
        else binary<T>(f, args[0], args[1], r);
      });
    } else {
      no_loop(std::string(f), e.op_type);
    }
    return convert(r, e.type);
  }

  Col select(const Expr& e, const Expr& c, const Expr& a, const Expr& b) {
    Col cond = convert(eval(c), DType::Bool);
    Col x = operand(a, e.op_type), y = operand(b, e.op_type);
    Col r(x.t, len_);
    std::size_t item = dtype_size(x.t);
    for (std::size_t j = 0; j < len_; ++j)
      std::memcpy(r.data.data() + j * item, (cond.as<bool>()[j] ? x : y).data.data() + j * item, item);
    return convert(r, e.type);
  }

  Col call(const Expr& e) {
    const Builtin& b = *e.builtin;
    switch (b.special) {
      case Special::Cast: return convert(eval(*e.args[0]), e.type);
      case Special::Size: {
        Col c(DType::Int64, len_);
        std::int64_t s = in_[static_cast<std::size_t>(e.args[0]->slot)].view.size();
        for (std::size_t j = 0; j < len_; ++j) c.as<std::int64_t>()[j] = s;
        return c;
      }
      case Special::Where: return select(e, *e.args[0], *e.args[1], *e.args[2]);
      case Special::Clip: {
        DType ct = compute_type(e.op_type);
        Col x = operand(*e.args[0], e.op_type), lo = operand(*e.args[1], e.op_type), hi = operand(*e.args[2], e.op_type);
        Col t(ct, len_), r(ct, len_);
        visit(ct, [&](auto tag) {
          using T = decltype(tag);
          if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BF16>) {
            no_loop("clip", ct);
          } else {
            binary<T>("maximum", x, lo, t);
            binary<T>("minimum", t, hi, r);
          }
        });
        return convert(r, e.type);
      }
      default: return apply(e, b.name);
    }
  }

  Col index(const Expr& e) {
    std::size_t k = static_cast<std::size_t>(e.args[0]->slot);
    const ArrayView& v = in_[k].view;
    Col j = convert(eval(*e.args[1]), DType::Int64);
    Col c(v.dtype, len_);
    std::size_t item = dtype_size(v.dtype);
    std::int64_t size = v.size();
    for (std::size_t q = 0; q < len_; ++q) {
      std::int64_t idx = j.as<std::int64_t>()[q];
      if (idx < 0 || idx >= size)
        fail(ErrorCode::Data, "index {} is out of bounds for raw parameter '{}' of size {}", idx, p_.inputs[k].name, size);
      // Raw indexing is by flat C-order position, whatever the strides.
      std::int64_t flat = idx, o = 0;
      for (int d = v.shape.ndim - 1; d >= 0; --d) {
        o += (flat % v.shape[d]) * v.strides[d];
        flat /= v.shape[d];
      }
      std::memcpy(c.data.data() + q * item, static_cast<const unsigned char*>(v.data) + o, item);
    }
    return c;
  }

  const Program& p_;
  const std::vector<Input>& in_;
  std::int64_t total_ = 0, start_ = 0;
  std::size_t len_ = 0;
  std::vector<std::vector<std::int64_t>> offsets_;
  std::vector<Col> locals_, outputs_;
};

}  // namespace

std::vector<Output> evaluate_program(const Program& p, const std::vector<Input>& inputs, const Shape* shape) {
  if (inputs.size() != p.inputs.size())
    fail(ErrorCode::Usage, "the program has {} parameters but {} inputs were given", p.inputs.size(), inputs.size());
  return Evaluator(p, inputs).run(shape);
}

std::vector<Output> evaluate_cpu(std::string_view source, const std::vector<Input>& inputs,
                                 const std::vector<OutputSpec>& outputs) {
  std::vector<Param> params;
  for (const Input& in : inputs) {
    if (in.view.device.kind != Device::CPU)
      fail(ErrorCode::Usage, "input '{}' is in GPU memory; the CPU evaluator needs host arrays", in.name);
    if (in.weak && (in.view.shape.ndim != 0 || !(in.view.dtype == DType::Int64 || in.view.dtype == DType::Float64 ||
                                                 in.view.dtype == DType::Complex128 || in.view.dtype == DType::Bool)))
      fail(ErrorCode::Usage, "weak input '{}' must be a 0-d int64, float64, complex128 or bool", in.name);
    params.push_back(Param{in.name, in.view.dtype, in.weak, in.raw});
  }
  std::vector<OutputDecl> decl;
  for (const OutputSpec& o : outputs) decl.push_back(OutputDecl{o.name, o.dtype});
  Program p = compile_program(source, params, decl);
  return evaluate_program(p, inputs);
}

}  // namespace cujit
