// Compiled on its own by each C++ compiler found (tests/api.cmake), with
// warnings as errors: the public headers, used as an application uses them.
// Shape{v.size()} must compile on g++ and clang++ alike (a size_t extent once
// was a narrowing error inside braces).
#include <complex>
#include <cstdint>
#include <vector>

#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "cujit/multi_gpu.hpp"
#include "cujit/reduction.hpp"

int consumer(std::vector<float>& v, const std::vector<double>& w, std::vector<std::complex<float>>& c) {
  cujit::Shape s1{v.size()};
  cujit::Shape s2{v.size(), w.size()};
  cujit::Shape s3{3, 4u, std::int64_t{5}, static_cast<unsigned char>(2)};
  cujit::ArrayView x = cujit::ArrayView::host(v.data(), {v.size()});
  cujit::ArrayView y = cujit::ArrayView::host(w.data(), {w.size() / 2, std::size_t{2}});
  cujit::ArrayView z = cujit::ArrayView::host(c.data(), s1);
  cujit::ArrayView h = cujit::ArrayView::host(v.data(), cujit::DType::Float16, {v.size() * 2});
  static_assert(cujit::dtype_of<std::complex<float>> == cujit::DType::Complex64, "");
  cujit::ElementwiseKernel k("T x", "T y", "y = x * 2", "twice");
  cujit::OutputArrays out = k(x);
  cujit::Array& twice = out["y"];
  cujit::NamedArrays e = cujit::evaluate("out = x + 1", {{"x", x}});
  const cujit::Array& first = e["out"];
  std::vector<cujit::SplitArray> parts = cujit::evaluate_split("out = x + 1", {{"x", x}}, {0, 1});
  cujit::Array whole = parts[0].gather();
  // ReduceOptions as an application spells it: {axis}, {{axes}, keepdims}, ({axes}).
  cujit::ReductionKernel l2("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  cujit::OutputArrays norm = l2(x);
  cujit::OutputArrays rows = l2.call({y}, {1});
  cujit::OutputArrays cols = l2.call({y}, {{0, -1}, true});
  cujit::OutputArrays both = l2.call({y}, cujit::ReduceOptions({0, 1}));
  try {
    k(x);
  } catch (const cujit::CompileError& err) {
    return static_cast<int>(err.log().size() + err.options().size() + err.source().size() + err.stage().size());
  }
  return static_cast<int>(s2.ndim + s3.ndim + y.shape.ndim + z.shape.ndim + h.shape.ndim) + twice.ndim() + first.ndim() + whole.ndim() +
         norm[0].ndim() + rows[0].ndim() + cols[0].ndim() + both[0].ndim();
}
