// Kernel layouts and the planning of one call: how each operand is reached
// (contiguous, strided, broadcast, by value, raw), the vector step, the index
// width, NumPy broadcasting and the output shape. The launcher plans every call
// with plan_launch; jitcache precompiles preferred_vec's layout; the CPU
// evaluator broadcasts with the same rule and message (broadcast_input).
// A layout is chosen on the host for each call and is part of the cache key.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cujit/array.hpp"
#include "cujit/dtype.hpp"

namespace cujit {

struct Program;


// How the kernel reaches one operand.
enum class Access : std::uint8_t {
  Contig,   // pointer; element k of the launch is p[k] (C-contiguous, n elements)
  Strided,  // pointer; element k sits at the byte offset sum_d idx_d(k) * stride[d] (Strided layouts only)
  Uniform,  // pointer to a single element used for every k (a size-1 array broadcast); read once per thread
  Value,    // the element itself, by value (a 0-d host scalar; always so for a weak scalar parameter)
  Raw,      // a raw parameter: pointer to a C-contiguous array plus its int64 element count, indexed x[j]
  RowScalar,  // pointer; Rows layouts only: constant along each row (inner stride 0, e.g. an (r,1) array
              // against (r,c)), read once per row at the row's byte offset
  Tiled,      // pointer; Tiles layouts only: contiguous along the second-last dimension
              // (a transposed view), read through a shared-memory tile
};

// Whether the Layout argument carries byte strides for an operand of this access.
inline bool has_strides(Access a) { return a == Access::Strided || a == Access::RowScalar || a == Access::Tiled; }

struct KernelLayout {
  // Each kind is a unit: its choice, key and checks in src/plan/layouts/, its
  // kernel and grid in src/gpu/layouts/ (docs/architecture.md).
  enum class Kind : std::uint8_t {
    Contiguous,  // every array operand is Contig, Uniform, Value or Raw
    Strided,     // at least one operand is Strided; the Layout argument carries extents and strides
    // Rows of an inner dimension along which every output and Strided input is
    // contiguous and every RowScalar input constant (broadcasts such as
    // (r,1)*(1,c), views of padded rows). A row's byte offsets are found once
    // per row (no division per element) and the inner dimension moves in
    // vectors of `vec` elements; the Layout argument carries the inner extent,
    // the row count, the outer extents and each Strided/RowScalar operand's
    // outer byte strides. The launch is a 2-D grid: x over a row, y over rows.
    Rows,
    // Square tiles of 16*vec elements a side over the last two dimensions (and
    // the others one tile at a time), 256 threads a tile, each moving a
    // vec x vec block: a Tiled input (contiguous down a column, e.g. x.T) is
    // read in vectors down its columns, transposed in registers and stored
    // into shared memory in vectors of a row (an XOR swizzle keeps both sides
    // free of bank conflicts); then every other operand is read and written
    // in vectors along the rows, so both sides coalesce with wide accesses.
    // Outputs are contiguous along the last dimension; other inputs are
    // Strided (any strides: those contiguous along the last dimension in
    // vectors, the rest one element at a time). The Layout argument is a
    // Strided layout's. The grid is 1-D over the tiles.
    Tiles,
  };
  Kind kind = Kind::Contiguous;
  // 64-bit index arithmetic. The host sets it only where it is needed: n > INT32_MAX,
  // or (Strided) some |byte offset| sum_d (extent_d - 1) * |stride_d| > INT32_MAX.
  bool index64 = false;
  // Contiguous and Rows: elements per vector step (1, 2, 4, 8 or 16); > 1 needs every
  // Contig pointer (Rows: every Strided operand's row start) aligned to
  // min(16, vec * itemsize) bytes (see max_vec()).
  // Tiles: the side of a thread's block (1, 2 or 4; the tile is 16*vec a side).
  int vec = 1;
  // Tiles: elements a Tiled input's loads move (down a column) and the outputs'
  // and other inputs' accesses (along a row) move; each divides vec and needs
  // the operands' addresses and strides (but the contiguous one) aligned to
  // min(16, n * itemsize) bytes. 1 in other layouts.
  int load_vec = 1, store_vec = 1;
  // Strided: number of dimensions of the (coalesced) iteration shape, 1..8;
  // Rows and Tiles: 2..8, the last one the inner dimension.
  int ndim = 0;
  std::vector<Access> outputs;  // per Program::outputs: Contig or Strided (Rows: Strided)
  std::vector<Access> inputs;   // per Program::inputs: Raw for raw, Value for weak, any but Raw otherwise

  // Stable text naming every choice above, e.g. "c.i32.v4|o:c|i:c,v,r" or
  // "s.i64.d3|o:s|i:s,u", "r.i32.v4.d2|o:s|i:b,s" or "t.i32.v4.l4.s2.d2|o:s|i:t"; part of the kernel cache key.
  // Each layout's fields come from its unit (src/plan/layouts/).
  std::string key_string() const;
  bool operator==(const KernelLayout& o) const;
  bool operator!=(const KernelLayout& o) const { return !(*this == o); }
};

// The inverse of KernelLayout::key_string() (jitcache precompile's layouts):
// nullopt unless `key` is a key as key_string() spells it.
std::optional<KernelLayout> parse_layout_key(const std::string& key);

// Contiguous layout: weak inputs by Value, raw ones Raw, every other operand Contig.
KernelLayout contiguous_layout(const Program& p, int vec = 1, bool index64 = false);
// Strided layout: weak inputs by Value, raw ones Raw, every other operand Strided.
KernelLayout strided_layout(const Program& p, int ndim, bool index64 = false);
// Rows layout: weak inputs by Value, raw ones Raw, every other operand Strided
// (contiguous along the rows).
KernelLayout rows_layout(const Program& p, int ndim, int vec = 1, bool index64 = false);
// Tiles layout: weak inputs by Value, raw ones Raw, every other input Tiled,
// outputs Strided; load_vec and store_vec equal to vec.
KernelLayout tiles_layout(const Program& p, int ndim, int vec = 1, bool index64 = false);
// Shared memory a Tiles kernel may use for its tiles (one tile of
// (16*vec)^2 elements per Tiled input): the planner halves vec until they
// fit, and falls back to a Strided layout where even vec 1 does not.
constexpr std::size_t kMaxTileBytes = 32 * 1024;
// The widest block side of a Tiles layout: 4 (16-byte float32 vectors; 8-byte
// float16 ones, as a 128x128 float16 tile would take 32 KiB).
constexpr int kMaxTileVec = 4;
// Bytes of shared memory one Tiled input of this itemsize takes at block side vec.
inline std::size_t tile_bytes(int vec, std::size_t itemsize) {
  return 256 * static_cast<std::size_t>(vec) * static_cast<std::size_t>(vec) * itemsize;
}
// The widest vector step whose loads stay within 16 bytes: 16 / the largest
// itemsize among the outputs and the array (non-weak, non-raw) inputs.
int max_vec(const Program& p);
// The most elements a thread moves per vector step unless the caller says
// otherwise (GpuOptions::max_vector); a step also stays within 16 bytes.
constexpr int kDefaultMaxVector = 16;
// The vector step of a contiguous layout when every pointer is 16-byte aligned:
// the largest power of two <= min(max_vec(p), max_vector). plan_launch starts
// from it (and halves it for misaligned pointers); jitcache precompiles it, so
// the two agree on the kernel, and so on its cache key.
int preferred_vec(const Program& p, int max_vector = kDefaultMaxVector);
// fail(Internal) unless the layout fits the program (sizes, Access per operand, vec, ndim).
void validate_layout(const Program& p, const KernelLayout& layout);

// Bytes of the Layout argument, the divisor constants included. `shape` has
// layout.ndim extents; `strides` holds, for each Strided (and, in Rows
// layouts, RowScalar) operand in ABI order, layout.ndim byte strides (Rows
// layouts pack the inner extent, the row count, then the outer dimensions
// only: the inner strides are the itemsize or 0 by the access). fail(Internal)
// on a count mismatch or, without index64, a value outside 32 bits.
std::vector<unsigned char> pack_layout_arg(const KernelLayout& layout, const std::vector<std::int64_t>& shape,
                                           const std::vector<std::vector<std::int64_t>>& strides);

// ---- planning one call ----

// One operand as the launcher sees it.
struct OperandView {
  std::uintptr_t address = 0;  // device address of element 0 (its alignment decides vectorization)
  DType dtype = DType::Float32;
  Shape shape;
  Shape strides;               // bytes, as ArrayView
  bool host_value = false;     // a 0-d (size-1) input whose value the launcher holds: passed by value
};

struct LaunchPlan {
  KernelLayout layout;
  Shape shape;                             // the outputs' shape
  std::int64_t n = 0;                      // its element count: the Count argument
  std::vector<unsigned char> layout_arg;   // the Layout argument (Strided and Rows layouts), from pack_layout_arg
  // Rows layouts: the row count and the inner extent; Tiles layouts: the
  // second-last and last extents (the tiles' grid is over these and the batch).
  std::int64_t rows = 0, inner = 0;
};

// The layout for one call, and the arguments that depend on it. Inputs and
// outputs in program order; weak inputs are ignored (always Value) and their
// views may be empty. Array inputs broadcast against the outputs' shape as
// NumPy does (fail(Data) with the CPU evaluator's message where they do not;
// the outputs must all have the broadcast shape, or any shape when the program
// has no array operand). An input is Value when host_value, else Uniform when
// it has one element (or all-zero strides), else Contig when it is
// C-contiguous in the outputs' shape, else Strided; an output is Contig or
// Strided. Raw inputs must be C-contiguous (fail(Usage): copy them first).
// With a Strided operand the dimensions are merged where every array operand
// allows (NumPy's coalescing) and extent-1 ones dropped; when that leaves 2 or
// more dimensions with every output and array input contiguous or constant
// along the last one, the layout is Rows; else, when the outputs are
// contiguous along the last and some input along the second-last (a
// transposed view) instead, Tiles; else Strided (merged over the strided
// operands). Raw CUDA kernels have no Rows or Tiles renderer (`rows` false).
// 64-bit indexing only when n or a byte offset needs it, or
// `force_index64` (a test hook). Contiguous and Rows layouts vectorize up to
// min(max_vec, max_vector) elements, halved until every vector is aligned to
// its size (Rows: each row's start, so the outer strides too), and halved
// while a vector step would be wider than the inner extent (Rows). Tiles
// layouts take the block side min(kMaxTileVec, preferred_vec), halved while
// the tiles would pass kMaxTileBytes, and halve the load and store vectors
// from it until aligned (a tiled input's address and strides but the unit
// one; the outputs' and row-contiguous inputs' address and outer strides).
// Outputs must not overlap one another or an input except element for element.
LaunchPlan plan_launch(const Program& p, const std::vector<OperandView>& inputs, const std::vector<OperandView>& outputs,
                       int max_vector = 4, bool force_index64 = false, bool rows = true);

}  // namespace cujit
