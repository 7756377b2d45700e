#include "eval.hpp"

#include <cstring>
#include <string>

#include "check.hpp"
#include "codegen.hpp"
#include "fail.hpp"
#include "ops_host.hpp"
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

// The templates' compute types: cj_i64 is long long where std::int64_t is
// long, and complex values are cj::c64/c128 (std::complex's layout).
template <class F> decltype(auto) visit_compute(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f(bool{});
    case DType::Int8: return f(cj_i8{});
    case DType::Int16: return f(cj_i16{});
    case DType::Int32: return f(cj_i32{});
    case DType::Int64: return f(cj_i64{});
    case DType::UInt8: return f(cj_u8{});
    case DType::UInt16: return f(cj_u16{});
    case DType::UInt32: return f(cj_u32{});
    case DType::UInt64: return f(cj_u64{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Complex64: return f(cj::c64{});
    case DType::Complex128: return f(cj::c128{});
    default: fail(ErrorCode::Internal, "CPU evaluator: {} is not a compute type", dtype_name(t));
  }
}

template <class R> constexpr DType dtype_of() {
  if constexpr (std::is_same_v<R, bool>) return DType::Bool;
  else if constexpr (std::is_same_v<R, cj_i8>) return DType::Int8;
  else if constexpr (std::is_same_v<R, cj_i16>) return DType::Int16;
  else if constexpr (std::is_same_v<R, cj_i32>) return DType::Int32;
  else if constexpr (std::is_same_v<R, cj_i64>) return DType::Int64;
  else if constexpr (std::is_same_v<R, cj_u8>) return DType::UInt8;
  else if constexpr (std::is_same_v<R, cj_u16>) return DType::UInt16;
  else if constexpr (std::is_same_v<R, cj_u32>) return DType::UInt32;
  else if constexpr (std::is_same_v<R, cj_u64>) return DType::UInt64;
  else if constexpr (std::is_same_v<R, float>) return DType::Float32;
  else if constexpr (std::is_same_v<R, double>) return DType::Float64;
  else if constexpr (std::is_same_v<R, cj::c64>) return DType::Complex64;
  else return DType::Complex128;
}

// One operation over a chunk: f (an ops.def impl) applied to operands of
// compute type T, element by element, into r. The operation is chosen once
// per node (apply_op's switch); this loop is what runs per element.
template <class T, class F, class... Tag> void run_loop(const Builtin& b, const F& f, const std::vector<Col>& a, Col& r,
                                                       Tag... tag) {
  auto result = [&](auto rtag) {
    using R = decltype(rtag);
    if (dtype_of<R>() != r.t)
      fail(ErrorCode::Internal, "CPU evaluator: '{}' returns {}, the loop {}", b.name, dtype_name(dtype_of<R>()), dtype_name(r.t));
    return r.as<R>();
  };
  const std::size_t n = r.n;
  if (a.size() == 1) {
    if constexpr (std::is_invocable_v<F, T, Tag...>) {
      auto* y = result(std::invoke_result_t<F, T, Tag...>{});
      const T* x = a[0].as<T>();
      for (std::size_t k = 0; k < n; ++k) y[k] = f(x[k], tag...);
      return;
    }
  } else if (a.size() == 2) {
    if constexpr (std::is_invocable_v<F, T, T, Tag...>) {
      auto* y = result(std::invoke_result_t<F, T, T, Tag...>{});
      const T* x = a[0].as<T>();
      const T* z = a[1].as<T>();
      for (std::size_t k = 0; k < n; ++k) y[k] = f(x[k], z[k], tag...);
      return;
    }
  } else if (a.size() == 3) {
    if constexpr (std::is_invocable_v<F, T, T, T, Tag...>) {
      auto* y = result(std::invoke_result_t<F, T, T, T, Tag...>{});
      const T* x = a[0].as<T>();
      const T* z = a[1].as<T>();
      const T* w = a[2].as<T>();
      for (std::size_t k = 0; k < n; ++k) y[k] = f(x[k], z[k], w[k], tag...);
      return;
    }
  }
  no_loop(std::string(b.name), dtype_of<T>());
}

// Operations with loops of their own for 16-bit floats (flag h) get the tag.
template <class T, bool kTagged, class F>
void run_op(const Builtin& b, DType op_type, const F& f, const std::vector<Col>& a, Col& r) {
  if constexpr (kTagged) {
    if (op_type == DType::Float16) return run_loop<T>(b, f, a, r, cj::f16_tag{});
    if (op_type == DType::BFloat16) return run_loop<T>(b, f, a, r, cj::bf16_tag{});
  }
  run_loop<T>(b, f, a, r);
}

// Applies ops.def's operation `b` to operands already in the compute type of `op_type`.
void apply_op(const Builtin& b, DType op_type, const std::vector<Col>& a, Col& r) {
  visit_compute(compute_type(op_type), [&](auto tag) {
    using T = decltype(tag);
    switch (b.id) {
#define OP(Id, spelling, alias1, alias2, min_args, max_args, loops, special, flags, impl) \
  case Op::Id:                                                                           \
    return run_op<T, std::string_view(flags).find('h') != std::string_view::npos>(                      \
        b, op_type, [](auto... v) -> decltype(cj::impl(v...)) { return cj::impl(v...); }, a, r);
#include "ops.def"
      default: no_loop(std::string(b.name), op_type);
    }
  });
}

// int64 against uint64: NumPy compares the values exactly, with no common dtype.
template <class A, class B> bool mixed_compare(Op op, A a, B b) {
  switch (op) {
    case Op::Lt: return cj::cmp_lt(a, b);
    case Op::Le: return cj::cmp_le(a, b);
    case Op::Gt: return cj::cmp_gt(a, b);
    case Op::Ge: return cj::cmp_ge(a, b);
    case Op::Eq: return cj::cmp_eq(a, b);
    default: return cj::cmp_ne(a, b);
  }
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
      case Expr::Unary: return apply(e);
      case Expr::Binary: return binary_op(e);
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

  static bool is_cmp(Op op) { return op >= Op::Lt && op <= Op::Ne; }

  Col binary_op(const Expr& e) {
    // A literal above INT64_MAX is held as uint64 (see literal()).
    auto held = [](const Expr& a) { return a.folded && a.value.big ? DType::UInt64 : a.type; };
    DType ta = held(*e.args[0]), tb = held(*e.args[1]);
    // int64 against uint64: NumPy compares exactly, with no common dtype.
    if (is_cmp(e.op) && is_integer(ta) && is_integer(tb) && is_signed_int(ta) != is_signed_int(tb) &&
        (ta == DType::UInt64 || tb == DType::UInt64)) {
      Col a = convert(eval(*e.args[0]), is_signed_int(ta) ? DType::Int64 : DType::UInt64);
      Col b = convert(eval(*e.args[1]), is_signed_int(tb) ? DType::Int64 : DType::UInt64);
      Col r(DType::Bool, len_);
      bool* y = r.as<bool>();
      if (is_signed_int(ta)) {
        const cj_i64* x = a.as<cj_i64>();
        const cj_u64* z = b.as<cj_u64>();
        for (std::size_t j = 0; j < len_; ++j) y[j] = mixed_compare(e.op, x[j], z[j]);
      } else {
        const cj_u64* x = a.as<cj_u64>();
        const cj_i64* z = b.as<cj_i64>();
        for (std::size_t j = 0; j < len_; ++j) y[j] = mixed_compare(e.op, x[j], z[j]);
      }
      return r;
    }
    return apply(e);
  }

  // An operation of ops.def: operands converted to its loop's type, the
  // template function applied, the result converted to the expression's dtype.
  Col apply(const Expr& e) {
    const Builtin& b = *e.builtin;
    std::vector<Col> args;
    for (auto& a : e.args) args.push_back(operand(*a, e.op_type));
    Col r(compute_type(b.loop_result(e.op_type)), len_);
    apply_op(b, e.op_type, args, r);
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
      default: return apply(e);
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
