// names: the one rule every user-given name follows (inputs, outputs, locals,
// kernels, placeholders), wherever it comes in: jitrun, jitcache, the API.
// Generated source pastes such names (behind a prefix, or bare in raw CUDA
// mode and as the kernel symbol), so this rule is what keeps user text from
// being read as code: a C identifier, ASCII, 1..kMaxNameLength characters,
// not starting with '_' (C++ reserves __x and _X; CUDA's __global__ etc.),
// not a reserved word of C++ or CUDA (keywords, alternative operator
// spellings, main, CUDA's built-in variables), and not starting with cujit's
// internal prefix "cj_" (the generated code's own names and namespace).
#pragma once
#include <string>
#include <string_view>

namespace cujit {

inline constexpr std::size_t kMaxNameLength = 64;

// The rule as one sentence, for messages and docs.
extern const char* const kNameRule;

// Why `name` breaks the rule ("" when it follows it).
std::string name_problem(std::string_view name);

// fail(ErrorCode::Usage, "<what> '<name>' is not a valid name: <why>; <rule>")
// unless `name` follows the rule. `what` says where it came from ("-i name").
void check_name(std::string_view name, std::string_view what);

// A name (or any user text) for a message: control and non-ASCII bytes as \xNN,
// cut to 40 characters with "..." so a megabyte name cannot flood a terminal.
std::string quoted_text(std::string_view text);

// The closest candidate by edit distance, or "" when none is close enough to
// suggest or two are equally close: the "did you mean" of every message.
std::string closest_name(std::string_view name, const std::string_view* candidates, std::size_t count);

}  // namespace cujit
