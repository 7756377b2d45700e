// parse: tokens -> syntax tree. Grammar in docs/language.md; each function in
// parse.cpp carries its rule.
#pragma once
#include <set>
#include <string>
#include <string_view>

#include "lang/ast.hpp"

namespace cujit {

Ast parse(std::string_view source);

// The names a parsed program indexes (`x[j]`): the inputs evaluate() and
// jitrun pass as raw parameters, found in the tree parse made (no second lex).
std::set<std::string> indexed_names(const Ast& ast);

}  // namespace cujit
