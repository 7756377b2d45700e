// The plan half of a layout unit: when the layout applies to a call (from the
// analysis of its operands below), the fields of its key and their parser, and
// its own checks. One file per layout beside this one (contiguous_plan.cpp,
// strided_plan.cpp, rows_plan.cpp, tiles_plan.cpp), each defining its LayoutRule;
// layout_rules() is their list, in the order plan_launch tries them. The GPU
// half of each unit (its kernel's lines, template and grid) is src/gpu/layouts/.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lang/check.hpp"
#include "plan/layout.hpp"

namespace cujit {

// An operand the kernel walks element by element (Contig or Strided), in ABI
// order (outputs, then inputs): its byte strides in the outputs' shape (0
// where it broadcasts), itemsize and address.
struct Walked {
  bool output;
  std::size_t k;
  Shape st;
  std::int64_t item;
  std::uintptr_t address;
};

// A dimension of a coalesced iteration shape: its extent and each operand's byte stride.
struct Dim {
  std::int64_t extent;
  std::vector<std::int64_t> st;
};

// What plan_launch found about a call's operands before choosing a layout.
struct OperandAnalysis {
  explicit OperandAnalysis(const Program& prog) : p(prog) {}
  const Program& p;
  Shape shape;                // the outputs' shape
  std::int64_t n = 0;         // its element count
  KernelLayout base;          // each operand Contig, Strided, Uniform, Value or Raw; kind Contiguous
  std::vector<Walked> walked;
  bool any_strided = false;   // some operand is Strided
  int max_vector = 4;
  bool force_index64 = false;
  bool rows = true;           // Rows and Tiles layouts allowed (raw CUDA kernels have no renderer for them)

  Access& access(KernelLayout& l, const Walked& w) const { return w.output ? l.outputs[w.k] : l.inputs[w.k]; }
  // Merges dimensions that every operand of `ops` walks as one (NumPy's
  // coalescing) and drops extent-1 ones; at least one dimension remains.
  std::vector<Dim> coalesce(const std::vector<const Walked*>& ops) const;
  // 64-bit indexing where n or some operand's farthest byte offset needs it.
  bool needs_wide(const std::vector<Dim>& dims, std::size_t nops) const;
  // The widest vector step (from preferred_vec) for which ok(vec) holds.
  int widest_vec(const std::function<bool(int)>& ok) const;
};

// Whether `bytes` is aligned to a vector of vec elements of item bytes (at most 16).
inline bool aligned(std::int64_t bytes, int vec, std::int64_t item) { return bytes % std::min<std::int64_t>(16, vec * item) == 0; }
// The extents of dims and, per operand, its strides: pack_layout_arg's arguments.
void dims_arrays(const std::vector<Dim>& dims, std::size_t nops, std::vector<std::int64_t>& ext,
                 std::vector<std::vector<std::int64_t>>& st);

// Which accesses a layout uses, for its checks.
struct AccessSummary {
  bool any_strided = false, any_contig = false, any_row_scalar = false, any_tiled = false;
  bool vec_ok = false;  // vec is 1, 2, 4, 8 or 16
};

struct LayoutRule {
  KernelLayout::Kind kind;
  char letter;  // the key's first letter
  // The kernel takes the Layout argument (extents and strides; pack_layout_arg).
  bool layout_arg;
  // Outputs only Strided (else Contig or Strided).
  bool strided_outputs;
  // An Access only this layout has (Contig when none), and the message for another layout that has it.
  Access own_access;
  const char* own_access_message;
  // load_vec and store_vec may differ from 1.
  bool load_store_vec;
  // The Layout argument leads with the inner extent and the row count and
  // leaves the inner dimension out (Rows: its strides are the itemsize or 0).
  bool row_header;
  // The key's fields after the index width, e.g. ".v4.d2", and their parser
  // (the fields split at '.', e.g. {"v4", "d2"}).
  std::string (*key_fields)(const KernelLayout& l);
  bool (*parse_fields)(const std::vector<std::string>& fields, KernelLayout& l);
  // The layout's own checks of validate_layout: "" or why it does not fit.
  std::string (*check)(const KernelLayout& l, const AccessSummary& s);
  // When the layout applies to the call: fills plan (layout, layout_arg, rows,
  // inner) and returns true.
  bool (*choose)(const OperandAnalysis& a, LaunchPlan& plan);
};

// A layout whose weak inputs are by Value, raw ones Raw, every other operand `arrays`.
KernelLayout base_layout(const Program& p, Access arrays);

// Every layout, in the order plan_launch tries them.
const std::vector<const LayoutRule*>& layout_rules();
// The rule of one kind (fail(Internal) for a kind with none).
const LayoutRule& layout_rule(KernelLayout::Kind kind);
// A key field: `what` and a number of one or two digits ("v4").
bool key_number(const std::string& field, char what, int& out);

}  // namespace cujit
