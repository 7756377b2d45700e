// parse: tokens -> syntax tree. Grammar in docs/language.md; each function in
// parse.cpp carries its rule.
#pragma once
#include <string_view>

#include "lang/ast.hpp"

namespace cujit {

Ast parse(std::string_view source);

}  // namespace cujit
