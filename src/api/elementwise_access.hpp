// What precompiling (precompile.cpp) and ReductionKernel (reduction.cpp) need
// of an ElementwiseKernel's internals, implemented in elementwise.cpp. Its own
// header, so that elementwise.cpp depends on neither of them.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cujit/arg.hpp"
#include "cujit/dtype.hpp"

namespace cujit {

class ElementwiseKernel;
class GpuProgram;
class OutputArrays;
struct CallOptions;

// Inside ElementwiseKernel (elementwise.cpp): the binding, and with it the
// GpuProgram, that a call with arguments like `args` uses.
struct ElementwiseAccess {
  static const GpuProgram& program_for(const ElementwiseKernel& k, const Arg* args, std::size_t count);
  // The arguments that stand for a call: arrays of the bound dtypes (in
  // CUDA device 0's memory, never touched) and scalars as `scalars` says.
  // fail(Usage) for an unbound placeholder or an unknown name.
  static std::vector<Arg> stand_ins(const ElementwiseKernel& k, const std::map<std::string, DType>& types,
                                    const std::map<std::string, std::string>& scalars, std::vector<bool>& host_value);
  // ElementwiseKernel::call. With program_shapes (ReductionKernel, whose
  // operation reduces), allocated outputs take the shapes the program gives
  // them, as evaluate()'s do, not the inputs' broadcast shape.
  // CuPy's parameter list as ElementwiseKernel reads it (its errors): each
  // parameter's name and declared type (a dtype name or a placeholder).
  static std::vector<std::pair<std::string, std::string>> parse_params(const std::string& text, const char* which);
  // The dtype the call's arguments bind `placeholder` to, by the binding's
  // rule (inputs other than weak scalars, then given outputs); nullopt where none binds it.
  static std::optional<DType> bound(const ElementwiseKernel& k, const std::string& placeholder, const Arg* args,
                                    std::size_t count);
  static OutputArrays run(const ElementwiseKernel& kernel, const Arg* args, std::size_t count, const CallOptions& options,
                          bool program_shapes);
};

}  // namespace cujit
