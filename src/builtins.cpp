// The builtin functions, casts and operators with NumPy 2.4's loop lists
// (numpy.<ufunc>.types), bfloat16 (E) added after float16 (e) wherever NumPy
// has a float16 loop, so a bfloat16 input keeps its type as float16 does.
#include <array>
#include <vector>

#include "check.hpp"

namespace cujit {

namespace {

constexpr std::string_view kFloatC = "e E f d F D";  // float functions with complex loops
constexpr std::string_view kFloatR = "e E f d";      // float functions without
constexpr std::string_view kArith = "b B h H i I q Q e E f d F D";
constexpr std::string_view kArithBool = "? b B h H i I q Q e E f d F D";
constexpr std::string_view kIntFloat = "b B h H i I q Q e E f d";
constexpr std::string_view kToBool = "?? b? B? h? H? i? I? q? Q? e? E? f? d? F? D?";
constexpr std::string_view kInts = "b B h H i I q Q";
constexpr std::string_view kIntsBool = "? b B h H i I q Q";

const Builtin kFunctions[] = {
    {"sin", "", "", 1, 1, kFloatC},      {"cos", "", "", 1, 1, kFloatC},
    {"tan", "", "", 1, 1, kFloatC},      {"arcsin", "asin", "", 1, 1, kFloatC},
    {"arccos", "acos", "", 1, 1, kFloatC}, {"arctan", "atan", "", 1, 1, kFloatC},
    {"arctan2", "atan2", "", 2, 2, kFloatR}, {"sinh", "", "", 1, 1, kFloatC},
    {"cosh", "", "", 1, 1, kFloatC},     {"tanh", "", "", 1, 1, kFloatC},
    {"arcsinh", "asinh", "", 1, 1, kFloatC}, {"arccosh", "acosh", "", 1, 1, kFloatC},
    {"arctanh", "atanh", "", 1, 1, kFloatC}, {"exp", "", "", 1, 1, kFloatC},
    {"exp2", "", "", 1, 1, kFloatC},     {"expm1", "", "", 1, 1, kFloatC},
    {"log", "", "", 1, 1, kFloatC},      {"log2", "", "", 1, 1, kFloatC},
    {"log10", "", "", 1, 1, kFloatC},    {"log1p", "", "", 1, 1, kFloatC},
    {"sqrt", "", "", 1, 1, kFloatC},     {"cbrt", "", "", 1, 1, kFloatR},
    {"square", "", "", 1, 1, kArith},    {"reciprocal", "", "", 1, 1, kArith},
    {"power", "pow", "", 2, 2, kArith},
    {"absolute", "abs", "fabs", 1, 1, "? b B h H i I q Q e E f d Ff Dd"},
    {"sign", "", "", 1, 1, kArith, Special::None, 'x'},
    {"floor", "", "", 1, 1, "? b B h H i I q Q e E f d"},
    {"ceil", "", "", 1, 1, "? b B h H i I q Q e E f d"},
    {"trunc", "", "", 1, 1, "? b B h H i I q Q e E f d"},
    {"rint", "", "", 1, 1, kFloatC},
    {"round", "", "", 1, 1, kArith, Special::None, 'e'},
    {"fmod", "", "", 2, 2, kIntFloat},   {"remainder", "", "", 2, 2, kIntFloat},
    {"floor_divide", "", "", 2, 2, kIntFloat},
    {"hypot", "", "", 2, 2, kFloatR},    {"copysign", "", "", 2, 2, kFloatR},
    {"maximum", "", "", 2, 2, kArithBool}, {"minimum", "", "", 2, 2, kArithBool},
    {"fmax", "", "", 2, 2, kArithBool},  {"fmin", "", "", 2, 2, kArithBool},
    {"clip", "", "", 3, 3, kArithBool, Special::Clip},
    {"where", "", "", 3, 3, kArithBool, Special::Where},
    {"isnan", "", "", 1, 1, kToBool},    {"isinf", "", "", 1, 1, kToBool},
    {"isfinite", "", "", 1, 1, kToBool}, {"signbit", "", "", 1, 1, "e? E? f? d?"},
    {"logical_and", "", "", 2, 2, kToBool}, {"logical_or", "", "", 2, 2, kToBool},
    {"logical_not", "", "", 1, 1, kToBool}, {"logical_xor", "", "", 2, 2, kToBool},
    {"real", "", "", 1, 1, "? b B h H i I q Q e E f d Ff Dd", Special::Real},
    {"imag", "", "", 1, 1, "? b B h H i I q Q e E f d Ff Dd", Special::Imag},
    {"conj", "conjugate", "", 1, 1, kArith},
    {"deg2rad", "radians", "", 1, 1, kFloatR}, {"rad2deg", "degrees", "", 1, 1, kFloatR},
    {"erf", "", "", 1, 1, kFloatR},      {"erfc", "", "", 1, 1, kFloatR},
    {"lgamma", "", "", 1, 1, kFloatR},   {"tgamma", "", "", 1, 1, kFloatR},
    {"size", "", "", 1, 1, "", Special::Size},
    // Casts: one per dtype, plus the aliases double and half.
    {"bool", "", "", 1, 1, "", Special::Cast},       {"int8", "", "", 1, 1, "", Special::Cast},
    {"int16", "", "", 1, 1, "", Special::Cast},      {"int32", "", "", 1, 1, "", Special::Cast},
    {"int64", "", "", 1, 1, "", Special::Cast},      {"uint8", "", "", 1, 1, "", Special::Cast},
    {"uint16", "", "", 1, 1, "", Special::Cast},     {"uint32", "", "", 1, 1, "", Special::Cast},
    {"uint64", "", "", 1, 1, "", Special::Cast},     {"float16", "half", "", 1, 1, "", Special::Cast},
    {"bfloat16", "", "", 1, 1, "", Special::Cast},   {"float32", "", "", 1, 1, "", Special::Cast},
    {"float64", "double", "", 1, 1, "", Special::Cast}, {"complex64", "", "", 1, 1, "", Special::Cast},
    {"complex128", "", "", 1, 1, "", Special::Cast},
};

// Operators, indexed by Op. NumPy has no bool loop for -, and raises for it.
const Builtin kOperators[] = {
    {"+", "", "", 2, 2, kArithBool},
    {"-", "", "", 2, 2, kArith, Special::None, 'x'},
    {"*", "", "", 2, 2, kArithBool},
    {"/", "", "", 2, 2, "e E f d F D", Special::TrueDivide},
    {"%", "", "", 2, 2, kIntFloat},
    {"**", "", "", 2, 2, kArith},
    {"<<", "", "", 2, 2, kInts, Special::None, 'x'},  // the contract: ints only (NumPy would give int8)
    {">>", "", "", 2, 2, kInts, Special::None, 'x'},
    {"<", "", "", 2, 2, kToBool},  {"<=", "", "", 2, 2, kToBool},
    {">", "", "", 2, 2, kToBool},  {">=", "", "", 2, 2, kToBool},
    {"==", "", "", 2, 2, kToBool}, {"!=", "", "", 2, 2, kToBool},
    {"&", "", "", 2, 2, kIntsBool}, {"^", "", "", 2, 2, kIntsBool}, {"|", "", "", 2, 2, kIntsBool},
    {"&&", "", "", 2, 2, kToBool}, {"||", "", "", 2, 2, kToBool},
    {"-", "", "", 1, 1, kArith, Special::None, 'x'},   // Neg
    {"+", "", "", 1, 1, kArith, Special::None, 'x'},   // Pos
    {"!", "", "", 1, 1, kToBool},                      // Not
    {"~", "", "", 1, 1, kIntsBool},                    // BitNot
};

}  // namespace

const Builtin* find_builtin(std::string_view name) {
  for (const Builtin& b : kFunctions)
    if (b.name == name || (!b.alias1.empty() && b.alias1 == name) || (!b.alias2.empty() && b.alias2 == name))
      return &b;
  return nullptr;
}

const Builtin& operator_builtin(Op op) { return kOperators[static_cast<int>(op)]; }

std::vector<std::string_view> builtin_names() {
  std::vector<std::string_view> v;
  for (const Builtin& b : kFunctions) {
    v.push_back(b.name);
    if (!b.alias1.empty()) v.push_back(b.alias1);
    if (!b.alias2.empty()) v.push_back(b.alias2);
  }
  return v;
}

DType dtype_for_char(char c) {
  switch (c) {
    case '?': return DType::Bool;
    case 'b': return DType::Int8;
    case 'B': return DType::UInt8;
    case 'h': return DType::Int16;
    case 'H': return DType::UInt16;
    case 'i': return DType::Int32;
    case 'I': return DType::UInt32;
    case 'q': return DType::Int64;
    case 'Q': return DType::UInt64;
    case 'e': return DType::Float16;
    case 'E': return DType::BFloat16;
    case 'f': return DType::Float32;
    case 'd': return DType::Float64;
    case 'F': return DType::Complex64;
    default: return DType::Complex128;
  }
}

}  // namespace cujit
