#include "cujit/arg.hpp"

#include <cstring>

#include "core/fail.hpp"
#include "core/scalar.hpp"

namespace cujit {

Arg& Arg::operator=(const Arg& o) {
  kind_ = o.kind_;
  src_ = o.src_;
  b_ = o.b_;
  i_ = o.i_;
  u_ = o.u_;
  c_ = o.c_;
  view_ = o.view_;
  std::memcpy(bytes_, o.bytes_, sizeof bytes_);
  if (kind_ != Kind::Array) view_.data = bytes_;  // the copy's own value
  return *this;
}

void Arg::make_typed(DType t) {
  if (kind_ == Kind::Array || kind_ == Kind::Typed) {
    // A typed value (a host 0-d array too) converts from its own dtype.
    if (view_.device.kind != Device::CPU || view_.shape.ndim != 0 || !view_.data)
      fail(ErrorCode::Usage, "only a scalar or a host 0-d array converts to a typed scalar");
    unsigned char from[16];
    std::memcpy(from, view_.data, dtype_size(view_.dtype));
    scalar::visit(view_.dtype, [&](auto ftag) {
      using F = decltype(ftag);
      F f;
      std::memcpy(&f, from, sizeof f);
      scalar::visit(t, [&](auto tag) {
        using T = decltype(tag);
        T v = scalar::cast<T>(f);
        std::memcpy(bytes_, &v, sizeof v);
      });
    });
  } else {
    scalar::visit(t, [&](auto tag) {
      using T = decltype(tag);
      T v{};
      switch (src_) {
        case Src::Bool: v = scalar::cast<T>(b_); break;
        case Src::Int: v = scalar::cast<T>(i_); break;
        case Src::UInt: v = scalar::cast<T>(u_); break;
        case Src::Complex:
          if (kind_ == Kind::WeakComplex) v = scalar::cast<T>(c_);
          else v = scalar::cast<T>(c_.real());
          break;
      }
      static_assert(sizeof(T) <= sizeof bytes_);
      std::memcpy(bytes_, &v, sizeof v);
    });
  }
  kind_ = Kind::Typed;
  view_ = ArrayView{};
  view_.data = bytes_;
  view_.dtype = t;
  view_.device = Device::cpu();
}

void Arg::init_weak() {
  view_ = ArrayView{};
  view_.data = bytes_;
  view_.device = Device::cpu();
  switch (kind_) {
    case Kind::WeakInt:
      view_.dtype = DType::Int64;
      std::memcpy(bytes_, &i_, sizeof i_);
      break;
    case Kind::WeakFloat: {
      view_.dtype = DType::Float64;
      double d = c_.real();
      std::memcpy(bytes_, &d, sizeof d);
      break;
    }
    default:
      view_.dtype = DType::Complex128;
      std::memcpy(bytes_, &c_, sizeof c_);
      break;
  }
}

}  // namespace cujit
