#include "gpu/reduce_launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>

#include "core/fail.hpp"
#include "gpu/compile.hpp"
#include "gpu/launch.hpp"
#include "cache/entry.hpp"
#include "core/compiled_kernel.hpp"
#include "gpu/templates.hpp"

namespace cujit {
namespace {

// Blocks of work a reduction is cut into when it can be: a constant, not the
// device's SM count, so that the plan (and so the bits) is the same on every
// GPU; about 8 per SM of an H100 or H200 (132 SMs).
constexpr long long kTargetItems = 1024;
// Chunks of a long row when it need not be cut finer: at most one per block
// that fits on the GPU at once. At 1024, a sum of 2^24 float32 (48
// registers: 5 blocks of 256 per SM, 660 on 132 SMs) ran 364 blocks in a
// second round (0.65 of DRAM's speed, H200, Nsight Compute).
constexpr long long kRowItems = 512;
constexpr int kThreads = 256;
constexpr int kMaxSteps = 16;   // the most block steps one piece of work takes
constexpr int kMaxRowItems = 8; // normalize_rows: logical vectors per thread

long long cdiv(long long a, long long b) { return (a + b - 1) / b; }
int pow2ceil(long long v) {
  int p = 1;
  while (p < v && p < (1 << 30)) p <<= 1;
  return p;
}

std::string storage_type(DType t) {
  switch (t) {
    case DType::Bool: return "cj_u8";  // read as != 0 (load_expr): any nonzero byte is True
    case DType::Int8: return "cj_i8";
    case DType::Int16: return "cj_i16";
    case DType::Int32: return "cj_i32";
    case DType::Int64: return "cj_i64";
    case DType::UInt8: return "cj_u8";
    case DType::UInt16: return "cj_u16";
    case DType::UInt32: return "cj_u32";
    case DType::UInt64: return "cj_u64";
    case DType::Float16:
    case DType::BFloat16: return "cj_u16";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Complex64:
    case DType::Complex128: break;
  }
  fail(ErrorCode::Usage, "reductions of {} values are not supported yet; reduce the real and imaginary parts apart",
       dtype_name(t));
}
// The type a value is computed in: float for the 16-bit floats.
std::string compute_type(DType t) {
  if (t == DType::Bool) return "bool";
  return t == DType::Float16 || t == DType::BFloat16 ? "float" : storage_type(t);
}
// A stored element as its compute type. A float16 NaN keeps its sign and
// payload (h2f) where a map may look at them (signbit, copysign); a plain
// reduction only asks whether it is a NaN, and PTX's one-instruction cvt
// keeps that: h2f's select chain held float16 max to 0.3-0.45 of the memory's
// speed (bench/results/reductions_h100/ncu_h100.txt).
std::string load_expr(DType t, const std::string& v, bool nan_bits = true) {
  if (t == DType::Bool) return "(" + v + " != 0)";
  if (t == DType::Float16) return (nan_bits ? "cj::h2f(" : "cj::cvt_f32_f16(") + v + ")";
  if (t == DType::BFloat16) return "cj::b2f(" + v + ")";
  return v;
}
// A computed value as the element stored.
std::string store_expr(DType t, const std::string& v) {
  if (t == DType::Float16) return "cj::f2h((float)(" + v + "))";
  if (t == DType::BFloat16) return "cj::f2b((float)(" + v + "))";
  return "(" + storage_type(t) + ")(" + v + ")";
}

int vec_of(const std::vector<ReduceInput>& inputs) {
  std::size_t widest = 1;
  for (const ReduceInput& in : inputs) widest = std::max(widest, dtype_size(in.dtype));
  return static_cast<int>(16 / widest);
}

void check_inputs(const std::vector<ReduceInput>& inputs) {
  if (inputs.empty() || inputs.size() > 8)
    fail(ErrorCode::Usage, "a reduction takes 1 to 8 inputs, got {}", inputs.size());
  for (const ReduceInput& in : inputs) (void)storage_type(in.dtype);
}

std::string op_struct(ReduceOp op, bool index32) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean: return "cj::red::sum<cj_val>";
    case ReduceOp::Prod: return "cj::red::prod<cj_val>";
    case ReduceOp::Min: return "cj::red::min<cj_val>";
    case ReduceOp::Max: return "cj::red::max<cj_val>";
    case ReduceOp::ArgMin: return index32 ? "cj::red::argmin<cj_val, int>" : "cj::red::argmin<cj_val>";
    case ReduceOp::ArgMax: return index32 ? "cj::red::argmax<cj_val, int>" : "cj::red::argmax<cj_val>";
    case ReduceOp::Any: return "cj::red::any";
    case ReduceOp::All: return "cj::red::all";
    case ReduceOp::Var:
    case ReduceOp::Std: return "cj::red::welford<cj_val>";
  }
  return "?";
}

// Bytes of the accumulator (reduce.cuh's acc types).
std::size_t acc_size(const ReduceSpec& s, bool index32) {
  const std::size_t v = s.value == DType::Float16 || s.value == DType::BFloat16 ? 4 : dtype_size(s.value);
  switch (s.op) {
    case ReduceOp::ArgMin:
    case ReduceOp::ArgMax: return index32 ? 8 : 16;  // index32: values of 4 bytes or less
    case ReduceOp::Any:
    case ReduceOp::All: return 1;
    case ReduceOp::Var:
    case ReduceOp::Std: return 3 * v;
    default: return v;
  }
}

std::string default_post(const ReduceSpec& s) {
  switch (s.op) {
    case ReduceOp::ArgMin:
    case ReduceOp::ArgMax: return "r.i";
    // An integer dtype= sums in that dtype, then divides in float64, as NumPy
    // (n as that dtype would wrap: an int8 mean of 130 elements divided by -126).
    case ReduceOp::Mean: return is_float(s.value) || is_complex(s.value) ? "r / (cj_val)n" : "(double)r / (double)n";
    // NumPy divides by max(n - ddof, 0).
    case ReduceOp::Var: return fmt::format("r.m2 / (cj_val)cj::red::dof(n, {})", s.ddof);
    case ReduceOp::Std: return fmt::format("sqrt(r.m2 / (cj_val)cj::red::dof(n, {}))", s.ddof);
    default: return "r";
  }
}

// The helpers every reduction kernel includes, the input struct and the map.
std::string common_functions(const std::vector<ReduceInput>& inputs, const std::string& map, DType value) {
  std::string s = fmt::format("typedef {} cj_val;\nstruct cj_in {{\n", compute_type(value));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    s += fmt::format("  const {}* __restrict__ p{};\n", storage_type(inputs[i].dtype), i);
  s += "};\n\n// The map, on each input's compute-type value.\nstatic __device__ __forceinline__ cj_val cj_map(";
  for (std::size_t i = 0; i < inputs.size(); ++i)
    s += fmt::format("{}const {} {}", i ? ", " : "", compute_type(inputs[i].dtype), inputs[i].name);
  s += fmt::format(") {{\n  return (cj_val)({});\n}}\n", map.empty() ? inputs[0].name : map);
  return s;
}

// Loads VEC elements of every input at flat index cj_k into arrays cj_v<i>:
// one aligned vector each, or VEC scalar loads (the same elements, in the same
// accumulators: only the instructions differ, never the bits).
// A float16 input whose NaN bits the map may see is converted a vector at a
// time into cj_f<i> (half.cuh's h2f_vec: one NaN test per vector, not h2f's
// per element, which held the float16 dot to 0.75-0.85 of the memory's speed:
// bench/results/reductions_h200/ncu_misses_0809764_h200.txt).
bool vector_h2f(DType t, bool nan_bits) { return t == DType::Float16 && nan_bits; }

// An input's vector type: narrower inputs move fewer bytes per vector.
std::string vec_type(const ReduceInput& in, int n) {
  const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(in.dtype);
  return fmt::format("cj::vec<{}, {}, {}>", storage_type(in.dtype), n, std::min<std::size_t>(16, bytes));
}
// The loads into vectors `dst`0, `dst`1, ... (declared by the caller).
std::string load_lines(const std::vector<ReduceInput>& inputs, int vec, bool vector_loads, const std::string& dst) {
  std::string s;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (vector_loads)
      s += fmt::format("  {0}{1} = *reinterpret_cast<const {2}*>(in.p{1} + cj_k);\n", dst, i, vec_type(inputs[i], vec));
    else
      s += fmt::format("#pragma unroll\n  for (int cj_e = 0; cj_e < {0}; ++cj_e) {1}{2}.v[cj_e] = in.p{2}[cj_k + cj_e];\n",
                       vec, dst, i);
  }
  return s;
}
std::string convert_lines(const std::vector<ReduceInput>& inputs, int vec, bool nan_bits) {
  std::string s;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (vector_h2f(inputs[i].dtype, nan_bits))
      s += fmt::format("  float cj_f{0}[{1}];\n  cj::h2f_vec(cj_v{0}, cj_f{0});\n", i, vec);
  return s;
}
std::string load_block(const std::vector<ReduceInput>& inputs, int vec, bool vector_loads, bool nan_bits) {
  std::string s;
  for (std::size_t i = 0; i < inputs.size(); ++i) s += fmt::format("  {} cj_v{};\n", vec_type(inputs[i], vec), i);
  return s + load_lines(inputs, vec, vector_loads, "cj_v") + convert_lines(inputs, vec, nan_bits);
}

// The kernels' loads apart from their folds: cj_raw holds one vector of every
// input, cj_vload fills it, and cj_vfold_raw / cj_vslot_raw convert and fold
// it. A kernel loads all of a step's vectors before it folds any: the float16
// NaN test (h2f_vec) is a branch, and a load behind it waited for the one
// before (float16 sum(x*y) at 0.76-0.81 of the stream on an H200, 83 % of
// warps' time waiting on loads: bench/results/reductions_h200/ab_cols_combine/).
std::string raw_functions(const std::vector<ReduceInput>& inputs, int vec, bool vector_loads) {
  std::string s = "struct cj_raw {\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) s += fmt::format("  {} v{};\n", vec_type(inputs[i], vec), i);
  s += "};\nstatic __device__ __forceinline__ cj_raw cj_vload(const cj_in in, long long cj_k) {\n  cj_raw cj_r;\n";
  s += load_lines(inputs, vec, vector_loads, "cj_r.v") + "  return cj_r;\n}\n";
  return s;
}
// The start of a function of `cj_r`: its vectors as cj_v<i>, converted.
std::string raw_views(const std::vector<ReduceInput>& inputs, int vec, bool nan_bits) {
  std::string s;
  for (std::size_t i = 0; i < inputs.size(); ++i) s += fmt::format("  const {0}& cj_v{1} = cj_r.v{1};\n", vec_type(inputs[i], vec), i);
  return s + convert_lines(inputs, vec, nan_bits);
}
std::string map_call(const std::vector<ReduceInput>& inputs, const char* at, bool nan_bits) {
  std::string s = "cj_map(";
  for (std::size_t i = 0; i < inputs.size(); ++i)
    s += (i ? ", " : "") + (vector_h2f(inputs[i].dtype, nan_bits)
                                 ? fmt::format("cj_f{}[{}]", i, at)
                                 : load_expr(inputs[i].dtype, fmt::format("cj_v{}.v[{}]", i, at), nan_bits));
  return s + ")";
}

// The rows kernel's fold of one vector into its slots (cj_vslot), and what
// turns the slots into accumulators before the tail and the tree
// (cj_vfinish): cj_vfold and nothing, or for argmin/argmax with one slot per
// vector (reduce.cuh's arg_slot_), the vector's best value and a second
// look at the one vector that holds a slot's best.
std::string slot_functions(const ReduceSpec& sp, int vec, int slots, bool index32) {
  const std::string wrapper =
      "static __device__ __forceinline__ void cj_vslot(const cj_in in, long long cj_k, long long cj_j, cj_acc* cj_a) {\n"
      "  cj_vslot_raw(cj_vload(in, cj_k), cj_j, cj_a);\n}\n";
  if (slots != 1)
    return "static __device__ __forceinline__ void cj_vslot_raw(const cj_raw& cj_r, long long cj_j, cj_acc* cj_a) {\n"
           "  cj_vfold_raw(cj_r, cj_j, 1, cj_a);\n}\n" +
           wrapper + "template <int N> static __device__ __forceinline__ void cj_vfinish(const cj_in, long long, cj_acc (&)[N]) {}\n";
  std::string s = fmt::format("typedef cj::red::arg_slot_<cj_val, {}, {}> cj_slot;\n", sp.op == ReduceOp::ArgMax,
                              index32 ? "int" : "long long");
  s += "static __device__ __forceinline__ void cj_vslot_raw(const cj_raw& cj_r, long long cj_j, cj_acc* cj_a) {\n";
  s += raw_views(sp.inputs, vec, !sp.map.empty());
  s += fmt::format("  cj_val cj_x[{0}];\n#pragma unroll\n  for (int cj_e = 0; cj_e < {0}; ++cj_e) cj_x[cj_e] = {1};\n", vec,
                   map_call(sp.inputs, "cj_e", !sp.map.empty()));
  s += "  cj_a[0] = cj_slot::take(cj_a[0], cj_slot::best(cj_x), cj_j);\n}\n";
  s += wrapper;
  // Every slot's vector is loaded again before any is folded: folded as each
  // came, the loads went out one after another, a round trip each, at the end
  // of every chunk (up to 1.04x for 32-bit values, H200).
  s += fmt::format(
      "template <int N> static __device__ __forceinline__ void cj_vfinish(const cj_in in, long long cj_k0, cj_acc (&cj_a)[N]) {{\n"
      "  cj_raw cj_r[N];\n"
      "#pragma unroll\n  for (int cj_s = 0; cj_s < N; ++cj_s)\n"
      "    if (cj_a[cj_s].i != cj_op::identity().i) cj_r[cj_s] = cj_vload(in, cj_k0 + cj_a[cj_s].i);\n"
      "#pragma unroll\n  for (int cj_s = 0; cj_s < N; ++cj_s) {{\n"
      "    const long long cj_j = cj_a[cj_s].i;\n"
      "    if (cj_j == cj_op::identity().i) continue;\n"
      "    cj_acc cj_l[{0}];\n#pragma unroll\n    for (int cj_e = 0; cj_e < {0}; ++cj_e) cj_l[cj_e] = cj_op::identity();\n"
      "    cj_vfold_raw(cj_r[cj_s], cj_j, 1, cj_l);\n"
      "    cj_a[cj_s] = cj::red::fold<cj_op, {0}>(cj_l);\n  }}\n}}\n",
      vec);
  return s;
}

std::string reduce_functions(const ReduceSpec& sp, const ReducePlan& plan, bool vector_loads) {
  const int vec = plan.vec;
  std::string s = common_functions(sp.inputs, sp.map, sp.value);
  s += fmt::format("typedef {} cj_op;\ntypedef cj_op::acc cj_acc;\ntypedef {} cj_out_t;\n\n", op_struct(sp.op, plan.index32),
                   storage_type(sp.out));
  // One element at flat index cj_k, index cj_j along the reduced axis.
  s += "static __device__ __forceinline__ cj_acc cj_elem(const cj_in in, long long cj_k, long long cj_j) {\n  return cj_op::lift(cj_map(";
  for (std::size_t i = 0; i < sp.inputs.size(); ++i)
    s += (i ? ", " : "") + load_expr(sp.inputs[i].dtype, fmt::format("in.p{}[cj_k]", i), !sp.map.empty());
  s += "), cj_j);\n}\n\n";
  // VEC elements from flat index cj_k into accumulators cj_a[0..VEC), element
  // e at reduced index cj_j + e * cj_jstep (1 along a row, 0 across columns).
  s += raw_functions(sp.inputs, vec, vector_loads);
  s += "static __device__ __forceinline__ void cj_vfold_raw(const cj_raw& cj_r, long long cj_j, int cj_jstep, cj_acc* cj_a) {\n";
  s += raw_views(sp.inputs, vec, !sp.map.empty());
  s += fmt::format("#pragma unroll\n  for (int cj_e = 0; cj_e < {}; ++cj_e)\n", vec);
  s += "    cj_a[cj_e] = cj::red::add1<cj_op>(cj_a[cj_e], " + map_call(sp.inputs, "cj_e", !sp.map.empty()) +
       ", cj_j + cj_e * cj_jstep);\n}\n";
  s += "static __device__ __forceinline__ void cj_vfold(const cj_in in, long long cj_k, long long cj_j, int cj_jstep, cj_acc* cj_a) {\n"
       "  cj_vfold_raw(cj_vload(in, cj_k), cj_j, cj_jstep, cj_a);\n}\n\n";
  s += slot_functions(sp, vec, plan.slots, plan.index32);
  s += "static __device__ __forceinline__ cj_out_t cj_post(const cj_acc r, const long long n) {\n";
  s += "  (void)n;\n  return " + store_expr(sp.out, sp.post.empty() ? default_post(sp) : sp.post) + ";\n}\n";
  s += "static __device__ __forceinline__ void cj_store(cj_out_t* cj_out, long long cj_o, const cj_acc r, const long long n) {\n";
  s += "  cj_out[cj_o] = cj_post(r, n);\n}\n";
  return s;
}

std::string helpers() {
  return template_text("prelude.cuh") + "\n" + template_text("half.cuh") + "\n" + template_text("reduce.cuh");
}

std::string header(const std::string& what, const std::string& plan) {
  return fmt::format("// ==== cujit reduction kernel ====\n// {}\n// plan: {}", what, plan);
}

const char* op_name(ReduceOp op) {
  static const char* names[] = {"sum", "prod", "min", "max", "argmin", "argmax", "any", "all", "mean", "var", "std"};
  return names[static_cast<int>(op)];
}

bool aligned16(CUdeviceptr p) { return p % 16 == 0; }

std::string inputs_key(const std::vector<ReduceInput>& inputs) {
  std::string s;
  for (const ReduceInput& in : inputs) s += in.name + ":" + std::string(dtype_name(in.dtype)) + ",";
  return s;
}
// Everything the source of a reduction depends on.
std::string what_key(const ReduceSpec& s, const ReducePlan& p, bool vector_loads) {
  return fmt::format("reduce {} {} map={} helpers={:x} value={} out={} post={} ddof={} {} {}", op_name(s.op),
                     inputs_key(s.inputs), s.map, std::hash<std::string>{}(s.helpers), dtype_name(s.value),
                     dtype_name(s.out), s.post, s.ddof, p.source_key(), vector_loads ? "vector" : "scalar");
}

}  // namespace

std::string ReducePlan::key() const {
  switch (variant) {
    case Variant::Group:
      return rows_per > 1 ? fmt::format("group t{} v{} g{} r{} items{}", threads, vec, group, rows_per, items)
                          : fmt::format("group t{} v{} g{} items{}", threads, vec, group, items);
    case Variant::Rows:
      return fmt::format("rows t{} v{}{} c{}x{} items{}", threads, vec, slots == 1 ? " slots" : "", chunk, splits, items);
    case Variant::Cols: return fmt::format("cols t{}x{} v{}{} k{}x{} items{}", tx, ty, vec, flat ? " flat" : "", chunk, splits, items);
  }
  return "?";
}

std::string ReducePlan::source_key() const {
  switch (variant) {
    case Variant::Group:
      return (rows_per > 1 ? fmt::format("group t{} v{}x{} g{} r{}", threads, vec, unroll, group, rows_per)
                           : fmt::format("group t{} v{}x{} g{}", threads, vec, unroll, group)) +
             (index32 ? " i32" : "");
    case Variant::Rows:
      return fmt::format("rows t{} v{}x{}{}{}{}{}", threads, vec, unroll,
                         acc_rows > 0 && acc_rows < unroll ? fmt::format(" a{}", acc_rows) : "",
                         slots == 1 ? " slots" : "", index32 ? " i32" : "", loads_first ? "" : " fold-as-loaded");
    case Variant::Cols: return fmt::format("cols t{}x{} v{}x{}{}{}", tx, ty, vec, unroll, flat ? " flat" : "", index32 ? " i32" : "");
  }
  return "?";
}

// Nothing to reduce (an axis of length 1): [outer, 1, inner] is one flat row
// of columns, which the columns kernel maps with whole-vector loads and no
// tree. As rows of one element, (2^26, 1) over its last axis ran at 0.74 of
// the memory's speed (H200, bench/results/reductions_h200/ncu_misses_0809764_h200.txt).
static ReduceShape flat_when_unreduced(ReduceShape sh) {
  if (sh.len == 1 && sh.outer > 1) sh.inner *= sh.outer, sh.outer = 1;
  return sh;
}

ReducePlan reduce_plan(const ReduceSpec& spec, const ReduceShape& shape) {
  check_inputs(spec.inputs);
  const ReduceShape sh = flat_when_unreduced(shape);
  if (sh.outer < 0 || sh.len < 0 || sh.inner < 0)
    fail(ErrorCode::Usage, "reduction shape [{}, {}, {}] has a negative extent", sh.outer, sh.len, sh.inner);
  const bool no_identity = spec.op == ReduceOp::Min || spec.op == ReduceOp::Max || spec.op == ReduceOp::ArgMin ||
                           spec.op == ReduceOp::ArgMax;
  if (no_identity && sh.len == 0 && sh.outer * sh.inner > 0)
    fail(ErrorCode::Usage, "zero-size array to reduction operation {} which has no identity; give it a non-empty axis",
         op_name(spec.op));
  ReducePlan p;
  p.threads = kThreads;
  p.vec = vec_of(spec.inputs);
  // A 32-bit index for float32/float16/bfloat16 values: an 8-byte pair, not
  // 16 with 4 of padding. A float32 argmax took 32 registers, not 40, and ran
  // 1.05-1.10x faster at 2^20-2^28, float16 1.05-1.14x (H200). Not for the
  // others, as measured there: a double's pair stays 16 bytes and NVRTC gave
  // it 72 registers, not 48 (1.35x slower at 2^24); int32 ran 0.92-0.95x.
  // The identity's index (2^31 - 1) must lie past every real one.
  p.index32 = (spec.op == ReduceOp::ArgMin || spec.op == ReduceOp::ArgMax) && sh.len < 0x7fffffffLL &&
              (spec.value == DType::Float32 || spec.value == DType::Float16 || spec.value == DType::BFloat16);
  // A vector of accumulators within 128 bytes: narrow inputs with wide
  // accumulators (var of bool: 16 x 24 bytes) would spill, and the columns'
  // shared tile (threads x VEC accumulators) would pass the 48 KB a block has.
  while (p.vec > 1 && static_cast<std::size_t>(p.vec) * acc_size(spec, p.index32) > 128) p.vec /= 2;
  // U x VEC accumulators per thread up to 128 bytes (32 registers), so that
  // 5+ blocks of 256 fit on an SM: argmax of float16 (8 lanes of 16 bytes)
  // takes 1 row, not 4 (at 4, 116 registers held occupancy to 25%, H100).
  while (p.unroll > 1 && static_cast<std::size_t>(p.unroll * p.vec) * acc_size(spec, p.index32) > 128) p.unroll /= 2;
  // Rows (or rows of columns) shorter than a vector: vectors as long as they
  // are (a power of two), not one element at a time. With vectors of 8,
  // float16 sums of (2^24, 4) ran at 0.28 of the stream over axis 0 and 0.53
  // over axis 1 (H200, 2026-11-29).
  while (p.vec > 1 && p.vec > (sh.inner == 1 ? sh.len : sh.inner)) p.vec /= 2;
  if (sh.inner == 1) {
    const long long rows = sh.outer, len = sh.len;
    if (len <= 32LL * p.vec * kMaxSteps && rows > 1) {
      p.variant = ReducePlan::Variant::Group;
      p.group = std::min(32, pow2ceil(cdiv(std::max(1LL, len), p.vec)));
      // A row of one to GROUP vectors (one per lane at most), and rows enough
      // to fill the GPU: the unrolled accumulator rows become row sets instead.
      // (Rows shorter than a vector are loaded one element at a time: there
      // row sets measured slower, 0.57 against 0.73 of the ceiling, H200.)
      if (len >= p.vec && len / p.vec <= p.group && cdiv(rows, static_cast<long long>(kThreads / p.group) * p.unroll) >= kTargetItems)
        p.rows_per = p.unroll, p.unroll = 1;
      p.items = cdiv(rows, static_cast<long long>(kThreads / p.group) * p.rows_per);
      return p;
    }
    p.variant = ReducePlan::Variant::Rows;
    long long step = static_cast<long long>(kThreads) * p.vec * p.unroll, max_steps = kMaxSteps;
    double bytes = 0;
    for (const ReduceInput& in : spec.inputs) bytes += static_cast<double>(dtype_size(in.dtype)) * rows * len;
    if (spec.op == ReduceOp::ArgMin || spec.op == ReduceOp::ArgMax) {
      // One (value, vector) slot per unrolled vector (reduce.cuh's
      // arg_slot_). No sum's accuracy to keep: chunks of up to 256 vectors a
      // thread (64 steps of 4, 128 of 2), fewer ends of chunks. Two slots for values
      // of 4 bytes or less, four for 8: with four, 32-bit argmax took
      // 1.04-1.27x longer at 2^22-2^26; with two, float64 took up to 10 %
      // longer at 2^26 (H200, bench/results/reductions_h200/argmax_vfinish/).
      // Past 16 MiB read, 4-byte or smaller values load twice as many vectors
      // a step, the slots taking them in turn (still in index order): 1.01-1.03x
      // at 2^24-2^30, 0.95-0.97x at 2^22; 0.87-0.97x for float64 (H200,
      // call 3 of bench/results/gpu_check_2026-11-29/).
      p.slots = 1;
      p.acc_rows = p.unroll = dtype_size(spec.value) <= 4 ? 2 : 4;
      if (dtype_size(spec.value) <= 4 && bytes > 16.0 * (1 << 20)) p.unroll = 2 * p.acc_rows;
      step = static_cast<long long>(kThreads) * p.vec * p.unroll;
      max_steps = 16 * kMaxSteps / p.unroll;
    }
    // Up to 32 MiB read, latency, not bandwidth, is the limit: half as many
    // chunks, each twice as long, halve the block trees and the partials
    // that the last block folds (float64 max of 2^20: 7.4 us, not 8.4; float32
    // argmax: 7.6, not 8.8). From 64 MiB, 256 chunks left the GPU underfed
    // (mostly 0.68-0.99x; H200, calls 3 and 6 of bench/results/reductions_h200/argmax_vfinish/).
    const long long row_items = bytes <= 32.0 * (1 << 20) ? kRowItems / 2 : kRowItems;
    const long long most = std::max(1LL, cdiv(len, step));
    long long splits = std::max(cdiv(len, step * max_steps), std::min(cdiv(row_items, std::max(1LL, rows)), most));
    p.chunk = std::max<long long>(p.vec, cdiv(cdiv(std::max(1LL, len), splits), p.vec) * p.vec);
    p.splits = static_cast<int>(std::max(1LL, cdiv(len, p.chunk)));
    p.items = rows * p.splits;
    // A step's U loads before its first fold only where a chunk is 8 steps or
    // more: the loads' registers cost occupancy (float16 sum(x*y): 96 against
    // 64), which chunks of few steps, the small reductions, need more (2^22:
    // 8.4 us, not 10.0; 2^24: 1.04x; the same from 2^26; H200, call 2 of
    // bench/results/reductions_h200/argmax_vfinish/).
    p.loads_first = p.chunk >= 8 * step;
    if (p.splits > 1) {
      p.partial_count = static_cast<std::size_t>(p.items);
      p.counters = static_cast<std::size_t>(rows);
    }
    return p;
  }
  p.variant = ReducePlan::Variant::Cols;
  const long long ncv = cdiv(sh.inner, p.vec);
  int ty = ncv >= 32 ? kThreads / 32 : kThreads / pow2ceil(ncv);
  ty = std::max(1, std::min(ty, pow2ceil(std::max(1LL, sh.len))));
  // Few rows of many columns: fewer threads per column, each walking 16+
  // rows, while the tiles still fill the GPU. With one or two rows per
  // thread, a block of 4 x 1024 float32 was one load in flight per thread and
  // two barriers (H200: 0.34 of the ceiling at (4, 2^24), axis 0).
  while (ty > 1 && sh.len < 16LL * ty && sh.outer * cdiv(ncv, kThreads / (ty / 2)) >= kTargetItems) ty /= 2;
  p.ty = ty;
  p.tx = kThreads / ty;
  p.flat = sh.len == 1;  // then outer is 1 (flat_when_unreduced) and ty 1
  const long long tiles = cdiv(ncv, p.tx);
  const long long kstep = static_cast<long long>(ty) * p.unroll;
  const long long most = std::max(1LL, cdiv(sh.len, kstep));
  // Splits as rows' chunks, at most one per block that fits at once: at two
  // rounds (1024 items), axis 0 of (2^18, 256) and (2^20, 64) ran at 0.89 of
  // the stream, at one round 0.94 (H200; 1.5 rounds 0.87).
  const long long splits =
      std::max(cdiv(sh.len, kstep * kMaxSteps), std::min(cdiv(kRowItems, std::max(1LL, sh.outer * tiles)), most));
  p.chunk = std::max(1LL, cdiv(std::max(1LL, sh.len), splits));
  p.splits = static_cast<int>(std::max(1LL, cdiv(sh.len, p.chunk)));
  p.items = sh.outer * tiles * p.splits;
  if (p.splits > 1) {
    p.partial_count = static_cast<std::size_t>(p.items) * static_cast<std::size_t>(p.tx * p.vec);
    p.counters = static_cast<std::size_t>(sh.outer * tiles);
  }
  return p;
}

ReduceWorkspace::~ReduceWorkspace() {
  if (!partials_.size() && !counters_.size()) return;
  try {
    synchronize_context(device_);
  } catch (...) {  // a lost context: the memory is the driver's to free
  }
}

void ReduceWorkspace::reserve(std::size_t partial_bytes, std::size_t counters) {
  const std::size_t cbytes = counters * sizeof(unsigned);
  const bool grows = partial_bytes > partials_.size() || cbytes > counters_.size();
  // The old buffers go back to the pool in the legacy stream's order, which a
  // non-blocking stream's queued reduction is not part of: wait for the
  // device first, as cuMemFree did. Growing is rare (the sizes only rise).
  if (grows && (partials_.size() || counters_.size())) synchronize_context(device_);
  if (partial_bytes > partials_.size()) partials_ = DeviceBuffer(device_, std::max<std::size_t>(partial_bytes, 4096));
  if (cbytes > counters_.size()) {
    counters_ = DeviceBuffer(device_, std::max<std::size_t>(cbytes, 4096));
    counters_.fill_bytes(0);
  }
}

std::string ReduceKernels::source(const ReduceSpec& spec, const ReducePlan& plan, bool vector_loads) {
  std::map<std::string, std::string> vars;
  vars["HEADER"] = header(fmt::format("{} of {}", op_name(spec.op), spec.map.empty() ? spec.inputs[0].name : spec.map),
                          plan.source_key() + (vector_loads ? " vector loads" : " scalar loads"));
  vars["HELPERS"] = helpers() + (spec.helpers.empty() ? "" : "\n" + spec.helpers);
  vars["FUNCTIONS"] = reduce_functions(spec, plan, vector_loads);
  vars["SLOTS"] = std::to_string(plan.slots == 1 ? 1 : plan.vec);
  vars["THREADS"] = std::to_string(plan.threads);
  vars["VEC"] = std::to_string(plan.vec);
  vars["UNROLL"] = std::to_string(plan.unroll);
  vars["LOADG"] = std::to_string(plan.loads_first ? plan.unroll : 1);
  vars["ACC_ROWS"] = std::to_string(plan.acc_rows > 0 ? plan.acc_rows : plan.unroll);
  const char* file = "kernel_reduce_rows.cu";
  if (plan.variant == ReducePlan::Variant::Group) {
    file = "kernel_reduce_group.cu";
    vars["GROUP"] = std::to_string(plan.group);
    vars["ROWS_PER"] = std::to_string(plan.rows_per);
    vars["KERNEL_NAME"] = "cj_reduce_group";
  } else if (plan.variant == ReducePlan::Variant::Cols) {
    file = "kernel_reduce_cols.cu";
    vars["TX"] = std::to_string(plan.tx);
    vars["TY"] = std::to_string(plan.ty);
    vars["FLAT"] = plan.flat ? "1" : "0";
    vars["MIN_BLOCKS"] = plan.flat ? "1" : "4";
    // A step's loads before its folds where an input is a 16-bit float,
    // whose conversions between one load and the next held float16 sums
    // over axis 0 of (16, 2^22) to 0.78 of the stream (0.93 loads first).
    // Not for the others: there the loads' registers cost 2-5 % (H200,
    // bench/results/reductions_h200/f16_loads_first/).
    const bool half = std::any_of(spec.inputs.begin(), spec.inputs.end(), [](const ReduceInput& in) { return is_half(in.dtype); });
    vars["LOADS_FIRST"] = half ? "1" : "0";
    vars["KERNEL_NAME"] = "cj_reduce_cols";
  } else {
    vars["KERNEL_NAME"] = "cj_reduce_rows";
  }
  return render_template(template_text(file), vars);
}

std::string ReduceKernels::source(const RowNormSpec& spec, int vec, int items, bool vector_loads, bool full) {
  std::string f = common_functions(spec.inputs, spec.map, spec.value);
  f += fmt::format("typedef {} cj_out_t;\n\n", storage_type(spec.out));
  // VEC mapped values of a row from flat index cj_k (row index cj_j); lanes
  // past the row's end are not read.
  f += "static __device__ __forceinline__ void cj_rload(const cj_in in, long long cj_k, long long cj_j, long long cj_len, cj_val* cj_x) {\n";
  f += fmt::format("  if (cj_j + {} <= cj_len) {{\n", vec);
  std::string lb = load_block(spec.inputs, vec, vector_loads, true);
  f += lb;
  f += fmt::format("#pragma unroll\n    for (int cj_e = 0; cj_e < {}; ++cj_e) cj_x[cj_e] = {};\n    return;\n  }}\n", vec,
                   map_call(spec.inputs, "cj_e", true));
  f += fmt::format("#pragma unroll\n  for (int cj_e = 0; cj_e < {}; ++cj_e)\n    cj_x[cj_e] = cj_j + cj_e < cj_len ? cj_map(", vec);
  for (std::size_t i = 0; i < spec.inputs.size(); ++i)
    f += (i ? ", " : "") + load_expr(spec.inputs[i].dtype, fmt::format("in.p{}[cj_k + cj_e]", i));
  f += ") : cj_val(0);\n}\n\n";
  const std::string epi = spec.epilogue.empty() ? "(x - mean) / std" : spec.epilogue;
  const std::size_t osize = dtype_size(spec.out);
  const std::size_t oalign = std::min<std::size_t>(16, osize * static_cast<std::size_t>(vec));
  f += "static __device__ __forceinline__ void cj_wstore(cj_out_t* cj_out, long long cj_k, long long cj_j, long long cj_len,\n"
       "    const cj_val* cj_x, const cj_val mean, const cj_val var, const cj_val std) {\n  (void)mean; (void)var; (void)std;\n";
  f += fmt::format("  cj::vec<cj_out_t, {0}, {1}> cj_w;\n#pragma unroll\n  for (int cj_e = 0; cj_e < {0}; ++cj_e) {{\n"
                   "    const cj_val x = cj_x[cj_e];\n    cj_w.v[cj_e] = {2};\n  }}\n",
                   vec, oalign, store_expr(spec.out, epi));
  if (vector_loads)
    f += fmt::format("  if (cj_j + {0} <= cj_len) {{\n    *reinterpret_cast<cj::vec<cj_out_t, {0}, {1}>*>(cj_out + cj_k) = cj_w;\n    return;\n  }}\n",
                     vec, oalign);
  f += fmt::format("#pragma unroll\n  for (int cj_e = 0; cj_e < {}; ++cj_e)\n    if (cj_j + cj_e < cj_len) cj_out[cj_k + cj_e] = cj_w.v[cj_e];\n}}\n", vec);
  std::map<std::string, std::string> vars;
  vars["HEADER"] = header("row normalisation: " + epi, fmt::format("rownorm t{} v{} items{}", kThreads, vec, items));
  vars["HELPERS"] = helpers() + (spec.helpers.empty() ? "" : "\n" + spec.helpers);
  vars["FUNCTIONS"] = f;
  vars["THREADS"] = std::to_string(kThreads);
  vars["VEC"] = std::to_string(vec);
  vars["ITEMS"] = std::to_string(items);
  vars["DDOF"] = std::to_string(spec.ddof);
  vars["FULL"] = full ? "1" : "0";
  vars["KERNEL_NAME"] = "cj_reduce_rownorm";
  return render_template(template_text("kernel_reduce_rownorm.cu"), vars);
}

template <class Render>
CUfunction ReduceKernels::function(int device, const std::string& what, const char* name, Render&& render) {
  const DeviceInfo& info = device_info(device);
  const int arch = cap_arch(info.arch());
  const std::string key = fmt::format("{}@{}\n", device, arch) + what;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = functions_.find(key);
    if (it != functions_.end()) return it->second;
  }
  // Compiled through the kernel cache (memory, disk, then NVRTC, once across
  // threads and processes), outside the lock: other kernels compile meanwhile.
  const std::string source = render();
  CompileOptions co;
  co.arch = arch;
  const std::shared_ptr<const cache::Entry> e = compile_through_cache(source, name, co);
  // The module key is the source itself: it decides the image.
  CUfunction f =
      get_function(device, source + fmt::format("@{}", arch), select_image(entry_images(*e, arch), info.arch()), name);
  std::lock_guard<std::mutex> lock(mu_);
  functions_.emplace(key, f);
  return f;
}

namespace {
// Whether a launch of `plan` over `sh` may load whole 16-byte vectors: every
// input aligned, and no vector straddling a row or chunk.
bool vector_loads_for(const ReducePlan& plan, const ReduceShape& sh, std::size_t ninputs, const CUdeviceptr* inputs) {
  bool v = true;
  for (std::size_t i = 0; i < ninputs; ++i) v = v && aligned16(inputs[i]);
  if (plan.variant == ReducePlan::Variant::Cols) return v && sh.inner % plan.vec == 0;
  return v && sh.len % plan.vec == 0 && (plan.chunk == 0 || plan.chunk % plan.vec == 0);
}

const char* kernel_name(const ReducePlan& plan) {
  return plan.variant == ReducePlan::Variant::Group  ? "cj_reduce_group"
         : plan.variant == ReducePlan::Variant::Cols ? "cj_reduce_cols"
                                                     : "cj_reduce_rows";
}

// normalize_rows' launch: the vector width, the row's items per thread (a
// power of two: the registers are summed in fold's pairwise tree), the loads.
struct RowNormLaunch {
  int vec = 1, items = 1;
  bool vector_loads = false;
  bool full = false;  // every row exactly kThreads x items x vec long: no lane checks its index
};
RowNormLaunch rownorm_launch(const RowNormSpec& spec, long long len, const CUdeviceptr* inputs, CUdeviceptr out) {
  RowNormLaunch r;
  r.vec = vec_of(spec.inputs);
  const long long items = cdiv(len, static_cast<long long>(kThreads) * r.vec);
  if (pow2ceil(items) > kMaxRowItems)
    fail(ErrorCode::Usage, "row normalisation keeps a row on chip: rows of at most {} elements, got {}",
         static_cast<long long>(kMaxRowItems) * kThreads * r.vec, len);
  r.items = pow2ceil(items);
  r.vector_loads =
      len % r.vec == 0 && aligned16(out) && dtype_size(spec.out) * static_cast<std::size_t>(r.vec) <= 16;
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) r.vector_loads = r.vector_loads && aligned16(inputs[i]);
  r.full = r.vector_loads && len == static_cast<long long>(r.items) * kThreads * r.vec;
  return r;
}

std::string rownorm_what(const RowNormSpec& spec, const RowNormLaunch& r) {
  return fmt::format("rownorm {} map={} value={} out={} epilogue={} helpers={:x} ddof={} items={} {}{}",
                     inputs_key(spec.inputs), spec.map, dtype_name(spec.value), dtype_name(spec.out), spec.epilogue,
                     std::hash<std::string>{}(spec.helpers), spec.ddof, r.items, r.vector_loads ? "vector" : "scalar",
                     r.full ? " full" : "");
}

// Whether the result is the same for any cut of the reduced range into chunks:
// integer wrapping and min/max/arg* are exact; floating-point sums are not.
bool exact_combine(const ReduceSpec& s) {
  switch (s.op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod: return is_integer(s.value) || s.value == DType::Bool;
    case ReduceOp::Mean:
    case ReduceOp::Var:
    case ReduceOp::Std: return false;
    default: return true;
  }
}

unsigned grid_for(int device, CUfunction f, long long items, unsigned grid) {
  if (grid > 0) return grid;
  const long long resident =
      static_cast<long long>(max_active_blocks_per_sm(device, f, kThreads)) * device_info(device).sm_count;
  return static_cast<unsigned>(std::max(1LL, std::min({items, std::max(1LL, resident), 0x7fffffffLL})));
}
}  // namespace

void ReduceKernels::launch(int device, const ReduceSpec& spec, const ReduceShape& shape, const CUdeviceptr* inputs,
                           CUdeviceptr out, ReduceWorkspace& ws, CUstream stream, const ReducePlan* forced,
                           unsigned grid) {
  // A forced plan of rows keeps the shape it was made for (the test of every variant).
  const ReduceShape sh = forced && forced->variant != ReducePlan::Variant::Cols ? shape : flat_when_unreduced(shape);
  const ReducePlan plan = forced ? *forced : reduce_plan(spec, sh);
  if (sh.outer * sh.inner == 0) return;
  if (ws.device() != device) fail(ErrorCode::Usage, "reduction workspace of device {} used on device {}", ws.device(), device);
  // The flat variant's kernel is only the copy: a forced plan may not carry it to another shape.
  if (plan.flat && (sh.len != 1 || sh.outer != 1 || plan.ty != 1 || plan.splits != 1))
    fail(ErrorCode::Internal, "flat reduction plan '{}' launched on shape [{}, {}, {}]", plan.key(), sh.outer, sh.len, sh.inner);
  const bool vector_loads = vector_loads_for(plan, sh, spec.inputs.size(), inputs);
  const char* name = kernel_name(plan);
  ScopedContext ctx(device);
  CUfunction f = function(device, what_key(spec, plan, vector_loads), name,
                          [&] { return source(spec, plan, vector_loads); });
  // The kernels' accumulator is at most 24 bytes (Welford of doubles).
  ws.reserve(plan.partial_count * 24, plan.counters);
  CUdeviceptr in[8] = {};
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) in[i] = inputs[i];
  CUdeviceptr part = ws.partials(), cnt = ws.counters();
  long long rows = sh.outer, len = sh.len, A = sh.outer, K = sh.len, B = sh.inner, chunk = plan.chunk;
  int splits = plan.splits;
  const unsigned g = grid_for(device, f, plan.items, grid);
  if (plan.variant == ReducePlan::Variant::Group) {
    void* params[] = {in, &out, &rows, &len};
    launch_grid(device, f, g, 1, 1, static_cast<unsigned>(plan.threads), 1, params, stream);
  } else if (plan.variant == ReducePlan::Variant::Rows) {
    // One row in one to four rounds of the blocks that fit on the GPU, of an
    // exact operation: as many chunks as whole rounds (fewer, longer ones, of
    // whole block steps), so that no last round runs with the GPU part idle.
    // argmax of 2^28 float64, 2048 chunks with 660 blocks resident: 1.10x
    // faster in whole rounds (H200, bench/results/reductions_h200/ab_index32_rounds.md). The bits stay the shape's: an exact result does
    // not depend on the chunks.
    const long long rounds = cdiv(splits, static_cast<long long>(g));
    if (rows == 1 && rounds > 1 && rounds <= 4 && exact_combine(spec)) {
      const long long step = static_cast<long long>(plan.threads) * plan.vec * plan.unroll;
      chunk = std::max(chunk, cdiv(cdiv(len, (rounds - 1) * g), step) * step);
      splits = static_cast<int>(cdiv(len, chunk));
    }
    void* params[] = {in, &out, &part, &cnt, &rows, &len, &chunk, &splits};
    launch_grid(device, f, g, 1, 1, static_cast<unsigned>(plan.threads), 1, params, stream);
  } else {
    void* params[] = {in, &out, &part, &cnt, &A, &K, &B, &chunk, &splits};
    launch_grid(device, f, g, 1, 1, static_cast<unsigned>(plan.tx * plan.ty), 1, params, stream);
  }
}

void ReduceKernels::normalize_rows(int device, const RowNormSpec& spec, long long rows, long long len,
                                   const CUdeviceptr* inputs, CUdeviceptr out, CUstream stream, unsigned grid) {
  check_inputs(spec.inputs);
  if (rows <= 0 || len <= 0) return;
  const RowNormLaunch r = rownorm_launch(spec, len, inputs, out);
  ScopedContext ctx(device);
  CUfunction f = function(device, rownorm_what(spec, r), "cj_reduce_rownorm",
                          [&] { return source(spec, r.vec, r.items, r.vector_loads, r.full); });
  CUdeviceptr in[8] = {};
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) in[i] = inputs[i];
  void* params[] = {in, &out, &rows, &len};
  launch_grid(device, f, grid_for(device, f, rows, grid), 1, 1, kThreads, 1, params, stream);
}

ReduceKernels::Kernel ReduceKernels::kernel(const ReduceSpec& spec, const ReduceShape& shape, const CUdeviceptr* inputs) {
  const ReduceShape sh = flat_when_unreduced(shape);
  const ReducePlan plan = reduce_plan(spec, sh);
  if (sh.outer * sh.inner == 0) return {};
  const bool vector_loads = vector_loads_for(plan, sh, spec.inputs.size(), inputs);
  return Kernel{kernel_name(plan), plan.source_key() + (vector_loads ? " vector loads" : " scalar loads"),
                source(spec, plan, vector_loads)};
}

ReduceKernels::Kernel ReduceKernels::kernel(const RowNormSpec& spec, long long rows, long long len,
                                            const CUdeviceptr* inputs, CUdeviceptr out) {
  check_inputs(spec.inputs);
  if (rows <= 0 || len <= 0) return {};
  const RowNormLaunch r = rownorm_launch(spec, len, inputs, out);
  return Kernel{"cj_reduce_rownorm",
                fmt::format("rownorm t{} v{} items{} {}{}", kThreads, r.vec, r.items,
                            r.vector_loads ? "vector loads" : "scalar loads", r.full ? " full" : ""),
                source(spec, r.vec, r.items, r.vector_loads, r.full)};
}

}  // namespace cujit
