#include "split.hpp"

#include <chrono>
#include <complex>
#include <cstdio>

#include "cujit/multi_gpu.hpp"
#include "core/driver.hpp"

namespace cujit::jitrun {

ContextWarmup::ContextWarmup() {
  thread_ = std::thread([this] {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      for (int d = 1, n = device_count(); d < n; ++d) primary_context(d);
    } catch (...) {
      // The split meets the same error where it can report it.
    }
    ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  });
}

std::vector<SplitArray> run_split(const std::string& program, const std::vector<Input>& inputs,
                                  const std::vector<Source>& sources, const Shape* shape,
                                  const std::vector<std::pair<std::string, DType>>& types, bool verbose) {
  using clock = std::chrono::steady_clock;
  std::vector<NamedArg> args;
  std::vector<SplitInput> distributed;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Input& in = inputs[k];
    // Rows made or read on their GPUs stay there: each slice reads its own in place.
    if (sources[k].is_split()) distributed.push_back(SplitInput{in.name, sources[k].split});
    // A weak literal stays weak: jitrun holds it as a host 0-d int64, float64 or complex128.
    else if (!in.weak) args.push_back(NamedArg{in.name, Arg(in.view)});
    else if (in.view.dtype == DType::Int64) args.push_back(NamedArg{in.name, Arg(*static_cast<const std::int64_t*>(in.view.data))});
    else if (in.view.dtype == DType::Float64) args.push_back(NamedArg{in.name, Arg(*static_cast<const double*>(in.view.data))});
    else args.push_back(NamedArg{in.name, Arg(*static_cast<const std::complex<double>*>(in.view.data))});
  }
  EvaluateOptions opt;
  opt.output_dtypes = types;
  if (shape) opt.shape = *shape;
  const std::vector<int> devices = all_devices();
  auto t0 = clock::now();
  std::vector<SplitArray> split = evaluate_split(program, args, distributed, devices, opt);
  const double run_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  if (verbose && !split.empty()) {
    std::fprintf(stderr, "jitrun: split over %zu GPU(s):", devices.size());
    // The slices as the output in the most pieces has them (a reduction over the split axis is one, whole).
    std::size_t most = 0;
    for (std::size_t k = 1; k < split.size(); ++k)
      if (split[k].pieces.size() > split[most].pieces.size()) most = k;
    for (const ArrayPiece& p : split[most].pieces)
      std::fprintf(stderr, " device %d rows [%lld, %lld);", p.device, static_cast<long long>(p.begin),
                   static_cast<long long>(p.end));
    std::fprintf(stderr, "\njitrun: run (copies, launches, sync) %.3f ms\n", run_ms);
  }
  return split;
}

}  // namespace cujit::jitrun
