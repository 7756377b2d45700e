#include "api/manifest.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/array.hpp"
#include "core/fail.hpp"
#include "cujit/array.hpp"

#ifdef CUJIT_HAVE_TOMLPLUSPLUS
// toml++ 3.3 (Debian 12) asserts on some malformed input before reporting it
// (fuzz_manifest found several: a '}' where an array value belongs, a table
// header with no key), and with NDEBUG its asserts become optimizer
// assumptions (__builtin_assume under clang): undefined behaviour. Its
// parser reports those inputs as syntax errors once the checks are out of
// its way, as its release builds with GCC do, so they are no-ops here.
#include <toml++/impl/preprocessor.h>
#undef TOML_ASSERT
#define TOML_ASSERT(expr) static_cast<void>(0)
#undef TOML_ASSERT_ASSUME
#define TOML_ASSERT_ASSUME(expr) static_cast<void>(0)
#include <toml++/toml.h>
#endif

namespace cujit {

std::string ManifestPos::text() const { return fmt::format("{}:{}:{}", file, line, column); }

std::string ManifestKernel::label() const {
  return fmt::format("{}: kernel {}", pos.text(), where.count("name") ? "'" + name + "'" : "#" + std::to_string(number));
}

const ManifestPos& ManifestKernel::pos_of(const std::string& field) const {
  auto it = where.find(field);
  return it == where.end() ? pos : it->second;
}

#ifndef CUJIT_HAVE_TOMLPLUSPLUS

bool manifest_supported() { return false; }

Manifest parse_manifest(std::string_view, const std::string& name) {
  fail(ErrorCode::Usage,
       "{}: this cujit was built without toml++, which reads precompile manifests; install it (Debian/Ubuntu: "
       "apt-get install libtomlplusplus-dev) and build cujit again",
       name);
}

#else

bool manifest_supported() { return true; }

namespace {

constexpr const char* kFields =
    "name, in_params, out_params, operation, raw_cuda, preamble, scalars, program, inputs, outputs, types, "
    "layouts, index, ndim, fast_math, nvrtc_options, arch, shapes";

struct Reader {
  std::string file;

  ManifestPos pos(const toml::source_region& s) const {
    return ManifestPos{file, static_cast<int>(s.begin.line), static_cast<int>(s.begin.column)};
  }

  template <class... Args>
  [[noreturn]] void error(const toml::source_region& s, const ManifestKernel* k, const std::string& field,
                          fmt::format_string<Args...> f, Args&&... args) const {
    std::string what = fmt::format(f, std::forward<Args>(args)...);
    std::string who;
    if (k) who = k->where.count("name") ? fmt::format("kernel '{}': ", k->name) : fmt::format("kernel #{}: ", k->number);
    fail(ErrorCode::Data, "{}: {}{}{}", pos(s).text(), who, field.empty() ? "" : "'" + field + "': ", what);
  }

  std::string string(const toml::node& n, const ManifestKernel& k, const std::string& field) const {
    if (!n.is_string()) error(n.source(), &k, field, "expected a string, got {}", type_name(n));
    return n.as_string()->get();
  }

  bool boolean(const toml::node& n, const ManifestKernel& k, const std::string& field) const {
    if (!n.is_boolean()) error(n.source(), &k, field, "expected true or false, got {}", type_name(n));
    return n.as_boolean()->get();
  }

  // An array of strings; a single string is taken as an array of one.
  std::vector<std::pair<std::string, toml::source_region>> strings(const toml::node& n, const ManifestKernel& k,
                                                                   const std::string& field) const {
    std::vector<std::pair<std::string, toml::source_region>> out;
    if (n.is_string()) {
      out.emplace_back(n.as_string()->get(), n.source());
      return out;
    }
    if (!n.is_array()) error(n.source(), &k, field, "expected an array of strings, got {}", type_name(n));
    for (const toml::node& e : *n.as_array()) {
      if (!e.is_string()) error(e.source(), &k, field, "expected an array of strings, but an element is {}", type_name(e));
      out.emplace_back(e.as_string()->get(), e.source());
    }
    return out;
  }

  static std::string type_name(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::table: return "a table";
      case toml::node_type::array: return "an array";
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a float";
      case toml::node_type::boolean: return "a boolean";
      default: return "a date or time";
    }
  }

  static bool is_identifier(std::string_view s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
  }

  DType dtype(const std::string& name, const toml::source_region& s, const ManifestKernel& k,
              const std::string& field) const {
    auto t = dtype_from_numpy(name);
    if (!t) error(s, &k, field, "{}", dtype_spelling_problem(name));
    return *t;
  }

  // shapes = [{ x = [1000, 4], a = "scalar" }, ...]: one table per call's
  // shapes (a single table is taken as a list of one).
  void shapes(const toml::node& n, ManifestKernel& k) const {
    const char* example = "[{ x = [1000, 4] }]";
    std::vector<const toml::node*> sets;
    if (n.is_table()) sets.push_back(&n);
    else if (n.is_array())
      for (const toml::node& e : *n.as_array()) sets.push_back(&e);
    else
      error(n.source(), &k, "shapes", "expected an array of tables such as {}, got {}", example, type_name(n));
    if (sets.empty()) error(n.source(), &k, "shapes", "give at least one table of input shapes, e.g. {}", example);
    for (const toml::node* e : sets) {
      if (!e->is_table())
        error(e->source(), &k, "shapes", "expected an array of tables such as {}, but an element is {}", example,
              type_name(*e));
      ManifestKernel::ShapeSet set;
      set.pos = pos(e->source());
      for (auto&& [name, v] : *e->as_table()) {
        const std::string field = "shapes." + std::string(name.str());
        if (v.is_string() && v.as_string()->get() == "scalar") {
          set.inputs.emplace_back(std::string(name.str()), std::nullopt);
          continue;
        }
        if (!v.is_array())
          error(v.source(), &k, field, "expected the input's shape, e.g. [1000, 4] ([] for 0-d), or \"scalar\" for a "
                "0-d value passed from the host, got {}", type_name(v));
        std::vector<std::int64_t> extents;
        for (const toml::node& x : *v.as_array()) {
          if (!x.is_integer() || x.as_integer()->get() < 0)
            error(x.source(), &k, field, "an extent is a whole number from 0, e.g. [1000, 4]");
          extents.push_back(x.as_integer()->get());
        }
        if (extents.size() > static_cast<std::size_t>(kMaxDims))
          error(v.source(), &k, field, "{} dimensions; cujit's arrays have at most {}", extents.size(), kMaxDims);
        Shape shape;
        for (std::int64_t e : extents) shape[shape.ndim++] = e;
        if (checked_size(shape) < 0) error(v.source(), &k, field, "the shape has more elements than fit in 64 bits");
        set.inputs.emplace_back(std::string(name.str()), std::move(extents));
      }
      k.shapes.push_back(std::move(set));
    }
  }

  // The two forms, and the fields that belong to one of them only; the
  // defaults that depend on the form; the dtypes of inputs and outputs.
  void check_form(const toml::table& t, ManifestKernel& k) const {
    k.elementwise = t.contains("operation");
    if (k.elementwise == t.contains("program"))
      error(t.source(), &k, "", "give either operation (with in_params and out_params: an ElementwiseKernel) or program "
            "(with inputs: a jitrun-style program)");
    auto only = [&](const char* field, bool allowed, const char* form) {
      if (!allowed && t.contains(field)) error(t.get(field)->source(), &k, field, "belongs to {} kernels only", form);
    };
    for (const char* f : {"in_params", "out_params", "raw_cuda", "preamble", "scalars"})
      only(f, k.elementwise, "ElementwiseKernel (operation)");
    for (const char* f : {"inputs", "outputs"}) only(f, !k.elementwise, "program");
    if (k.elementwise) {
      if (!t.contains("name")) error(t.source(), &k, "name", "an ElementwiseKernel needs a name");
      if (!t.contains("out_params")) error(t.source(), &k, "out_params", "missing: declare the outputs, e.g. \"T z\"");
    } else if (!t.contains("name")) {
      k.name = "cujit_kernel";  // cujit::evaluate's symbol
    }
    if (k.layouts.empty()) k.layouts.push_back(ManifestLayout{"contiguous", k.pos});
    // Input and output dtypes: a dtype or a placeholder of `types`.
    auto known = [&](const std::string& d) {
      if (dtype_from_numpy(d)) return true;
      for (const auto& [ph, ts] : k.types)
        if (ph == d) return true;
      return false;
    };
    for (const auto& in : k.inputs)
      if (!known(in.dtype))
        error(t.get("inputs")->source(), &k, "inputs", "'{}={}': '{}' is neither a dtype nor a placeholder of 'types'",
              in.name, in.dtype, in.dtype);
    if (!k.elementwise)
      for (const ManifestKernel::ShapeSet& set : k.shapes)
        for (const auto& [name, ext] : set.inputs) {
          bool found = false;
          std::string all;
          for (const auto& in : k.inputs) found = found || in.name == name, all += (all.empty() ? "" : ", ") + in.name;
          if (!found)
            error(t.get("shapes")->source(), &k, "shapes", "'{}' is not an input of the program (its inputs: {})", name,
                  all.empty() ? "none" : all);
        }
    for (const auto& [name, d] : k.outputs)
      if (!known(d))
        error(t.get("outputs")->source(), &k, "outputs", "'{}={}': '{}' is neither a dtype nor a placeholder of 'types'",
              name, d, d);
  }

  ManifestKernel kernel(const toml::table& t, int number) const {
    ManifestKernel k;
    k.number = number;
    k.pos = pos(t.source());
    // The name first: every later error names the kernel.
    if (const toml::node* n = t.get("name")) {
      k.where["name"] = pos(n->source());
      k.name = string(*n, k, "name");
      if (!is_identifier(k.name)) error(n->source(), &k, "name", "'{}' is not a C identifier", k.name);
    }
    for (auto&& [key, node] : t) {
      const std::string f(key.str());
      const toml::source_region& s = node.source();
      k.where[f] = pos(s);
      if (f == "name") {
      } else if (f == "in_params") {
        k.in_params = string(node, k, f);
      } else if (f == "out_params") {
        k.out_params = string(node, k, f);
      } else if (f == "operation") {
        k.operation = string(node, k, f);
      } else if (f == "preamble") {
        k.preamble = string(node, k, f);
      } else if (f == "raw_cuda") {
        k.raw_cuda = boolean(node, k, f);
      } else if (f == "program") {
        k.program = string(node, k, f);
      } else if (f == "fast_math") {
        k.fast_math = boolean(node, k, f);
      } else if (f == "nvrtc_options") {
        for (auto& [v, src] : strings(node, k, f)) k.nvrtc_options.push_back(v);
      } else if (f == "scalars") {
        if (!node.is_table()) error(s, &k, f, "expected a table such as {{ a = \"float\" }}, got {}", type_name(node));
        for (auto&& [name, v] : *node.as_table()) {
          std::string field = f + "." + std::string(name.str());
          std::string kind = string(v, k, field);
          if (kind != "int" && kind != "float" && kind != "complex" && !dtype_from_numpy(kind))
            error(v.source(), &k, field,
                  "'{}' is not a scalar kind: use int, float or complex (a C++ number: weak) or a dtype (a typed scalar)",
                  kind);
          k.scalars.emplace_back(std::string(name.str()), kind);
        }
      } else if (f == "types") {
        if (!node.is_table())
          error(s, &k, f, "expected a table such as {{ T = [\"float32\", \"float64\"] }}, got {}", type_name(node));
        for (auto&& [name, v] : *node.as_table()) {
          std::string field = f + "." + std::string(name.str());
          if (!is_identifier(name.str())) error(v.source(), &k, field, "a placeholder is an identifier such as T");
          if (dtype_from_numpy(name.str())) error(v.source(), &k, field, "'{}' is a dtype, not a placeholder", name.str());
          std::vector<DType> ts;
          for (auto& [d, src] : strings(v, k, field)) ts.push_back(dtype(d, src, k, field));
          if (ts.empty()) error(v.source(), &k, field, "give at least one dtype");
          k.types.emplace_back(std::string(name.str()), ts);
        }
      } else if (f == "inputs") {
        for (auto& [spec, src] : strings(node, k, f)) {
          std::size_t eq = spec.find('=');
          ManifestKernel::Input in;
          if (eq != std::string::npos) {
            in.name = spec.substr(0, eq);
            in.dtype = spec.substr(eq + 1);
            std::size_t colon = in.dtype.find(':');
            if (colon != std::string::npos) {
              in.flag = in.dtype.substr(colon + 1);
              in.dtype.resize(colon);
            }
          }
          if (!is_identifier(in.name) || (!is_identifier(in.dtype) && !dtype_from_numpy(in.dtype)))
            error(src, &k, f, "'{}' is not NAME=DTYPE[:weak|:raw|:scalar], e.g. \"x=float32\"", spec);
          if (in.flag != "" && in.flag != "weak" && in.flag != "raw" && in.flag != "scalar")
            error(src, &k, f, "'{}': unknown flag ':{}' (use :weak, :raw or :scalar)", spec, in.flag);
          for (const auto& o : k.inputs)
            if (o.name == in.name) error(src, &k, f, "input '{}' is given twice", in.name);
          k.inputs.push_back(in);
        }
      } else if (f == "outputs") {
        for (auto& [spec, src] : strings(node, k, f)) {
          std::size_t eq = spec.find('=');
          if (eq == std::string::npos || !is_identifier(spec.substr(0, eq)))
            error(src, &k, f, "'{}' is not NAME=DTYPE, e.g. \"out=float32\"", spec);
          k.outputs.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
        }
      } else if (f == "layouts") {
        for (auto& [l, src] : strings(node, k, f)) {
          if (l != "contiguous" && l != "strided" && l != "broadcast" && l.find('|') == std::string::npos)
            error(src, &k, f,
                  "unknown layout '{}' (use contiguous, strided, broadcast, or an exact layout as recorded, e.g. "
                  "\"c.i32.v4|o:c|i:c\")", l);
          k.layouts.push_back(ManifestLayout{l, pos(src)});
        }
      } else if (f == "index") {
        if (!node.is_array()) error(s, &k, f, "expected an array such as [32, 64], got {}", type_name(node));
        k.index.clear();
        for (const toml::node& e : *node.as_array()) {
          if (!e.is_integer() || (e.as_integer()->get() != 32 && e.as_integer()->get() != 64))
            error(e.source(), &k, f, "expected 32 or 64 (bits of index arithmetic)");
          k.index.push_back(static_cast<int>(e.as_integer()->get()));
        }
        if (k.index.empty()) error(s, &k, f, "give 32, 64 or both");
      } else if (f == "ndim") {
        if (!node.is_integer() || node.as_integer()->get() < 1 || node.as_integer()->get() > 8)
          error(s, &k, f, "expected an integer from 1 to 8 (dimensions of strided layouts)");
        k.ndim = static_cast<int>(node.as_integer()->get());
      } else if (f == "shapes") {
        shapes(node, k);
      } else if (f == "arch") {
        for (auto& [a, src] : strings(node, k, f)) {
          std::string digits = a.rfind("sm_", 0) == 0 ? a.substr(3) : a;
          bool ok = !digits.empty() && digits.size() <= 4 && digits.find_first_not_of("0123456789") == std::string::npos;
          if (!ok || std::stoi(digits) == 0) error(src, &k, f, "'{}': expected sm_XX, e.g. sm_90", a);
          k.archs.push_back(std::stoi(digits));
        }
      } else {
        error(s, &k, "", "unknown field '{}' (a kernel's fields: {})", f, kFields);
      }
    }
    check_form(t, k);
    return k;
  }
};

// Input that toml++ 3.3 (Debian 12) does not survive is refused before it
// is parsed; fuzz_manifest found both:
//  - a table header with no valid key start ("[[+x]]") fails an assert, which
//    with NDEBUG becomes an optimizer assumption;
//  - its generated is_non_ascii_horizontal_whitespace() reaches
//    __builtin_unreachable for many non-ASCII code points (U+0456, U+FED0),
//    and it is called wherever its scanner happens to be, strings included.
// So manifests are ASCII: non-ASCII text in strings is written as \uXXXX
// escapes (record mode writes them so), which TOML decodes to the same text.
// A small scanner of TOML's strings and comments finds table headers.
void reject_unsafe_input(std::string_view text, const std::string& name) {
  enum class In { Code, Basic, Literal, MlBasic, MlLiteral, Comment } in = In::Code;
  int line = 1;
  std::size_t line_start = 0;
  bool at_line_start = true;
  auto refuse = [&](std::size_t at, const char* what) {
    fail(ErrorCode::Data, "{}:{}:{}: TOML syntax error: {}", name, line, at - line_start + 1, what);
  };
  for (std::size_t k = 0; k < text.size(); ++k) {
    const unsigned char c = static_cast<unsigned char>(text[k]);
    if (c >= 0x80)
      refuse(k, "non-ASCII text; manifests are ASCII: write it as a \\uXXXX escape in a string");
    auto next_is = [&](std::string_view s) { return text.substr(k, s.size()) == s; };
    if (c == '\n') {
      ++line;
      line_start = k + 1;
      at_line_start = true;
      if (in == In::Basic || in == In::Literal || in == In::Comment) in = In::Code;
      continue;
    }
    switch (in) {
      case In::Code:
        if (c == ' ' || c == '\t' || c == '\r') break;
        if (at_line_start && c == '[') {
          std::size_t j = k + 1;
          if (j < text.size() && text[j] == '[') ++j;
          while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
          unsigned char h = j < text.size() ? static_cast<unsigned char>(text[j]) : 0;
          if (!(std::isalnum(h) || h == '_' || h == '-' || h == '"' || h == '\''))
            refuse(j, "a table header needs a key after '['");
        }
        at_line_start = false;
        if (c == '#') {
          in = In::Comment;
        } else if (next_is("\"\"\"")) {
          in = In::MlBasic;
          k += 2;
        } else if (next_is("'''")) {
          in = In::MlLiteral;
          k += 2;
        } else if (c == '"') {
          in = In::Basic;
        } else if (c == '\'') {
          in = In::Literal;
        }
        break;
      case In::Basic:
        if (c == '\\') ++k;
        else if (c == '"') in = In::Code;
        break;
      case In::Literal:
        if (c == '\'') in = In::Code;
        break;
      case In::MlBasic:
        if (c == '\\') {
          ++k;
        } else if (next_is("\"\"\"")) {
          in = In::Code;
          k += 2;
        }
        break;
      case In::MlLiteral:
        if (next_is("'''")) {
          in = In::Code;
          k += 2;
        }
        break;
      case In::Comment:
        break;
    }
  }
}

}  // namespace

Manifest parse_manifest(std::string_view text, const std::string& name) {
  Reader r{name};
  reject_unsafe_input(text, name);
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    fail(ErrorCode::Data, "{}: TOML syntax error: {}", r.pos(e.source()).text(), e.description());
  }
  Manifest m;
  m.file = name;
  for (auto&& [key, node] : root) {
    if (key.str() == "version") {
      if (!node.is_integer() || node.as_integer()->get() != 1)
        fail(ErrorCode::Data, "{}: 'version': this cujit reads manifest version 1", r.pos(node.source()).text());
      continue;
    }
    if (key.str() != "kernel")
      fail(ErrorCode::Data, "{}: unknown top-level field '{}' (a manifest holds [[kernel]] tables)",
           r.pos(node.source()).text(), key.str());
    if (!node.is_array_of_tables())
      fail(ErrorCode::Data, "{}: 'kernel' must be [[kernel]] tables", r.pos(node.source()).text());
    int number = 0;
    for (const toml::node& t : *node.as_array()) m.kernels.push_back(r.kernel(*t.as_table(), ++number));
  }
  return m;
}

#endif

Manifest read_manifest(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(ErrorCode::Data, "{}: cannot read the manifest: {}", path, std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) fail(ErrorCode::Data, "{}: cannot read the manifest: {}", path, std::strerror(errno));
  return parse_manifest(ss.str(), path);
}

}  // namespace cujit
