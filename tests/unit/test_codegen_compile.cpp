// Generated kernels compile with NVRTC for every front-end program family
// (every operator, function and cast, where/clip, locals, i/n, raw indexing,
// weak scalars), for every dtype the checker accepts them with, in each layout
// variant. No GPU is needed: compile_cuda makes an sm_90 cubin on any machine.
//
// Statements are batched: one kernel per dtype holds every statement that
// checks for that dtype (each with its own output), so one NVRTC call covers
// a hundred operations. The other layout variants compile a smaller program
// per dtype that exercises their loads, stores and index arithmetic.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "cujit/error.hpp"

using namespace cujit;

namespace {

struct NvrtcResult {
  bool ok = false;
  std::string log;
  double ms = 0;
};

// compile_cuda for sm_90 (no GPU needed), as the launcher will call it.
NvrtcResult nvrtc_compile(const std::string& source, const std::string& name) {
  NvrtcResult r;
  auto t0 = std::chrono::steady_clock::now();
  try {
    CompiledKernel k = compile_cuda(source, name, CompileOptions{90, false, {}});
    r.ok = !k.cubin.empty();
    r.log = k.log;
  } catch (const Error& e) {
    r.log = e.what();
  }
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

const DType kAll[] = {DType::Bool,    DType::Int8,    DType::Int16,   DType::Int32,    DType::Int64,
                      DType::UInt8,   DType::UInt16,  DType::UInt32,  DType::UInt64,   DType::Float16,
                      DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};

// The weak scalar that meets dtype t: a Python int for bools and ints, a
// Python float for floats, a Python complex for complex numbers.
DType weak_for(DType t) {
  return is_complex(t) ? DType::Complex128 : is_float(t) ? DType::Float64 : DType::Int64;
}

std::vector<Param> params_for(DType t) {
  return {{"x", t, false, false}, {"y", t, false, false}, {"w", weak_for(t), true, false}, {"r", t, false, true}};
}

// Every statement family, one output each. Many do not check for a given
// dtype (sin of a bool is fine, a shift of a float is not); those are dropped.
std::vector<std::string> all_statements() {
  std::vector<std::string> s;
  // Every function of ops.def with one or two arguments (a new row is compiled here with no edit).
  std::vector<std::string> unary, binary;
  for (std::size_t k = 0; k < builtin_count(); ++k) {
    const Builtin& b = builtin(static_cast<Op>(k));
    if (b.is_operator || b.impl.empty() || b.min_args != b.max_args) continue;
    if (b.min_args == 1) unary.emplace_back(b.name);
    if (b.min_args == 2) binary.emplace_back(b.name);
  }
  const char* ops[] = {"+", "-", "*", "/", "%", "**", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|", "&&", "||"};
  const char* casts[] = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                         "float16", "bfloat16", "float32", "float64", "complex64", "complex128"};
  for (const std::string& f : unary) s.push_back(f + "(x)");
  for (const std::string& f : binary) s.push_back(f + "(x, y)");
  for (const char* op : ops) {
    s.push_back(std::string("x ") + op + " y");
    s.push_back(std::string("x ") + op + " w");
    s.push_back(std::string("w ") + op + " x");
  }
  for (const char* u : {"-", "+", "!", "~"}) s.push_back(std::string(u) + "x");
  for (const char* c : casts) {
    s.push_back(std::string(c) + "(x)");
    s.push_back(std::string("x + ") + c + "(y)");  // every promotion with every dtype
  }
  for (const char* lit : {"1", "-1", "300", "2.5", "1e300", "nan", "inf", "1j", "2.5f", "7u", "18446744073709551615",
                          "-9223372036854775807 - 1", "true", "pi"}) {
    s.push_back(std::string("x + ") + lit);
    s.push_back(std::string("x * ") + lit);
    s.push_back(std::string("x < ") + lit);
    s.push_back(std::string("x == ") + lit);
  }
  s.push_back("x ** 2");
  s.push_back("x ** -1");
  s.push_back("x % 3");
  s.push_back("x << 1");
  s.push_back("x >> 70");
  s.push_back("where(x > y, x, y)");
  s.push_back("where(x, 1, 2.5)");
  s.push_back("x != y ? x : y");
  s.push_back("x ? w : 0");
  s.push_back("clip(x, y, w)");
  s.push_back("clip(x, 0, 1)");
  s.push_back("x + i");
  s.push_back("i * 2 + n");
  s.push_back("float64(i) / float64(n)");
  s.push_back("r[i % size(r)]");
  s.push_back("r[size(r) - 1 - i % size(r)] + x");
  s.push_back("x * size(x)");
  s.push_back("x * w + w");
  s.push_back("(w + 1) * x");
  s.push_back("-x ** 2");
  return s;
}

std::string short_key(const KernelLayout& l) { return l.key_string().substr(0, l.key_string().find('|')); }

// One program of every statement that checks with these parameters.
Program batch_program(const std::vector<Param>& params, const std::vector<std::string>& stmts, int* kept) {
  std::string src;
  int k = 0;
  for (const std::string& e : stmts) {
    std::string line = "o" + std::to_string(k) + " = " + e;
    try {
      compile_program(line, params);
    } catch (const Error&) {
      continue;
    }
    src += line + "\n";
    ++k;
  }
  // Locals (plain, typed, weak), compound assignment and an output read back.
  std::string extra = "t = x * y\nfloat32 u = x\nv = w * 2\nacc = t + x\nacc += y\nlast = u * v + float32(acc)\n";
  try {
    compile_program(src + extra, params);
    src += extra;
  } catch (const Error&) {
  }
  *kept = k;
  return compile_program(src, params);
}

struct Job {
  std::string label;
  std::string source;
};

// Compiles the jobs on two threads (NVRTC is thread-safe) and reports each failure with its source.
void compile_all(const std::vector<Job>& jobs) {
  std::mutex mu;
  std::size_t next = 0;
  std::vector<NvrtcResult> results(jobs.size());
  auto worker = [&]() {
    while (true) {
      std::size_t k;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next >= jobs.size()) return;
        k = next++;
      }
      results[k] = nvrtc_compile(jobs[k].source, "cujit_test");
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  double total = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    total += results[k].ms;
    INFO(jobs[k].label << " (" << results[k].ms << " ms)\n" << results[k].log << "\n---- source ----\n" << jobs[k].source);
    CHECK(results[k].ok);
    CHECK(results[k].log.find("warning") == std::string::npos);  // generated code compiles clean
    if (std::getenv("CUJIT_TEST_VERBOSE")) std::printf("  %-60s %8.0f ms\n", jobs[k].label.c_str(), results[k].ms);
  }
  std::printf("codegen compile: %zu kernels, %.0f ms of NVRTC time\n", jobs.size(), total);
}

}  // namespace

TEST_CASE("codegen: every operation of every dtype compiles", "[codegen][nvrtc]") {
  std::vector<std::string> stmts = all_statements();
  std::vector<Job> jobs;
  for (DType t : kAll) {
    int kept = 0;
    Program p = batch_program(params_for(t), stmts, &kept);
    CHECK(kept > 20);
    KernelLayout l = contiguous_layout(p);
    jobs.push_back({std::string(dtype_name(t)) + " all " + std::to_string(kept) + " ops, " + short_key(l), generate_source(p, l, "cujit_all")});
  }
  compile_all(jobs);
}

TEST_CASE("codegen: every dtype compiles in every layout variant", "[codegen][nvrtc]") {
  std::vector<Job> jobs;
  for (DType t : kAll) {
    std::vector<Param> params = params_for(t);
    // Loads and stores of each dtype, i and n, raw and size(), weak scalars,
    // and an operation of each kind the dtype has.
    std::string src = "o0 = x\no1 = where(x == y, y, x)\no2 = x + w\no3 = r[i % size(r)]\no4 = i + n\no5 = float64(x) * size(y)\n";
    if (!is_bool(t)) src += "o6 = x * y - x\n";
    Program p = compile_program(src, params);
    std::string name = std::string(dtype_name(t));

    KernelLayout c64 = contiguous_layout(p, 1, true);
    jobs.push_back({name + " " + short_key(c64), generate_source(p, c64, "cujit_k")});

    KernelLayout s32 = strided_layout(p, 3, false);
    jobs.push_back({name + " " + short_key(s32), generate_source(p, s32, "cujit_k")});

    // Mixed accesses: x read once (size-1 broadcast), y by value (0-d host
    // scalar), outputs alternate contiguous and strided, 64-bit offsets.
    KernelLayout s64 = strided_layout(p, 2, true);
    s64.inputs[0] = Access::Uniform;
    s64.inputs[1] = Access::Value;
    for (std::size_t k = 0; k < s64.outputs.size(); k += 2) s64.outputs[k] = Access::Contig;
    jobs.push_back({name + " " + short_key(s64) + " mixed", generate_source(p, s64, "cujit_k")});

    // Rows: x one element a row, y by value, 4 per vector over 3 dimensions;
    // and the widest vector, 64-bit, x read once (size-1 broadcast).
    KernelLayout r32 = rows_layout(p, 3, 4, false);
    r32.inputs[0] = Access::RowScalar;
    r32.inputs[1] = Access::Value;
    jobs.push_back({name + " " + short_key(r32), generate_source(p, r32, "cujit_k")});
    KernelLayout r64 = rows_layout(p, 2, max_vec(p), true);
    r64.inputs[0] = Access::Uniform;
    jobs.push_back({name + " " + short_key(r64), generate_source(p, r64, "cujit_k")});

    // Tiles: x tiled, y strided, 3 dimensions, the widest block with 1-wide
    // stores; and 64-bit with y by value, blocks of 1 and of 2 loaded singly.
    const int side = std::min(kMaxTileVec, max_vec(p));
    KernelLayout t32 = tiles_layout(p, 3, side, false);
    t32.inputs[1] = Access::Strided;
    t32.store_vec = 1;
    jobs.push_back({name + " " + short_key(t32), generate_source(p, t32, "cujit_k")});
    for (int v : {1, 2}) {
      if (v > side) continue;
      KernelLayout t64 = tiles_layout(p, 2, v, true);
      t64.inputs[1] = Access::Value;
      t64.load_vec = 1;
      jobs.push_back({name + " " + short_key(t64), generate_source(p, t64, "cujit_k")});
    }

    // Vectorized with a uniform input and a 0-d value: the widest vector and 4
    // per vector, which moves up to 64 bytes of an operand per step.
    std::vector<int> vecs = {4};
    if (max_vec(p) != 4 && max_vec(p) > 1) vecs.push_back(max_vec(p));
    for (int vec : vecs) {
      KernelLayout v = contiguous_layout(p, vec);
      v.inputs[1] = Access::Uniform;
      jobs.push_back({name + " " + short_key(v), generate_source(p, v, "cujit_k")});
    }
  }
  compile_all(jobs);
}

TEST_CASE("codegen: inputs updated in place compile in every layout, for every dtype", "[codegen][nvrtc][inplace]") {
  std::vector<Job> jobs;
  for (DType t : kAll) {
    const std::vector<Param> params = {{"x", t, false, false}, {"y", t, false, false}};
    // Reads before and after the update, two updated inputs, another output.
    std::string src = is_bool(t) ? "t = x | y\nx &= y\nx |= t\ny = x\nout = t & x\n"
                                 : "t = x + y\nx *= y\nx += x\ny -= x\nout = t * x\n";
    Program p = compile_program(src, params);
    REQUIRE(p.outputs.size() == 3);
    CHECK(p.outputs[0].input == 0);
    CHECK(p.outputs[1].input == 1);
    const std::string name = std::string(dtype_name(t)) + " in place";
    KernelLayout c32 = contiguous_layout(p, 1, false);
    KernelLayout c64 = contiguous_layout(p, 1, true);
    KernelLayout s32 = strided_layout(p, 2, false);
    KernelLayout s64 = strided_layout(p, 3, true);
    KernelLayout v = contiguous_layout(p, max_vec(p) > 1 ? max_vec(p) : 1);
    for (const KernelLayout* l : {&c32, &c64, &s32, &s64, &v}) {
      std::string source = generate_source(p, *l, "cujit_k");
      // Each updated input is read through p_ and written through q_, once each.
      CHECK(source.find("q_x") != std::string::npos);
      CHECK(source.find("q_y") != std::string::npos);
      jobs.push_back({name + " " + short_key(*l), source});
    }
  }
  compile_all(jobs);
}
