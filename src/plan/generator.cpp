#include "plan/generator.hpp"

#include <cstring>

#include "core/fail.hpp"
#include "core/scalar.hpp"

namespace cujit {

const char* generator_name(GeneratorSpec::Kind k) {
  switch (k) {
    case GeneratorSpec::Zeros: return "zeros";
    case GeneratorSpec::Ones: return "ones";
    case GeneratorSpec::Full: return "full";
    case GeneratorSpec::Arange: return "arange";
    case GeneratorSpec::Linspace: return "linspace";
    case GeneratorSpec::Rand: return "rand";
    default: return "randn";
  }
}

namespace gen {

static_assert(sizeof(cj::gen::params) == 72, "the kernel parameter's layout is fixed");
static_assert(sizeof(cj::gen::c64) == sizeof(std::complex<float>) && sizeof(cj::gen::c128) == sizeof(std::complex<double>));

Family family(GeneratorSpec::Kind k) {
  switch (k) {
    case GeneratorSpec::Rand: return Family::Rand;
    case GeneratorSpec::Randn: return Family::Randn;
    case GeneratorSpec::Arange: case GeneratorSpec::Linspace: return Family::Ramp;
    default: return Family::Pattern;
  }
}

const char* family_struct(Family f) {
  switch (f) {
    case Family::Rand: return "rand_";
    case Family::Randn: return "randn_";
    case Family::Ramp: return "ramp_";
    default: return "pattern_";
  }
}


// The same element type as the kernel source names it.
std::string element_type_name(Family fam, DType t) {
  if (fam == Family::Pattern) {
    switch (dtype_size(t)) {
      case 1: return "cj_u8";
      case 2: return "cj_u16";
      case 4: return "cj_u32";
      case 8: return "cj_u64";
      default: return "cj::gen::u64x2";
    }
  }
  switch (t) {
#define DTYPE(Id, name, size, Host, Compute, Store, Gen, Cuda) \
  case DType::Id:                                              \
    return #Gen;
#include "core/dtypes.def"
#undef DTYPE
  }
  return "?";
}

// The kernel's arguments for a fill of n elements.
cj::gen::params make_params(const GeneratorSpec& spec, DType dtype, std::int64_t n) {
  if (spec.kind == GeneratorSpec::Randn && (is_integer(dtype) || is_bool(dtype)))
    fail(ErrorCode::Usage, "randn needs a float or complex dtype, got {}", dtype_name(dtype));
  if (spec.first < 0 || (spec.whole >= 0 && n > spec.whole - spec.first) || (spec.whole < 0 && spec.first != 0))
    fail(ErrorCode::Usage, "generator slice of {} elements from element {} of {}: past the array's end", n, spec.first,
         spec.whole);
  cj::gen::params p{};
  p.n = static_cast<cj_u64>(n);
  p.first = static_cast<cj_u64>(spec.first);
  if (spec.whole >= 0) n = spec.whole;  // linspace's step and last point are the whole array's
  p.seed = spec.seed;
  p.last = ~cj_u64{0};
  p.start = 0;
  p.step = 1;
  if (spec.kind == GeneratorSpec::Linspace) {
    // NumPy's linspace: start + k*step, with the last point exactly `stop`.
    p.start = spec.start;
    p.stop = spec.stop;
    p.step = n > 1 ? (spec.stop - spec.start) / static_cast<double>(n - 1) : 0.0;
    if (n > 1) p.last = static_cast<cj_u64>(n - 1);
  }
  if (family(spec.kind) == Family::Pattern) {
    const double v = spec.kind == GeneratorSpec::Ones ? 1.0 : spec.kind == GeneratorSpec::Full ? spec.value : 0.0;
    scalar::visit(dtype, [&](auto t) {
      auto e = scalar::cast<decltype(t)>(v);
      static_assert(sizeof e <= sizeof p.pattern);
      std::memcpy(p.pattern, &e, sizeof e);
    });
  }
  return p;
}

void check_contiguous(const ArrayView& out, Device::Kind where) {
  if (out.device.kind != where)
    fail(ErrorCode::Usage, "generate_{}: the array is in {} memory", where == Device::CPU ? "host" : "device",
         out.device.kind == Device::CPU ? "host" : "device");
  if (!out.is_c_contiguous()) fail(ErrorCode::Usage, "generators fill C-contiguous arrays only");
  if (out.size() > 0 && !out.data) fail(ErrorCode::Usage, "generators: a null array");
}

}  // namespace gen
}  // namespace cujit
