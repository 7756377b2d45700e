// jitrun --device all: the program split over every GPU of the host
// (cujit::evaluate_split), its outputs left in pieces on their GPUs.
#pragma once
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cpu/eval.hpp"
#include "cujit/array.hpp"
#include "cujit/multi_gpu.hpp"
#include "sources.hpp"

namespace cujit::jitrun {

// Retains every GPU's context but GPU 0's on a thread of its own, so that
// creating them (a tenth of a second or more each) overlaps reading or making
// GPU 0's rows of the inputs and compiling the kernel. Waited for by wait()
// or when destroyed.
class ContextWarmup {
 public:
  ContextWarmup();
  ContextWarmup(const ContextWarmup&) = delete;
  ContextWarmup& operator=(const ContextWarmup&) = delete;
  ~ContextWarmup() { wait(); }
  void wait() {
    if (thread_.joinable()) thread_.join();
  }
  double ms() const { return ms_; }  // how long the thread took, once waited for

 private:
  std::thread thread_;
  double ms_ = 0;
};

// The outputs by name, in order of first assignment. `inputs` are the
// checked program's, `sources` what they were made from (in the same order:
// a split source goes in as the pieces it is in); `shape` and `types` are
// --shape and -t; `verbose` prints the slices and timings to stderr.
std::vector<SplitArray> run_split(const std::string& program, const std::vector<Input>& inputs,
                                  const std::vector<Source>& sources, const Shape* shape,
                                  const std::vector<std::pair<std::string, DType>>& types, bool verbose);

}  // namespace cujit::jitrun
