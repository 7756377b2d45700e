// A fixed pool of worker threads for the CPU evaluator: one job at a time,
// split into numbered tasks; each worker (the calling thread is one) runs a
// contiguous block of them, then helps with what is left of the others'.
//
// std::thread rather than oneTBB: the evaluator needs exactly one flat
// parallel loop over chunks with per-thread scratch, which is a counter, a
// condition variable and ~100 lines; TBB would add a build and CI dependency
// (and its own scheduler's threads) for no gain on that pattern.
#pragma once
#include <cstdint>
#include <functional>

namespace cujit {

// The threads the CPU evaluator uses: $CUJIT_NUM_THREADS when set (>= 1),
// else std::thread::hardware_concurrency().
int cpu_threads();

// Wakes the workers a parallel_tasks call on `threads` threads will use, as
// that call is about to come (the caller is still allocating its output and
// planning): a sleeping thread woken only when the tasks are posted starts
// too late to help a call of a few milliseconds where waking an idle CPU is
// slow (a virtual machine's). Woken workers wait awake for the tasks, a
// millisecond at most, then sleep again.
void prepare_parallel(int threads);
// Work of this many elements calls prepare_parallel as it begins: over
// 100 us even of the cheapest program or sum on two threads, so the woken
// helpers are sure to be used (eval.cpp's calls, reduce.cpp's reductions).
constexpr std::int64_t kPrepareAt = std::int64_t(1) << 18;

// Calls body(worker, task) for every task in [0, tasks), on up to `threads`
// threads (the caller included); `worker` is in [0, threads) and no two
// threads share one, so it indexes per-thread scratch. Returns when every
// task has run. When another job holds the pool (a concurrent call), the
// caller runs all tasks itself. Without prepare_parallel first, the caller
// starts alone and wakes the workers only when the tasks left would take it
// more than about 150 us (waking one costs more than a short job's work).
// `body` must not throw: it records failures itself (the evaluator keeps
// the one of the lowest task).
void parallel_tasks(std::int64_t tasks, int threads, const std::function<void(int worker, std::int64_t task)>& body);

}  // namespace cujit
