// Hand-written over glibc's <elf.h> rather than libelf: the checks need a
// handful of fields, each read with its bounds checked against the image, and
// libelf would be one more dependency on every platform for about a hundred
// lines. The CUDA parts (the SM in e_flags, the .nv.info attributes) are in
// no ELF library anyway; they follow what NVRTC 12-13 emit (see FORMAT.md).
#include "cache/kernel_image.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

namespace cujit::cache {
namespace {

constexpr std::uint16_t kEmCuda = 190;       // EM_CUDA
constexpr unsigned char kStoCudaEntry = 0x10;  // st_other of a __global__ function
// .nv.info attribute formats and the two attributes read here.
constexpr unsigned char kFmtNval = 1, kFmtBval = 2, kFmtHval = 3, kFmtSval = 4;
constexpr unsigned char kAttrKparamInfo = 0x17;     // one per parameter: ordinal, offset, size
constexpr unsigned char kAttrCbankParamSize = 0x19;  // total bytes of the parameters

template <class T>
bool read_at(std::string_view img, std::uint64_t off, T& out) {
  if (off > img.size() || img.size() - off < sizeof(T)) return false;
  std::memcpy(&out, img.data() + off, sizeof(T));
  return true;
}

bool within(std::string_view img, std::uint64_t off, std::uint64_t len) {
  return off <= img.size() && len <= img.size() - off;
}

// The SM an image is for. ELF ABI version 8 and later (CUDA 12.8+) keep it
// in bits 8-15 of e_flags; earlier versions in bits 0-7.
int sm_of(const Elf64_Ehdr& h) {
  return h.e_ident[EI_ABIVERSION] >= 8 ? static_cast<int>((h.e_flags >> 8) & 0xff)
                                       : static_cast<int>(h.e_flags & 0xff);
}

struct Image {
  std::string_view img;
  Elf64_Ehdr h{};
  std::vector<Elf64_Shdr> sections;

  // A NUL-terminated name at `off` in section `strtab`, or nullopt.
  std::optional<std::string_view> name_at(std::size_t strtab, std::uint64_t off) const {
    if (strtab >= sections.size()) return std::nullopt;
    const Elf64_Shdr& s = sections[strtab];
    if (s.sh_type != SHT_STRTAB || off >= s.sh_size) return std::nullopt;
    std::string_view table = img.substr(s.sh_offset, s.sh_size);
    std::size_t end = table.find('\0', off);
    if (end == std::string_view::npos) return std::nullopt;
    return table.substr(off, end - off);
  }
  std::string_view section_name(std::size_t k) const {
    return name_at(h.e_shstrndx, sections[k].sh_name).value_or(std::string_view());
  }
  std::string_view bytes(const Elf64_Shdr& s) const { return img.substr(s.sh_offset, s.sh_size); }
};

std::string check_params(const Image& im, const KernelExpect& x) {
  const std::vector<ParamSpec>& want = *x.params;
  const std::string info_name = ".nv.info." + x.name;
  std::string_view info;
  bool found = false;
  for (std::size_t k = 0; k < im.sections.size() && !found; ++k)
    if (im.section_name(k) == info_name) {
      info = im.bytes(im.sections[k]);
      found = true;
    }
  struct Got {
    unsigned ordinal, offset, size;
  };
  std::vector<Got> got;
  std::optional<unsigned> total;
  for (std::size_t at = 0; found && at < info.size();) {
    if (info.size() - at < 4) return fmt::format("cubin: corrupt {}", info_name);
    auto fmt_ = static_cast<unsigned char>(info[at]);
    auto attr = static_cast<unsigned char>(info[at + 1]);
    std::uint16_t v16;
    std::memcpy(&v16, info.data() + at + 2, 2);
    at += 4;
    if (fmt_ == kFmtNval || fmt_ == kFmtBval) continue;
    if (fmt_ == kFmtHval) {
      if (attr == kAttrCbankParamSize) total = v16;
      continue;
    }
    if (fmt_ != kFmtSval || v16 > info.size() - at) return fmt::format("cubin: corrupt {}", info_name);
    if (attr == kAttrKparamInfo) {
      if (v16 < 12) return fmt::format("cubin: corrupt {}", info_name);
      std::uint16_t ordinal, offset;
      std::uint32_t bits;
      std::memcpy(&ordinal, info.data() + at + 4, 2);
      std::memcpy(&offset, info.data() + at + 6, 2);
      std::memcpy(&bits, info.data() + at + 8, 4);
      got.push_back({ordinal, offset, (bits >> 18) & 0x3fff});
    }
    at += v16;
  }
  if (!found && !want.empty()) return fmt::format("cubin: no parameter information for {}", x.name);
  if (got.size() != want.size())
    return fmt::format("cubin: {} takes {} parameters, expected {}", x.name, got.size(), want.size());
  std::sort(got.begin(), got.end(), [](const Got& a, const Got& b) { return a.ordinal < b.ordinal; });
  std::size_t offset = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    std::size_t align = std::max<std::size_t>(want[k].align, 1);
    offset = (offset + align - 1) / align * align;
    if (got[k].ordinal != k || got[k].offset != offset || got[k].size != want[k].size)
      return fmt::format("cubin: parameter {} of {} is {} bytes at offset {}, expected {} bytes at offset {}", k,
                         x.name, got[k].size, got[k].offset, want[k].size, offset);
    offset += want[k].size;
  }
  if (total && *total != offset)
    return fmt::format("cubin: the parameters of {} take {} bytes, expected {}", x.name, *total, offset);
  return {};
}

}  // namespace

std::string check_cubin(std::string_view cubin, const KernelExpect& x) {
  Image im;
  im.img = cubin;
  Elf64_Ehdr& h = im.h;
  if (!read_at(cubin, 0, h) || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
    return fmt::format("cubin: not an ELF image ({} bytes)", cubin.size());
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB)
    return "cubin: not a 64-bit little-endian ELF image";
  if (h.e_machine != kEmCuda) return fmt::format("cubin: ELF image for machine {}, not CUDA ({})", h.e_machine, kEmCuda);
  if (x.arch != 0 && sm_of(h) != x.arch) return fmt::format("cubin: for sm_{}, expected sm_{}", sm_of(h), x.arch);
  if (h.e_shentsize != sizeof(Elf64_Shdr) || h.e_shnum == 0 || h.e_shstrndx >= h.e_shnum ||
      !within(cubin, h.e_shoff, std::uint64_t{h.e_shnum} * sizeof(Elf64_Shdr)))
    return "cubin: corrupt section table";
  // The segments the driver loads, when there are program headers.
  if (h.e_phnum != 0) {
    if (h.e_phentsize != sizeof(Elf64_Phdr) ||
        !within(cubin, h.e_phoff, std::uint64_t{h.e_phnum} * sizeof(Elf64_Phdr)))
      return "cubin: corrupt program header table";
    for (unsigned k = 0; k < h.e_phnum; ++k) {
      Elf64_Phdr ph;
      read_at(cubin, h.e_phoff + std::uint64_t{k} * sizeof(Elf64_Phdr), ph);
      if (ph.p_filesz != 0 && !within(cubin, ph.p_offset, ph.p_filesz))
        return fmt::format("cubin: segment {} lies outside the image", k);
    }
  }
  for (unsigned k = 0; k < h.e_shnum; ++k) {
    Elf64_Shdr s;
    read_at(cubin, h.e_shoff + std::uint64_t{k} * sizeof(Elf64_Shdr), s);
    if (s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL && !within(cubin, s.sh_offset, s.sh_size))
      return fmt::format("cubin: section {} lies outside the image", k);
    if (s.sh_type == SHT_NOBITS || s.sh_type == SHT_NULL) s.sh_offset = s.sh_size = 0;
    im.sections.push_back(s);
  }

  // The kernel's symbol: a function marked as a CUDA entry, in a code section.
  const Elf64_Sym* sym = nullptr;
  Elf64_Sym found{};
  for (std::size_t k = 0; k < im.sections.size() && !sym; ++k) {
    const Elf64_Shdr& s = im.sections[k];
    if (s.sh_type != SHT_SYMTAB) continue;
    if (s.sh_entsize != sizeof(Elf64_Sym)) return "cubin: corrupt symbol table";
    for (std::uint64_t j = 0; j < s.sh_size / sizeof(Elf64_Sym); ++j) {
      Elf64_Sym e;
      read_at(cubin, s.sh_offset + j * sizeof(Elf64_Sym), e);
      if (ELF64_ST_TYPE(e.st_info) == STT_FUNC && im.name_at(s.sh_link, e.st_name) == std::string_view(x.name)) {
        found = e;
        sym = &found;
        break;
      }
    }
  }
  if (!sym) return fmt::format("cubin: defines no kernel {}", x.name);
  if (!(sym->st_other & kStoCudaEntry)) return fmt::format("cubin: {} is not a kernel entry point", x.name);
  if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= im.sections.size() ||
      im.sections[sym->st_shndx].sh_type != SHT_PROGBITS)
    return fmt::format("cubin: {} has no code", x.name);
  std::string_view text = im.bytes(im.sections[sym->st_shndx]);
  if (sym->st_size == 0 || !within(text, sym->st_value, sym->st_size))
    return fmt::format("cubin: the code of {} lies outside its section", x.name);
  std::string_view code = text.substr(sym->st_value, sym->st_size);
  if (std::all_of(code.begin(), code.end(), [](char c) { return c == 0; }))
    return fmt::format("cubin: the code of {} is all zero bytes", x.name);
  if (x.params) return check_params(im, x);
  return {};
}

std::string check_kernel_image(const Entry& e, const KernelExpect& x) {
  if (std::string p = check_cubin(e.cubin, x); !p.empty()) return p;
  // `.entry NAME(`: declared as a kernel, not just named in a comment or a call.
  if (e.ptx.find(".entry " + x.name + "(") == std::string::npos) return fmt::format("PTX: declares no kernel {}", x.name);
  if (x.arch != 0) {
    const std::string target = fmt::format(".target sm_{}", x.arch);
    std::size_t at = e.ptx.find(target);
    char next = at == std::string::npos || at + target.size() >= e.ptx.size() ? '\n' : e.ptx[at + target.size()];
    if (at == std::string::npos || (next >= '0' && next <= '9'))
      return fmt::format("PTX: not for sm_{}", x.arch);
  }
  return {};
}

}  // namespace cujit::cache
