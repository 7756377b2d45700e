#include "cpu/thread_pool.hpp"

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cujit {

int cpu_threads() {
  static const int n = [] {
    if (const char* s = std::getenv("CUJIT_NUM_THREADS")) {
      char* end = nullptr;
      long v = std::strtol(s, &end, 10);
      if (end != s && *end == '\0' && v >= 1 && v <= 1024) return static_cast<int>(v);
    }
    unsigned h = std::thread::hardware_concurrency();
    return h ? static_cast<int>(h) : 1;
  }();
  return n;
}

namespace {

// One turn of a wait awake. The yield matters when the waiting thread shares
// its CPU with the one it waits for (the scheduler often wakes a worker on
// its waker's CPU): spinning alone there kept the calling thread off the CPU
// until the spin ran out, 1 ms, a thousand times the work of a 10^5-element
// call (cujit at 1.1 ms where NumPy took 0.1 in bench/cpu_peers.py).
void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
  std::this_thread::yield();
}

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void run(std::int64_t tasks, int threads, const std::function<void(int, std::int64_t)>& body) {
    std::unique_lock<std::mutex> busy(job_mu_, std::try_to_lock);
    if (!busy.owns_lock() || threads <= 1 || tasks <= 1) {
      for (std::int64_t t = 0; t < tasks; ++t) body(0, t);
      return;
    }
    // A job nobody announced (prepare_parallel) starts on this thread alone,
    // and wakes the helpers only once what is left projects to more than
    // kWorthWaking: waking a sleeping thread costs this one about 10 us (a
    // virtual machine's interrupt to an idle CPU) and the helper starts 30-45
    // us later, so on a call of 10^5 cheap elements (clip: 20 us) two
    // threads took longer than one; at 50 us, sin(x)*5 and exp(-x*x)*cos(y)
    // on 10^5 elements were 20% slower than at 150.
    std::int64_t first = 0;
    if (!announced_.exchange(false)) {
      const auto t0 = std::chrono::steady_clock::now();
      while (first < tasks) {
        body(0, first++);
        const auto spent = std::chrono::steady_clock::now() - t0;
        // (from the second task on: the first pays for cold caches)
        if (first >= 2 && spent / first * (tasks - first) > kWorthWaking) break;
      }
      if (first == tasks) return;
    }
    int helpers = static_cast<int>(std::min<std::int64_t>(threads, tasks - first)) - 1;
    if (helpers < 1) {
      for (std::int64_t t = first; t < tasks; ++t) body(0, t);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      start_threads(helpers);
      steer();
      body_ = &body;
      split(first, tasks, helpers + 1);
      helpers_ = helpers;
      open_ = true;
      ++generation_;
      posted_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    claim(0);
    // Every task is claimed: close the job, so that a helper the scheduler has
    // not run yet (a loaded machine) skips it instead of being waited for, and
    // wait only for the helpers still inside a task. Those finish about when
    // this thread did (the blocks are even), so wait for them awake first:
    // sleeping and being woken again cost 10-50 us here, the whole work of a
    // call on 10^5 elements.
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = false;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (inside_.load(std::memory_order_acquire) != 0 && std::chrono::steady_clock::now() < until) pause();
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return inside_.load(std::memory_order_relaxed) == 0; });
    body_ = nullptr;
  }

  // Each worker runs the tasks of its own contiguous block first, in order,
  // then claims what is left of the others' (a worker woken late, a thread
  // the machine runs slower). Contiguous blocks, not tasks dealt in turn:
  // each core then streams through one region of the arrays, which its
  // prefetchers follow; dealt in turn (chunk 0, 2, 4, ... to one thread),
  // two threads on x*y + 5 or clip took 1.3-1.7x one thread's time at 10^6
  // to 10^7 elements where their own halves took 0.5.
  void claim(int worker) {
    for (int i = 0; i < parts_; ++i) {
      Block& b = blocks_[static_cast<std::size_t>((worker + i) % parts_)];
      for (std::int64_t t; (t = b.next.fetch_add(1)) < b.end;) (*body_)(worker, t);
    }
  }

  void prewake(int threads) {
    if (threads <= 1) return;
    announced_.store(true, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mu_);
      start_threads(threads - 1);
      steer();
      ++prewake_;
    }
    wake_.notify_all();
  }

 private:
  void split(std::int64_t first, std::int64_t tasks, int parts) {  // under mu_
    if (parts > capacity_) {
      blocks_ = std::make_unique<Block[]>(static_cast<std::size_t>(parts));
      capacity_ = parts;
    }
    const std::int64_t n = tasks - first;
    for (int b = 0; b < parts; ++b) {
      blocks_[static_cast<std::size_t>(b)].next.store(first + n * b / parts, std::memory_order_relaxed);
      blocks_[static_cast<std::size_t>(b)].end = first + n * (b + 1) / parts;
    }
    parts_ = parts;
  }

  // Keeps the helpers off the calling thread's CPU while that thread works:
  // woken from it, a helper was often queued on that same CPU (the other one
  // idle), and the two took turns, one thread's time or worse (seen in 6 of
  // 11 calls of x**y on 10^5 elements). The CPUs the process may use stay
  // the helpers' choice otherwise; one system call when the caller's CPU
  // changed since the last job, none when there is no other CPU.
  void steer() {  // under mu_
#ifdef __linux__
    if (threads_.empty()) return;
    if (!allowed_known_) {
      CPU_ZERO(&allowed_);
      if (sched_getaffinity(0, sizeof allowed_, &allowed_) != 0) CPU_ZERO(&allowed_);
      allowed_known_ = true;
    }
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || cpu == steered_from_ || !CPU_ISSET(cpu, &allowed_)) return;
    cpu_set_t others = allowed_;
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) == 0) return;
    for (std::thread& t : threads_) pthread_setaffinity_np(t.native_handle(), sizeof others, &others);
    steered_from_ = cpu;
#endif
  }

  void start_threads(int helpers) {  // under mu_
    while (static_cast<int>(threads_.size()) < helpers) {
      int id = static_cast<int>(threads_.size()) + 1;
      threads_.emplace_back([this, id] { work(id); });
#ifdef __linux__
      steered_from_ = -1;  // the new thread has yet to be steered
#endif
    }
  }

  void work(int id) {
    std::uint64_t seen = 0, seen_prewake = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen || prewake_ != seen_prewake; });
      if (stop_) return;
      if (generation_ == seen) {
        // Woken ahead of a job: wait for it awake (its tasks may take less
        // time than waking a sleeping thread again), a millisecond at most.
        seen_prewake = prewake_;
        lock.unlock();
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
        while (posted_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) pause();
        lock.lock();
        continue;
      }
      seen = generation_;
      seen_prewake = prewake_;
      if (!open_ || id > helpers_) continue;  // over already, or needs fewer threads
      inside_.fetch_add(1, std::memory_order_relaxed);
      lock.unlock();
      claim(id);
      lock.lock();
      if (inside_.fetch_sub(1, std::memory_order_release) == 1) done_.notify_one();
      // Awake a while for the caller's next job, as after a prewake: calls
      // back to back (a reduction's passes, a loop of evaluate() calls) found
      // this thread asleep each time, and woken on an idle virtual CPU it came
      // too late to help a call of 10^6 elements (a sum at 0.13 ms where it
      // took 0.08 with the helper at hand).
      lock.unlock();
      const auto until = std::chrono::steady_clock::now() + kLinger;
      while (posted_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) pause();
      lock.lock();
    }
  }

  std::mutex job_mu_;  // one job at a time
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int, std::int64_t)>* body_ = nullptr;
  // One block of tasks per worker of the open job, each on its own cache line.
  struct alignas(64) Block {
    std::atomic<std::int64_t> next{0};
    std::int64_t end = 0;
  };
  std::unique_ptr<Block[]> blocks_;
  int capacity_ = 0, parts_ = 0;
  int helpers_ = 0;
  std::atomic<int> inside_{0};  // helpers working on the open job (changed under mu_, read unlocked too)
  bool open_ = false;
  std::uint64_t generation_ = 0;
  std::atomic<std::uint64_t> posted_{0};  // generation_, for spinning workers to read unlocked
  std::uint64_t prewake_ = 0;
  std::atomic<bool> announced_{false};  // prewake ran for the next job: post it at once
#ifdef __linux__
  cpu_set_t allowed_;
  bool allowed_known_ = false;
  int steered_from_ = -1;  // the CPU the helpers were last kept off
#endif
  static constexpr std::chrono::microseconds kWorthWaking{150};
  static constexpr std::chrono::microseconds kLinger{1000};
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void prepare_parallel(int threads) { pool().prewake(threads); }

void parallel_tasks(std::int64_t tasks, int threads, const std::function<void(int, std::int64_t)>& body) {
  pool().run(tasks, threads, body);
}

}  // namespace cujit
