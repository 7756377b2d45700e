#include "cpu/thread_pool.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
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
    int helpers = static_cast<int>(std::min<std::int64_t>(threads, tasks)) - 1;
    {
      std::lock_guard<std::mutex> lock(mu_);
      start_threads(helpers);
      body_ = &body;
      tasks_ = tasks;
      next_.store(0);
      helpers_ = helpers;
      open_ = true;
      ++generation_;
      posted_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    claim(0);
    // Every task is claimed: close the job, so that a helper the scheduler has
    // not run yet (a loaded machine) skips it instead of being waited for, and
    // wait only for the helpers still inside a task.
    std::unique_lock<std::mutex> lock(mu_);
    open_ = false;
    done_.wait(lock, [this] { return inside_ == 0; });
    body_ = nullptr;
  }

  void claim(int worker) {
    for (std::int64_t t; (t = next_.fetch_add(1)) < tasks_;) (*body_)(worker, t);
  }

  void prewake(int threads) {
    if (threads <= 1) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      start_threads(threads - 1);
      ++prewake_;
    }
    wake_.notify_all();
  }

 private:
  void start_threads(int helpers) {  // under mu_
    while (static_cast<int>(threads_.size()) < helpers) {
      int id = static_cast<int>(threads_.size()) + 1;
      threads_.emplace_back([this, id] { work(id); });
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
        while (posted_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        }
        lock.lock();
        continue;
      }
      seen = generation_;
      seen_prewake = prewake_;
      if (!open_ || id > helpers_) continue;  // over already, or needs fewer threads
      ++inside_;
      lock.unlock();
      claim(id);
      lock.lock();
      if (--inside_ == 0) done_.notify_one();
    }
  }

  std::mutex job_mu_;  // one job at a time
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int, std::int64_t)>* body_ = nullptr;
  std::int64_t tasks_ = 0;
  std::atomic<std::int64_t> next_{0};
  int helpers_ = 0, inside_ = 0;  // inside_: helpers working on the open job
  bool open_ = false;
  std::uint64_t generation_ = 0;
  std::atomic<std::uint64_t> posted_{0};  // generation_, for spinning workers to read unlocked
  std::uint64_t prewake_ = 0;
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
