// parse: tokens -> syntax tree. Grammar in docs/language.md; each function in
// parse.cpp carries its rule.
#pragma once
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lang/ast.hpp"

namespace cujit {

// Type names beyond the dtypes: an ElementwiseKernel's placeholders bound to
// dtypes, so a local may be declared with one (`T diff = x - y`, as CuPy allows).
using TypeNames = std::vector<std::pair<std::string, DType>>;

Ast parse(std::string_view source, const TypeNames& placeholders = {});

// The names a parsed program indexes (`x[j]`): the inputs evaluate() and
// jitrun pass as raw parameters, found in the tree parse made (no second lex).
std::set<std::string> indexed_names(const Ast& ast);

}  // namespace cujit
