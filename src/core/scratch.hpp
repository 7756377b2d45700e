// Scratch<T, N>: n elements of T, in place up to N and on the heap beyond.
// The launch hot path keeps its per-call arrays (fingerprint words, views,
// kernel parameter pointers) here, so an ordinary call allocates nothing.
#pragma once
#include <array>
#include <cstddef>
#include <memory>

namespace cujit {

template <class T, std::size_t N>
class Scratch {
 public:
  explicit Scratch(std::size_t n) : n_(n) {
    if (n > N) heap_.reset(new T[n]());
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  T* data() { return heap_ ? heap_.get() : inline_.data(); }
  const T* data() const { return heap_ ? heap_.get() : inline_.data(); }
  T& operator[](std::size_t k) { return data()[k]; }
  const T& operator[](std::size_t k) const { return data()[k]; }
  std::size_t size() const { return n_; }

 private:
  std::size_t n_;
  std::array<T, N> inline_{};
  std::unique_ptr<T[]> heap_;
};

}  // namespace cujit
