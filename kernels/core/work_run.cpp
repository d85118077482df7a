// work::run: one thread per worker takes chunks from a queue; the main thread commits finished
// chunks (chunk file, then take()) and, under MPI, serves the other ranks (rank 0) or fetches
// chunks for its own workers from rank 0 (other ranks).
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>

#include "atomic_file.h"
#include "cpu_parallel.h"
#include "device.h"
#include "work.h"
#include "work_internal.h"

namespace ds::work {
namespace {

using Clock = std::chrono::steady_clock;

struct Finished {
  int64_t chunk;
  std::string label;
  std::string payload;
};

// State shared by the worker threads and the main thread.
struct Shared {
  std::mutex mu;
  std::condition_variable work_cv, main_cv;
  std::deque<int64_t> queue;
  bool no_more = false;  // the queue will not grow
  int waiting = 0;       // workers waiting for a chunk
  int running = 0;       // worker threads not yet finished
  std::vector<Finished> outbox;
  std::exception_ptr error;
  std::string error_text;
  std::atomic<bool> stop{false};
  // Per worker: the chunk it computes (-1: none) and the fraction done.
  std::vector<int64_t> current;
  std::vector<double> part;

  void fail(std::exception_ptr e, const std::string& text) {
    std::lock_guard<std::mutex> lock(mu);
    if (!error) {
      error = e;
      error_text = text;
    }
    stop = true;
    work_cv.notify_all();
    main_cv.notify_all();
  }
};

std::string what_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown error";
  }
}

double weight_of(const Job& job, int64_t c) { return job.weight ? job.weight(c) : 1.0; }

void validate(const Job& job) {
  if (job.chunks < 0) throw std::invalid_argument("work::run: negative chunk count");
  if (job.workers.empty()) throw std::invalid_argument("work::run: no workers");
  if (!job.compute) throw std::invalid_argument("work::run: no compute function");
  if (is_writer() && !job.take) throw std::invalid_argument("work::run: no take function");
  if (job.shard.count < 1 || job.shard.index < 0 || job.shard.index >= job.shard.count)
    throw std::invalid_argument("work::run: bad shard");
}

class Runner {
 public:
  explicit Runner(const Job& job) : job_(job) {}

  Stats run() {
    const auto t0 = Clock::now();
    validate(job_);
    stats_.chunks = job_.chunks;
    writer_ = is_writer();
    const bool writer = writer_;
    if (writer) prepare_writer();
    start_workers();
    try {
      if (writer)
        serve();
      else
        fetch();
    } catch (...) {
      sh_.fail(std::current_exception(), what_of(std::current_exception()));
    }
    for (std::thread& t : threads_) t.join();
    if (writer) {
      if (sh_.error) std::rethrow_exception(sh_.error);
      stats_.cancelled = !stats_.complete();
    } else {
      if (sh_.error) std::rethrow_exception(sh_.error);
      stats_.cancelled = sh_.stop.load();
    }
    for (const auto& kv : per_worker_) stats_.per_worker.emplace_back(kv.first, kv.second);
    stats_.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return stats_;
  }

 private:
  const Job& job_;
  Shared sh_;
  std::vector<std::thread> threads_;
  Stats stats_;
  std::map<std::string, int64_t> per_worker_;
  double total_weight_ = 0, done_weight_ = 0;
  Clock::time_point last_progress_{};
  bool writer_ = true;
  std::vector<std::string> labels_;
  std::mutex commit_mu_;  // one commit at a time (chunk file, take, the counts)
  std::mutex pending_mu_;
  std::vector<Finished> pending_;  // finished on this rank's workers, waiting for commit_mu_

  // Loads the chunk file and builds the queue of owned chunks still to compute.
  void prepare_writer() {
    std::set<int64_t> done;
    if (!job_.chunk_file.empty()) {
      bool exists = false, clean = true;
      std::map<int64_t, std::string> recs =
          detail::read_chunk_file(job_.chunk_file, job_.header, &exists, &clean);
      if (!exists || !clean) {
        // New file, or a record cut short by a crash: keep exactly the complete records.
        std::string text = job_.header + "\n";
        for (const auto& kv : recs) text += detail::record(kv.first, kv.second);
        write_file_atomically(job_.chunk_file, text);
      }
      for (const auto& kv : recs) {
        if (kv.first >= job_.chunks || !job_.shard.owns(kv.first)) continue;
        job_.take(kv.first, kv.second, true);
        done.insert(kv.first);
      }
    }
    for (int64_t c = 0; c < job_.chunks; ++c) {
      if (!job_.shard.owns(c)) continue;
      ++stats_.owned;
      const double wgt = weight_of(job_, c);
      total_weight_ += wgt;
      if (done.count(c) || (job_.already_done && job_.already_done(c))) {
        ++stats_.loaded;
        done_weight_ += wgt;
      } else {
        sh_.queue.push_back(c);
      }
    }
    sh_.no_more = true;
    report_progress(true);
  }

  void start_workers() {
    const std::size_t n = job_.workers.size();
    // Labels for the counts: "cuda:0", and "cuda:0#2" for a second worker on the same device.
    std::map<std::string, int> seen;
    for (const Worker& w : job_.workers) {
      const int k = ++seen[w.label()];
      labels_.push_back(k == 1 ? w.label() : w.label() + "#" + std::to_string(k));
    }
    sh_.current.assign(n, -1);
    sh_.part.assign(n, 0.0);
    sh_.running = static_cast<int>(n);
    for (std::size_t i = 0; i < n; ++i) {
      try {
        threads_.emplace_back([this, i] {
          worker_loop(i);
          release_thread_caches();
        });
      } catch (const std::system_error& e) {
        // The machine refused another thread (ulimit -u, or no memory for its stack): the started
        // workers stop and are joined, since a joinable std::thread left behind is std::terminate
        // (`oracle --threads 4096` under ulimit -v aborted: "terminate called without an active
        // exception").
        const std::string why = "could not start worker thread " + std::to_string(i + 1) + " of " +
                                std::to_string(n) + " (" + e.what() + "): ask for fewer workers";
        sh_.fail(std::make_exception_ptr(std::runtime_error(why)), why);
        for (std::thread& t : threads_) t.join();
        threads_.clear();
        throw WorkerStartError(why);
      }
    }
  }

  // One worker: takes chunks from the queue until it is empty and will stay so, or a stop. On the
  // writer a finished chunk is committed at once from this thread; elsewhere it goes to the outbox.
  void worker_loop(std::size_t wi) {
    const Job& job = job_;
    Shared& sh = sh_;
    const Worker& w = job.workers[wi];
    try {
      if (w.backend == Backend::kCuda) set_current_device(w.device);
      for (;;) {
        int64_t c;
        {
          std::unique_lock<std::mutex> lock(sh.mu);
          ++sh.waiting;
          sh.main_cv.notify_all();
          sh.work_cv.wait(lock, [&] { return sh.stop || !sh.queue.empty() || sh.no_more; });
          --sh.waiting;
          if (job.cancel && job.cancel->load()) sh.stop = true;
          if (sh.stop || sh.queue.empty()) break;
          c = sh.queue.front();
          sh.queue.pop_front();
          sh.current[wi] = c;
          sh.part[wi] = 0;
        }
        std::string payload;
        const std::function<void(double)> part = [&sh, wi](double f) {
          std::lock_guard<std::mutex> lock(sh.mu);
          sh.part[wi] = std::min(1.0, std::max(0.0, f));
        };
        const bool ok = job.compute(c, w, sh.stop, part, &payload);
        if (ok && writer_) commit_grouped(Finished{c, labels_[wi], std::move(payload)});
        std::lock_guard<std::mutex> lock(sh.mu);
        sh.current[wi] = -1;
        if (!ok) {
          sh.stop = true;  // it stopped early: only a stop request makes it do so
          break;
        }
        if (!writer_) sh.outbox.push_back(Finished{c, labels_[wi], std::move(payload)});
        sh.main_cv.notify_all();
      }
    } catch (...) {
      sh.fail(std::current_exception(), w.label() + ": " + what_of(std::current_exception()));
    }
    std::lock_guard<std::mutex> lock(sh.mu);
    --sh.running;
    sh.work_cv.notify_all();
    sh.main_cv.notify_all();
  }

  bool cancel_requested() const { return job_.cancel && job_.cancel->load(); }

  void request_stop() {
    std::lock_guard<std::mutex> lock(sh_.mu);
    sh_.stop = true;
    sh_.work_cv.notify_all();
  }

  std::vector<Finished> take_outbox() {
    std::lock_guard<std::mutex> lock(sh_.mu);
    std::vector<Finished> out;
    out.swap(sh_.outbox);
    return out;
  }

  // Writer: a finished chunk goes to the chunk file, then to take().
  void commit(const Finished& f) {
    if (!job_.chunk_file.empty()) append_durable(job_.chunk_file, detail::record(f.chunk, f.payload));
    taken(f);
  }

  void taken(const Finished& f) {
    job_.take(f.chunk, f.payload, false);
    ++stats_.run;
    ++per_worker_[f.label];
    done_weight_ += weight_of(job_, f.chunk);
  }

  // Writer, from a worker thread: group commit. The chunk joins the pending ones; whichever worker
  // holds commit_mu_ next writes every pending chunk with one append and one fsync, then takes
  // them. A chunk is still taken only once it is durable, but workers finishing while an fsync
  // runs share the next one instead of queueing one each (an fsync per chunk, under one lock, was
  // a serial cost of every chunk).
  void commit_grouped(Finished f) {
    {
      std::lock_guard<std::mutex> lock(pending_mu_);
      pending_.push_back(std::move(f));
    }
    std::lock_guard<std::mutex> commit_lock(commit_mu_);
    std::vector<Finished> batch;
    {
      std::lock_guard<std::mutex> lock(pending_mu_);
      batch.swap(pending_);
    }
    if (batch.empty()) return;  // committed by another worker's batch
    if (!job_.chunk_file.empty()) {
      std::string text;
      for (const Finished& b : batch) text += detail::record(b.chunk, b.payload);
      append_durable(job_.chunk_file, text);
    }
    for (const Finished& b : batch) taken(b);
  }

  void report_progress(bool force) {
    if (!job_.progress || total_weight_ <= 0) return;
    const auto now = Clock::now();
    if (!force && now - last_progress_ < std::chrono::milliseconds(100)) return;
    last_progress_ = now;
    double busy = 0, done = 0;
    {
      std::lock_guard<std::mutex> commit_lock(commit_mu_);
      done = done_weight_;
    }
    {
      std::lock_guard<std::mutex> lock(sh_.mu);
      for (std::size_t i = 0; i < sh_.current.size(); ++i)
        if (sh_.current[i] >= 0) busy += weight_of(job_, sh_.current[i]) * sh_.part[i];
    }
    job_.progress(std::min(1.0, (done + busy) / total_weight_));
  }

  // Rank 0 (or the only process): commits local and remote results and hands chunks to ranks.
  void serve() {
    const int ranks = size();
    std::vector<bool> remote_done(static_cast<std::size_t>(ranks), false);
    int remotes_left = ranks - 1;
    bool stop_sent = false;
    for (;;) {
      if (cancel_requested() && !sh_.stop) request_stop();
      detail::Message m;
      while (ranks > 1 && detail::poll(&m)) {
        switch (m.kind) {
          case detail::kRequest: {
            int64_t c = -1;
            {
              std::lock_guard<std::mutex> lock(sh_.mu);
              if (!sh_.stop && !sh_.queue.empty()) {
                c = sh_.queue.front();
                sh_.queue.pop_front();
              }
            }
            detail::send(m.from, detail::Message{detail::kAssign, 0, c, ""});
            break;
          }
          case detail::kResult: {
            const std::size_t nl = m.text.find('\n');
            Finished f{m.chunk, "rank " + std::to_string(m.from) + " " + m.text.substr(0, nl),
                       nl == std::string::npos ? std::string() : m.text.substr(nl + 1)};
            try {
              std::lock_guard<std::mutex> commit_lock(commit_mu_);
              commit(f);
            } catch (...) {
              sh_.fail(std::current_exception(), what_of(std::current_exception()));
            }
            break;
          }
          case detail::kError: {
            const std::string text = "rank " + std::to_string(m.from) + ": " + m.text;
            sh_.fail(std::make_exception_ptr(std::runtime_error(text)), text);
            break;
          }
          case detail::kDone:
            if (m.chunk != 0) request_stop();  // it stopped early (Ctrl-C there): the job is cut short
            if (!remote_done[static_cast<std::size_t>(m.from)]) {
              remote_done[static_cast<std::size_t>(m.from)] = true;
              --remotes_left;
            }
            detail::send(m.from, detail::Message{detail::kBye, 0, 0, ""});
            break;
          default:
            break;
        }
      }
      if (sh_.stop && !stop_sent && ranks > 1) {
        for (int r = 1; r < ranks; ++r)
          if (!remote_done[static_cast<std::size_t>(r)])
            detail::send(r, detail::Message{detail::kStop, 0, 0, ""});
        stop_sent = true;
      }
      report_progress(false);
      std::unique_lock<std::mutex> lock(sh_.mu);
      if (sh_.running == 0 && sh_.outbox.empty() && remotes_left == 0) break;
      sh_.main_cv.wait_for(lock, std::chrono::milliseconds(ranks > 1 ? 1 : 100));
    }
    report_progress(true);
  }

  // Other ranks: fetch chunks from rank 0 for idle workers, send results back.
  void fetch() {
    int outstanding = 0;
    bool error_sent = false;
    for (;;) {
      if (cancel_requested() && !sh_.stop) request_stop();
      for (const Finished& f : take_outbox()) {
        detail::send(0, detail::Message{detail::kResult, 0, f.chunk, f.label + "\n" + f.payload});
        ++stats_.run;
        ++per_worker_[f.label];
      }
      {
        std::string err;
        {
          std::lock_guard<std::mutex> lock(sh_.mu);
          if (sh_.error && !error_sent) err = sh_.error_text;
        }
        if (!err.empty()) {
          detail::send(0, detail::Message{detail::kError, 0, 0, err});
          error_sent = true;
        }
      }
      int need = 0;
      {
        std::lock_guard<std::mutex> lock(sh_.mu);
        if (!sh_.stop && !sh_.no_more) need = sh_.waiting - static_cast<int>(sh_.queue.size()) - outstanding;
      }
      for (; need > 0; --need, ++outstanding) detail::send(0, detail::Message{detail::kRequest, 0, 0, ""});
      detail::Message m;
      while (detail::poll(&m)) {
        if (m.kind == detail::kAssign) {
          --outstanding;
          std::lock_guard<std::mutex> lock(sh_.mu);
          if (m.chunk < 0)
            sh_.no_more = true;
          else if (!sh_.stop)
            sh_.queue.push_back(m.chunk);
          sh_.work_cv.notify_all();
        } else if (m.kind == detail::kStop) {
          request_stop();
        }
      }
      std::unique_lock<std::mutex> lock(sh_.mu);
      if (sh_.running == 0 && sh_.outbox.empty()) break;
      sh_.main_cv.wait_for(lock, std::chrono::milliseconds(1));
    }
    // Done (chunk = 1 when it stopped early); then drain until rank 0 says goodbye.
    detail::send(0, detail::Message{detail::kDone, 0, sh_.stop ? 1 : 0, ""});
    for (;;) {
      const detail::Message m = detail::receive(0);
      if (m.kind == detail::kBye) break;
    }
  }
};

}  // namespace

Stats run(const Job& job) { return Runner(job).run(); }

}  // namespace ds::work
