// Any byte string is a precompile manifest: it must read or raise
// cujit::Error, never crash, hang or throw anything else.
#include <cstdint>
#include <string_view>

#include "cujit/error.hpp"
#include "api/manifest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    cujit::parse_manifest(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.toml");
  } catch (const cujit::Error&) {
  }
  return 0;
}
