// Edge detection (Sobel gradient magnitude) on a real image file: reads a
// binary PGM (P5, 8-bit), runs a cujit kernel whose image is a `raw` parameter
// read at its eight neighbours (clamped at the borders), writes a PGM, and
// checks every pixel against the CPU evaluator.
//   sample_image_filter [input.pgm] [output.pgm]
#include <cujit/elementwise.hpp>
#include <cujit/error.hpp>
#include <cujit/evaluate.hpp>

#include <stdexcept>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sample_util.hpp"

namespace {

struct Image {
  std::int64_t w = 0, h = 0;
  std::vector<unsigned char> pixels;
};

// Netpbm P5: "P5 <w> <h> <maxval>\n" then w*h bytes; '#' starts a comment.
Image read_pgm(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open");
  auto token = [&]() {
    std::string t;
    char c;
    while (f.get(c)) {
      if (c == '#') { std::string skip; std::getline(f, skip); continue; }
      if (std::isspace(static_cast<unsigned char>(c))) { if (!t.empty()) break; continue; }
      t += c;
    }
    return t;
  };
  if (token() != "P5") throw std::runtime_error(path + ": not a binary PGM (P5) file");
  Image im;
  im.w = std::stoll(token());
  im.h = std::stoll(token());
  if (std::stoi(token()) != 255) throw std::runtime_error(path + ": only 8-bit PGM is supported");
  im.pixels.resize(static_cast<std::size_t>(im.w * im.h));
  if (!f.read(reinterpret_cast<char*>(im.pixels.data()), static_cast<std::streamsize>(im.pixels.size())))
    throw std::runtime_error(path + ": the pixel data is truncated");
  return im;
}

void write_pgm(const std::string& path, const Image& im) {
  std::ofstream f(path, std::ios::binary);
  f << "P5\n" << im.w << " " << im.h << "\n255\n";
  f.write(reinterpret_cast<const char*>(im.pixels.data()), static_cast<std::streamsize>(im.pixels.size()));
  if (!f) throw std::runtime_error(path + ": cannot write");
}

const char* kSobel =
    "x = i % w; y = floor_divide(i, w)\n"
    "xl = maximum(x - 1, 0); xr = minimum(x + 1, w - 1)\n"
    "yu = maximum(y - 1, 0); yd = minimum(y + 1, h - 1)\n"
    "a = float32(img[yu * w + xl]); b = float32(img[yu * w + x]); c = float32(img[yu * w + xr])\n"
    "d = float32(img[y * w + xl]);                                 f = float32(img[y * w + xr])\n"
    "g = float32(img[yd * w + xl]); k = float32(img[yd * w + x]); l = float32(img[yd * w + xr])\n"
    "gx = (c + 2 * f + l) - (a + 2 * d + g)\n"
    "gy = (g + 2 * k + l) - (a + 2 * b + c)\n"
    "edges = uint8(clip(sqrt(gx * gx + gy * gy), 0, 255))";

}  // namespace

int main(int argc, char** argv) {
  require_gpu("image_filter");
  const char* env = std::getenv("CUJIT_SAMPLE_IMAGE");
  std::string in = argc > 1 ? argv[1] : env ? env : "input.pgm";
  std::string out = argc > 2 ? argv[2] : "edges.pgm";
  try {
    Image im = read_pgm(in);
    cujit::ArrayView host;
    host.data = im.pixels.data();
    host.dtype = cujit::DType::UInt8;
    host.shape = cujit::Shape{im.h, im.w};
    host.strides = cujit::ArrayView::contiguous_strides(host.shape, host.dtype);
    cujit::Array img = cujit::Array::copy_of(host, cujit::Device::cuda(0));

    cujit::ElementwiseKernel sobel("raw uint8 img, int64 w, int64 h", "uint8 edges", kSobel, "sobel");
    cujit::Array edges = cujit::Array::empty(cujit::DType::UInt8, cujit::Shape{im.h, im.w}, cujit::Device::cuda(0));
    SAMPLE_CUDA(cudaMemset(edges.data(), 0xaa, edges.nbytes()));  // poison
    sobel(img, im.w, im.h, edges);
    cujit::Array result = edges.to_host();

    cujit::EvaluateOptions cpu;
    cpu.device = cujit::Device::cpu();
    cpu.output_dtypes = {{"edges", cujit::DType::UInt8}};
    cpu.shape = cujit::Shape{im.h, im.w};
    auto ref = cujit::evaluate(kSobel, {{"img", host}, {"w", cujit::Arg::typed(cujit::DType::Int64, im.w)},
                                        {"h", cujit::Arg::typed(cujit::DType::Int64, im.h)}}, cpu);
    const cujit::Array* want = nullptr;
    for (const auto& o : ref)
      if (o.name == "edges") want = &o.array;
    std::int64_t differ = 0;
    for (std::int64_t k = 0; k < im.w * im.h; ++k) differ += result.as<unsigned char>()[k] != want->as<unsigned char>()[k];

    Image o{im.w, im.h, std::vector<unsigned char>(result.as<unsigned char>(), result.as<unsigned char>() + im.w * im.h)};
    write_pgm(out, o);
    std::printf("image_filter: %s (%lldx%lld) -> %s, %lld pixels differ from the CPU evaluator\n", in.c_str(),
                static_cast<long long>(im.w), static_cast<long long>(im.h), out.c_str(), static_cast<long long>(differ));
    return differ == 0 ? 0 : 1;
  } catch (const cujit::Error& e) {
    std::fprintf(stderr, "image_filter: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "image_filter: %s\n", e.what());
    return 3;
  }
}
