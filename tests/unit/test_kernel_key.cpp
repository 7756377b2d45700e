// The kernel cache keys (src/gpu/kernel_key.hpp): the memory key and the disk
// key come from one place; requests that differ in anything that changes the
// kernel never share a key, identical requests always do.
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "gpu/codegen.hpp"
#include "core/driver.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/launch.hpp"
#include "lang/check.hpp"

using namespace cujit;

namespace {

std::pair<std::uint64_t, std::uint64_t> pair_of(const cache::Key& k) { return {k.hi, k.lo}; }

Param in(const char* name, DType t, bool weak = false, bool raw = false) { return Param{name, t, weak, raw}; }

}  // namespace

TEST_CASE("program keys: every part of a program's signature is in its key", "[cache][key]") {
  const std::vector<Param> xy = {in("x", DType::Float32), in("y", DType::Float32)};
  const std::vector<OutputDecl> none;
  const cache::Key base = program_key("out = x + y", xy, none, "cujit_kernel");
  CHECK(program_key("out = x + y", xy, none, "cujit_kernel") == base);  // identical: the same key

  std::vector<cache::Key> different = {
      program_key("out = x - y", xy, none, "cujit_kernel"),
      program_key("out = x + y", {in("x", DType::Float64), in("y", DType::Float32)}, none, "cujit_kernel"),
      program_key("out = x + y", {in("y", DType::Float32), in("x", DType::Float32)}, none, "cujit_kernel"),
      program_key("out = x + y", {in("x", DType::Float32, true), in("y", DType::Float32)}, none, "cujit_kernel"),
      program_key("out = x + y", {in("x", DType::Float32, false, true), in("y", DType::Float32)}, none, "cujit_kernel"),
      program_key("out = x + y", {in("xy", DType::Float32)}, none, "cujit_kernel"),
      program_key("out = x + y", xy, {OutputDecl{"out", std::nullopt}}, "cujit_kernel"),
      program_key("out = x + y", xy, {OutputDecl{"out", DType::Float32}}, "cujit_kernel"),
      program_key("out = x + y", xy, {OutputDecl{"out", DType::Float64}}, "cujit_kernel"),
      program_key("out = x + y", xy, none, "other_kernel"),
      program_key("out = x + y", xy, none, "cujit_kernel", "op: a+b"),
      program_key("out = x + y", xy, none, "cujit_kernel", {}, true),
      program_key("out = x + y", xy, none, "cujit_kernel", {}, false, true),
  };
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen = {pair_of(base)};
  for (const cache::Key& k : different) seen.insert(pair_of(k));
  CHECK(seen.size() == different.size() + 1);
}

TEST_CASE("kernel keys: memory and disk keys differ with layout and compile options, agree when identical",
          "[cache][key]") {
  Program p = compile_program("out = x * 2", {in("x", DType::Float32)});
  const cache::Key prog = program_key(p.ast.source, p.inputs, {}, "cujit_kernel");
  const cache::Key other_prog = program_key("out = x * 3", p.inputs, {}, "cujit_kernel");
  const std::vector<KernelLayout> layouts = {contiguous_layout(p, 4), contiguous_layout(p, 1), strided_layout(p, 2),
                                             strided_layout(p, 3)};
  CompileOptions sm90;
  sm90.arch = 90;
  CompileOptions sm80 = sm90;
  sm80.arch = 80;
  CompileOptions fast = sm90;
  fast.fast_math = true;
  CompileOptions extra = sm90;
  extra.extra = {"-lineinfo"};
  CompileOptions user = sm90;
  user.user_code = true;  // whose errors a compile's are: not the code, so not the key

  std::set<std::pair<std::uint64_t, std::uint64_t>> memory, disk;
  int requests = 0;
  for (const KernelLayout& l : layouts)
    for (const CompileOptions* co : {&sm90, &sm80, &fast, &extra}) {
      const KernelKey k(prog, l, *co);
      ++requests;
      memory.insert(pair_of(k.memory()));
      memory.insert(pair_of(KernelKey(other_prog, l, *co).memory()));
      const std::string source = generate_source(p, l, "cujit_kernel");
      disk.insert(pair_of(k.disk(source)));
      // Identical requests: the same keys, and the disk key is kernel_cache_key's.
      CHECK(KernelKey(prog, l, *co).memory() == k.memory());
      CHECK(k.disk(source) == kernel_cache_key(source, *co));
      CHECK(KernelKey(prog, l, user).memory() == KernelKey(prog, l, sm90).memory());
      CHECK(k.memory() != k.disk(source));  // the two kinds never meet
    }
  CHECK(memory.size() == static_cast<std::size_t>(2 * requests));
  CHECK(disk.size() == static_cast<std::size_t>(requests));
}

TEST_CASE("a compiled kernel is stored once: programs and lookups share the cache's entry", "[cache][key]") {
  // The launcher keeps the cache's shared entry (no copy of its cubin/PTX per
  // program or lookup); a second program with the same signature finds the
  // same entry in memory.
  auto p = std::make_shared<Program>(compile_program("out = x * 2 + 1", {in("x", DType::Float32)}));
  const KernelLayout l = contiguous_layout(*p, 4);
  GpuProgram a(p, GpuOptions{}), b(p, GpuOptions{});
  bool compiled = false;
  auto first = a.compile(l, 90, &compiled);
  REQUIRE(first);
  auto again = a.compile(l, 90, &compiled);
  CHECK_FALSE(compiled);
  CHECK(again.get() == first.get());
  auto other = b.compile(l, 90, &compiled);
  CHECK_FALSE(compiled);
  CHECK(other.get() == first.get());
  CHECK(&select_image(entry_images(*first, cap_arch(90)), cap_arch(90)) == &first->cubin);
}
