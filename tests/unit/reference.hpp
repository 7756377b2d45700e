// Loader and comparator for the NumPy-generated reference data in tests/data/
// (written by tests/data/gen_reference.py; the file formats are documented in
// the headers of promotion.txt and eval_cases.txt).
#pragma once
#include <stdexcept>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cujit/array.hpp"
#include "cujit/dtype.hpp"

namespace cujit::ref {

struct RefInput {
  std::string name;
  bool weak = false;  // a `weak` line: a literal-like 0-d input (NEP 50)
  HostArray array;
};

struct RefOutput {
  std::string name;
  int tol = 0;  // ulps; 0 = bit-exact (any NaN matches any NaN)
  HostArray array;
};

struct RefCase {
  std::string id;
  std::string program;
  int line = 0;  // line of `case` in the file
  std::vector<RefInput> inputs;
  // `outspec` lines: declared outputs (nullopt dtype = `auto`). Empty: outputs are inferred.
  std::vector<std::pair<std::string, std::optional<DType>>> outspecs;
  std::vector<RefOutput> outputs;
  std::optional<std::string> error;  // expected first line of the error; "*" = any message
};

// Parses eval_cases.txt. Throws std::runtime_error naming file:line on malformed input.
std::vector<RefCase> load_eval_cases(const std::string& path);

struct PromotionTables {
  DType promote[kNumDTypes][kNumDTypes];  // [a][b] = result_type(a, b)
  DType weak[kNumDTypes][3];              // [dtype][int, float, complex literal]
  bool safe[kNumDTypes][kNumDTypes];      // [from][to]
  bool same_kind[kNumDTypes][kNumDTypes];
};

// Parses promotion.txt. Throws std::runtime_error on malformed input.
PromotionTables load_promotion(const std::string& path);

// Compares n elements of dtype t. tol = 0: bit-exact, except that any NaN matches any NaN.
// tol > 0 (floating): within tol ulps (+0 == -0; an infinity matches only itself; NaN only NaN);
// complex: each part within tol ulps of the larger magnitude of the expected (re, im) pair.
// Integers and bools are always bit-exact. On a mismatch, *why (if given) says where and how.
bool values_match(DType t, const void* got, const void* want, std::int64_t n, int tol, std::string* why);

// Per-element loosening for results whose error depends on the inputs (the
// rules of docs/language.md, Accuracy). Element e of a floating or complex
// result may then differ by tol * scale[e] ulps taken at max(m, floor[e]), m
// the magnitude of the expected value (of its larger part); a scale below 1 or
// not finite counts as 1, a floor not finite as 0; an empty vector means all 1 /
// all 0. Where scale[e] > 1 (an ill-conditioned result) and the expected
// complex value has an infinite part, the magnitude overflowed and the phase,
// uncertain to that many ulps, no longer shows in the parts: then only which
// parts are NaN is compared.
struct ElementTol {
  std::vector<double> scale, floor;
};
bool values_match(DType t, const void* got, const void* want, std::int64_t n, int tol, std::string* why,
                  const ElementTol* per_element);

// Distance in representable values between two floating values of a real floating dtype
// (given as their bit patterns, zero-extended); +0 and -0 are 0 apart.
std::uint64_t ulp_distance(DType t, std::uint64_t a_bits, std::uint64_t b_bits);

// One element for messages: "1.5 [3fc00000]", "-7", "true", "(1, -2) [...]".
std::string format_value(DType t, const void* p);
std::string shape_to_string(const Shape& s);  // "()", "8", "2x4"
Shape parse_shape(std::string_view s);        // inverse of shape_to_string; throws on error

}  // namespace cujit::ref
