// The GPU half of a layout unit: how a layout's kernel reaches its operands,
// which template it fills, and its grid. One file per layout beside this one
// (contiguous.cpp, strided.cpp, rows.cpp, tiles.cpp), each defining its
// LayoutCodegen; layout_codegen() is their list. The plan half of each unit
// (when it applies, its key) is src/plan/layouts/; generate_source and the
// launcher dispatch over both lists by KernelLayout::Kind.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lang/check.hpp"
#include "plan/layout.hpp"

namespace cujit {

// The C type a value of this dtype is computed in (16-bit floats: float), and
// the one it is stored as in memory and in kernel arguments.
std::string ctype(DType t);
std::string stype(DType t);
std::string join_text(const std::vector<std::string>& v, const std::string& sep);

// Names in the source: user names get a prefix, so that they can never clash
// with C++ keywords or cujit's own names (cj_*, loop variables).
inline std::string val_name(const std::string& n) { return "v_" + n; }
inline std::string ptr_name(const std::string& n) { return "p_" + n; }
inline std::string arg_name(const std::string& n) { return "s_" + n; }
inline std::string size_name(const std::string& n) { return "z_" + n; }
// An in/out parameter (`x *= 5`) is an input, read once at the top, and an
// output, written once at the end: its output side has its own prefixes, so
// that the element function sees the input value v_x and the new value w_x.
inline std::string out_val(const Var& v) { return (v.input >= 0 ? "w_" : "v_") + v.name; }
inline std::string out_ptr(const Var& v) { return (v.input >= 0 ? "q_" : "p_") + v.name; }
inline std::string out_vec(const Var& v) { return (v.input >= 0 ? "b_" : "a_") + v.name; }

// The lines of one kernel that its operands make, filled by the layout's hooks
// and pasted into its template (the placeholders of the same names).
struct KernelParts {
  using Convert = std::function<std::string(DType, const std::string&)>;
  KernelParts(const Program& prog, const KernelLayout& layout, Convert load, Convert store)
      : p(prog), l(layout), load_value(std::move(load)), store_value(std::move(store)) {}
  const Program& p;
  const KernelLayout& l;
  // Storage <-> compute representation (the element body's, which notes the helpers they need).
  Convert load_value, store_value;
  bool uses_index = false;  // the program reads i or n
  // Strided operands in ABI order, and each one's row in the layout argument
  // (by pointer name: an in/out parameter has two, one per side).
  std::vector<std::string> strided_names;
  std::map<std::string, int> row;
  std::vector<std::string> setup, load, store, vraw, vload, velem, vstore_elem, vstore, row_setup, tile_decl, tile_load;
  // Lines after every operand's vload (the contiguous layout's float16
  // conversions): no branch between one operand's load and the next.
  std::vector<std::string> vconvert;

  // An operand's element at the offsets cj_o of its strided row.
  std::string offset(const std::string& ptr) const { return "cj::at(" + ptr + ", cj_o[" + std::to_string(row.at(ptr)) + "])"; }
};

// The grid of one launch: the kernel's block size and grid cap in, the launch out.
struct LaunchGrid {
  unsigned grid = 0, grid_y = 1, block = 0, block_y = 1;
};

struct LayoutCodegen {
  KernelLayout::Kind kind;
  // A used array input reached through its pointer (any access but Value,
  // Uniform and Raw, which every layout reads alike): its lines. `decl` is
  // "const T v_x = ".
  void (*input)(KernelParts& k, const Param& q, Access a, const std::string& decl);
  // An output (its value v_x is declared already): its stores.
  void (*output)(KernelParts& k, const Var& v, Access a);
  // The header's words for the layout, e.g. "3-d strided".
  std::string (*describe)(const KernelLayout& l);
  // The placeholders of its template beyond the shared ones; returns the template's file.
  std::string (*render)(const KernelParts& k, std::map<std::string, std::string>& vars);
  // The grid of a launch of plan, from the kernel's block size and the device's grid cap.
  LaunchGrid (*grid)(const LaunchPlan& plan, int block, unsigned max_grid);
};

// The unit of one kind (fail(Internal) for a kind with none).
const LayoutCodegen& layout_codegen(KernelLayout::Kind kind);

// A launch of `threads` threads, `block` a block, its grid capped at max_grid
// (the kernels' grid-stride loops cover the rest).
LaunchGrid thread_grid(std::int64_t threads, int block, unsigned max_grid);

// Shared by the units.
// cj::vec<T, vec, alignment>: vec elements moved as one aligned access.
std::string vec_type(DType t, int vec);
// Rows and tiles: a row-contiguous operand's elements from its row's start:
// e_x for p_x, f_x for the output side q_x of an in/out parameter.
inline std::string row_ptr(const std::string& ptr) { return (ptr[0] == 'q' ? "f_" : "e_") + ptr.substr(2); }
// The Layout argument's struct cj_layout over nd dimensions (Rows: led by the
// inner extent and the row count) and the division by an extent:
// LAYOUT_FIELDS, DIVIDE, NSTRIDED and OFFSET_T.
void layout_struct_vars(const KernelParts& k, int nd, bool rows, std::map<std::string, std::string>& vars);
// templates/index.cuh: the offsets cj_o of the multi-index of the flat index
// `rest` over the dimensions top..0 (vars from layout_struct_vars).
std::string offsets_text(const std::string& rest, const std::string& top, const std::map<std::string, std::string>& vars);

}  // namespace cujit
