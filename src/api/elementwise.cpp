#include "cujit/elementwise.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "api/call.hpp"
#include "lang/lex.hpp"
#include "api/elementwise_access.hpp"
#include "api/programs.hpp"
#include "cache/record.hpp"
#include "core/driver.hpp"
#include "core/fail.hpp"
#include "core/limits.hpp"
#include "core/names.hpp"
#include "core/scratch.hpp"
#include "gpu/compile.hpp"
#include "gpu/launch.hpp"
#include "gpu/raw_cuda.hpp"
#include "lang/check.hpp"
#include "lang/diagnostic.hpp"
#include "lang/parse.hpp"
#include "plan/shapes.hpp"

namespace cujit {

namespace {

struct ParamDecl {
  std::string name;
  std::optional<DType> dtype;  // a dtype name
  std::string placeholder;     // otherwise: T, U, ...
  bool raw = false;
};

std::string trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

// C type names that stand for two dtypes: the caller must say which.
const char* ambiguous_type(std::string_view t) {
  if (t == "float") return "float32 or float64";
  if (t == "int" || t == "long") return "int32 or int64";
  if (t == "uint" || t == "unsigned") return "uint32 or uint64";
  if (t == "complex") return "complex64 or complex128";
  return nullptr;
}

// A type word that is a near miss of a dtype name: a typo, not a placeholder.
// Any identifier may be a placeholder, so without this rule `flaot32 x`
// would silently take whatever dtype x has. Near means, ignoring case, at most
// one edit for words of up to 3 characters, two for longer ones (the rule of
// the language's "did you mean"), so T, U, In or Out stay placeholders.
std::string near_dtype(std::string_view type) {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (int k = 0; k < kNumDTypes; ++k) n.push_back(dtype_name(static_cast<DType>(k)));
    n.push_back("double");
    n.push_back("half");
    return n;
  }();
  std::string lower(type);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return closest_name(lower, names.data(), names.size());
}

// CuPy's parameter syntax: "float32 x, T y, raw T z".
std::vector<ParamDecl> parse_params(const std::string& text, const char* which) {
  std::vector<ParamDecl> out;
  if (trim(text).empty()) return out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string item = trim(std::string_view(text).substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    std::vector<std::string> words;
    std::size_t k = 0;
    while (k < item.size()) {
      std::size_t b = item.find_first_not_of(" \t\r\n", k);
      if (b == std::string::npos) break;
      std::size_t e = item.find_first_of(" \t\r\n", b);
      words.push_back(item.substr(b, e == std::string::npos ? std::string::npos : e - b));
      k = e == std::string::npos ? item.size() : e;
    }
    ParamDecl d;
    if (!words.empty() && words[0] == "raw") {
      d.raw = true;
      words.erase(words.begin());
    }
    if (words.size() != 2)
      fail(ErrorCode::Usage, "{}: '{}' is not a parameter; write TYPE NAME or raw TYPE NAME, e.g. 'float32 x, T y, raw T z'",
           which, quoted_text(item));
    const std::string& type = words[0];
    d.name = words[1];
    check_name(d.name, fmt::format("{}: parameter", which));
    // C's names first: NumPy reads `float` as float64 where C++ reads float32.
    if (const char* both = ambiguous_type(type)) {
      fail(ErrorCode::Usage, "{}: the type '{}' of '{}' is ambiguous; name the dtype, e.g. {}", which, type, d.name, both);
    } else if (auto t = dtype_from_numpy(type)) {
      d.dtype = *t;
    } else if (std::string near = near_dtype(type); !near.empty()) {
      fail(ErrorCode::Usage,
           "{}: the type '{}' of '{}' is not a dtype; did you mean '{}'? (a placeholder name must not be this close "
           "to a dtype name)",
           which, type, d.name, near);
    } else if (name_problem(type).empty()) {
      d.placeholder = type;  // raw CUDA mode pastes it as a typedef name: the name rule keeps that safe
    } else if (type.find_first_of("<>=|.") != std::string::npos) {
      fail(ErrorCode::Usage, "{}: the type of '{}': {}", which, d.name, dtype_spelling_problem(type));
    } else {
      fail(ErrorCode::Usage, "{}: '{}' is neither a dtype nor a type placeholder (a name such as T: {})", which,
           quoted_text(type), kNameRule);
    }
    out.push_back(std::move(d));
  }
  return out;
}

// One byte per argument for the binding key: what kind it is and its dtype.
unsigned char arg_code(const Arg& a) {
  switch (a.kind()) {
    case Arg::Kind::WeakInt: return 0xF0;
    case Arg::Kind::WeakFloat: return 0xF1;
    case Arg::Kind::WeakComplex: return 0xF2;
    case Arg::Kind::Typed: return static_cast<unsigned char>(0x40 | static_cast<int>(a.view().dtype));
    case Arg::Kind::Array: {
      const ArrayView& v = a.view();
      // A host 0-d array is a typed scalar.
      if (v.device.kind == Device::CPU && v.shape.ndim == 0) return static_cast<unsigned char>(0x40 | static_cast<int>(v.dtype));
      return static_cast<unsigned char>(0x80 | static_cast<int>(v.dtype));
    }
  }
  return 0;
}

bool is_scalar(const Arg& a) { return (arg_code(a) & 0x80) == 0 || arg_code(a) >= 0xF0; }

}  // namespace

// One binding of the parameters' types: a checked program ready to launch.
struct Binding {
  std::shared_ptr<const GpuProgram> gpu;  // from the one program cache
  std::vector<std::optional<DType>> convert;  // per input: scalars convert to this dtype (none: passed weak)
  std::vector<int> out_slot;                  // per out_param: its position in Program::outputs
  std::vector<DType> out_dtype;               // per out_param
};

struct ElementwiseKernel::Impl {
  std::string name;
  std::string in_text, out_text;  // as given
  ElementwiseOptions opt;
  std::string operation;
  std::vector<ParamDecl> ins, outs;
  std::shared_ptr<const std::vector<std::string>> out_names;  // shared by every call's OutputArrays
  bool has_placeholder = false;

  mutable std::shared_mutex mu;
  mutable std::unordered_map<std::string, std::unique_ptr<Binding>> bindings;  // by the arguments' codes

  // The binding of a call with these arguments, made on first use.
  const Binding* binding(const Arg* args, std::size_t count, bool given) const {
    // The binding key: one byte per argument (no heap for up to 14 arguments).
    std::string key(count + 1, '\0');
    key[0] = given ? 'g' : 'a';
    for (std::size_t k = 0; k < count; ++k) key[k + 1] = static_cast<char>(arg_code(args[k]));
    const Binding* b = find(key);
    if (!b) {
      std::unique_ptr<Binding> nb = bind(args, given);
      std::unique_lock<std::shared_mutex> lock(mu);
      auto& slot = bindings[key];
      if (!slot) slot = std::move(nb);
      b = slot.get();
    }
    return b;
  }

  const Binding* find(const std::string& key) const {
    std::shared_lock<std::shared_mutex> lock(mu);
    auto it = bindings.find(key);
    return it == bindings.end() ? nullptr : it->second.get();
  }

  // The manifest fields that make this binding again (record mode): the
  // kernel, the placeholders' dtypes and how each scalar argument was passed.
  std::string recipe(const std::map<std::string, DType>& bound, const Arg* args, bool outputs_given) const {
    std::string r = "name = " + toml_quote(name) + "\nin_params = " + toml_quote(in_text) + "\nout_params = " +
                    toml_quote(out_text) + "\noperation = " + toml_quote(operation) + "\n";
    if (opt.raw_cuda) r += "raw_cuda = true\n";
    if (!opt.preamble.empty()) r += "preamble = " + toml_quote(opt.preamble) + "\n";
    std::string types;
    for (const auto& [ph, t] : bound) {
      // An output's placeholder bound only by allocated outputs is no binding.
      bool by_input = outputs_given;
      for (std::size_t k = 0; k < ins.size() && !by_input; ++k) by_input = ins[k].placeholder == ph && !args[k].is_weak();
      if (by_input) types += (types.empty() ? "" : ", ") + ph + " = [" + toml_quote(dtype_name(t)) + "]";
    }
    if (!types.empty()) r += "types = { " + types + " }\n";
    std::string scalars;
    for (std::size_t k = 0; k < ins.size(); ++k) {
      const Arg& a = args[k];
      if (!is_scalar(a)) continue;
      const char* kind = a.kind() == Arg::Kind::WeakInt ? "int" : a.kind() == Arg::Kind::WeakFloat ? "float"
                         : a.kind() == Arg::Kind::WeakComplex ? "complex" : nullptr;
      scalars += (scalars.empty() ? "" : ", ") + ins[k].name + " = " +
                 toml_quote(kind ? std::string_view(kind) : dtype_name(a.view().dtype));
    }
    if (!scalars.empty()) r += "scalars = { " + scalars + " }\n";
    return r;
  }

  // Binds the placeholders from the arguments and checks the program for them.
  std::unique_ptr<Binding> bind(const Arg* args, bool outputs_given) const {
    std::map<std::string, DType> bound;
    std::map<std::string, std::string> bound_by;
    auto bind_one = [&](const ParamDecl& d, DType t) {
      if (d.placeholder.empty()) return;
      auto it = bound.find(d.placeholder);
      if (it == bound.end()) {
        bound[d.placeholder] = t;
        bound_by[d.placeholder] = d.name;
      } else if (it->second != t) {
        fail(ErrorCode::Data, "kernel '{}': '{}' is {} but '{}' made {} {}; arguments of one placeholder must agree", name,
             d.name, dtype_name(t), bound_by[d.placeholder], d.placeholder, dtype_name(it->second));
      }
    };
    for (std::size_t k = 0; k < ins.size(); ++k) {
      const Arg& a = args[k];
      if (!a.is_weak()) bind_one(ins[k], a.view().dtype);
    }
    if (outputs_given)
      for (std::size_t k = 0; k < outs.size(); ++k) bind_one(outs[k], args[ins.size() + k].view().dtype);

    auto b = std::make_unique<Binding>();
    std::vector<Param> params;
    for (std::size_t k = 0; k < ins.size(); ++k) {
      const ParamDecl& d = ins[k];
      const Arg& a = args[k];
      std::optional<DType> t = d.dtype;
      if (!t && bound.count(d.placeholder)) t = bound[d.placeholder];
      if (d.raw && is_scalar(a))
        fail(ErrorCode::Usage, "kernel '{}': raw parameter '{}' needs an array in device memory, not a scalar", name, d.name);
      if (a.is_array() && !is_scalar(a) && t && a.view().dtype != *t)
        fail(ErrorCode::Data, "kernel '{}': input '{}' is {}, but the kernel declares it {}", name, d.name,
             dtype_name(a.view().dtype), dtype_name(*t));
      Param q;
      q.name = d.name;
      q.raw = d.raw;
      if (t) {
        q.dtype = *t;
        b->convert.push_back(is_scalar(a) ? t : std::nullopt);
      } else {  // an unbound placeholder: only a weak scalar leaves it so
        q.dtype = a.view().dtype;
        q.weak = true;
        b->convert.push_back(std::nullopt);
      }
      params.push_back(q);
    }
    std::vector<OutputDecl> decls;
    for (const ParamDecl& d : outs) {
      std::optional<DType> t = d.dtype;
      if (!t && bound.count(d.placeholder)) t = bound[d.placeholder];
      decls.push_back(OutputDecl{d.name, t});
    }

    ProgramRequest req;
    req.source = operation;
    req.params = params;
    req.outputs = decls;
    req.mode = Outputs::Exact;
    GpuOptions& g = req.gpu;
    g.arch = opt.arch;
    g.fast_math = opt.fast_math;
    g.nvrtc_options = opt.nvrtc_options;
    // The symbol is prefixed: a kernel named after a CUDA function (sin, max)
    // would otherwise clash with it.
    g.kernel_name = "cujit_" + name;
    if (opt.raw_cuda) {
      for (const OutputDecl& o : decls)
        if (!o.dtype)
          fail(ErrorCode::Usage,
               "kernel '{}': in raw CUDA mode the dtype of output '{}' must come from its declaration, an input of "
               "its placeholder, or the output array given",
               name, o.name);
      RawCudaKernel raw;
      raw.operation = operation;
      raw.preamble = opt.preamble;
      for (const auto& [ph, t] : bound) raw.typedefs.emplace_back(ph, t);
      for (std::size_t k = 0; k < ins.size(); ++k)
        if (!ins[k].dtype && params[k].weak) raw.typedefs.emplace_back(ins[k].placeholder, params[k].dtype);
      g.render_id = raw_cuda_id(raw);
      g.render = [raw](const Program& p, const KernelLayout& l, const std::string& kn) { return render_raw_cuda(raw, p, l, kn); };
      g.max_vector = 1;
      // Only the parameter list is checked in raw CUDA mode (docs/runtime.md).
      req.make = [this, &params, &decls] {
        Program program;
        program.ast.source = operation;
        program.inputs = params;
        for (const OutputDecl& o : decls) program.outputs.push_back(Var{o.name, *o.dtype, false, o.dtype});
        return program;
      };
    }
    req.placeholders = TypeNames(bound.begin(), bound.end());  // `T diff = x - y`, as CuPy allows
    g.recipe = recipe(bound, args, outputs_given);
    b->gpu = checked_program(req);
    const Program& program = b->gpu->program();
    for (const ParamDecl& d : outs) {
      int slot = -1;
      for (std::size_t s = 0; s < program.outputs.size(); ++s)
        if (program.outputs[s].name == d.name) slot = static_cast<int>(s);
      if (slot < 0) fail(ErrorCode::Internal, "kernel '{}': output '{}' is missing from the checked program", name, d.name);
      b->out_slot.push_back(slot);
      b->out_dtype.push_back(program.outputs[static_cast<std::size_t>(slot)].dtype);
    }
    return b;
  }
};

ElementwiseKernel::ElementwiseKernel(const std::string& in_params, const std::string& out_params,
                                     const std::string& operation, const std::string& name, ElementwiseOptions options)
    : impl_(std::make_unique<Impl>()) {
  // NVRTC's start-up overlaps what the caller does before the first call.
  if (gpu_available()) prewarm_nvrtc();
  Impl& m = *impl_;
  m.name = name;
  m.opt = std::move(options);
  m.operation = operation;
  m.in_text = in_params;
  m.out_text = out_params;
  check_name(name, "kernel name");
  m.ins = parse_params(in_params, "in_params");
  m.outs = parse_params(out_params, "out_params");
  if (m.outs.empty()) {
    // An operation that updates an input in place (`x *= 2`) needs no other output.
    bool updates = false;
    if (!m.opt.raw_cuda) try {
        for (const Stmt& s : parse(operation).stmts)
          for (const ParamDecl& d : m.ins) updates = updates || s.target == d.name;
      } catch (const Error&) {
        // A syntax error: the missing output is the first thing to fix.
      }
    if (!updates)
      fail(ErrorCode::Usage, "kernel '{}': out_params declares no output, and the operation updates no input in place", name);
  }
  if (m.ins.size() + m.outs.size() > kMaxParams)
    fail(ErrorCode::Usage, "kernel '{}': {} parameters are more than the limit of {}", name, m.ins.size() + m.outs.size(),
         kMaxParams);
  auto names = std::make_shared<std::vector<std::string>>();
  for (const ParamDecl& d : m.outs) names->push_back(d.name);
  m.out_names = std::move(names);
  std::set<std::string> seen;
  for (const auto* list : {&m.ins, &m.outs})
    for (const ParamDecl& d : *list) {
      if (!seen.insert(d.name).second)
        fail(ErrorCode::Usage,
             "kernel '{}': parameter '{}' is declared twice; to update an array in place, declare it once in "
             "in_params and assign it in the operation ('{} *= 2'), or pass the same array as an input and an output",
             name, d.name, d.name);
      if (!d.placeholder.empty()) m.has_placeholder = true;
      // The check's own words, at construction even when placeholders delay the check to the first call.
      if (!m.opt.raw_cuda && (d.name == "i" || d.name == "n"))
        fail(ErrorCode::Usage, "parameter name '{}' is not allowed: {}", d.name,
             d.name == "i" ? "'i' is the element index" : "'n' is the number of elements");
      if (m.opt.raw_cuda && (d.name == "i" || d.name == "n"))
        fail(ErrorCode::Usage, "kernel '{}': parameter name '{}' is reserved (i and n are the element index and count)",
             name, d.name);
    }
  for (const ParamDecl& d : m.outs)
    if (d.raw) fail(ErrorCode::Usage, "kernel '{}': raw outputs are not supported ('{}'); outputs are written element by element", name, d.name);
  if (!m.opt.raw_cuda && !m.opt.preamble.empty())
    fail(ErrorCode::Usage, "kernel '{}': a preamble needs raw CUDA mode (options.raw_cuda)", name);
  if (!m.opt.raw_cuda) {
    // Syntax errors show at construction, whatever the types (a placeholder
    // stands for any dtype while only the syntax is read); with no
    // placeholder the types are known too and the whole check runs now.
    // CuPy compiles an empty operation to a kernel that returns its outputs
    // uninitialized; here every output must be assigned, so say that in the API's terms.
    bool empty = true;
    for (const Token& t : tokenize(operation)) empty = empty && (t.kind == Tok::End || t.kind == Tok::Newline || t.kind == Tok::Semi);
    if (empty)
      fail(ErrorCode::Usage,
           "kernel '{}': the operation is empty; assign each output (e.g. '{} = {}'): unlike CuPy, which returns "
           "uninitialized outputs from an empty operation, cujit has no kernel that does nothing",
           name, m.outs.empty() ? "out" : m.outs[0].name, m.ins.empty() ? "0" : m.ins[0].name);
    TypeNames any;
    for (const auto* list : {&m.ins, &m.outs})
      for (const ParamDecl& d : *list)
        if (!d.placeholder.empty()) any.emplace_back(d.placeholder, DType::Float64);
    parse(operation, any);
    if (!m.has_placeholder) {
      std::vector<Param> params;
      for (const ParamDecl& d : m.ins) params.push_back(Param{d.name, *d.dtype, false, d.raw});
      std::vector<OutputDecl> decls;
      for (const ParamDecl& d : m.outs) decls.push_back(OutputDecl{d.name, d.dtype});
      compile_program(operation, params, decls, Outputs::Exact);
    }
  }
}

ElementwiseKernel::~ElementwiseKernel() = default;
ElementwiseKernel::ElementwiseKernel(ElementwiseKernel&&) noexcept = default;
ElementwiseKernel& ElementwiseKernel::operator=(ElementwiseKernel&&) noexcept = default;

const std::string& ElementwiseKernel::name() const { return impl_->name; }
std::size_t ElementwiseKernel::num_inputs() const { return impl_->ins.size(); }
std::size_t ElementwiseKernel::num_outputs() const { return impl_->outs.size(); }

const Array* OutputArrays::find(std::string_view name) const {
  if (!names_) return nullptr;
  for (std::size_t k = 0; k < names_->size() && k < size(); ++k)
    if ((*names_)[k] == name) return &(*this)[k];
  return nullptr;
}

const Array& OutputArrays::operator[](std::string_view name) const {
  if (const Array* a = find(name)) return *a;
  if (empty()) fail(ErrorCode::Usage, "no output '{}': the call allocated none (its outputs were given)", name);
  std::string all;
  for (const std::string& n : *names_) all += (all.empty() ? "'" : ", '") + n + "'";
  fail(ErrorCode::Usage, "the kernel has no output '{}' (its outputs: {})", name, all);
}

Array& OutputArrays::operator[](std::string_view name) {
  return const_cast<Array&>(static_cast<const OutputArrays&>(*this)[name]);
}

OutputArrays ElementwiseKernel::call(std::initializer_list<Arg> args, const CallOptions& options) const {
  return call(args.begin(), args.size(), options);
}

OutputArrays ElementwiseKernel::call(const Arg* args, std::size_t count, const CallOptions& options) const {
  return ElementwiseAccess::run(*this, args, count, options, false);
}

OutputArrays ElementwiseAccess::run(const ElementwiseKernel& kernel, const Arg* args, std::size_t count,
                                    const CallOptions& options, bool program_shapes) {
  const ElementwiseKernel::Impl& m = *kernel.impl_;
  const std::size_t nin = m.ins.size(), nout = m.outs.size();
  if (count != nin && count != nin + nout)
    fail(ErrorCode::Usage, "kernel '{}' takes {} input{} and {} output{}: call it with {} arguments (outputs given) or {} "
         "(outputs allocated), not {}", m.name, nin, nin == 1 ? "" : "s", nout, nout == 1 ? "" : "s", nin + nout, nin, count);
  const bool given = count == nin + nout;

  // Where: options.device, else the device of the device arrays, else (host
  // arrays and scalars only) the CPU evaluator.
  int device = m.opt.device;
  for (std::size_t k = 0; k < count && device < 0; ++k)
    if (args[k].is_array() && args[k].view().device.kind == Device::CUDA) device = args[k].view().device.id;
  const bool on_cpu = device < 0;
  if (on_cpu && m.opt.raw_cuda)
    fail(ErrorCode::Usage, "kernel '{}' is raw CUDA code, which runs only on a GPU: pass arrays in CUDA device memory", m.name);
  if (given)
    for (std::size_t k = 0; k < nout; ++k) {
      const Arg& a = args[nin + k];
      if (!a.is_array()) fail(ErrorCode::Usage, "kernel '{}': output '{}' must be an array, not a scalar", m.name, m.outs[k].name);
      if (!on_cpu && a.view().device.kind != Device::CUDA)
        fail(ErrorCode::Usage,
             "kernel '{}': output '{}' is in host memory, but the call runs on CUDA device {}; give all arrays in device "
             "memory, or all in host memory (the CPU evaluator)",
             m.name, m.outs[k].name, device);
    }

  const Binding* b = m.binding(args, count, given);
  const Program& p = b->gpu->program();
  Call c(*b->gpu);
  c.where = on_cpu ? Device::cpu() : Device::cuda(device);
  c.stream = reinterpret_cast<CUstream>(options.stream ? *options.stream : m.opt.stream);
  c.move_inputs = false;

  // Views in program order; scalars converted where the binding says so.
  struct ScalarBytes {
    alignas(16) unsigned char b[16];
  };
  Scratch<ScalarBytes, 8> conv(nin);
  for (std::size_t k = 0; k < nin; ++k) {
    const Arg& a = args[k];
    if (b->convert[k] && (a.view().dtype != *b->convert[k] || a.is_weak())) {
      Arg t = a.as_typed(*b->convert[k]);
      std::memcpy(conv[k].b, t.view().data, dtype_size(*b->convert[k]));
      ArrayView v = t.view();
      v.data = conv[k].b;
      c.inputs[k] = v;
    } else {
      c.inputs[k] = a.view();
    }
  }
  // The out_params given, or allocated with the call's shape; the inputs the
  // operation updates in place are their own outputs.
  for (std::size_t s = 0; s < p.outputs.size(); ++s) {
    const int k = p.outputs[s].input;
    if (k >= 0 && (!args[k].is_array() || is_scalar(args[k])))
      fail(ErrorCode::Usage, "kernel '{}': input '{}' is updated in place by the operation, so it must be an array, not a scalar",
           m.name, p.outputs[s].name);
  }
  Shape shape;
  if (given) {
    for (std::size_t k = 0; k < nout; ++k) {
      const auto slot = static_cast<std::size_t>(b->out_slot[k]);
      c.outputs[slot] = args[nin + k].view();
      c.given[slot] = true;
    }
  } else if (!program_shapes) {
    if (options.shape) {
      // CuPy's size= rule: a shape of the call's own only where no array fixes one.
      for (std::size_t k = 0; k < p.inputs.size(); ++k)
        if (!p.inputs[k].raw && !is_scalar(args[k]))
          fail(ErrorCode::Usage,
               "kernel '{}': CallOptions::shape is for calls whose arrays are all raw, and '{}' is not: its shape {} "
               "gives the outputs' shape; drop CallOptions::shape (as CuPy refuses size= here)",
               m.name, p.inputs[k].name, to_string(args[k].view().shape));
      shape = output_shape(broadcast_shape(p, c.inputs.data()), &*options.shape);
    } else {
      bool any_raw = false;
      for (const Param& q : p.inputs) any_raw = any_raw || q.raw;
      shape = broadcast_shape(p, c.inputs.data());
      if (any_raw && shape.ndim == 0)
        fail(ErrorCode::Usage, "kernel '{}': no input array gives the output shape; pass the outputs or CallOptions::shape",
             m.name);
    }
    c.shape = &shape;
  }
  std::vector<Array> made = run_call(c);
  if (given) return {};  // no names to share: the hot path of given outputs stays free of atomics
  std::vector<Array> allocated;
  allocated.reserve(nout);
  for (std::size_t k = 0; k < nout; ++k) allocated.push_back(std::move(made[static_cast<std::size_t>(b->out_slot[k])]));
  return OutputArrays(std::move(allocated), m.out_names);
}

const GpuProgram& ElementwiseAccess::program_for(const ElementwiseKernel& k, const Arg* args, std::size_t count) {
  return *k.impl_->binding(args, count, count == k.impl_->ins.size() + k.impl_->outs.size())->gpu;
}

std::vector<std::pair<std::string, std::string>> ElementwiseAccess::parse_params(const std::string& text,
                                                                                 const char* which) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ParamDecl& d : cujit::parse_params(text, which))
    out.emplace_back(d.name, d.dtype ? std::string(dtype_name(*d.dtype)) : d.placeholder);
  return out;
}

std::optional<DType> ElementwiseAccess::bound(const ElementwiseKernel& k, const std::string& placeholder, const Arg* args,
                                              std::size_t count) {
  const ElementwiseKernel::Impl& m = *k.impl_;
  for (std::size_t j = 0; j < m.ins.size() && j < count; ++j)
    if (m.ins[j].placeholder == placeholder && !args[j].is_weak()) return args[j].view().dtype;
  if (count == m.ins.size() + m.outs.size())
    for (std::size_t j = 0; j < m.outs.size(); ++j)
      if (m.outs[j].placeholder == placeholder) return args[m.ins.size() + j].view().dtype;
  return std::nullopt;
}

std::vector<Arg> ElementwiseAccess::stand_ins(const ElementwiseKernel& k, const std::map<std::string, DType>& types,
                                              const std::map<std::string, std::string>& scalars,
                                              std::vector<bool>& host_value) {
  const ElementwiseKernel::Impl& m = *k.impl_;
  for (const auto& [name, kind] : scalars) {
    bool known = false;
    for (const ParamDecl& d : m.ins) known = known || d.name == name;
    if (!known) fail(ErrorCode::Usage, "kernel '{}': scalars: '{}' is not an input", m.name, name);
  }
  for (const auto& [ph, t] : types) {
    bool known = false;
    for (const auto* list : {&m.ins, &m.outs})
      for (const ParamDecl& d : *list) known = known || d.placeholder == ph;
    if (!known) fail(ErrorCode::Usage, "kernel '{}': types: '{}' is no placeholder of its parameters", m.name, ph);
  }
  auto dtype_of = [&](const ParamDecl& d) -> std::optional<DType> {
    if (d.dtype) return d.dtype;
    auto it = types.find(d.placeholder);
    return it == types.end() ? std::nullopt : std::optional<DType>(it->second);
  };
  // Stand-in arrays are never read: only their dtype and kind count.
  static const char dummy[16] = {};
  auto array = [](DType t) {
    ArrayView v;
    v.data = const_cast<char*>(dummy);
    v.dtype = t;
    v.shape.ndim = 1;
    v.shape[0] = 1;
    v.strides = ArrayView::contiguous_strides(v.shape, t);
    v.device = Device::cuda(0);
    return Arg(v);
  };
  std::vector<Arg> args;
  host_value.clear();
  for (const ParamDecl& d : m.ins) {
    auto it = scalars.find(d.name);
    if (it != scalars.end()) {
      const std::string& kind = it->second;
      if (kind == "int") args.emplace_back(std::int64_t{0});
      else if (kind == "float") args.emplace_back(0.0);
      else if (kind == "complex") args.emplace_back(std::complex<double>(0.0, 0.0));
      else if (auto t = dtype_from_numpy(kind)) args.push_back(Arg::typed(*t, 0));
      else fail(ErrorCode::Usage, "kernel '{}': scalars: '{}' is int, float, complex or a dtype, not '{}'", m.name, d.name, kind);
      host_value.push_back(true);
      continue;
    }
    auto t = dtype_of(d);
    if (!t)
      fail(ErrorCode::Usage, "kernel '{}': input '{}' is of placeholder {}, which types does not bind", m.name, d.name,
           d.placeholder);
    args.push_back(array(*t));
    host_value.push_back(false);
  }
  // Outputs are passed when every output's dtype is known, so that a
  // placeholder of outputs alone is bound as given arrays bind it.
  std::vector<Arg> outs;
  for (const ParamDecl& d : m.outs)
    if (auto t = dtype_of(d)) outs.push_back(array(*t));
  if (outs.size() == m.outs.size()) args.insert(args.end(), outs.begin(), outs.end());
  return args;
}

}  // namespace cujit
