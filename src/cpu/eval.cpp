// The CPU evaluator, blocked as numexpr's virtual machine is: the checked
// program becomes a list of instructions (eval_loops.hpp) over registers that
// each hold one chunk of an intermediate value; the output's elements are cut
// into chunks that stay in cache, and threads of a pool (thread_pool.hpp) run
// the whole list over one chunk at a time. Every operation's loop is chosen
// once, when the list is built.
//
// Memory: inputs + outputs + per thread a bounded scratch (one chunk per live
// register, at most 16 bytes an element). Contiguous inputs and outputs are
// read and written in place, and so is a row broadcast over rows where a
// chunk lies within one row (else a thread's tile of it); other broadcast or
// strided inputs are gathered a chunk at a time into scratch.
#include "cpu/eval.hpp"
#include "plan/shapes.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/array.hpp"
#include "lang/check.hpp"
#include "cpu/eval_loops.hpp"
#include "core/fail.hpp"
#include "core/ops_host.hpp"
#include "core/scalar.hpp"
#include "cpu/thread_pool.hpp"

namespace cujit {

namespace {

using namespace scalar;
using cpu::Chunk;
using cpu::Instr;
using cpu::Loop;

// Elements per chunk: at most kChunk, and kChunkBytes of the program's widest
// value (2048 float32, 1024 float64), so that the few registers an
// instruction reads and writes stay in L1 (48 KiB here) while the list walks
// them. 4096 elements whatever the dtype left the float64 polynomial
// ((u*0.5 + 1.5)*u - 2)*u + 3 waiting on L2 for 40% of its time.
// kChunk also decides parallelism: a call of fewer elements stays on the
// calling thread.
constexpr std::int64_t kChunk = 4096;
constexpr std::int64_t kChunkBytes = 8192;
constexpr std::size_t kMaxItem = 16;  // complex128

// 16-bit floats compute in float32 and round once per operation, as NumPy's loops do.
DType compute_type(DType t) { return is_half(t) ? DType::Float32 : t; }

// ---- loops of the evaluator's own instructions (the operations' are in eval_ops.cpp) ----

template <std::size_t S> struct Bytes { unsigned char b[S]; };

// A constant: the instruction's value bytes in every element.
template <std::size_t S> void fill_loop(const Instr& in, const Chunk& c) {
  Bytes<S> v;
  std::memcpy(&v, in.value, S);
  auto* y = static_cast<Bytes<S>*>(c.reg[in.out]);
  for (std::size_t k = 0; k < c.n; ++k) y[k] = v;
}
Loop fill_for(std::size_t item) {
  switch (item) {
    case 1: return fill_loop<1>;
    case 2: return fill_loop<2>;
    case 4: return fill_loop<4>;
    case 8: return fill_loop<8>;
    default: return fill_loop<16>;
  }
}

template <std::size_t S> void copy_loop(const Instr& in, const Chunk& c) {
  std::memcpy(c.reg[in.out], c.reg[in.arg[0]], c.n * S);
}
void stream_copy_loop(const Instr& in, const Chunk& c, std::size_t item);
template <std::size_t S> void stream_copy(const Instr& in, const Chunk& c) { stream_copy_loop(in, c, S); }
template <std::size_t S> Loop copy_of(bool stream) { return stream ? stream_copy<S> : copy_loop<S>; }
// `stream`: with non-temporal stores (stream_copy_loop).
Loop copy_for(std::size_t item, bool stream = false) {
  switch (item) {
    case 1: return copy_of<1>(stream);
    case 2: return copy_of<2>(stream);
    case 4: return copy_of<4>(stream);
    case 8: return copy_of<8>(stream);
    default: return copy_of<16>(stream);
  }
}

// A copy into an output with non-temporal stores, for outputs too large to
// stay in the caches: a plain store first reads each line it writes (the
// read for ownership), a third more traffic on x*y + 5 and half as much again
// on clip. The value is computed into scratch (in L1) and streamed out. The
// fence orders the stores before the chunk's end is seen by other threads.
void stream_copy_loop(const Instr& in, const Chunk& c, std::size_t item) {
  auto* dst = static_cast<unsigned char*>(c.reg[in.out]);
  const auto* src = static_cast<const unsigned char*>(c.reg[in.arg[0]]);
  std::size_t bytes = c.n * item;
#ifdef __SSE2__
  const std::size_t head = std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  dst += head, src += head, bytes -= head;
  std::size_t k = 0;
  for (; k + 16 <= bytes; k += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
  std::memcpy(dst + k, src + k, bytes - k);
  _mm_sfence();
#else
  std::memcpy(dst, src, bytes);
#endif
}

// Outputs of at least this many bytes are written with stream_copy: larger
// than the last-level caches of the machines cujit runs on, so a plain store's
// line would be evicted before anything read it again.
constexpr std::int64_t kStreamBytes = std::int64_t{32} << 20;

// A bool input's bytes as NumPy reads them: any nonzero byte is True. A bool
// array may hold others (a uint8 array viewed as bool, bytes from a file), and
// the loops take a bool's byte for 0 or 1: sum(c) added the bytes, c + 0 and
// c == t compared them (2 == 1: False).
void bool_loop(const Instr& in, const Chunk& c) {
  const auto* __restrict x = static_cast<const std::uint8_t*>(c.reg[in.arg[0]]);
  auto* __restrict y = static_cast<std::uint8_t*>(c.reg[in.out]);
  for (std::size_t k = 0; k < c.n; ++k) y[k] = x[k] != 0;
}

// `i`: the flat index of each element.
void index_loop(const Instr& in, const Chunk& c) {
  auto* y = static_cast<std::int64_t*>(c.reg[in.out]);
  for (std::size_t k = 0; k < c.n; ++k) y[k] = c.start + static_cast<std::int64_t>(k);
}

// A broadcast or strided input, in the outputs' shape with its extent-1 dims
// dropped and the dims it walks contiguously merged.
struct Walk {
  const unsigned char* base = nullptr;
  int ndim = 0;
  std::int64_t ext[kMaxDims] = {}, stride[kMaxDims] = {};
};

// Copies one chunk of the input into its register: the position of the
// chunk's first element once, then an odometer over the walk's dims.
template <std::size_t S> void gather_loop(const Instr& in, const Chunk& c) {
  const Walk& w = *static_cast<const Walk*>(in.info);
  auto* y = static_cast<Bytes<S>*>(c.reg[in.out]);
  std::int64_t idx[kMaxDims], off = 0, flat = c.start;
  const int last = w.ndim - 1;
  for (int d = last; d >= 0; --d) {
    idx[d] = flat % w.ext[d];
    flat /= w.ext[d];
    off += idx[d] * w.stride[d];
  }
  const std::int64_t inner = w.ext[last], step = w.stride[last];
  for (std::size_t k = 0; k < c.n;) {
    std::size_t run = std::min<std::size_t>(c.n - k, static_cast<std::size_t>(inner - idx[last]));
    const unsigned char* src = w.base + off;
    if (step == 0) {
      Bytes<S> v;
      std::memcpy(&v, src, S);
      for (std::size_t r = 0; r < run; ++r) y[k + r] = v;
    } else if (step == static_cast<std::int64_t>(S)) {  // a contiguous run (a broadcast row): one copy
      std::memcpy(&y[k], src, run * S);
    } else {
      for (std::size_t r = 0; r < run; ++r) std::memcpy(&y[k + r], src + static_cast<std::int64_t>(r) * step, S);
    }
    k += run;
    idx[last] += static_cast<std::int64_t>(run);
    off += static_cast<std::int64_t>(run) * step;
    if (idx[last] == inner) {
      off -= inner * step;
      idx[last] = 0;
      for (int d = last - 1; d >= 0; --d) {
        off += w.stride[d];
        if (++idx[d] < w.ext[d]) break;
        off -= w.ext[d] * w.stride[d];
        idx[d] = 0;
      }
    }
  }
}
Loop gather_for(std::size_t item) {
  switch (item) {
    case 1: return gather_loop<1>;
    case 2: return gather_loop<2>;
    case 4: return gather_loop<4>;
    case 8: return gather_loop<8>;
    default: return gather_loop<16>;
  }
}

// x[j] on a raw parameter: by flat C-order position, whatever the strides.
// The view and the name by value: a plan outlives the input list and the
// program it was made from where a reduction's map runs block by block
// (pointers into them were read after they were freed: fuzz_frontend, ASan).
struct RawIndex {
  ArrayView view;
  std::string name;
  std::size_t item;
};
void raw_index_loop(const Instr& in, const Chunk& c) {
  const RawIndex& r = *static_cast<const RawIndex*>(in.info);
  const ArrayView& v = r.view;
  const auto* j = static_cast<const std::int64_t*>(c.reg[in.arg[0]]);
  auto* y = static_cast<unsigned char*>(c.reg[in.out]);
  const std::int64_t size = v.size();
  const bool contiguous = v.is_c_contiguous();
  for (std::size_t q = 0; q < c.n; ++q) {
    std::int64_t idx = j[q];
    if (idx < 0 || idx >= size)
      fail(ErrorCode::Data, "index {} is out of bounds for raw parameter '{}' of size {}", idx, r.name, size);
    std::int64_t o = 0;
    if (contiguous) {
      o = idx * static_cast<std::int64_t>(r.item);
    } else {
      for (int d = v.shape.ndim - 1; d >= 0; --d) {
        o += (idx % v.shape[d]) * v.strides[d];
        idx /= v.shape[d];
      }
    }
    std::memcpy(y + q * r.item, static_cast<const unsigned char*>(v.data) + o, r.item);
  }
}

// A weak scalar parameter must fit the integer type it meets, as a literal must at check time.
template <class T, DType D> void weak_fit_loop(const Instr& in, const Chunk& c) {
  const auto* x = static_cast<const std::int64_t*>(c.reg[in.arg[0]]);
  for (std::size_t k = 0; k < c.n; ++k) {
    bool ok;
    if constexpr (std::is_signed_v<T>) ok = x[k] >= std::numeric_limits<T>::min() && x[k] <= std::numeric_limits<T>::max();
    else ok = x[k] >= 0 && static_cast<std::uint64_t>(x[k]) <= std::numeric_limits<T>::max();
    if (!ok) fail(ErrorCode::Data, "scalar value {} does not fit in {}", x[k], dtype_name(D));
  }
}

// NumPy raises for an integer to a negative integer power; the GPU kernel
// reports it through its error slot (templates/checks.cuh) with this message.
template <class T> void negative_exponent_loop(const Instr& in, const Chunk& c) {
  const auto* b = static_cast<const T*>(c.reg[in.arg[0]]);
  for (std::size_t k = 0; k < c.n; ++k)
    if (b[k] < 0) fail(ErrorCode::Data, "{}", negative_power_message(b[k]));
}

// int64 against uint64: NumPy compares the values exactly, with no common dtype.
template <class A, class B, Op op> void mixed_compare_loop(const Instr& in, const Chunk& c) {
  const auto* x = static_cast<const A*>(c.reg[in.arg[0]]);
  const auto* z = static_cast<const B*>(c.reg[in.arg[1]]);
  auto* y = static_cast<bool*>(c.reg[in.out]);
  for (std::size_t k = 0; k < c.n; ++k) {
    if constexpr (op == Op::Lt) y[k] = cj::cmp_lt(x[k], z[k]);
    else if constexpr (op == Op::Le) y[k] = cj::cmp_le(x[k], z[k]);
    else if constexpr (op == Op::Gt) y[k] = cj::cmp_gt(x[k], z[k]);
    else if constexpr (op == Op::Ge) y[k] = cj::cmp_ge(x[k], z[k]);
    else if constexpr (op == Op::Eq) y[k] = cj::cmp_eq(x[k], z[k]);
    else y[k] = cj::cmp_ne(x[k], z[k]);
  }
}
template <class A, class B> Loop mixed_compare_for(Op op) {
  switch (op) {
    case Op::Lt: return mixed_compare_loop<A, B, Op::Lt>;
    case Op::Le: return mixed_compare_loop<A, B, Op::Le>;
    case Op::Gt: return mixed_compare_loop<A, B, Op::Gt>;
    case Op::Ge: return mixed_compare_loop<A, B, Op::Ge>;
    case Op::Eq: return mixed_compare_loop<A, B, Op::Eq>;
    default: return mixed_compare_loop<A, B, Op::Ne>;
  }
}

// ---- the plan: instructions over registers ----

struct Reg {
  enum Kind { Scratch, Const, In, Out, Periodic } kind = Scratch;
  DType t = DType::Bool;
  unsigned char* base = nullptr;  // In, Out: the array; a chunk starts at base + start * itemsize
  std::int64_t item = 0;
  int buf = -1;                   // Scratch, Const, Periodic: the per-thread buffer
  std::int64_t period = 0;        // Periodic: element k of the output reads element k % period of base
};

// A value the planner holds: its register, dtype, and whether it is the same
// in every chunk (then it is computed once per thread, not per chunk).
struct Val {
  int reg = -1;
  DType t = DType::Bool;
  bool constant = false;
};

struct Plan {
  std::vector<Reg> regs;
  std::vector<Instr> setup;  // constants, run once per thread over a whole chunk
  std::vector<Instr> body;   // run per chunk
  std::vector<std::size_t> buf_bytes;  // per buffer: bytes for one chunk
  std::vector<std::size_t> buf_offset; // per buffer: where in a thread's scratch block
  std::size_t scratch_bytes = 0;
  std::int64_t chunk = kChunk;         // elements of the largest chunk (fewer for a small call, or wide values)
  std::int64_t setup_n = kChunk;       // elements of the constants computed (1 when no loop reads more)
  std::vector<std::unique_ptr<Walk>> walks;
  std::vector<std::unique_ptr<RawIndex>> raws;
};

class Planner {
 public:
  // `stream`: large outputs are written with non-temporal stores (the
  // outputs are arrays, not a block a reduction reads back at once).
  Planner(const Program& p, const std::vector<Input>& in, const Shape& shape, const std::vector<void*>& out_base, Plan& plan,
          bool stream = false)
      : p_(p), in_(in), shape_(shape), out_base_(out_base), plan_(plan), stream_(stream), input_val_(in.size()),
        locals_(p.locals.size()), outputs_(p.outputs.size()) {
    // Room for a typical program at once (growing by doubling was a tenth of
    // a call's fixed cost on 10^3 elements).
    plan_.regs.reserve(32);
    instrs_.reserve(32);
  }

  void run() {
    for (const Stmt& s : p_.ast.stmts) {
      const Var& v = s.sym == Sym::Local ? p_.locals[static_cast<std::size_t>(s.slot)] : p_.outputs[static_cast<std::size_t>(s.slot)];
      Val x = convert(eval(*s.expr), v.dtype);
      (s.sym == Sym::Local ? locals_ : outputs_)[static_cast<std::size_t>(s.slot)] = x;
    }
    // Each output's last value goes to its array: the instruction that makes it
    // writes there directly when it can, else a copy does.
    std::vector<bool> placed(plan_.regs.size(), false);
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      Val v = outputs_[k];
      if (v.reg < 0) fail(ErrorCode::Internal, "CPU evaluator: output '{}' is never assigned", p_.outputs[k].name);
      Reg& r = plan_.regs[static_cast<std::size_t>(v.reg)];
      unsigned char* base = static_cast<unsigned char*>(out_base_[k]);
      // An input updated in place gets its value by a copy after everything
      // else: the loops' operands and results never alias (they are
      // restrict), and the input's elements are read before they are written.
      const bool inout = p_.outputs[k].input >= 0;
      if (inout && r.kind == Reg::In && r.base == base) continue;  // `x = x`: already there
      const bool stream = stream_ && shape_.size() * r.item >= kStreamBytes;
      if (!inout && !stream && r.kind == Reg::Scratch && !placed[static_cast<std::size_t>(v.reg)]) {
        r.kind = Reg::Out;
        r.base = base;
        placed[static_cast<std::size_t>(v.reg)] = true;
      } else {
        int o = new_reg(v.t, Reg::Out);
        plan_.regs[static_cast<std::size_t>(o)].base = base;
        Instr in;
        in.loop = copy_for(dtype_size(v.t), stream);
        in.out = o;
        in.arg[0] = v.reg;
        instrs_.push_back(in);
      }
    }
    allocate();
  }

 private:
  int new_reg(DType t, Reg::Kind kind) {
    Reg r;
    r.kind = kind;
    r.t = t;
    r.item = static_cast<std::int64_t>(dtype_size(t));
    plan_.regs.push_back(r);
    return static_cast<int>(plan_.regs.size() - 1);
  }

  // Appends an instruction writing a new register of dtype t; constant when
  // all its operands are, it cannot fail and its values do not vary by chunk.
  enum Kind { Pure, Varies, CanFail };
  Val emit(Loop loop, DType t, std::initializer_list<Val> args, const void* info = nullptr, Kind kind = Pure) {
    bool constant = kind == Pure;
    for (const Val& a : args) constant = constant && a.constant;
    Instr in;
    in.loop = loop;
    in.info = info;
    int k = 0;
    for (const Val& a : args) in.arg[k++] = a.reg;
    in.out = new_reg(t, constant ? Reg::Const : Reg::Scratch);
    instrs_.push_back(in);
    return Val{in.out, t, constant};
  }

  Val fill(DType t, const void* bytes) {
    Instr in;
    in.loop = fill_for(dtype_size(t));
    std::memcpy(in.value, bytes, dtype_size(t));
    in.out = new_reg(t, Reg::Const);
    instrs_.push_back(in);
    return Val{in.out, t, true};
  }
  Val fill_i64(std::int64_t v) { return fill(DType::Int64, &v); }

  Val convert(Val v, DType to) {
    if (v.t == to) return v;
    return emit(cpu::convert_loop(v.t, to), to, {v});
  }

  Val eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Literal: return literal(e);
      case Expr::Name: return name(e);
      case Expr::Unary: return apply(e);
      case Expr::Binary: return binary_op(e);
      case Expr::Ternary: return select(e, *e.args[0], *e.args[1], *e.args[2]);
      case Expr::Call: return call(e);
      case Expr::Index: return index(e);
    }
    fail(ErrorCode::Internal, "CPU evaluator: unknown expression kind");
  }

  Val literal(const Expr& e) {
    const Value& v = e.value;
    DType t = v.big ? DType::UInt64 : e.type;
    alignas(16) unsigned char bytes[kMaxItem] = {};
    visit(t, [&](auto tag) {
      using T = decltype(tag);
      T x;
      if (v.kind == Value::Bool) x = cast<T>(v.b);
      else if (v.kind == Value::Int) x = v.big ? cast<T>(v.u) : cast<T>(v.i);
      else if (v.kind == Value::Float) x = cast<T>(v.f);
      else x = cast<T>(v.c);
      std::memcpy(bytes, &x, sizeof x);
    });
    return fill(t, bytes);
  }

  Val name(const Expr& e) {
    switch (e.sym) {
      case Sym::Input: return input(static_cast<std::size_t>(e.slot));
      case Sym::Local: return bound(locals_[static_cast<std::size_t>(e.slot)], e.name);
      case Sym::Output: return bound(outputs_[static_cast<std::size_t>(e.slot)], e.name);
      case Sym::Index: return emit(index_loop, DType::Int64, {}, nullptr, Varies);
      case Sym::Count: return fill_i64(shape_.size());
      default: return literal(e);
    }
  }

  Val bound(Val v, const std::string& name) {
    if (v.reg < 0) fail(ErrorCode::Internal, "CPU evaluator: '{}' is read before it is assigned", name);
    return v;
  }

  // An input in the outputs' shape: in place when it is walked contiguously,
  // a constant when it broadcasts one element, else gathered per chunk.
  // Weak and raw parameters read as their first element.
  Val input(std::size_t k) {
    if (input_val_[k].reg >= 0) return input_val_[k];
    const Param& q = p_.inputs[k];
    const ArrayView& v = in_[k].view;
    const std::size_t item = dtype_size(v.dtype);
    // On the stack: most inputs are read in place or broadcast one element,
    // and a call on 10^3 elements is a few microseconds.
    Walk w;
    Walk* walk = &w;
    walk->base = static_cast<const unsigned char*>(v.data);
    if (!q.weak && !q.raw) {
      const int shift = shape_.ndim - v.shape.ndim;
      for (int d = 0; d < shape_.ndim; ++d) {
        const int dv = d - shift;
        const std::int64_t stride = dv >= 0 && v.shape[dv] != 1 ? v.strides[dv] : 0;
        if (shape_[d] == 1) continue;
        if (walk->ndim > 0 && walk->stride[walk->ndim - 1] == stride * shape_[d]) {
          walk->ext[walk->ndim - 1] *= shape_[d];
          walk->stride[walk->ndim - 1] = stride;
        } else {
          walk->ext[walk->ndim] = shape_[d];
          walk->stride[walk->ndim] = stride;
          ++walk->ndim;
        }
      }
      // Trailing broadcast dims: drop them when every dim broadcasts.
      bool all_zero = true;
      for (int d = 0; d < walk->ndim; ++d) all_zero = all_zero && walk->stride[d] == 0;
      if (all_zero) walk->ndim = 0;
    }
    Val r;
    bool periodic = walk->ndim >= 2 && walk->stride[walk->ndim - 1] == static_cast<std::int64_t>(item);
    for (int d = 0; periodic && d < walk->ndim - 1; ++d) periodic = walk->stride[d] == 0;
    if (walk->ndim == 0) {
      const std::uint8_t truth = v.dtype == DType::Bool && *static_cast<const std::uint8_t*>(v.data) != 0;
      r = fill(v.dtype, v.dtype == DType::Bool ? &truth : v.data);
    } else if (walk->ndim == 1 && walk->stride[0] == static_cast<std::int64_t>(item)) {
      int reg = new_reg(v.dtype, Reg::In);
      plan_.regs[static_cast<std::size_t>(reg)].base = const_cast<unsigned char*>(walk->base);
      r = Val{reg, v.dtype, false};
    } else if (periodic) {
      // A contiguous row broadcast over the outer dims (m*r with r a row):
      // read in place where a chunk lies within one row, else from a tile of
      // the rows a thread keeps while its chunks start where the tile does
      // (Frame::run). Gathered per chunk, it cost m*r + 1 a sixth of its time.
      int reg = new_reg(v.dtype, Reg::Periodic);
      plan_.regs[static_cast<std::size_t>(reg)].base = const_cast<unsigned char*>(walk->base);
      plan_.regs[static_cast<std::size_t>(reg)].period = walk->ext[walk->ndim - 1];
      r = Val{reg, v.dtype, false};
    } else {
      plan_.walks.push_back(std::make_unique<Walk>(w));
      r = emit(gather_for(item), v.dtype, {}, plan_.walks.back().get(), Varies);
    }
    if (v.dtype == DType::Bool && !r.constant) r = emit(bool_loop, DType::Bool, {r});
    return input_val_[k] = r;
  }

  // Converts an operand to the dtype its operation computes in.
  Val operand(const Expr& a, DType to) {
    Val c = eval(a);
    if (a.fit) {
      Instr in;
      in.loop = weak_fit_for(to);
      in.arg[0] = c.reg;
      if (in.loop) instrs_.push_back(in);
    }
    // A weak float meets a 16-bit float operand as NumPy does: rounded to that type first.
    if (is_half(to) && c.t != to) c = convert(c, to);
    return convert(c, compute_type(to));
  }

  // An integer power's exponent that is not a constant: checked at run time
  // (a literal one is the checker's error).
  void check_exponent(const Expr& e, const Val& v) {
    if (e.folded) return;
    Instr in;
    switch (v.t) {
      case DType::Int8: in.loop = negative_exponent_loop<std::int8_t>; break;
      case DType::Int16: in.loop = negative_exponent_loop<std::int16_t>; break;
      case DType::Int32: in.loop = negative_exponent_loop<std::int32_t>; break;
      case DType::Int64: in.loop = negative_exponent_loop<std::int64_t>; break;
      default: return;  // unsigned, float, complex: nothing to check
    }
    in.arg[0] = v.reg;
    instrs_.push_back(in);
  }

  static Loop weak_fit_for(DType to) {
    switch (to) {
      case DType::Int8: return weak_fit_loop<std::int8_t, DType::Int8>;
      case DType::Int16: return weak_fit_loop<std::int16_t, DType::Int16>;
      case DType::Int32: return weak_fit_loop<std::int32_t, DType::Int32>;
      case DType::UInt8: return weak_fit_loop<std::uint8_t, DType::UInt8>;
      case DType::UInt16: return weak_fit_loop<std::uint16_t, DType::UInt16>;
      case DType::UInt32: return weak_fit_loop<std::uint32_t, DType::UInt32>;
      case DType::UInt64: return weak_fit_loop<std::uint64_t, DType::UInt64>;
      default: return nullptr;  // int64 holds every int64
    }
  }

  static bool is_cmp(Op op) { return op >= Op::Lt && op <= Op::Ne; }

  Val binary_op(const Expr& e) {
    // A literal above INT64_MAX is held as uint64 (see literal()).
    auto held = [](const Expr& a) { return a.folded && a.value.big ? DType::UInt64 : a.type; };
    DType ta = held(*e.args[0]), tb = held(*e.args[1]);
    if (e.mixed_compare) {
      Val a = convert(eval(*e.args[0]), is_signed_int(ta) ? DType::Int64 : DType::UInt64);
      Val b = convert(eval(*e.args[1]), is_signed_int(tb) ? DType::Int64 : DType::UInt64);
      Loop loop = is_signed_int(ta) ? mixed_compare_for<cj_i64, cj_u64>(e.op) : mixed_compare_for<cj_u64, cj_i64>(e.op);
      return emit(loop, DType::Bool, {a, b});
    }
    return apply(e);
  }

  // An operation of ops.def: operands converted to its loop's type, the loop,
  // the result converted to the expression's dtype.
  Val apply(const Expr& e) {
    const Builtin& b = *e.builtin;
    std::vector<Val> args;
    for (auto& a : e.args) args.push_back(operand(*a, e.op_type));
    if (e.nonneg_exponent) check_exponent(*e.args[1], args[1]);
    DType want = compute_type(b.loop_result(e.op_type)), wrote = want;
    unsigned uniform = 0;  // constants hold one value in every element
    for (std::size_t j = 0; j < args.size(); ++j) uniform |= args[j].constant ? 1u << j : 0u;
    Loop loop = cpu::op_loop(b, e.op_type, static_cast<int>(args.size()), wrote, &uniform);
    if (!loop)
      fail(ErrorCode::Internal, "CPU evaluator has no {} loop for {} (a checked program should not get here)", b.name,
           dtype_name(e.op_type));
    if (wrote != want)
      fail(ErrorCode::Internal, "CPU evaluator: '{}' returns {}, the loop {}", b.name, dtype_name(wrote), dtype_name(want));
    Val r;
    if (args.size() == 1) r = emit(loop, want, {args[0]});
    else if (args.size() == 2) r = emit(loop, want, {args[0], args[1]});
    else r = emit(loop, want, {args[0], args[1], args[2]});
    instrs_.back().one = uniform;
    return convert(r, e.type);
  }

  Val select(const Expr& e, const Expr& c, const Expr& a, const Expr& b) {
    Val cond = convert(eval(c), DType::Bool);
    Val x = operand(a, e.op_type), y = operand(b, e.op_type);
    Val r = emit(cpu::select_loop(dtype_size(x.t)), x.t, {cond, x, y});
    return convert(r, e.type);
  }

  Val call(const Expr& e) {
    const Builtin& b = *e.builtin;
    switch (b.special) {
      case Special::Cast: return convert(eval(*e.args[0]), e.type);
      case Special::Size: return fill_i64(in_[static_cast<std::size_t>(e.args[0]->slot)].view.size());
      case Special::Where: return select(e, *e.args[0], *e.args[1], *e.args[2]);
      default: return apply(e);
    }
  }

  Val index(const Expr& e) {
    std::size_t k = static_cast<std::size_t>(e.args[0]->slot);
    const ArrayView& v = in_[k].view;
    Val j = convert(eval(*e.args[1]), DType::Int64);
    plan_.raws.push_back(std::make_unique<RawIndex>(RawIndex{v, p_.inputs[k].name, dtype_size(v.dtype)}));
    const Val x = emit(raw_index_loop, v.dtype, {j}, plan_.raws.back().get(), CanFail);
    return v.dtype == DType::Bool ? emit(bool_loop, DType::Bool, {x}) : x;
  }

  // Splits the instructions into the once-per-thread setup and the per-chunk
  // body, and gives the body's scratch registers buffers: a buffer is reused
  // once its register's last reader has run (never by that reader's own
  // output, so no loop writes over an operand it reads).
  void allocate() {
    // Constants do not count: a literal is often wider (a weak float is
    // float64 until converted) and is read as one value where it matters.
    std::int64_t widest = 1;
    for (const Reg& g : plan_.regs)
      if (g.kind != Reg::Const) widest = std::max(widest, g.item);
    plan_.chunk = std::max<std::int64_t>(1, std::min(plan_.chunk, kChunkBytes / widest));
    fit_chunk_to_period();
    std::vector<std::size_t> last(plan_.regs.size(), 0);
    std::vector<Instr> body;
    for (Instr& in : instrs_) {
      bool setup = in.out >= 0 && plan_.regs[static_cast<std::size_t>(in.out)].kind == Reg::Const;
      (setup ? plan_.setup : body).push_back(in);
    }
    // When every loop that reads a constant reads only its first element, the
    // constants are computed for one element, not a chunk's: filling and
    // converting clip's two bounds over 2048 elements per thread was a tenth
    // of a 10^5-element call.
    plan_.setup_n = 1;
    for (const Instr& in : body)
      for (int j = 0; j < 3; ++j) {
        const int a = in.arg[j];
        if (a >= 0 && plan_.regs[static_cast<std::size_t>(a)].kind == Reg::Const && !(in.one >> j & 1u))
          plan_.setup_n = plan_.chunk;
      }
    for (std::size_t j = 0; j < body.size(); ++j)
      for (int a : body[j].arg)
        if (a >= 0) last[static_cast<std::size_t>(a)] = j;
    for (std::size_t r = 0; r < plan_.regs.size(); ++r) {
      Reg& g = plan_.regs[r];
      if (g.kind == Reg::Const || g.kind == Reg::Periodic) {
        g.buf = static_cast<int>(plan_.buf_bytes.size());
        plan_.buf_bytes.push_back(dtype_size(g.t) * static_cast<std::size_t>(plan_.chunk));
      }
    }
    std::vector<int> free_bufs;
    std::vector<std::size_t> release_at(plan_.regs.size(), body.size());  // per scratch register
    for (std::size_t j = 0; j < body.size(); ++j) {
      Instr& in = body[j];
      if (in.out >= 0) {
        Reg& g = plan_.regs[static_cast<std::size_t>(in.out)];
        if (g.kind == Reg::Scratch) {
          if (free_bufs.empty()) {
            g.buf = static_cast<int>(plan_.buf_bytes.size());
            plan_.buf_bytes.push_back(0);
          } else {
            g.buf = free_bufs.back();
            free_bufs.pop_back();
          }
          std::size_t& bytes = plan_.buf_bytes[static_cast<std::size_t>(g.buf)];
          bytes = std::max(bytes, dtype_size(g.t) * static_cast<std::size_t>(plan_.chunk));
          // A value no one reads is freed after its own instruction.
          release_at[static_cast<std::size_t>(in.out)] = std::max(last[static_cast<std::size_t>(in.out)], j);
        }
      }
      for (std::size_t r = 0; r < release_at.size(); ++r)
        if (release_at[r] == j) free_bufs.push_back(plan_.regs[r].buf);
    }
    plan_.body = std::move(body);
    plan_.buf_offset.resize(plan_.buf_bytes.size());
    for (std::size_t b = 0; b < plan_.buf_bytes.size(); ++b) {
      plan_.buf_offset[b] = plan_.scratch_bytes;
      plan_.scratch_bytes += (plan_.buf_bytes[b] + 63) / 64 * 64;
    }
  }

  // Chunks that start where a periodic input's row does (a whole number of
  // rows, or a divisor of the row of at least half a chunk), so that every
  // chunk of a call reads that input in place or from an unchanged tile.
  void fit_chunk_to_period() {
    for (const Reg& g : plan_.regs) {
      if (g.kind != Reg::Periodic) continue;
      const std::int64_t c = plan_.chunk, n = g.period;
      if (n <= c) {
        plan_.chunk = c / n * n;
      } else {
        for (std::int64_t d = c; d >= (c + 1) / 2; --d)
          if (n % d == 0) {
            plan_.chunk = d;
            break;
          }
      }
      return;  // the first one; another of a different row length is tiled as needed
    }
  }

  const Program& p_;
  const std::vector<Input>& in_;
  const Shape& shape_;
  const std::vector<void*>& out_base_;
  Plan& plan_;
  bool stream_;
  std::vector<Instr> instrs_;
  std::vector<Val> input_val_, locals_, outputs_;
};

// Scratch memory a thread keeps between calls: allocating and freeing a
// frame's buffers per call cost more than the work of a 10^3-element call (the
// heap gave the pages back to the kernel and faulted them in again). A frame
// takes its thread's block when it is free (a nested call, from a progress
// callback, gets a block of its own) and gives it back when the call ends.
class Scratch {
 public:
  ~Scratch() { std::free(p_); }
  unsigned char* take(std::size_t bytes) {
    if (busy_.exchange(true)) return nullptr;
    if (bytes > size_) {
      std::free(p_);
      size_ = 0;
      p_ = static_cast<unsigned char*>(std::aligned_alloc(64, bytes));
      if (!p_) {
        busy_ = false;
        throw std::bad_alloc();
      }
      size_ = bytes;
    }
    return p_;
  }
  void give_back() {
    if (size_ > kKeep) {  // a rare large frame does not stay allocated
      std::free(p_);
      p_ = nullptr;
      size_ = 0;
    }
    busy_ = false;
  }

 private:
  static constexpr std::size_t kKeep = std::size_t(4) << 20;
  unsigned char* p_ = nullptr;
  std::size_t size_ = 0;
  std::atomic<bool> busy_{false};
};

// One thread's registers and scratch.
struct FreeDeleter {
  void operator()(unsigned char* p) const { std::free(p); }
};

struct Frame {
  std::vector<void*> reg;
  Scratch* held = nullptr;                              // the block is this thread's kept one
  std::unique_ptr<unsigned char, FreeDeleter> own;      // or one of its own
  bool ready = false;

  Frame() = default;
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  ~Frame() {
    if (held) held->give_back();
  }

  void prepare(const Plan& plan) {
    const std::size_t total = plan.scratch_bytes;
    thread_local Scratch kept;
    unsigned char* block = kept.take(std::max<std::size_t>(total, 64));
    if (block) {
      held = &kept;
    } else {
      block = static_cast<unsigned char*>(std::aligned_alloc(64, std::max<std::size_t>(total, 64)));
      if (!block) throw std::bad_alloc();
      own.reset(block);
    }
    reg.assign(plan.regs.size(), nullptr);
    tile_at.assign(plan.regs.size(), -1);
    block_ = block;
    for (std::size_t r = 0; r < plan.regs.size(); ++r)
      if (plan.regs[r].buf >= 0) reg[r] = block + plan.buf_offset[static_cast<std::size_t>(plan.regs[r].buf)];
    Chunk c{reg.data(), static_cast<std::size_t>(plan.setup_n), 0};
    for (const Instr& in : plan.setup) in.loop(in, c);
    ready = true;
  }

  // Elements [start, start + n) (n <= plan.chunk); `out`, when given, is where
  // the outputs' element `start` goes instead of their arrays (one output).
  void run(const Plan& plan, std::int64_t start, std::size_t n, unsigned char* out = nullptr) {
    for (std::size_t r = 0; r < plan.regs.size(); ++r) {
      const Reg& g = plan.regs[r];
      if (g.kind == Reg::In || (g.kind == Reg::Out && !out)) reg[r] = g.base + start * g.item;
      else if (g.kind == Reg::Out) reg[r] = out;
      else if (g.kind == Reg::Periodic) reg[r] = periodic(plan, r, start, n);
    }
    Chunk c{reg.data(), n, start};
    for (const Instr& in : plan.body) in.loop(in, c);
  }

 private:
  unsigned char* block_ = nullptr;     // the scratch block the registers' buffers are in
  std::vector<std::int64_t> tile_at;  // per Periodic register: the element its tile starts at (-1: none)

  // Where periodic register r's elements [start, start + n) are: in place
  // within one row, else the thread's tile of plan.chunk elements from the
  // same phase, copied row piece by row piece when the phase changes.
  void* periodic(const Plan& plan, std::size_t r, std::int64_t start, std::size_t n) {
    const Reg& g = plan.regs[r];
    const std::int64_t phase = start % g.period;
    if (phase + static_cast<std::int64_t>(n) <= g.period) return g.base + phase * g.item;
    unsigned char* tile = block_ + plan.buf_offset[static_cast<std::size_t>(g.buf)];
    if (tile_at[r] != phase) {
      for (std::int64_t k = 0, at = phase; k < plan.chunk;) {
        const std::int64_t run = std::min(plan.chunk - k, g.period - at);
        std::memcpy(tile + k * g.item, g.base + at * g.item, static_cast<std::size_t>(run * g.item));
        k += run;
        at = 0;
      }
      tile_at[r] = phase;
    }
    return tile;
  }
};

}  // namespace

std::vector<Output> evaluate_elementwise(const Program& p, const std::vector<Input>& inputs, const Shape* given,
                                     const CpuOptions& options, const ArrayView* outputs) {
  if (inputs.size() != p.inputs.size())
    fail(ErrorCode::Usage, "the program has {} parameters but {} inputs were given", p.inputs.size(), inputs.size());
  // NumPy broadcasting over the array inputs (not weak scalars, not raw arrays).
  Shape shape;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    check_input(p, k, inputs[k].view.dtype, inputs[k].view.shape, inputs[k].view.strides);
    if (q.weak || q.raw) continue;
    shape = broadcast_input(shape, inputs[k].view.shape, q.name);
  }
  const Shape broadcast = shape;
  shape = output_shape(shape, given);
  // The thread team, woken now, while the outputs are allocated and the plan
  // made. A shape too large to count is the allocation's to report.
  const std::int64_t count = std::max<std::int64_t>(0, checked_size(shape));
  int threads = options.threads > 0 ? options.threads : cpu_threads();
  threads = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, (count + kChunk - 1) / kChunk)));
  // Only a large call wakes them ahead (a smaller one wakes them, if at all,
  // once its first chunks show that they would help: thread_pool.hpp).
  if (count >= kPrepareAt) prepare_parallel(threads);
  std::vector<ArrayView> in_views;
  in_views.reserve(inputs.size());
  for (const Input& in : inputs) in_views.push_back(in.view);
  check_inout(p, in_views.data(), shape);
  // Each output's memory: a new array, or the array of the input it updates
  // in place (through a contiguous copy when that array is strided).
  std::vector<Output> outs;
  std::vector<void*> base;
  std::vector<ArrayView> out_views;
  outs.reserve(p.outputs.size());
  base.reserve(p.outputs.size());
  out_views.reserve(p.outputs.size());
  // A program that can fail at run time leaves the inputs as they were.
  const bool staged = p.can_fail;
  // Outputs the caller gives are written in place when C-contiguous, else
  // through a contiguous copy (as an input updated in place is).
  std::vector<const ArrayView*> copy_to(p.outputs.size(), nullptr);
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    const Var& v = p.outputs[o];
    if (v.input < 0 && outputs && outputs[o].data) {
      const ArrayView& y = outputs[o];
      if (y.device.kind != Device::CPU)
        fail(ErrorCode::Usage, "output '{}' is in GPU memory; the CPU evaluator needs host arrays", v.name);
      check_given_output(p, o, y.dtype, y.shape, shape, broadcast);
      const bool direct = y.is_c_contiguous();
      outs.push_back({v.name, direct ? HostArray() : HostArray(v.dtype, shape)});
      base.push_back(direct ? y.data : outs.back().array.data());
      out_views.push_back(y);
      if (!direct) copy_to[o] = &y;
      continue;
    }
    if (v.input < 0) {
      outs.push_back({v.name, HostArray(v.dtype, shape)});
      base.push_back(outs.back().array.data());
      out_views.push_back(outs.back().array.view());
      continue;
    }
    const ArrayView& x = inputs[static_cast<std::size_t>(v.input)].view;
    if (x.device.kind != Device::CPU)
      fail(ErrorCode::Usage, "input '{}' is updated in place but is in GPU memory; the CPU evaluator needs host arrays", v.name);
    const bool direct = x.is_c_contiguous() && !staged;
    outs.push_back({v.name, direct ? HostArray() : HostArray(v.dtype, shape), true});
    base.push_back(direct ? x.data : outs.back().array.data());
    out_views.push_back(direct ? x : outs.back().array.view());
  }
  check_overlap(p, in_views.data(), out_views.data());
  const std::int64_t total = shape.size();
  if (total == 0) return outs;

  Plan plan;
  plan.chunk = std::min(kChunk, total);
  Planner(p, inputs, shape, base, plan, true).run();

  const std::int64_t chunk = plan.chunk;
  const std::int64_t tasks = (total + chunk - 1) / chunk;
  std::vector<Frame> frames(static_cast<std::size_t>(threads));
  // The error of the lowest failing chunk is the one a sequential run reports.
  std::mutex failed_mu;
  std::atomic<std::int64_t> failed_at{std::numeric_limits<std::int64_t>::max()};
  std::exception_ptr failure;
  std::atomic<std::int64_t> done{0};
  auto body = [&](int worker, std::int64_t task) {
    if (task > failed_at.load(std::memory_order_relaxed)) return;
    try {
      Frame& f = frames[static_cast<std::size_t>(worker)];
      if (!f.ready) f.prepare(plan);
      std::int64_t start = task * chunk;
      f.run(plan, start, static_cast<std::size_t>(std::min(chunk, total - start)));
    } catch (...) {
      std::lock_guard<std::mutex> lock(failed_mu);
      if (task < failed_at.load()) {
        failed_at.store(task);
        failure = std::current_exception();
      }
    }
    // Counted only for a progress callback: a locked add per chunk waits for
    // the chunk's stores to drain.
    if (options.progress) {
      std::int64_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
      if (worker == 0) options.progress(d * chunk < total ? d * chunk : total, total);
    }
  };
  // One chunk runs here without the pool (a std::function holding the body
  // is an allocation: part of the fixed cost of a 10^3-element call).
  if (tasks == 1) body(0, 0);
  else parallel_tasks(tasks, threads, body);
  if (failure) std::rethrow_exception(failure);
  // Arrays updated through a copy (strided ones, or all where the program can
  // fail) get their results now that the run has succeeded.
  for (std::size_t k = 0; k < outs.size(); ++k) {
    if (outs[k].in_place && outs[k].array.data()) {
      copy_into(inputs[static_cast<std::size_t>(p.outputs[k].input)].view, outs[k].array.view());
      outs[k].array = HostArray();
    } else if (copy_to[k]) {
      copy_into(*copy_to[k], outs[k].array.view());
      outs[k].array = HostArray();
    }
  }
  if (options.progress) options.progress(total, total);
  return outs;
}

struct BlockEvaluator::Impl {
  Plan plan;
  std::vector<Frame> frames;
  std::size_t item = 0;
};

bool BlockEvaluator::applies(const Program& p) {
  return !p.can_fail && p.outputs.size() == 1 && p.outputs[0].input < 0;
}

BlockEvaluator::BlockEvaluator(const Program& p, const std::vector<Input>& inputs, const Shape& shape, int workers)
    : impl_(std::make_unique<Impl>()) {
  if (!applies(p) || inputs.size() != p.inputs.size())
    fail(ErrorCode::Internal, "CPU evaluator: a program that cannot run block by block");
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    check_input(p, k, inputs[k].view.dtype, inputs[k].view.shape, inputs[k].view.strides);
    if (!p.inputs[k].weak && !p.inputs[k].raw) broadcast_input(shape, inputs[k].view.shape, p.inputs[k].name);
  }
  const std::vector<void*> base{nullptr};  // each block goes where run() says
  Planner(p, inputs, shape, base, impl_->plan).run();
  impl_->frames = std::vector<Frame>(static_cast<std::size_t>(std::max(1, workers)));  // Frame does not move
  impl_->item = dtype_size(p.outputs[0].dtype);
}

BlockEvaluator::~BlockEvaluator() = default;

void BlockEvaluator::run(int worker, std::int64_t start, std::int64_t n, void* out) {
  Frame& f = impl_->frames[static_cast<std::size_t>(worker)];
  if (!f.ready) f.prepare(impl_->plan);
  auto* o = static_cast<unsigned char*>(out);
  const std::int64_t chunk = impl_->plan.chunk;
  for (std::int64_t k = 0; k < n; k += chunk)
    f.run(impl_->plan, start + k, static_cast<std::size_t>(std::min(chunk, n - k)), o + k * static_cast<std::int64_t>(impl_->item));
}

}  // namespace cujit
