// Code generation: exact generated source for a handful of programs and
// layouts (golden files in tests/data/codegen/; run with CUJIT_UPDATE_GOLDEN=1
// to rewrite them after an intended change, then review the diff), the
// kernel argument ABI, layout keys and validation.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "gpu/templates.hpp"
#include "cujit/error.hpp"

using namespace cujit;

namespace {

std::string golden_path(const std::string& name) { return std::string(CUJIT_TEST_DATA) + "/codegen/" + name + ".cu"; }

// The kernel without the helper templates it includes, each replaced by a line
// naming it: a golden file holds what code generation wrote, so that editing a
// helper (tested on its own in test_codegen_host.cpp) leaves these files alone.
std::string without_helpers(std::string source) {
  for (const char* file : {"prelude.cuh", "half.cuh", "int_ops.cuh", "math.cuh", "cast.cuh", "complex.cuh",
                           "complex_math.cuh", "checks.cuh"}) {
    std::string t = template_text(file);
    while (!t.empty() && t.back() == '\n') t.pop_back();
    std::size_t at = source.find(t);
    if (at != std::string::npos) source.replace(at, t.size(), std::string("// [templates/") + file + "]");
  }
  return source;
}

void check_golden(const std::string& name, const std::string& full_source) {
  std::string path = golden_path(name);
  std::string source = without_helpers(full_source);
  if (const char* u = std::getenv("CUJIT_UPDATE_GOLDEN"); u && *u == '1') {
    std::ofstream(path, std::ios::binary) << source;
    WARN("rewrote " << path);
    return;
  }
  std::ifstream f(path, std::ios::binary);
  INFO("golden file " << path << " (CUJIT_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(f.good());
  std::stringstream s;
  s << f.rdbuf();
  std::string want = s.str();
  if (want == source) return;
  // Name the first line that differs: a whole-file diff in a test log is unreadable.
  std::istringstream a(want), b(source);
  std::string la, lb;
  int line = 1;
  while (true) {
    bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea && eb) break;
    if (ea || eb || la != lb) {
      FAIL_CHECK("generated source differs from " << path << " at line " << line << "\n  golden:    "
                                                  << (ea ? "<end of file>" : la) << "\n  generated: " << (eb ? "<end of file>" : lb));
      return;
    }
    ++line;
  }
  FAIL_CHECK("generated source differs from " << path << " (line endings)");
}

Param in(const char* name, DType t, bool weak = false, bool raw = false) { return Param{name, t, weak, raw}; }

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("codegen golden: float32 sin(x)*5, contiguous, 4 per vector", "[codegen]") {
  Program p = compile_program("out = sin(x)*5", {in("x", DType::Float32)});
  KernelLayout l = contiguous_layout(p, max_vec(p));
  CHECK(l.vec == 4);
  std::string src = generate_source(p, l, "cujit_sin5");
  check_golden("sin5_f32_vec4", src);
  // A float32 kernel needs no header and no 16-bit float or complex helpers.
  CHECK_FALSE(contains(src, "#include"));
  CHECK_FALSE(contains(src, "half.cuh"));
  CHECK_FALSE(contains(src, "complex.cuh"));
  CHECK(contains(src, "v_out = cj::mul(cj::sin(v_x), 5.0f);  // out = sin(x)*5"));
}

TEST_CASE("codegen golden: float16 per-operation rounding, strided 2-d", "[codegen]") {
  Program p = compile_program("y = x * 2 + 1.1\nz = sqrt(x)", {in("x", DType::Float16)});
  KernelLayout l = strided_layout(p, 2);
  l.outputs[1] = Access::Contig;
  std::string src = generate_source(p, l, "cujit_half");
  check_golden("half_strided2", src);
  CHECK(contains(src, "half.cuh"));
  CHECK_FALSE(contains(src, "#include"));
}

TEST_CASE("codegen golden: complex64 with a weak complex scalar, 64-bit index", "[codegen]") {
  Program p = compile_program("out = exp(z) * w + conj(z)", {in("z", DType::Complex64), in("w", DType::Complex128, true)});
  KernelLayout l = contiguous_layout(p, 1, true);
  std::string src = generate_source(p, l, "cujit_cplx");
  check_golden("complex_exp_i64", src);
  CHECK(contains(src, "complex_math.cuh"));
  CHECK_FALSE(contains(src, "#include"));
}

TEST_CASE("codegen golden: int32 NumPy division and shifts, uniform divisor, strided 64-bit", "[codegen]") {
  Program p = compile_program("q = floor_divide(a, b)\nr = a % b\ns = a << 3\nt = a ** 2",
                              {in("a", DType::Int32), in("b", DType::Int32)});
  KernelLayout l = strided_layout(p, 3, true);
  l.inputs[1] = Access::Uniform;
  check_golden("int_divmod_strided3_i64", generate_source(p, l, "cujit_int"));
}

TEST_CASE("codegen golden: raw indexing, i and n, a 0-d input by value", "[codegen]") {
  Program p = compile_program("out = x[n - 1 - i] + y", {in("x", DType::Float64, false, true), in("y", DType::Float64)});
  KernelLayout l = contiguous_layout(p);
  l.inputs[1] = Access::Value;
  std::string src = generate_source(p, l, "cujit_rev");
  check_golden("raw_reverse_value", src);
  CHECK(contains(src, "checks.cuh"));
}

TEST_CASE("codegen golden: locals, compound assignment, where, clip, weak int that must fit", "[codegen]") {
  Program p = compile_program(
      "t = x * k\nfloat32 u = clip(x, 0, 100)\nout = where(t > 3, u, -u)\nout += 1\nflag = !(x == 0) && isfinite(u)",
      {in("x", DType::Int8), in("k", DType::Int64, true)});
  KernelLayout l = contiguous_layout(p, max_vec(p));
  check_golden("locals_where_clip_vec", generate_source(p, l, "cujit_mix"));
}

TEST_CASE("codegen golden: uint8 image program, words and two vectors a step", "[codegen]") {
  Program p = compile_program("z = uint8(clip(rint(float32(x)*1.2 + 10), 0, 255))", {in("x", DType::UInt8)});
  KernelLayout l = contiguous_layout(p, max_vec(p));
  CHECK(l.vec == 16);
  std::string src = generate_source(p, l, "cujit_img");
  check_golden("image_u8_vec16_steps2", src);
  // Both vectors of a step are loaded before either is computed, as 32-bit words.
  CHECK(contains(src, "cj_kv0 += 2 * cj_step"));
  CHECK(contains(src, "cjr_x[cj_u] = cj::vload("));
  CHECK(contains(src, "cj::vstore("));
  // Two byte inputs keep one vector a step (registers).
  Program p2 = compile_program("z = x + y", {in("x", DType::UInt8), in("y", DType::UInt8)});
  CHECK(contains(generate_source(p2, contiguous_layout(p2, max_vec(p2)), "cujit_add8"), "cj_kv0 += 1 * cj_step"));
  // float32 vectors are moved as themselves.
  Program p3 = compile_program("z = x * 2", {in("x", DType::Float32)});
  CHECK_FALSE(contains(generate_source(p3, contiguous_layout(p3, max_vec(p3)), "cujit_f32"), "cj::vload("));
}

TEST_CASE("codegen: literals are exact and typed", "[codegen]") {
  auto src = [](const std::string& prog, DType t) {
    Program p = compile_program(prog, {in("x", t)});
    return generate_source(p, contiguous_layout(p), "cujit_k");
  };
  CHECK(contains(src("o = x + 0.1", DType::Float32), "cj::add(v_x, 0.1f)"));
  CHECK(contains(src("o = x + 0.1", DType::Float64), "cj::add(v_x, 0.1)"));
  CHECK(contains(src("o = x * 1e300", DType::Float32), "__uint_as_float(0x7f800000u)"));  // rounds to inf in float32
  CHECK(contains(src("o = x + nan", DType::Float64), "__longlong_as_double((long long)0x7ff8000000000000ULL)"));
  CHECK(contains(src("o = x + -0.0", DType::Float64), "(-0.0)"));
  CHECK(contains(src("o = x + 1.1", DType::Float16), "1.0996094f"));  // 1.1 rounded to float16 first
  CHECK(contains(src("o = x + 18446744073709551615", DType::UInt64), "18446744073709551615ULL"));
  CHECK(contains(src("o = x + (-9223372036854775807 - 1)", DType::Int64), "(-9223372036854775807LL - 1)"));
  CHECK(contains(src("o = x + -2147483648", DType::Int32), "(-2147483647 - 1)"));
  CHECK(contains(src("o = x + -5", DType::Int8), "(cj_i8)(-5)"));
  CHECK(contains(src("o = x + 7", DType::UInt32), "7u"));
  CHECK(contains(src("o = x * 2.5j", DType::Complex128), "cj::cpack(0.0, 2.5)"));
}

TEST_CASE("codegen: every operation is a call of its template function", "[codegen]") {
  auto src = [](const std::string& prog, DType t) {
    Program p = compile_program(prog, {in("x", t), in("y", t)});
    return generate_source(p, contiguous_layout(p), "cujit_k");
  };
  CHECK(contains(src("o = x % y", DType::Int16), "cj::remainder(v_x, v_y)"));
  CHECK(contains(src("o = x % y", DType::Float64), "cj::remainder(v_x, v_y)"));
  CHECK(contains(src("o = arctan(x)", DType::Float32), "cj::atan(v_x)"));  // ops.def's impl, not the spelling
  // float16 and bfloat16 step on their own grid: the loop's tag, and no rounding after.
  CHECK(contains(src("o = nextafter(x, y)", DType::Float16), "v_o = cj::nextafter(v_x, v_y, cj::f16_tag());"));
  CHECK(contains(src("o = nextafter(x, y)", DType::BFloat16), "v_o = cj::nextafter(v_x, v_y, cj::bf16_tag());"));
  CHECK(contains(src("o = nextafter(x, y)", DType::Float32), "v_o = cj::nextafter(v_x, v_y);"));
}

TEST_CASE("codegen: int64 against uint64 compares exactly", "[codegen]") {
  Program p = compile_program("o = a < b\np = b >= -1\nq = b < 18446744073709551615",
                              {in("a", DType::Int64), in("b", DType::UInt64)});
  std::string src = generate_source(p, contiguous_layout(p), "cujit_k");
  CHECK(contains(src, "cj::cmp_lt(v_a, v_b)"));
  CHECK(contains(src, "cj::cmp_ge(v_b, (-1LL))"));
  CHECK(contains(src, "cj::lt(v_b, 18446744073709551615ULL)"));  // a uint64 value: no mixed comparison
}

TEST_CASE("codegen: layout keys name every choice", "[codegen]") {
  Program p = compile_program("out = x * y + w + r[0]", {in("x", DType::Float32), in("y", DType::Float32),
                                                         in("w", DType::Float64, true), in("r", DType::Float32, false, true)});
  KernelLayout c = contiguous_layout(p), v = contiguous_layout(p, 4), c64 = contiguous_layout(p, 1, true);
  KernelLayout s2 = strided_layout(p, 2), s3 = strided_layout(p, 3), s3u = strided_layout(p, 3);
  s3u.inputs[1] = Access::Uniform;
  CHECK(c.key_string() == "c.i32.v1|o:c|i:c,c,v,r");
  CHECK(v.key_string() == "c.i32.v4|o:c|i:c,c,v,r");
  CHECK(c64.key_string() == "c.i64.v1|o:c|i:c,c,v,r");
  CHECK(s2.key_string() == "s.i32.d2|o:s|i:s,s,v,r");
  CHECK(s3u.key_string() == "s.i32.d3|o:s|i:s,u,v,r");
  KernelLayout r2 = rows_layout(p, 2, 4), r3b = rows_layout(p, 3, 4, true);
  r3b.inputs[0] = Access::RowScalar;
  CHECK(r2.key_string() == "r.i32.v4.d2|o:s|i:s,s,v,r");
  CHECK(r3b.key_string() == "r.i64.v4.d3|o:s|i:b,s,v,r");
  KernelLayout t2 = tiles_layout(p, 2, 4);
  t2.inputs[1] = Access::Strided;
  t2.store_vec = 2;
  CHECK(t2.key_string() == "t.i32.v4.l4.s2.d2|o:s|i:t,s,v,r");
  KernelLayout t2l = t2;
  t2l.load_vec = 1;
  CHECK(t2l.key_string() == "t.i32.v4.l1.s2.d2|o:s|i:t,s,v,r");
  std::vector<KernelLayout> all = {c, v, c64, s2, s3, s3u, r2, r3b, t2, t2l};
  for (std::size_t a = 0; a < all.size(); ++a)
    for (std::size_t b = 0; b < all.size(); ++b) {
      CHECK((all[a].key_string() == all[b].key_string()) == (a == b));
      CHECK((all[a] == all[b]) == (a == b));
    }
  // Different layouts give different sources; the same layout the same source.
  CHECK(generate_source(p, c, "k") != generate_source(p, c64, "k"));
  CHECK(generate_source(p, s2, "k") != generate_source(p, s3, "k"));
  CHECK(generate_source(p, s3u, "k") == generate_source(p, s3u, "k"));
}

TEST_CASE("codegen: kernel signature is the documented ABI", "[codegen]") {
  Program p = compile_program("out = x[j] * y + s\nflag = real(y) > size(y)",
                              {in("x", DType::Float16, false, true), in("j", DType::Int64), in("y", DType::Complex64),
                               in("s", DType::Float64, true)});
  KernelLayout l = strided_layout(p, 3);
  l.outputs[1] = Access::Contig;
  l.inputs[1] = Access::Uniform;
  std::vector<ArgSlot> sig = kernel_signature(p, l);
  using K = ArgSlot::Kind;
  struct Want { K kind; int operand; DType dtype; std::size_t size, align; const char* name; };
  // Two strided operands (out, j), 3 dims, 32-bit: (extent, magic, shift + 2 strides) * 3 * 4 bytes.
  std::vector<Want> want = {
      {K::Output, 0, DType::Complex64, 8, 8, "p_out"},    {K::Output, 1, DType::Bool, 8, 8, "p_flag"},
      {K::RawData, 0, DType::Float16, 8, 8, "p_x"},       {K::Size, 0, DType::Int64, 8, 8, "z_x"},
      {K::Input, 1, DType::Int64, 8, 8, "p_j"},           {K::Input, 2, DType::Complex64, 8, 8, "p_y"},
      {K::Size, 2, DType::Int64, 8, 8, "z_y"},            {K::InputValue, 3, DType::Float64, 8, 8, "s_s"},
      {K::Count, -1, DType::Int64, 8, 8, "cj_n"},         {K::Layout, -1, DType::Int64, 60, 4, "cj_l"},
      {K::Error, -1, DType::Int64, 8, 8, "cj_err"},
  };
  REQUIRE(sig.size() == want.size());
  for (std::size_t k = 0; k < sig.size(); ++k) {
    INFO("slot " << k << " " << sig[k].name);
    CHECK(sig[k].kind == want[k].kind);
    CHECK(sig[k].operand == want[k].operand);
    CHECK(sig[k].dtype == want[k].dtype);
    CHECK(sig[k].size == want[k].size);
    CHECK(sig[k].align == want[k].align);
    CHECK(sig[k].name == want[k].name);
  }
  // The source declares the parameters in that order.
  std::string src = generate_source(p, l, "cujit_abi");
  CHECK(contains(src, "extern \"C\" __global__ void cujit_abi(cj::c64* p_out, cj_u8* p_flag, const cj_u16* p_x, "
                      "const long long z_x, const cj_i64* p_j, const cj::c64* p_y, const long long z_y, const double s_s, "
                      "const long long cj_n, const cj_layout cj_l, long long* cj_err)"));
  CHECK(p.can_fail);
  CHECK_FALSE(compile_program("o = x + 1", {in("x", DType::Int8)}).can_fail);

  KernelLayout l64 = strided_layout(p, 2, true);
  CHECK(kernel_signature(p, l64)[9].size == 8 * 2 * (1 + 4));  // rows: out, flag, j, y
  CHECK(kernel_signature(p, l64)[9].align == 8);
}

TEST_CASE("codegen: the layout argument packs extents, divisors, then stride rows", "[codegen]") {
  Program p = compile_program("out = x + y", {in("x", DType::Float32), in("y", DType::Float32)});
  KernelLayout l = strided_layout(p, 2);
  l.inputs[1] = Access::Uniform;  // rows: out, x
  std::vector<unsigned char> b = pack_layout_arg(l, {3, 5}, {{20, 4}, {0, -4}});
  REQUIRE(b.size() == 4 * 2 * 5);
  std::int32_t v[10];
  std::memcpy(v, b.data(), sizeof v);
  std::vector<std::int64_t> got(v, v + 10);
  CHECK(got == std::vector<std::int64_t>{3, 5, 1431655766, static_cast<std::int32_t>(2576980378u), 2, 3, 20, 4, 0, -4});
  // 64-bit layouts divide in hardware: extents and strides only.
  CHECK(pack_layout_arg(strided_layout(p, 1, true), {7}, {{4}, {4}, {8}}).size() == 8 * 4);
  CHECK_THROWS_AS(pack_layout_arg(l, {3, 5}, {{20, 4}}), Error);                  // a row missing
  CHECK_THROWS_AS(pack_layout_arg(l, {3, 5}, {{20, 4}, {0, 1LL << 33}}), Error);  // needs 64-bit
  CHECK_THROWS_AS(pack_layout_arg(contiguous_layout(p), {}, {}), Error);
}

TEST_CASE("codegen: the 32-bit divisor constants divide every index below 2^31", "[codegen]") {
  Program p = compile_program("out = x", {in("x", DType::Float32)});
  KernelLayout l = strided_layout(p, 1);
  std::mt19937 rng(11);
  std::vector<std::int64_t> extents = {1, 2, 3, 5, 7, 10, 255, 256, 641, 65535, 65536, 65537, 1000003, (1LL << 30) + 1,
                                       (1LL << 31) - 1};
  for (int k = 0; k < 200; ++k) extents.push_back(1 + rng() % 100000);
  for (std::int64_t e : extents) {
    std::vector<unsigned char> b = pack_layout_arg(l, {e}, {{4}, {4}});
    std::uint32_t magic, shift;
    std::memcpy(&magic, b.data() + 4, 4);
    std::memcpy(&shift, b.data() + 8, 4);
    auto divide = [&](std::uint32_t r) {  // the kernel's cj_q
      std::uint32_t hi = static_cast<std::uint32_t>((static_cast<std::uint64_t>(r) * magic) >> 32);
      return (hi + r) >> shift;
    };
    std::vector<std::uint32_t> rs = {0, 1, static_cast<std::uint32_t>(e - 1), static_cast<std::uint32_t>(e),
                                     static_cast<std::uint32_t>(e + 1), 0x7fffffffu, 0x7ffffffeu};
    for (int k = 0; k < 2000; ++k) rs.push_back(rng() & 0x7fffffffu);
    int bad = 0;
    for (std::uint32_t r : rs) bad += r <= 0x7fffffffu && divide(r) != r / static_cast<std::uint32_t>(e);
    INFO("extent " << e);
    CHECK(bad == 0);
  }
}

TEST_CASE("codegen: layouts that do not fit the program are bugs of the caller", "[codegen]") {
  Program p = compile_program("out = x * w + r[0]", {in("x", DType::Float32), in("w", DType::Float64, true),
                                                     in("r", DType::Float32, false, true)});
  auto rejects = [&](KernelLayout l) {
    try {
      generate_source(p, l, "k");
      return false;
    } catch (const Error& e) {
      return e.code() == ErrorCode::Internal;
    }
  };
  KernelLayout l = contiguous_layout(p);
  CHECK_FALSE(rejects(l));
  KernelLayout a = l; a.inputs.pop_back();                 CHECK(rejects(a));
  KernelLayout b = l; b.inputs[1] = Access::Contig;        CHECK(rejects(b));  // weak must be by value
  KernelLayout c = l; c.inputs[2] = Access::Contig;        CHECK(rejects(c));  // raw must be raw
  KernelLayout d = l; d.inputs[0] = Access::Strided;       CHECK(rejects(d));  // strided in a contiguous layout
  KernelLayout e = l; e.vec = 3;                           CHECK(rejects(e));
  KernelLayout f = strided_layout(p, 0);                   CHECK(rejects(f));
  KernelLayout g = strided_layout(p, 9);                   CHECK(rejects(g));
  KernelLayout h = strided_layout(p, 2); h.outputs[0] = Access::Contig; h.inputs[0] = Access::Contig;
  CHECK(rejects(h));  // no strided operand
  KernelLayout o = l; o.outputs[0] = Access::Uniform;      CHECK(rejects(o));
  // Rows: 2+ dimensions, strided outputs, no contiguous operand, per-row inputs only there.
  KernelLayout r = rows_layout(p, 2, 4);                   CHECK_FALSE(rejects(r));
  KernelLayout rb = r; rb.inputs[0] = Access::RowScalar;   CHECK_FALSE(rejects(rb));
  KernelLayout r1 = rows_layout(p, 1);                     CHECK(rejects(r1));
  KernelLayout rc = r; rc.outputs[0] = Access::Contig;     CHECK(rejects(rc));
  KernelLayout ri = r; ri.inputs[0] = Access::Contig;      CHECK(rejects(ri));
  KernelLayout rv = r; rv.vec = 3;                         CHECK(rejects(rv));
  KernelLayout sb = strided_layout(p, 2); sb.inputs[0] = Access::RowScalar;
  CHECK(rejects(sb));  // per-row operands only in rows layouts
  // Tiles: a tiled input, strided outputs, blocks of 1, 2 or 4 with load and
  // store vectors no wider; tiled inputs and those vectors only there.
  KernelLayout t = tiles_layout(p, 2);                     CHECK_FALSE(rejects(t));
  KernelLayout t4 = tiles_layout(p, 2, 4);                 CHECK_FALSE(rejects(t4));
  KernelLayout t4s = t4; t4s.store_vec = 1;                CHECK_FALSE(rejects(t4s));
  KernelLayout tn = t; tn.inputs[0] = Access::Strided;     CHECK(rejects(tn));  // no tiled input
  KernelLayout tv = tiles_layout(p, 2, 8);                 CHECK(rejects(tv));
  KernelLayout tv3 = tiles_layout(p, 2, 3);                CHECK(rejects(tv3));
  KernelLayout tl = t; tl.load_vec = 2;                    CHECK(rejects(tl));  // wider than the block
  KernelLayout ts = t4; ts.store_vec = 3;                  CHECK(rejects(ts));
  KernelLayout rl = rows_layout(p, 2, 4); rl.load_vec = 4; CHECK(rejects(rl));
  KernelLayout tb = t; tb.inputs[0] = Access::RowScalar;   CHECK(rejects(tb));
  KernelLayout t1 = tiles_layout(p, 1);                    CHECK(rejects(t1));
  KernelLayout st = strided_layout(p, 2); st.inputs[0] = Access::Tiled;
  CHECK(rejects(st));
  CHECK_THROWS_AS(generate_source(p, l, "2bad"), Error);
  CHECK_THROWS_AS(generate_source(p, l, "cj_element"), Error);
}

TEST_CASE("codegen: kernel failures read as the CPU evaluator's errors", "[codegen]") {
  Program p = compile_program("out = x[i + 4] * k + y", {in("x", DType::Float64, false, true), in("y", DType::Int8),
                                                         in("k", DType::Int64, true)});
  std::int64_t oob[4] = {1, 0, 6, 6};
  CHECK(kernel_error_message(p, oob) == "index 6 is out of bounds for raw parameter 'x' of size 6");
  std::int64_t fit[4] = {2, static_cast<int>(DType::Int8), 300, 0};
  CHECK(kernel_error_message(p, fit) == "scalar value 300 does not fit in int8");
}

TEST_CASE("codegen: max_vec keeps every vector load within 16 bytes", "[codegen]") {
  CHECK(max_vec(compile_program("o = x", {in("x", DType::Bool)})) == 16);
  CHECK(max_vec(compile_program("o = x", {in("x", DType::Float16)})) == 8);
  CHECK(max_vec(compile_program("o = float64(x)", {in("x", DType::Float32)})) == 2);
  CHECK(max_vec(compile_program("o = x", {in("x", DType::Complex128)})) == 1);
  // Weak scalars and raw arrays are not loaded per element.
  CHECK(max_vec(compile_program("o = x + w + r[0]", {in("x", DType::Int16), in("w", DType::Float64, true),
                                                     in("r", DType::Float64, false, true)})) == 2);
}

TEST_CASE("codegen: templates are found and unknown placeholders are bugs", "[codegen]") {
  CHECK(contains(template_text("prelude.cuh"), "namespace cj"));
  CHECK_THROWS_AS(template_text("no_such_template.cuh"), Error);
  // The copies embedded at build time (cmake/embed.cmake) are today's files, and
  // the ones used unless CUJIT_TEMPLATE_DIR names a folder (tests/template_dir.cmake).
  for (const char* f : {"prelude.cuh", "half.cuh", "int_ops.cuh", "math.cuh", "cast.cuh", "complex.cuh",
                        "complex_math.cuh", "checks.cuh", "header.cu", "element.cu", "kernel_contiguous.cu",
                        "kernel_vector.cu", "kernel_strided.cu"}) {
    std::string e = embedded_template(f);
    INFO(f);
    CHECK(!e.empty());
    CHECK(e == template_text(f));
  }
}

namespace {
OperandView view(DType t, Shape shape, std::uintptr_t address = 0x10000, Shape strides = {}) {
  OperandView v;
  v.address = address;
  v.dtype = t;
  v.shape = shape;
  v.strides = strides.ndim ? strides : ArrayView::contiguous_strides(shape, t);
  return v;
}
}  // namespace

TEST_CASE("plan_launch: contiguous arrays vectorize up to the alignment", "[codegen]") {
  Program p = compile_program("out = x * y", {in("x", DType::Float32), in("y", DType::Float32)});
  LaunchPlan a = plan_launch(p, {view(DType::Float32, {1000}), view(DType::Float32, {1000})}, {view(DType::Float32, {1000})});
  CHECK(a.layout.key_string() == "c.i32.v4|o:c|i:c,c");
  CHECK(a.n == 1000);
  CHECK(a.layout_arg.empty());
  // An 8-byte aligned pointer allows 2 per vector; a 4-byte one none.
  CHECK(plan_launch(p, {view(DType::Float32, {1000}, 0x10008), view(DType::Float32, {1000})}, {view(DType::Float32, {1000})})
            .layout.vec == 2);
  CHECK(plan_launch(p, {view(DType::Float32, {1000}, 0x10004), view(DType::Float32, {1000})}, {view(DType::Float32, {1000})})
            .layout.vec == 1);
  CHECK(plan_launch(p, {view(DType::Float32, {10}), view(DType::Float32, {10})}, {view(DType::Float32, {10})}, 1).layout.vec == 1);
  // A size-1 input is read once; a 0-d host value comes by value.
  OperandView hv = view(DType::Float32, {});
  hv.host_value = true;
  CHECK(plan_launch(p, {view(DType::Float32, {4, 5}), view(DType::Float32, {1, 1})}, {view(DType::Float32, {4, 5})})
            .layout.key_string() == "c.i32.v4|o:c|i:c,u");
  CHECK(plan_launch(p, {view(DType::Float32, {4, 5}), hv}, {view(DType::Float32, {4, 5})}).layout.key_string() ==
        "c.i32.v4|o:c|i:c,v");
  // Leading extent-1 dimensions do not make an array strided.
  CHECK(plan_launch(p, {view(DType::Float32, {5}), view(DType::Float32, {1, 5})}, {view(DType::Float32, {1, 5})})
            .layout.kind == KernelLayout::Kind::Contiguous);
}

TEST_CASE("plan_launch: broadcasting is rows or strided, with merged dimensions", "[codegen]") {
  Program p = compile_program("out = x + y", {in("x", DType::Float64), in("y", DType::Float64)});
  // (3,1) + (4,) -> (3,4): rows of 4; x one element a row, y the same row each
  // time (outer stride 0); 2 float64 per vector (32-byte rows stay aligned).
  LaunchPlan a = plan_launch(p, {view(DType::Float64, {3, 1}), view(DType::Float64, {4})}, {view(DType::Float64, {3, 4})});
  CHECK(a.layout.key_string() == "r.i32.v2.d2|o:s|i:b,s");
  CHECK(a.n == 12);
  CHECK(a.rows == 3);
  CHECK(a.inner == 4);
  CHECK(a.layout_arg == pack_layout_arg(a.layout, {3, 4}, {{32, 8}, {8, 0}, {0, 8}}));
  // Without rows (raw CUDA kernels): the strided layout, merged over the strided operands.
  LaunchPlan as = plan_launch(p, {view(DType::Float64, {3, 1}), view(DType::Float64, {4})}, {view(DType::Float64, {3, 4})}, 4,
                              false, false);
  CHECK(as.layout.key_string() == "s.i32.d2|o:c|i:s,s");
  CHECK(as.layout_arg == pack_layout_arg(as.layout, {3, 4}, {{8, 0}, {0, 8}}));
  // A transposed (2,3,4) view: the inner two dimensions of x merge, y is
  // contiguous; x runs down the columns of the merged (2,12): tiles (strided
  // without them).
  Shape tshape{2, 3, 4};
  OperandView x = view(DType::Float64, tshape, 0x10000, Shape{8, 64, 16});  // strides of a (3,4,2) array, transposed
  LaunchPlan b = plan_launch(p, {x, view(DType::Float64, tshape)}, {view(DType::Float64, tshape)});
  CHECK(b.layout.key_string() == "t.i32.v2.l2.s2.d2|o:s|i:t,s");  // float64: blocks of 2, 16-byte vectors
  CHECK(b.layout_arg == pack_layout_arg(b.layout, {2, 12}, {{96, 8}, {8, 16}, {96, 8}}));
  LaunchPlan bs = plan_launch(p, {x, view(DType::Float64, tshape)}, {view(DType::Float64, tshape)}, 4, false, false);
  CHECK(bs.layout.key_string() == "s.i32.d2|o:c|i:s,c");
  CHECK(bs.layout_arg == pack_layout_arg(bs.layout, {2, 12}, {{8, 16}}));
  // A strided output with an extent-1 dimension dropped.
  OperandView o = view(DType::Float64, {4, 1, 3}, 0x10000, Shape{48, 8, 16});
  LaunchPlan c = plan_launch(p, {view(DType::Float64, {4, 1, 3}), view(DType::Float64, {3})}, {o});
  CHECK(c.layout.key_string() == "s.i32.d2|o:s|i:c,s");
  CHECK(c.layout_arg == pack_layout_arg(c.layout, {4, 3}, {{48, 16}, {0, 8}}));
  // 64-bit indexing only when an offset needs it.
  OperandView big = view(DType::Float64, {3, 4}, 0x10000, Shape{1LL << 31, 8});
  CHECK(plan_launch(p, {big, view(DType::Float64, {4})}, {view(DType::Float64, {3, 4})}).layout.index64);
  CHECK_FALSE(plan_launch(p, {view(DType::Float64, {3, 4}, 0x10000, Shape{-32, 8}), view(DType::Float64, {4})},
                          {view(DType::Float64, {3, 4})}).layout.index64);
}

TEST_CASE("plan_launch: rows layouts vectorize rows that stay aligned", "[codegen]") {
  Program p = compile_program("z = x*y + 1", {in("x", DType::Float32), in("y", DType::Float32)});
  auto plan = [&](const std::vector<OperandView>& ins, const OperandView& out, bool force64 = false) {
    return plan_launch(p, ins, {out}, kDefaultMaxVector, force64);
  };
  const DType f = DType::Float32;
  // (r,1)*(1,c), the benchmark's broadcast: 4 floats per vector.
  LaunchPlan a = plan({view(f, {64, 1}), view(f, {1, 256})}, view(f, {64, 256}));
  CHECK(a.layout.key_string() == "r.i32.v4.d2|o:s|i:b,s");
  CHECK(a.rows == 64);
  CHECK(a.inner == 256);
  CHECK(a.layout_arg == pack_layout_arg(a.layout, {64, 256}, {{1024, 4}, {4, 0}, {0, 4}}));
  // The argument: inner, rows, the outer extent, its divisor constants, one outer stride per operand.
  CHECK(a.layout_arg.size() == 4 * (2 + 3 + 3));
  // An inner extent that is not a multiple of the vector: the rows (20 bytes)
  // do not stay 16-byte aligned, so one element at a time; 6 floats (24 bytes) allow 2.
  CHECK(plan({view(f, {3, 1}), view(f, {5})}, view(f, {3, 5})).layout.key_string() == "r.i32.v1.d2|o:s|i:b,s");
  CHECK(plan({view(f, {3, 1}), view(f, {6})}, view(f, {3, 6})).layout.vec == 2);
  // No vector wider than a row.
  CHECK(plan({view(f, {9, 1}), view(f, {2})}, view(f, {9, 2})).layout.vec == 2);
  // Unaligned base pointers: an 8-byte aligned row operand allows 2, a 4-byte one 1;
  // a per-row operand's alignment does not matter.
  CHECK(plan({view(f, {64, 1}), view(f, {256}, 0x10008)}, view(f, {64, 256})).layout.vec == 2);
  CHECK(plan({view(f, {64, 1}), view(f, {256})}, view(f, {64, 256}, 0x10004)).layout.vec == 1);
  CHECK(plan({view(f, {64, 1}, 0x10004), view(f, {256})}, view(f, {64, 256})).layout.vec == 4);
  // 3-D broadcast (a,1,c)*(1,b,1): y is one element a row, rows over (a,b).
  LaunchPlan b = plan({view(f, {4, 1, 8}), view(f, {1, 5, 1})}, view(f, {4, 5, 8}));
  CHECK(b.layout.key_string() == "r.i32.v4.d3|o:s|i:s,b");
  CHECK(b.rows == 20);
  CHECK(b.inner == 8);
  CHECK(b.layout_arg == pack_layout_arg(b.layout, {4, 5, 8}, {{160, 32, 4}, {32, 0, 4}, {0, 4, 0}}));
  // Size-1 dimensions are dropped and dimensions every operand walks as one
  // merge: (2,1,3,1)*(4,) over (2,1,3,4) is rows of 4 over 6 rows.
  LaunchPlan c = plan({view(f, {2, 1, 3, 1}), view(f, {4})}, view(f, {2, 1, 3, 4}));
  CHECK(c.layout.key_string() == "r.i32.v4.d2|o:s|i:b,s");
  CHECK(c.layout_arg == pack_layout_arg(c.layout, {6, 4}, {{16, 4}, {4, 0}, {0, 4}}));
  // Padded rows (a view of the first 6 columns of an (r,8) array) with a
  // contiguous operand: both walk rows, each with its own row stride.
  LaunchPlan d = plan({view(f, {3, 6}, 0x10000, Shape{32, 4}), view(f, {3, 6})}, view(f, {3, 6}));
  CHECK(d.layout.key_string() == "r.i32.v2.d2|o:s|i:s,s");
  CHECK(d.layout_arg == pack_layout_arg(d.layout, {3, 6}, {{24, 4}, {32, 4}, {24, 4}}));
  // A reversed inner dimension is not a row: strided.
  CHECK(plan({view(f, {3, 6}, 0x10000 + 20, Shape{24, -4}), view(f, {3, 6})}, view(f, {3, 6})).layout.kind ==
        KernelLayout::Kind::Strided);
  // A strided output (every second row) is still rows.
  CHECK(plan({view(f, {3, 1}), view(f, {8})}, view(f, {3, 8}, 0x10000, Shape{64, 4})).layout.key_string() ==
        "r.i32.v4.d2|o:s|i:b,s");
  // Empty outputs plan without dividing by zero.
  LaunchPlan e = plan({view(f, {0, 1}), view(f, {1, 4})}, view(f, {0, 4}));
  CHECK(e.n == 0);
  CHECK(e.rows == 0);
  LaunchPlan e2 = plan({view(f, {3, 1}), view(f, {1, 0})}, view(f, {3, 0}));
  CHECK(e2.n == 0);
  // More than 2^31 elements: 64-bit, the same layout otherwise.
  LaunchPlan w = plan({view(f, {1 << 16, 1}), view(f, {1, (1 << 15) + 4})}, view(f, {1 << 16, (1 << 15) + 4}));
  CHECK(w.layout.key_string() == "r.i64.v4.d2|o:s|i:b,s");
  CHECK(w.rows == 1 << 16);
  CHECK(w.layout_arg == pack_layout_arg(w.layout, {1 << 16, (1 << 15) + 4}, {{((1 << 15) + 4) * 4, 4}, {4, 0}, {0, 4}}));
  CHECK(w.layout_arg.size() == 8 * (2 + 1 + 3));
  // The test hook forces 64-bit arithmetic on any layout.
  LaunchPlan f64 = plan({view(f, {64, 1}), view(f, {1, 256})}, view(f, {64, 256}), true);
  CHECK(f64.layout.key_string() == "r.i64.v4.d2|o:s|i:b,s");
  CHECK(f64.layout_arg == pack_layout_arg(f64.layout, {64, 256}, {{1024, 4}, {4, 0}, {0, 4}}));
  CHECK(plan({view(f, {64}), view(f, {64})}, view(f, {64}), true).layout.key_string() == "c.i64.v4|o:c|i:c,c");
  // The kernel's Layout parameter is exactly as large as the packed argument.
  for (const LaunchPlan* lp : {&a, &b, &w, &f64}) {
    std::size_t bytes = 0;
    for (const ArgSlot& slot : kernel_signature(p, lp->layout))
      if (slot.kind == ArgSlot::Kind::Layout) bytes = slot.size;
    CHECK(bytes == lp->layout_arg.size());
  }
}

TEST_CASE("plan_launch: transposed inputs go through tiles", "[codegen]") {
  Program p = compile_program("z = x*2 + y", {in("x", DType::Float32), in("y", DType::Float32)});
  const DType f = DType::Float32;
  auto plan = [&](const OperandView& x, const OperandView& y, const OperandView& out, bool rows = true) {
    return plan_launch(p, {x, y}, {out}, kDefaultMaxVector, false, rows);
  };
  // x.T of a (6,4) array against a contiguous (4,6) y.
  OperandView xt = view(f, {4, 6}, 0x10000, Shape{4, 16});
  LaunchPlan a = plan(xt, view(f, {4, 6}), view(f, {4, 6}));
  // Blocks of 4; x's columns are 16 bytes apart (4-wide loads), z's and y's
  // rows 24 (2-wide stores and loads).
  CHECK(a.layout.key_string() == "t.i32.v4.l4.s2.d2|o:s|i:t,s");
  CHECK(a.rows == 4);
  CHECK(a.inner == 6);
  CHECK(a.layout_arg == pack_layout_arg(a.layout, {4, 6}, {{24, 4}, {4, 16}, {24, 4}}));
  // Broadcast y along the rows is fine; so is an odd extent (scalar loads and stores).
  CHECK(plan(view(f, {5, 7}, 0x10000, Shape{4, 20}), view(f, {7}), view(f, {5, 7})).layout.key_string() == "t.i32.v4.l1.s1.d2|o:s|i:t,s");
  // A misaligned address halves the vector of its side only.
  CHECK(plan(view(f, {4, 8}, 0x10008, Shape{4, 16}), view(f, {4, 8}), view(f, {4, 8})).layout.key_string() == "t.i32.v4.l2.s4.d2|o:s|i:t,s");
  CHECK(plan(xt, view(f, {4, 6}, 0x10004), view(f, {4, 6})).layout.key_string() == "t.i32.v4.l4.s1.d2|o:s|i:t,s");
  // A y with no unit stride (every second column) does not limit the store vector.
  CHECK(plan(view(f, {4, 8}, 0x10000, Shape{4, 16}), view(f, {4, 8}, 0x10004, Shape{64, 8}), view(f, {4, 8})).layout.key_string() ==
        "t.i32.v4.l4.s4.d2|o:s|i:t,s");
  // max_vector bounds the block side.
  CHECK(plan_launch(p, {xt, view(f, {4, 6})}, {view(f, {4, 6})}, 2).layout.key_string() == "t.i32.v2.l2.s2.d2|o:s|i:t,s");
  // A batch of transposes, (2,4,6) from (2,6,4): three dimensions, the outer one per tile.
  LaunchPlan b = plan(view(f, {2, 4, 6}, 0x10000, Shape{96, 4, 16}), view(f, {2, 4, 6}), view(f, {2, 4, 6}));
  CHECK(b.layout.key_string() == "t.i32.v4.l4.s2.d3|o:s|i:t,s");
  CHECK(b.layout_arg == pack_layout_arg(b.layout, {2, 4, 6}, {{96, 24, 4}, {96, 4, 16}, {96, 24, 4}}));
  // A transposed output is not tiled (its writes would not coalesce): strided.
  CHECK(plan(xt, view(f, {4, 6}), view(f, {4, 6}, 0x10000, Shape{4, 16})).layout.kind == KernelLayout::Kind::Strided);
  // Raw CUDA kernels (rows = false): strided.
  CHECK(plan(xt, view(f, {4, 6}), view(f, {4, 6}), false).layout.key_string() == "s.i32.d2|o:c|i:s,c");
  // Every second column of x.T is neither a row nor a tile: strided.
  CHECK(plan(view(f, {4, 6}, 0x10000, Shape{8, 32}), view(f, {4, 6}), view(f, {4, 6})).layout.kind == KernelLayout::Kind::Strided);
  // Tiles within kMaxTileBytes of shared memory: three float32 tiles of 64
  // (48 KiB) become three of 32 (12 KiB); nine complex128 tiles of 16 (36 KiB)
  // do not fit at all: strided; eight (32 KiB) do.
  Program p3 = compile_program("z = x + y + w", {in("x", f), in("y", f), in("w", f)});
  OperandView x8 = view(f, {8, 8}, 0x10000, Shape{4, 32});
  CHECK(plan_launch(p3, {x8, x8, x8}, {view(f, {8, 8})}).layout.key_string() == "t.i32.v2.l2.s2.d2|o:s|i:t,t,t");
  CHECK(plan_launch(p3, {x8, x8, view(f, {8, 8})}, {view(f, {8, 8})}).layout.key_string() == "t.i32.v4.l4.s4.d2|o:s|i:t,t,s");
  const DType c = DType::Complex128;
  std::vector<Param> nine;
  for (const char* name : {"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9"}) nine.push_back(in(name, c));
  Program q9 = compile_program("z = x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9", nine);
  OperandView ct = view(c, {4, 6}, 0x10000, Shape{16, 64});
  std::vector<OperandView> cts(9, ct);
  CHECK(plan_launch(q9, cts, {view(c, {4, 6})}).layout.kind == KernelLayout::Kind::Strided);
  cts[8] = view(c, {4, 6});
  CHECK(plan_launch(q9, cts, {view(c, {4, 6})}).layout.key_string() == "t.i32.v1.l1.s1.d2|o:s|i:t,t,t,t,t,t,t,t,s");
  // The Layout parameter is as large as the packed argument, 32 and 64-bit.
  for (bool wide : {false, true}) {
    LaunchPlan t = plan_launch(p, {xt, view(f, {4, 6})}, {view(f, {4, 6})}, kDefaultMaxVector, wide);
    std::size_t bytes = 0;
    for (const ArgSlot& slot : kernel_signature(p, t.layout))
      if (slot.kind == ArgSlot::Kind::Layout) bytes = slot.size;
    CHECK(bytes == t.layout_arg.size());
  }
}

TEST_CASE("codegen: a tiles kernel reads tiled inputs through shared memory", "[codegen]") {
  Program p = compile_program("z = x*y + float32(i)", {in("x", DType::Float32), in("y", DType::Float32)});
  KernelLayout l = tiles_layout(p, 3, 4);
  l.inputs[1] = Access::Strided;
  l.store_vec = 2;
  std::string src = generate_source(p, l, "cujit_k");
  // A 64x64 tile of float4 rows; x read 4 down a column, transposed into it.
  CHECK(contains(src, "__shared__ cj_tv<float, 4>::t cj_t_x[64][16];"));
  CHECK(contains(src, "cj_tile_in<float, 4, 4, cj_idx, cj_off>(cj_t_x, reinterpret_cast<const char*>(p_x) + cj_o[1] + "
                      "(cj_off)(cj_V * cj_lr) * (cj_off)sizeof(float) + (cj_off)(cj_V * cj_lc) * cj_l.stride[1][2], "
                      "cj_l.stride[1][2], cj_r0 + cj_V * cj_lr, cj_nr, cj_c0 + cj_V * cj_lc, cj_nc, cj_lr, cj_lc);"));
  // Row vectors out of the swizzled tile; y and z in vectors of 2 along the row.
  CHECK(contains(src, "const cj_tv<float, 4>::t a_x = cj_t_x[cj_rr][cj_cv ^ ((cj_rr / cj_V) & 15)];"));
  CHECK(contains(src, "const char* const e_y = reinterpret_cast<const char*>(p_y) + cj_o[2] + (cj_off)cj_rr * cj_l.stride[2][1] + "
                      "(cj_off)(cj_V * cj_cv) * cj_l.stride[2][2];"));
  CHECK(contains(src, "const cj_tv<float, 4>::t a_y = cj_row_in<float, 4, 2>(e_y, cj_l.stride[2][2], cj_cn);"));
  CHECK(contains(src, "const float v_x = a_x.v[cj_j];"));
  CHECK(contains(src, "a_z.v[cj_j] = v_z;"));
  CHECK(contains(src, "cj_row_out<float, 4, 2>(e_z, a_z, cj_cn);"));
  CHECK(contains(src, "const cj_idx cj_k = (cj_b * cj_nr + cj_r) * cj_nc + cj_c + cj_j;"));
  // Offsets per tile: the only division is the batch's multi-index.
  CHECK(contains(src, "for (int cj_d = 3 - 3; cj_d > 0; --cj_d)"));
  // In place: the updated input's two sides are e_x and f_x.
  Program q = compile_program("x = x*2 + y", {in("x", DType::Float16), in("y", DType::Float16)});
  KernelLayout lq = tiles_layout(q, 2, 4);
  lq.inputs[0] = Access::Strided;
  std::string sq = generate_source(q, lq, "cujit_k");
  CHECK(contains(sq, "__shared__ cj_tv<cj_u16, 4>::t cj_t_y[64][16];"));
  CHECK(contains(sq, "char* const f_x = reinterpret_cast<char*>(q_x) + cj_o[0]"));
  CHECK(contains(sq, "const cj_tv<cj_u16, 4>::t a_x = cj_row_in<cj_u16, 4, 4>(e_x, cj_l.stride[1][1], cj_cn);"));
  CHECK(contains(sq, "cj_row_out<cj_u16, 4, 4>(f_x, b_x, cj_cn);"));
}

TEST_CASE("codegen: a rows kernel reads per-row operands once a row and divides only per row", "[codegen]") {
  Program p = compile_program("z = x*y + float32(i)", {in("x", DType::Float32), in("y", DType::Float32)});
  KernelLayout l = rows_layout(p, 3, 4);
  l.inputs[1] = Access::RowScalar;
  std::string src = generate_source(p, l, "cujit_k");
  CHECK(contains(src, "const float* const e_x = &cj::at(p_x, cj_o[1]);"));
  CHECK(contains(src, "const float v_y = cj::at(p_y, cj_o[2]);"));
  CHECK(contains(src, "reinterpret_cast<const cj::vec<float, 4, 16>*>(e_x)[cj_kv]"));
  CHECK(contains(src, "reinterpret_cast<cj::vec<float, 4, 16>*>(e_z)[cj_kv] = a_z;"));
  CHECK(contains(src, "const cj_idx cj_k = cj_row * cj_inner + cj_kv * 4 + cj_j;"));
  CHECK(contains(src, "e_z[cj_kc] = v_z;"));
  // The only division: the outer multi-index of a row.
  CHECK(contains(src, "for (int cj_d = 2 - 1; cj_d > 0; --cj_d)"));
}

TEST_CASE("plan_launch: mismatches are the evaluator's errors", "[codegen]") {
  Program p = compile_program("out = x + y + r[0]", {in("x", DType::Int32), in("y", DType::Int32), in("r", DType::Int32, false, true)});
  auto code = [&](const std::vector<OperandView>& ins, const std::vector<OperandView>& outs) {
    try {
      plan_launch(p, ins, outs);
      return std::string("ok");
    } catch (const Error& e) {
      return std::to_string(static_cast<int>(e.code())) + " " + e.what();
    }
  };
  OperandView r = view(DType::Int32, {6});
  CHECK(code({view(DType::Int32, {3}), view(DType::Int32, {4}), r}, {view(DType::Int32, {3})}) ==
        "3 shapes do not broadcast: input 'y' has shape (4,) but the others give (3,)");
  CHECK(code({view(DType::Int32, {3}), view(DType::Int32, {3}), r}, {view(DType::Int32, {4})}) ==
        "3 output 'out' has shape (4,), but the inputs broadcast to (3,)");
  CHECK(code({view(DType::Int32, {3}), view(DType::Int32, {3}), view(DType::Int32, {3}, 0x10000, Shape{8})},
             {view(DType::Int32, {3})}) == "1 raw parameter 'r' must be C-contiguous; pass a contiguous copy");
  CHECK(code({view(DType::Float32, {3}), view(DType::Int32, {3}), r}, {view(DType::Int32, {3})}) ==
        "3 input 'x' is float32, but the program was checked for int32");
  CHECK(code({view(DType::Int32, {3}), view(DType::Int32, {3}), r}, {view(DType::Int32, {3}, 0x10000, Shape{0})}) ==
        "1 output 'out' overlaps itself (a zero stride)");
  CHECK(code({view(DType::Int32, {3}), view(DType::Int32, {3}), r}, {view(DType::Int32, {3})}) == "ok");
}


// The layouts that paste templates/index.cuh (rows over the outer dimensions,
// tiles over the batch) with every kind of operand they reach, i and n, 32- and 64-bit.
TEST_CASE("codegen golden: rows layout, a per-row input, an in-place output, i", "[codegen]") {
  Program p = compile_program("x += y * i\nz = y - x", {in("x", DType::Float32), in("y", DType::Float32)});
  KernelLayout l = rows_layout(p, 3, 4);
  l.inputs[1] = Access::RowScalar;
  check_golden("rows_rowscalar_inplace3", generate_source(p, l, "cujit_rows"));
  KernelLayout w = rows_layout(p, 2, 2, true);
  check_golden("rows_inplace2_i64", generate_source(p, w, "cujit_rows64"));
}

TEST_CASE("codegen golden: tiles layout, a tiled and a strided input, a batch, n", "[codegen]") {
  Program p = compile_program("out = a + b * n", {in("a", DType::Float16), in("b", DType::Float32)});
  KernelLayout l = tiles_layout(p, 3, 2);
  l.inputs[1] = Access::Strided;
  l.load_vec = 1;
  check_golden("tiles_batch3_f16", generate_source(p, l, "cujit_tiles"));
  KernelLayout w = tiles_layout(p, 4, 4, true);
  w.store_vec = 2;
  check_golden("tiles_batch4_i64", generate_source(p, w, "cujit_tiles64"));
}
