// kernels/core/work.h: the scheduler over several workers, the chunk file (resume, damaged tail, other
// job), shards and their merge, cancellation, errors, and the option parsers.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "kernels/core/atomic_file.h"
#include "kernels/core/work.h"
#include "test_files.h"

namespace ds::work {
namespace {

std::string payload_of(int64_t c) { return "value " + std::to_string(c * c) + "\nline two\n"; }

// A job whose chunk c's payload is payload_of(c); chunks sleep a little, longer for odd ones, so
// that workers finish out of order.
struct Fixture {
  Job job;
  std::map<int64_t, std::string> taken;
  std::map<int64_t, bool> was_loaded;
  std::mutex mu;
  std::map<int64_t, std::thread::id> computed_on;

  Fixture(int64_t chunks, int n_workers, const std::string& file) {
    job.chunks = chunks;
    job.chunk_file = file;
    job.header = "deepscope-test-job v1 n=" + std::to_string(chunks);
    job.workers.assign(static_cast<std::size_t>(n_workers), Worker{});
    job.compute = [this](int64_t c, const Worker&, const std::atomic<bool>& stop,
                         const std::function<void(double)>& part, std::string* out) {
      std::this_thread::sleep_for(std::chrono::milliseconds(c % 2 ? 6 : 1));
      part(0.5);
      if (stop) return false;
      {
        std::lock_guard<std::mutex> lock(mu);
        EXPECT_EQ(computed_on.count(c), 0u) << "chunk " << c << " computed twice";
        computed_on[c] = std::this_thread::get_id();
      }
      *out = payload_of(c);
      return true;
    };
    job.take = [this](int64_t c, const std::string& p, bool loaded) {
      EXPECT_EQ(taken.count(c), 0u) << "chunk " << c << " taken twice";
      taken[c] = p;
      was_loaded[c] = loaded;
    };
  }
};

TEST(Work, EveryChunkOnceOverSeveralWorkers) {
  const std::string dir = test::make_tmpdir("work");
  Fixture f(40, 3, dir + "/job.chunks");
  std::vector<double> progress;
  f.job.progress = [&](double x) { progress.push_back(x); };
  const Stats s = run(f.job);
  EXPECT_EQ(s.owned, 40);
  EXPECT_EQ(s.run, 40);
  EXPECT_EQ(s.loaded, 0);
  EXPECT_TRUE(s.complete());
  EXPECT_FALSE(s.cancelled);
  ASSERT_EQ(f.taken.size(), 40u);
  for (const auto& kv : f.taken) EXPECT_EQ(kv.second, payload_of(kv.first));
  std::set<std::thread::id> threads;
  for (const auto& kv : f.computed_on) threads.insert(kv.second);
  EXPECT_GE(threads.size(), 2u) << "the chunks should spread over the workers";
  ASSERT_FALSE(progress.empty());
  EXPECT_DOUBLE_EQ(progress.back(), 1.0);
  int64_t per_worker = 0;
  std::set<std::string> labels;
  for (const auto& kv : s.per_worker) per_worker += kv.second, labels.insert(kv.first);
  EXPECT_EQ(per_worker, 40);
  EXPECT_EQ(labels.size(), s.per_worker.size());
  EXPECT_GE(labels.size(), 2u) << "two workers on one device are counted apart (cpu, cpu#2)";
  for (const std::string& l : labels) EXPECT_TRUE(l == "cpu" || l == "cpu#2" || l == "cpu#3") << l;

  // A second run loads everything and computes nothing.
  Fixture g(40, 2, dir + "/job.chunks");
  const Stats t = run(g.job);
  EXPECT_EQ(t.loaded, 40);
  EXPECT_EQ(t.run, 0);
  EXPECT_TRUE(g.computed_on.empty());
  EXPECT_EQ(g.taken, f.taken);
  for (const auto& kv : g.was_loaded) EXPECT_TRUE(kv.second);
}

// Group commit: chunks that finish while another worker's commit runs are written and taken
// together by the next worker to commit (one append and fsync for all), each exactly once, and
// the file then holds every one of them. The first chunk's take waits until the other three have
// been computed, so they are all pending when it returns.
TEST(Work, ChunksFinishedDuringACommitAreCommittedTogether) {
  const std::string dir = test::make_tmpdir("work");
  Fixture f(4, 4, dir + "/group.chunks");
  std::atomic<int> computed{0};
  const auto inner = f.job.compute;
  f.job.compute = [&](int64_t c, const Worker& w, const std::atomic<bool>& stop,
                      const std::function<void(double)>& part, std::string* out) {
    const bool ok = inner(c, w, stop, part, out);
    ++computed;
    return ok;
  };
  std::map<int64_t, std::thread::id> taken_on;
  bool first = true;
  f.job.take = [&](int64_t c, const std::string& p, bool loaded) {
    EXPECT_EQ(f.taken.count(c), 0u) << "chunk " << c << " taken twice";
    f.taken[c] = p;
    f.was_loaded[c] = loaded;
    taken_on[c] = std::this_thread::get_id();
    if (first) {
      first = false;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (computed.load() < 4 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // their pushes to the pending list
    }
  };
  const Stats s = run(f.job);
  EXPECT_EQ(s.run, 4);
  ASSERT_EQ(f.taken.size(), 4u);
  std::set<std::thread::id> workers;
  int foreign = 0;
  for (const auto& kv : f.computed_on) {
    workers.insert(kv.second);
    foreign += taken_on[kv.first] != kv.second;
  }
  ASSERT_EQ(workers.size(), 4u) << "each worker computes one chunk";
  EXPECT_GE(foreign, 2)
      << "the three chunks pending behind the first commit go in one batch, taken by one worker";
  Fixture g(4, 1, dir + "/group.chunks");
  EXPECT_EQ(run(g.job).loaded, 4);
  EXPECT_EQ(g.taken, f.taken);
}

TEST(Work, PayloadsMayHoldAnyBytes) {
  const std::string dir = test::make_tmpdir("work");
  Fixture f(5, 2, dir + "/bin.chunks");
  const std::string nasty("chunk 3 9\nend 3\n\0\xff", 18);
  f.job.compute = [&](int64_t c, const Worker&, const std::atomic<bool>&, const std::function<void(double)>&,
                      std::string* out) {
    *out = nasty + std::to_string(c);
    return true;
  };
  run(f.job);
  Fixture g(5, 1, dir + "/bin.chunks");
  EXPECT_EQ(run(g.job).loaded, 5);
  for (int64_t c = 0; c < 5; ++c) EXPECT_EQ(g.taken[c], nasty + std::to_string(c));
}

TEST(Work, ResumeDropsADamagedTailAndComputesTheRest) {
  const std::string dir = test::make_tmpdir("work");
  const std::string file = dir + "/job.chunks";
  {
    Fixture f(10, 2, file);
    run(f.job);
  }
  // Keep the header and the first 4 records, then half of the fifth (a crash mid-append).
  std::string text = test::slurp(file);
  std::size_t pos = text.find('\n') + 1;
  for (int r = 0; r < 4; ++r) pos = text.find("\nend ", pos) + 1, pos = text.find('\n', pos) + 1;
  const std::size_t cut = pos + 10;
  write_file_atomically(file, text.substr(0, cut));
  Fixture g(10, 2, file);
  const Stats s = run(g.job);
  EXPECT_EQ(s.loaded, 4);
  EXPECT_EQ(s.run, 6);
  ASSERT_EQ(g.taken.size(), 10u);
  for (const auto& kv : g.taken) EXPECT_EQ(kv.second, payload_of(kv.first));
  // The file now holds every chunk once and nothing damaged.
  Fixture h(10, 1, file);
  EXPECT_EQ(run(h.job).loaded, 10);
}

TEST(Work, RefusesTheChunkFileOfAnotherJob) {
  const std::string dir = test::make_tmpdir("work");
  const std::string file = dir + "/job.chunks";
  {
    Fixture f(6, 1, file);
    run(f.job);
  }
  Fixture g(7, 1, file);  // another header
  try {
    run(g.job);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("different job"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(g.computed_on.empty());
}

// check_chunk_file: what run() checks of the chunk file, without running (the CLI checks it before
// printing anything): a missing file passes, another job's or a directory is refused.
TEST(Work, ChecksTheChunkFileBeforeRunning) {
  const std::string dir = test::make_tmpdir("work");
  const std::string file = dir + "/job.chunks";
  Fixture f(6, 1, file);
  EXPECT_NO_THROW(check_chunk_file(file, f.job.header));  // missing: a new job
  EXPECT_NO_THROW(check_chunk_file("", f.job.header));
  run(f.job);
  EXPECT_NO_THROW(check_chunk_file(file, f.job.header));
  EXPECT_THROW(check_chunk_file(file, f.job.header + " other"), IoError);
  EXPECT_THROW(check_chunk_file(file, "deepscope-test-job v1 n=7"), IoError);
  EXPECT_THROW(check_chunk_file(dir, f.job.header), IoError);
  std::ofstream(dir + "/empty.chunks").flush();
  EXPECT_THROW(check_chunk_file(dir + "/empty.chunks", f.job.header), IoError);  // as run() refuses it
}

// More workers than the machine will start threads for (here a 1 GiB address-space limit in a
// child: 8 MiB stacks): a clear error from run(), not std::terminate for a joinable std::thread
// left behind ("terminate called without an active exception", `oracle --threads 4096`).
TEST(Work, AThreadThatCannotStartIsAnError) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory does not fit an address-space limit";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  GTEST_SKIP() << "sanitizers' shadow memory does not fit an address-space limit";
#endif
#endif
  const std::string dir = test::make_tmpdir("work");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const rlimit as{rlim_t{1} << 30, rlim_t{1} << 30};
    if (setrlimit(RLIMIT_AS, &as) != 0) _exit(99);
    Fixture f(8, 4096, dir + "/job.chunks");
    try {
      run(f.job);
    } catch (const std::runtime_error& e) {
      _exit(std::string(e.what()).find("could not start worker thread") == 0 ? 42 : 43);
    }
    _exit(44);  // every thread started: the limit did not bite
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST(Work, ShardsMergeIntoTheWholeJob) {
  const std::string dir = test::make_tmpdir("work");
  std::vector<std::string> files;
  std::map<int64_t, std::string> all;
  for (int64_t i = 0; i < 3; ++i) {
    const Shard sh{i, 3};
    Fixture f(11, 2, shard_chunk_file(dir + "/job.chunks", sh));
    f.job.shard = sh;
    const Stats s = run(f.job);
    EXPECT_EQ(s.owned, i < 2 ? 4 : 3);
    EXPECT_TRUE(s.complete());
    for (const auto& kv : f.taken) {
      EXPECT_EQ(kv.first % 3, i);
      all[kv.first] = kv.second;
    }
    files.push_back(f.job.chunk_file);
  }
  EXPECT_EQ(files[1], dir + "/job.chunks.shard-1-of-3");
  EXPECT_EQ(merge_chunk_files(dir + "/job.chunks", files), 11);
  Fixture whole(11, 2, dir + "/job.chunks");
  const Stats s = run(whole.job);
  EXPECT_EQ(s.loaded, 11);
  EXPECT_EQ(s.run, 0);
  EXPECT_EQ(whole.taken, all);
  // A merge of files of different jobs is refused.
  Fixture other(12, 1, dir + "/other.chunks");
  run(other.job);
  EXPECT_THROW(merge_chunk_files(dir + "/bad.chunks", {files[0], dir + "/other.chunks"}), std::runtime_error);
  EXPECT_THROW(merge_chunk_files(dir + "/bad.chunks", {dir + "/missing.chunks"}), std::runtime_error);
}

TEST(Work, CancelKeepsFinishedChunksAndAResumeCompletesTheJob) {
  const std::string dir = test::make_tmpdir("work");
  const std::string file = dir + "/job.chunks";
  std::atomic<bool> cancel{false};
  Fixture f(30, 2, file);
  f.job.cancel = &cancel;
  auto take = f.job.take;
  f.job.take = [&](int64_t c, const std::string& p, bool loaded) {
    take(c, p, loaded);
    if (f.taken.size() == 5) cancel = true;
  };
  const Stats s = run(f.job);
  EXPECT_TRUE(s.cancelled);
  EXPECT_GE(s.run, 5);
  EXPECT_LT(s.run, 30);
  Fixture g(30, 3, file);
  const Stats t = run(g.job);
  EXPECT_EQ(t.loaded, s.run);
  EXPECT_EQ(t.loaded + t.run, 30);
  EXPECT_FALSE(t.cancelled);
  for (const auto& kv : g.taken) EXPECT_EQ(kv.second, payload_of(kv.first));
}

TEST(Work, AlreadyDoneChunksAreSkipped) {
  Fixture f(8, 2, "");
  f.job.already_done = [](int64_t c) { return c < 3; };
  const Stats s = run(f.job);
  EXPECT_EQ(s.loaded, 3);
  EXPECT_EQ(s.run, 5);
  EXPECT_EQ(f.taken.count(0), 0u);
  EXPECT_EQ(f.taken.count(7), 1u);
}

TEST(Work, ErrorsOfComputeAndTakeReachTheCaller) {
  Fixture f(20, 3, "");
  f.job.compute = [](int64_t c, const Worker&, const std::atomic<bool>&, const std::function<void(double)>&,
                     std::string* out) {
    if (c == 7) throw std::invalid_argument("chunk seven is bad");
    *out = "x";
    return true;
  };
  EXPECT_THROW(run(f.job), std::invalid_argument);
  Fixture g(20, 2, "");
  g.job.take = [](int64_t c, const std::string&, bool) {
    if (c == 3) throw std::runtime_error("too many cases");
  };
  EXPECT_THROW(run(g.job), std::runtime_error);
}

TEST(Work, ParsesShardsAndDevices) {
  const Shard s = parse_shard("2/5");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  EXPECT_TRUE(s.owns(7));
  EXPECT_FALSE(s.owns(8));
  for (const char* bad : {"5/5", "1", "a/2", "-1/2", "1/0", "1/2/3", "", "/", "0/2000000"})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
  EXPECT_EQ(shard_chunk_file("x.chunks", Shard{}), "x.chunks");
  EXPECT_EQ(workers(Backend::kCpu, "").size(), 1u);
  EXPECT_EQ(workers(Backend::kCpu, "").front().label(), "cpu");
  EXPECT_THROW(workers(Backend::kCpu, "0,1"), std::invalid_argument);
  EXPECT_THROW(workers(Backend::kCuda, "x"), std::invalid_argument);
  EXPECT_THROW(workers(Backend::kCuda, "3-1"), std::invalid_argument);
  EXPECT_THROW(workers(Backend::kCuda, "999"), std::invalid_argument);
}

TEST(Work, OneProcessWithoutALauncher) {
  EXPECT_EQ(rank(), 0);
  EXPECT_EQ(size(), 1);
  EXPECT_TRUE(is_writer());
}

}  // namespace
}  // namespace ds::work
