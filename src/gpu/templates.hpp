// The kernel templates (templates/*.cu, *.cuh): their text, and the renderer
// that fills their {{NAME}} placeholders.
#pragma once
#include <map>
#include <string>

namespace cujit {

// Template text by file name ("prelude.cuh"): the copy embedded at build time
// (cmake/embed.cmake), or, when the environment variable CUJIT_TEMPLATE_DIR names a
// folder, that folder's file (fail(Usage) when it has none). Read once per process.
const std::string& template_text(const std::string& file);
// The copy embedded at build time; "" when the build embeds none.
std::string embedded_template(const std::string& file);

// Fills {{NAME}} placeholders. A placeholder alone on its line takes that
// line's indentation for every line of its value (but a preprocessor line,
// which stays at column 0), and an empty value removes
// the line, so multi-line snippets stay readable. fail(Internal) on an unknown one.
std::string render_template(const std::string& tpl, const std::map<std::string, std::string>& vars);

}  // namespace cujit
