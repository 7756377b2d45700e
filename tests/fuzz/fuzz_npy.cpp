// Any byte string is a .npy file: it must load or raise cujit::Error, never crash.
#include <cstdint>
#include <string_view>

#include "cujit/error.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    cujit::parse_npy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
  } catch (const cujit::Error&) {
  }
  return 0;
}
