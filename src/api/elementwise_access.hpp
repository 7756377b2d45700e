// What precompiling needs of an ElementwiseKernel's internals, implemented in
// elementwise.cpp. Its own header, so that elementwise.cpp does not depend on
// the precompiler (precompile.cpp) that uses it.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "cujit/arg.hpp"
#include "cujit/dtype.hpp"

namespace cujit {

class ElementwiseKernel;
class GpuProgram;

// Inside ElementwiseKernel (elementwise.cpp): the binding, and with it the
// GpuProgram, that a call with arguments like `args` uses.
struct ElementwiseAccess {
  static const GpuProgram& program_for(const ElementwiseKernel& k, const Arg* args, std::size_t count);
  // The arguments that stand for a call: arrays of the bound dtypes (in
  // CUDA device 0's memory, never touched) and scalars as `scalars` says.
  // fail(Usage) for an unbound placeholder or an unknown name.
  static std::vector<Arg> stand_ins(const ElementwiseKernel& k, const std::map<std::string, DType>& types,
                                    const std::map<std::string, std::string>& scalars, std::vector<bool>& host_value);
};

}  // namespace cujit
