// record: what a compiled kernel was made from, as a precompile-manifest
// entry ("recipe"), kept two ways:
//  - appended to the file $CUJIT_RECORD names whenever a kernel had to be
//    compiled (record mode), so `jitcache precompile FILE` compiles exactly
//    those kernels ahead on another machine or before the next run;
//  - as a comment trailer at the end of the entry's PTX in the disk cache, so
//    `jitcache list` can show the program, dtypes and layout of an entry.
//    PTX comments are ignored by the driver's JIT and the entry format is
//    unchanged, so caches stay readable by every cujit version both ways.
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace cujit {

// A TOML basic string (quoted, escaped): the one way recipes quote text.
std::string toml_quote(std::string_view s);

// Whether CUJIT_RECORD names a file (read once per process).
bool recording();
// Appends `entry` (one whole [[kernel]] table, ending in a newline) to the
// record file unless an identical entry is there already. Several processes
// may record into one file at once: each append happens under flock() on the
// file, in one write. Failures are warned about once on stderr, never thrown:
// recording must not break the application.
void record_kernel(const std::string& entry);

// A program with reductions runs several kernels (its passes) but is made
// again as one manifest entry, with its input shapes. While a RecordGroup
// lives on a thread, every kernel compiled there carries the group's entry
// (group_recipe) as its recipe, so record mode records that entry once, and
// `jitcache list` shows the program each pass's kernel belongs to. `entry` is
// called at most once, when the first kernel needs it (a call that compiles
// nothing builds no string). Groups nest: the innermost wins.
class RecordGroup {
 public:
  explicit RecordGroup(std::function<std::string()> entry);
  ~RecordGroup();
  RecordGroup(const RecordGroup&) = delete;
  RecordGroup& operator=(const RecordGroup&) = delete;
  const std::string& entry();

 private:
  std::function<std::string()> make_;
  std::string entry_;
  bool made_ = false;
  RecordGroup* outer_;
};
// The recipe a kernel compiled on this thread carries: the innermost group's
// entry, else `own`.
std::string group_recipe(const std::string& own);

// The PTX comment trailer carrying `recipe`, and the recipe back from PTX
// that ends with one (empty when there is none).
std::string recipe_trailer(std::string_view recipe);
std::string recipe_from_ptx(std::string_view ptx);

}  // namespace cujit
