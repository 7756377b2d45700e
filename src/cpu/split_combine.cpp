#include "cpu/split_combine.hpp"

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/fail.hpp"
#include "core/scalar.hpp"
#include "plan/split_reduce.hpp"

namespace cujit {

namespace {

using namespace scalar;
using plan::ReduceStep;

template <class T> T at(const ArrayView& a, std::int64_t o) { return static_cast<const T*>(a.data)[o]; }

template <class V> void put(HostArray& out, std::int64_t o, const V& v) {
  visit(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!is_cplx_v<T>) {
      const T x = cast<T>(v);
      std::memcpy(static_cast<unsigned char*>(out.data()) + o * static_cast<std::int64_t>(sizeof(T)), &x, sizeof(T));
    }
  });
}

template <class V> bool isnan_of(const V& v) {
  if constexpr (std::is_floating_point_v<V>) return v != v;
  else return false;
}

// Sums and products in the CPU's accumulator P (signed integers in uint64, whose wrap is defined).
template <class P> void arithmetic(const ReduceStep& st, const std::vector<SlicePartials>& s, HostArray& out) {
  using A = std::conditional_t<std::is_integral_v<P>, std::uint64_t, P>;
  for (std::int64_t o = 0; o < out.size(); ++o) {
    std::int64_t count = st.count;  // nanmean: the elements that are not NaN, summed over the slices
    if (st.what == Reduce::Mean && st.nan_ignoring) {
      count = 0;
      for (const SlicePartials& p : s) count += at<std::int64_t>(p.values.at(1), o);
    }
    A acc = static_cast<A>(at<P>(s[0].values[0], o));
    for (std::size_t j = 1; j < s.size(); ++j) {
      const A v = static_cast<A>(at<P>(s[j].values[0], o));
      acc = st.what == Reduce::Prod ? static_cast<A>(acc * v) : static_cast<A>(acc + v);
    }
    const P total = static_cast<P>(acc);
    if (st.what != Reduce::Mean) {
      put(out, o, total);
    } else if constexpr (std::is_integral_v<P>) {
      put(out, o, static_cast<double>(total) / static_cast<double>(count));  // as NumPy: true division
    } else {
      put(out, o, total / static_cast<P>(count));
    }
  }
}

// Whether b replaces a, a from earlier slices (the CPU's rule: NaN wins and
// stays, ties keep the first); NaN-ignoring versions skip NaN partials.
template <class V> bool better(const ReduceStep& st, const V& a, const V& b) {
  if (st.nan_ignoring) {
    if (isnan_of(b)) return false;
    if (isnan_of(a)) return true;
  } else {
    if (isnan_of(a)) return false;
    if (isnan_of(b)) return true;
  }
  const bool is_max = st.what == Reduce::Max || st.what == Reduce::ArgMax;
  return is_max ? a < b : b < a;
}

template <class T> void extremum(const ReduceStep& st, const std::vector<SlicePartials>& s, HostArray& out) {
  const bool arg = st.what == Reduce::ArgMin || st.what == Reduce::ArgMax;
  for (std::int64_t o = 0; o < out.size(); ++o) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < s.size(); ++j)
      if (better(st, widen(at<T>(s[best].values[0], o)), widen(at<T>(s[j].values[0], o)))) best = j;
    if (arg) put(out, o, at<std::int64_t>(s[best].values[1], o) + s[best].offset);
    else put(out, o, at<T>(s[best].values[0], o));
  }
}

// (count, mean, M2) of the slices merged one after another (Chan, Golub and LeVeque).
template <class T> void moments(const ReduceStep& st, const std::vector<SlicePartials>& s, HostArray& out) {
  using L = long double;
  for (std::int64_t o = 0; o < out.size(); ++o) {
    L n = 0, mean = 0, m2 = 0;
    for (const SlicePartials& p : s) {
      // nanvar, nanstd: the slice's elements that are not NaN, each result its own count.
      const std::int64_t cnt = st.nan_ignoring ? at<std::int64_t>(p.values.at(2), o) : p.count;
      if (cnt == 0) continue;
      const L c = static_cast<L>(cnt), mb = static_cast<L>(at<T>(p.values[0], o));
      const L m2b = static_cast<L>(at<T>(p.values[1], o)) * c;
      if (n == 0) {
        n = c, mean = mb, m2 = m2b;
        continue;
      }
      const L d = mb - mean, total = n + c;
      mean += d * c / total;
      m2 += m2b + d * d * n * c / total;
      n = total;
    }
    const L dof = n - static_cast<L>(st.ddof);
    // NumPy's var divides by max(n - ddof, 0); its nanvar gives NaN where n - ddof <= 0.
    const L var = st.skips_nan() && dof <= 0 ? std::numeric_limits<L>::quiet_NaN() : m2 / std::max(dof, L(0));
    put(out, o, static_cast<double>(st.what == Reduce::Std ? std::sqrt(var) : var));
  }
}

}  // namespace

HostArray combine_partials(const ReduceStep& st, const std::vector<SlicePartials>& slices) {
  HostArray out(st.out, st.out_shape);
  if (slices.empty()) fail(ErrorCode::Internal, "split combine: no slices");
  for (const SlicePartials& p : slices)
    for (const ArrayView& v : p.values)
      if (v.size() != out.size())
        fail(ErrorCode::Internal, "split combine: a partial of {} elements for a result of {}", v.size(), out.size());
  const DType vt = slices[0].values.at(0).dtype;
  visit(vt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_cplx_v<T>) {
      fail(ErrorCode::Internal, "split combine: complex partials");
    } else {
      switch (st.what) {
        case Reduce::Sum:
        case Reduce::Prod:
        case Reduce::Mean:
          if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BF16>) fail(ErrorCode::Internal, "split combine: a 16-bit accumulator");
          else arithmetic<T>(st, slices, out);
          return;
        case Reduce::Min:
        case Reduce::Max:
        case Reduce::ArgMin:
        case Reduce::ArgMax: return extremum<T>(st, slices, out);
        case Reduce::Any:
        case Reduce::All:
          for (std::int64_t o = 0; o < out.size(); ++o) {
            bool acc = st.what == Reduce::All;
            for (const SlicePartials& p : slices) acc = st.what == Reduce::All ? acc && at<bool>(p.values[0], o) : acc || at<bool>(p.values[0], o);
            put(out, o, acc);
          }
          return;
        case Reduce::Var:
        case Reduce::Std:
          if constexpr (std::is_floating_point_v<T>) moments<T>(st, slices, out);
          else fail(ErrorCode::Internal, "split combine: {} moments", dtype_name(vt));
          return;
        case Reduce::None: break;
      }
      fail(ErrorCode::Internal, "split combine: a step with no reduction");
    }
  });
  return out;
}

}  // namespace cujit
