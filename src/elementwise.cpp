#include "cujit/elementwise.hpp"

#include <cctype>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "check.hpp"
#include "compile.hpp"
#include "driver.hpp"
#include "fail.hpp"
#include "launch.hpp"
#include "parse.hpp"
#include "raw_cuda.hpp"
#include "scratch.hpp"

namespace cujit {

namespace {

struct ParamDecl {
  std::string name;
  std::optional<DType> dtype;  // a dtype name
  std::string placeholder;     // otherwise: T, U, ...
  bool raw = false;
};

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
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
           which, item);
    const std::string& type = words[0];
    d.name = words[1];
    if (!is_identifier(d.name)) fail(ErrorCode::Usage, "{}: '{}' is not a valid parameter name", which, d.name);
    if (auto t = dtype_from_name(type)) {
      d.dtype = *t;
    } else if (type == "float" || type == "int" || type == "long") {
      fail(ErrorCode::Usage, "{}: the type '{}' of '{}' is ambiguous; name the dtype, e.g. {}", which, type, d.name,
           type == "float" ? "float32 or float64" : "int32 or int64");
    } else if (is_identifier(type)) {
      d.placeholder = type;
    } else {
      fail(ErrorCode::Usage, "{}: '{}' is neither a dtype nor a type placeholder (an identifier such as T)", which, type);
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
  std::unique_ptr<GpuProgram> gpu;
  std::vector<std::optional<DType>> convert;  // per input: scalars convert to this dtype (none: passed weak)
  std::vector<int> out_slot;                  // per out_param: its position in Program::outputs
  std::vector<DType> out_dtype;               // per out_param
};

struct ElementwiseKernel::Impl {
  std::string name;
  ElementwiseOptions opt;
  std::string operation;
  std::vector<ParamDecl> ins, outs;
  bool has_placeholder = false;

  mutable std::shared_mutex mu;
  mutable std::unordered_map<std::string, std::unique_ptr<Binding>> bindings;  // by the arguments' codes

  const Binding* find(const std::string& key) const {
    std::shared_lock<std::shared_mutex> lock(mu);
    auto it = bindings.find(key);
    return it == bindings.end() ? nullptr : it->second.get();
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

    auto program = std::make_shared<Program>();
    GpuOptions g;
    g.arch = opt.arch;
    g.fast_math = opt.fast_math;
    g.nvrtc_options = opt.nvrtc_options;
    // The symbol is prefixed: a kernel named after a CUDA function (sin, max)
    // would otherwise clash with it.
    g.kernel_name = "cujit_" + name;
    if (opt.raw_cuda) {
      program->ast.source = operation;
      program->inputs = params;
      for (const OutputDecl& o : decls) {
        if (!o.dtype)
          fail(ErrorCode::Usage,
               "kernel '{}': in raw CUDA mode the dtype of output '{}' must come from its declaration, an input of "
               "its placeholder, or the output array given",
               name, o.name);
        program->outputs.push_back(Var{o.name, *o.dtype, false, o.dtype});
      }
      RawCudaKernel raw;
      raw.operation = operation;
      raw.preamble = opt.preamble;
      for (const auto& [ph, t] : bound) raw.typedefs.emplace_back(ph, t);
      for (std::size_t k = 0; k < ins.size(); ++k)
        if (!ins[k].dtype && params[k].weak) raw.typedefs.emplace_back(ins[k].placeholder, params[k].dtype);
      g.render_id = raw_cuda_id(raw);
      g.render = [raw](const Program& p, const KernelLayout& l, const std::string& kn) { return render_raw_cuda(raw, p, l, kn); };
      g.max_vector = 1;
    } else {
      *program = compile_program(operation, params, decls, Outputs::Exact);
    }
    for (const ParamDecl& d : outs) {
      int slot = -1;
      for (std::size_t s = 0; s < program->outputs.size(); ++s)
        if (program->outputs[s].name == d.name) slot = static_cast<int>(s);
      if (slot < 0) fail(ErrorCode::Internal, "kernel '{}': output '{}' is missing from the checked program", name, d.name);
      b->out_slot.push_back(slot);
      b->out_dtype.push_back(program->outputs[static_cast<std::size_t>(slot)].dtype);
    }
    b->gpu = std::make_unique<GpuProgram>(std::move(program), std::move(g));
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
  if (!is_identifier(name) || name.compare(0, 3, "cj_") == 0)
    fail(ErrorCode::Usage, "kernel name '{}' must be a C identifier that does not start with cj_", name);
  m.ins = parse_params(in_params, "in_params");
  m.outs = parse_params(out_params, "out_params");
  if (m.outs.empty()) fail(ErrorCode::Usage, "kernel '{}': out_params declares no output", name);
  std::set<std::string> seen;
  for (const auto* list : {&m.ins, &m.outs})
    for (const ParamDecl& d : *list) {
      if (!seen.insert(d.name).second) fail(ErrorCode::Usage, "kernel '{}': parameter '{}' is declared twice", name, d.name);
      if (!d.placeholder.empty()) m.has_placeholder = true;
      if (m.opt.raw_cuda && (d.name == "i" || d.name == "n" || d.name[0] == '_' || d.name.compare(0, 3, "cj_") == 0))
        fail(ErrorCode::Usage, "kernel '{}': parameter name '{}' is reserved (i, n, _* and cj_* are cujit's)", name, d.name);
    }
  for (const ParamDecl& d : m.outs)
    if (d.raw) fail(ErrorCode::Usage, "kernel '{}': raw outputs are not supported ('{}'); outputs are written element by element", name, d.name);
  if (!m.opt.raw_cuda && !m.opt.preamble.empty())
    fail(ErrorCode::Usage, "kernel '{}': a preamble needs raw CUDA mode (options.raw_cuda)", name);
  if (!m.opt.raw_cuda) {
    // Syntax errors show at construction, whatever the types; with no
    // placeholder the types are known too and the whole check runs now.
    parse(operation);
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

std::vector<Array> ElementwiseKernel::call(std::initializer_list<Arg> args, const CallOptions& options) const {
  return call(args.begin(), args.size(), options);
}

std::vector<Array> ElementwiseKernel::call(const Arg* args, std::size_t count, const CallOptions& options) const {
  const Impl& m = *impl_;
  const std::size_t nin = m.ins.size(), nout = m.outs.size();
  if (count != nin && count != nin + nout)
    fail(ErrorCode::Usage, "kernel '{}' takes {} input{} and {} output{}: call it with {} arguments (outputs given) or {} "
         "(outputs allocated), not {}", m.name, nin, nin == 1 ? "" : "s", nout, nout == 1 ? "" : "s", nin + nout, nin, count);
  const bool given = count == nin + nout;
  if (given)
    for (std::size_t k = 0; k < nout; ++k) {
      const Arg& a = args[nin + k];
      if (!a.is_array() || a.view().device.kind != Device::CUDA)
        fail(ErrorCode::Usage, "kernel '{}': output '{}' must be an array in CUDA device memory{}", m.name, m.outs[k].name,
             a.is_array() ? " (it is in host memory)" : ", not a scalar");
    }

  // The binding key: one byte per argument (no heap for up to 14 arguments).
  std::string key(count + 1, '\0');
  key[0] = given ? 'g' : 'a';
  for (std::size_t k = 0; k < count; ++k) key[k + 1] = static_cast<char>(arg_code(args[k]));
  const Binding* b = m.find(key);
  if (!b) {
    std::unique_ptr<Binding> nb = m.bind(args, given);
    std::unique_lock<std::shared_mutex> lock(m.mu);
    auto& slot = m.bindings[key];
    if (!slot) slot = std::move(nb);
    b = slot.get();
  }

  int device = m.opt.device;
  if (device < 0) {
    for (std::size_t k = 0; k < count && device < 0; ++k)
      if (args[k].is_array() && args[k].view().device.kind == Device::CUDA) device = args[k].view().device.id;
    if (device < 0) device = 0;
  }

  // Views in program order; scalars converted where the binding says so.
  struct ScalarBytes {
    alignas(16) unsigned char b[16];
  };
  Scratch<ArrayView, 8> in_views(nin), out_views(nout);
  Scratch<ScalarBytes, 8> conv(nin);
  for (std::size_t k = 0; k < nin; ++k) {
    const Arg& a = args[k];
    if (b->convert[k] && (a.view().dtype != *b->convert[k] || a.is_weak())) {
      Arg t = a.as_typed(*b->convert[k]);
      std::memcpy(conv[k].b, t.view().data, dtype_size(*b->convert[k]));
      ArrayView v = t.view();
      v.data = conv[k].b;
      in_views[k] = v;
    } else {
      in_views[k] = a.view();
    }
  }
  std::vector<Array> allocated;
  const Program& p = b->gpu->program();
  if (given) {
    for (std::size_t k = 0; k < nout; ++k) out_views[static_cast<std::size_t>(b->out_slot[k])] = args[nin + k].view();
  } else {
    Shape shape;
    if (options.shape) {
      shape = *options.shape;
      if (!broadcasts_to(broadcast_shape(p, in_views.data()), shape))
        fail(ErrorCode::Usage, "kernel '{}': CallOptions::shape {} differs from the inputs' broadcast shape {}", m.name,
             to_string(shape), to_string(broadcast_shape(p, in_views.data())));
    } else {
      bool any_raw = false;
      for (const Param& q : p.inputs) any_raw = any_raw || q.raw;
      shape = broadcast_shape(p, in_views.data());
      if (any_raw && shape.ndim == 0)
        fail(ErrorCode::Usage, "kernel '{}': no input array gives the output shape; pass the outputs or CallOptions::shape",
             m.name);
    }
    allocated.reserve(nout);
    for (std::size_t k = 0; k < nout; ++k) {
      allocated.push_back(Array::empty(b->out_dtype[k], shape, Device::cuda(device)));
      out_views[static_cast<std::size_t>(b->out_slot[k])] = allocated.back().view();
    }
  }
  StreamHandle stream = options.stream ? *options.stream : m.opt.stream;
  b->gpu->launch(device, in_views.data(), out_views.data(), reinterpret_cast<CUstream>(stream));
  return allocated;
}

}  // namespace cujit
