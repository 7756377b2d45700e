// Layouts as units: each layout's plan half (src/plan/layouts/) has a GPU half
// (src/gpu/layouts/), and each key its unit spells parses back to the layout.
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gpu/layouts/layout_codegen.hpp"
#include "lang/check.hpp"
#include "plan/layouts/layout_rule.hpp"

using namespace cujit;

TEST_CASE("layout units: one list, both halves, one letter each", "[layout]") {
  std::set<char> letters;
  for (const LayoutRule* r : layout_rules()) {
    CHECK(letters.insert(r->letter).second);
    CHECK(layout_codegen(r->kind).kind == r->kind);
    CHECK(&layout_rule(r->kind) == r);
  }
  CHECK(layout_rules().size() == 4);
  // Contiguous applies whenever no operand is strided: it is tried last.
  CHECK(layout_rules().back()->kind == KernelLayout::Kind::Contiguous);
}

TEST_CASE("layout units: every kind's key parses back, other spellings do not", "[layout]") {
  Program p = compile_program("out = x * k + y[0]", {Param{"x", DType::Float32, false, false}, Param{"k", DType::Int64, true, false},
                                                    Param{"y", DType::Float64, false, true}});
  KernelLayout t = tiles_layout(p, 3, 4, true);
  t.load_vec = 2;
  t.store_vec = 1;
  KernelLayout r = rows_layout(p, 2, 8);
  r.inputs[0] = Access::RowScalar;
  for (const KernelLayout& l : {contiguous_layout(p, 4), contiguous_layout(p, 1, true), strided_layout(p, 8), r, t}) {
    INFO(l.key_string());
    auto back = parse_layout_key(l.key_string());
    REQUIRE(back);
    CHECK(*back == l);
  }
  for (const char* bad : {"c.i32.v04|o:c|i:c,v,r", "c.i32|o:c|i:c,v,r", "x.i32.v4|o:c|i:c,v,r", "r.i32.v4|o:s|i:s,v,r",
                          "s.i16.d2|o:s|i:s,v,r", "t.i32.v4.l4.d2|o:s|i:t,v,r", "c.i32.v4|o:c|i:c,v,r|", "c.i32.v4.|o:c|i:c,v,r",
                          "c.i32.v4|o:c|i:c,v,q", "s.i32.d2|o:s|i:s,v,r,", "cc.i32.v4|o:c|i:c,v,r", ""})
    CHECK_FALSE(parse_layout_key(bad));
}
