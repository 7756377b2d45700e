#include "gpu/templates.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include "core/fail.hpp"

namespace cujit {

namespace {

// ---------------------------------------------------------------------------
// Templates: the copies embedded at build time, or $CUJIT_TEMPLATE_DIR's files.

struct EmbeddedTemplate {
  const char* name;
  const char* text;
};

#ifdef CUJIT_EMBEDDED_TEMPLATES
// cmake/embed.cmake writes one {"name", R"...(text)..."} entry per template file.
constexpr EmbeddedTemplate kEmbedded[] = {
#include "cujit_templates.inc"
    {nullptr, nullptr},
};
#else
constexpr EmbeddedTemplate kEmbedded[] = {{nullptr, nullptr}};
#endif

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  out = s.str();
  return true;
}

// The embedded copies, unless $CUJIT_TEMPLATE_DIR names a folder: then that
// folder's files and nothing else, so an edited set is never mixed with the built-in one.
std::string load_template(const std::string& file) {
  if (const char* dir = std::getenv("CUJIT_TEMPLATE_DIR"); dir && *dir) {
    std::string text;
    if (read_file(std::string(dir) + "/" + file, text)) return text;
    fail(ErrorCode::Usage, "kernel template '{}' not found in CUJIT_TEMPLATE_DIR ({}); "
         "point it at a copy of cujit's templates/ folder, or unset it to use the built-in templates", file, dir);
  }
  for (const EmbeddedTemplate& t : kEmbedded)
    if (t.name && file == t.name) return t.text;
  fail(ErrorCode::Internal, "kernel template '{}' is not built in (set CUJIT_TEMPLATE_DIR to a templates/ folder)", file);
}

// Fills {{NAME}} placeholders. A placeholder alone on its line takes that
// line's indentation for every line of its value, and an empty value removes
// the line, so multi-line snippets stay readable.
std::string render_template_impl(const std::string& tpl, const std::map<std::string, std::string>& vars) {
  auto lookup = [&](const std::string& key) -> const std::string& {
    auto it = vars.find(key);
    if (it == vars.end()) fail(ErrorCode::Internal, "kernel template uses unknown placeholder {{{{{}}}}}", key);
    return it->second;
  };
  std::string out;
  std::size_t pos = 0;
  while (pos < tpl.size()) {
    std::size_t eol = tpl.find('\n', pos);
    std::string line = tpl.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? tpl.size() : eol + 1;
    std::size_t ind = line.find_first_not_of(' ');
    if (ind != std::string::npos && line.compare(ind, 2, "{{") == 0 && line.size() >= 4 &&
        line.compare(line.size() - 2, 2, "}}") == 0 && line.find("{{", ind + 2) == std::string::npos) {
      const std::string& value = lookup(line.substr(ind + 2, line.size() - ind - 4));
      if (value.empty()) continue;
      std::string pad(ind, ' ');
      std::size_t vp = 0;
      while (vp < value.size()) {
        std::size_t ve = value.find('\n', vp);
        std::string vl = value.substr(vp, ve == std::string::npos ? std::string::npos : ve - vp);
        // Preprocessor lines (#pragma unroll) stay at column 0, as written in the templates.
        out += vl.empty() || vl[0] == '#' ? vl : pad + vl;
        out += '\n';
        vp = ve == std::string::npos ? value.size() : ve + 1;
      }
      continue;
    }
    std::size_t at = 0;
    while (true) {
      std::size_t b = line.find("{{", at);
      if (b == std::string::npos) break;
      std::size_t e = line.find("}}", b + 2);
      if (e == std::string::npos) break;
      const std::string& value = lookup(line.substr(b + 2, e - b - 2));
      line.replace(b, e + 2 - b, value);
      at = b + value.size();
    }
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

std::string render_template(const std::string& tpl, const std::map<std::string, std::string>& vars) {
  return render_template_impl(tpl, vars);
}

std::string embedded_template(const std::string& file) {
  for (const EmbeddedTemplate& t : kEmbedded)
    if (t.name && file == t.name) return t.text;
  return "";
}

const std::string& template_text(const std::string& file) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(file);
  if (it == cache.end()) it = cache.emplace(file, load_template(file)).first;
  return it->second;
}

}  // namespace cujit
