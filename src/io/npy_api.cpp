// The public cujit/npy.hpp: the tools' reader and writer (io/npy.cpp) over Array.
#include "cujit/npy.hpp"

#include "io/npy.hpp"

namespace cujit {

Array load_npy(const std::string& path, Device device) {
  // Bytes that need no reordering go from the file to the GPU through
  // pinned buffers (io/npy.hpp), with no host copy of the whole array.
  if (device.kind == Device::CUDA && !is_standard_input(path)) {
    const NpyFile f = read_npy_header(path);
    if (!f.fortran && !f.swap && f.nbytes > 0) {
      Array a = Array::empty(f.dtype, f.shape, device);
      read_npy_device(path, f, {DeviceTarget{device.id, a.data(), f.nbytes, 0}});
      return a;
    }
  }
  Array host(read_npy(path));
  if (device.kind == Device::CPU) return host;
  return Array::copy_of(host.view(), device);
}

void save_npy(const std::string& path, const ArrayView& a) {
  if (a.device.kind == Device::CPU) return write_npy(path, a);
  if (a.is_c_contiguous())
    return write_npy_device(path, a.dtype, a.shape,
                            {DeviceBytes{a.device.id, a.data, static_cast<std::size_t>(a.size()) * a.itemsize(), 0}});
  // write_npy reads host memory: a strided device view is staged (C order) first.
  Array host = Array::copy_of(a, Device::cpu());
  write_npy(path, host.view());
}

}  // namespace cujit
