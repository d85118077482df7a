// Bad inputs that once slipped through (issue 43), each run as main runs it: exit code 2, a message
// naming the option or file at fault, and no file left behind. Inputs: devices, FIFOs, directories
// and oversized files as locations, palettes and chunk files; garbage given to merge; conflicting
// or repeated options; NaN where a number is needed; directories and unwritable places as outputs,
// refused before any work.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <initializer_list>
#include <string>
#include <thread>

#include "app/cli/commands.h"
#include "kernels/core/input_file.h"
#include "run_captured.h"
#include "test_files.h"

namespace {

using ds::app::ArgList;
using ds::test::make_tmpdir;

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

// The exit code and stderr of the whole command line, as main runs it.
int run(const ArgList& args, std::string* err) { return ds::test::run_captured(args, err); }

// Entries of `dir` (-1 when it cannot be listed): nothing may be left there, not even a temporary.
int entries(const std::string& dir) {
  const std::string cmd = "ls -A '" + dir + "' | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  int n = -1;
  if (p && fscanf(p, "%d", &n) != 1) n = -1;
  if (p) pclose(p);
  return n;
}

// Runs `args` (whose outputs go to the empty folder `out`) and checks exit code 2, a message
// holding every one of `says`, and an `out` still empty.
void expect_refused(const ArgList& args, std::initializer_list<std::string> says, const std::string& out) {
  std::string line;
  for (const std::string& a : args) line += a + " ";
  std::string err;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(run(args, &err), 2) << line << "\n" << err;
  for (const std::string& s : says)
    EXPECT_NE(err.find(s), std::string::npos) << line << ": lacks \"" << s << "\"\n" << err;
  EXPECT_EQ(entries(out), 0) << line << ": something was written";
  // Refusals come before any work: well under the second that even the smallest job here takes.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0) << line;
}

// A sparse file of `bytes` bytes (no disk used).
std::string sparse_file(const std::string& path, off_t bytes) {
  std::ofstream(path).put('r');
  EXPECT_EQ(truncate(path.c_str(), bytes), 0);
  return path;
}

const ArgList kScan = {"henon",  "scan", "--a-min",   "0.2", "--a-step",    "0.125",
                       "--na",   "4",    "--init",    "2",   "--transient", "100",
                       "--pmax", "8",    "--backend", "cpu", "--quiet"};
ArgList with(ArgList a, const ArgList& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

// Location, palette and shader readers take only regular files, up to 16 MiB of text (a
// /dev/zero location used to grow memory without end; a directory said "missing re").
TEST(BadInputs, LocationsAndPalettesMustBeRegularFilesOfSaneSize) {
  const std::string dir = make_tmpdir("bad-in"), out = make_tmpdir("bad-out");
  const std::string fifo = dir + "/fifo.loc";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = sparse_file(dir + "/big.loc", (16 << 20) + 1);
  ASSERT_EQ(mkdir((dir + "/pal.kfp").c_str(), 0700), 0);
  const ArgList r = {"render",    "--size", "8x8",     "--iter", "50",
                     "--backend", "cpu",    "--quiet", "--out",  out + "/x.png"};
  expect_refused(with(r, {"--location", "/dev/zero"}),
                 {"/dev/zero", "not a regular file", "character device"}, out);
  expect_refused(with(r, {"--location", fifo}), {fifo, "FIFO"}, out);
  expect_refused(with(r, {"--location", dir}), {dir, "is a directory"}, out);
  expect_refused(with(r, {"--location", big}), {big, "16 MiB limit"}, out);
  expect_refused(with(r, {"--palette", dir + "/pal.kfp"}), {"pal.kfp", "is a directory"}, out);
  expect_refused({"oracle", "--location", "/dev/urandom", "--grid", "2", "--out", out + "/g.npy"},
                 {"/dev/urandom", "not a regular file"}, out);
  std::string err;
  EXPECT_EQ(run(with(r, {"--location", dir}), &err), 2);
  EXPECT_EQ(err.find("missing re"), std::string::npos) << err;
}

// `merge` takes chunk files only: a location file (or anything not starting with a job's header,
// or damaged after it) is refused, and no output appears.
TEST(BadInputs, MergeRefusesWhatIsNotAChunkFile) {
  const std::string dir = make_tmpdir("bad-in"), out = make_tmpdir("bad-out");
  std::ofstream(dir + "/garbage.loc") << "re = -0.5\nim = 0\nzoom = 1\n";
  std::ofstream(dir + "/damaged.chunks") << "deepscope-henon-scan v2 x\nchunk 0 2\nabend 0\nre = 1\n";
  expect_refused({"merge", "--out", out + "/o.chunks", dir + "/garbage.loc"},
                 {"garbage.loc", "not a chunk file"}, out);
  expect_refused({"merge", "--out", out + "/o.chunks", dir + "/damaged.chunks"},
                 {"damaged.chunks", "damaged"}, out);
  expect_refused({"merge", "--out", out + "/o.chunks", "/dev/zero"}, {"/dev/zero", "not a regular file"},
                 out);
  expect_refused({"merge", "--out", out, dir + "/garbage.loc"}, {out, "is a directory"}, out);
  // A record cut short at the end (a shard killed mid-append) is dropped, as a rerun drops it.
  std::ofstream(dir + "/torn.chunks") << "deepscope-henon-scan v2 x\nchunk 0 2\nabend 0\nchunk 1 5\nab";
  std::string err;
  ASSERT_EQ(run({"merge", "--quiet", "--out", out + "/o.chunks", dir + "/torn.chunks"}, &err), 0) << err;
  EXPECT_EQ(ds::test::slurp(out + "/o.chunks"), "deepscope-henon-scan v2 x\nchunk 0 2\nabend 0\n");
}

// A chunk file that is garbage, of another job, or not a file: exit 2, not 1.
TEST(BadInputs, GarbageChunkFilesExitTwo) {
  const std::string dir = make_tmpdir("bad-in"), out = make_tmpdir("bad-out");
  const std::string garbage = dir + "/garbage.chunks";
  const char bytes[] = "\x89\x01\xff\x00junk\nmore";
  std::ofstream(garbage, std::ios::binary) << std::string(bytes, sizeof bytes - 1);
  expect_refused(with(kScan, {"--csv", out + "/s.csv", "--chunk-file", garbage}), {garbage, "different job"},
                 out);
  expect_refused(with(kScan, {"--csv", out + "/s.csv", "--chunk-file", dir}), {dir, "is a directory"}, out);
  expect_refused({"tmd", "exhaustive", "--func", "exp2", "--k", "24", "--range", "0xbcf30000:0xbcf300ff",
                  "--backend", "cpu", "--quiet", "--out", out + "/c.csv", "--chunk-file", garbage},
                 {garbage, "different job"}, out);
}

// Outputs are checked before any work: a directory as the output (which used to be found only
// when the finished file was renamed onto it, leaving the scan's DIR.chunks behind), an output
// whose folder is missing, and two outputs named alike.
TEST(BadInputs, OutputsAreCheckedBeforeAnyWork) {
  const std::string dir = make_tmpdir("bad-in"), out = make_tmpdir("bad-out");
  const std::string d = out + "/d";
  ASSERT_EQ(mkdir(d.c_str(), 0700), 0);
  auto only_d = [&](const ArgList& args, std::initializer_list<std::string> says) {
    std::string err;
    EXPECT_EQ(run(args, &err), 2) << err;
    for (const std::string& s : says)
      EXPECT_NE(err.find(s), std::string::npos) << "lacks \"" << s << "\"\n" << err;
    EXPECT_EQ(entries(out), 1) << "something beside " << d << " was written";
    EXPECT_EQ(entries(d), 0);
  };
  only_d(with(kScan, {"--csv", d}), {d, "is a directory"});
  EXPECT_FALSE(exists(d + ".chunks"));
  const ArgList r = {"render", "--size", "1024x1024", "--iter", "100000", "--backend", "cpu", "--quiet"};
  only_d(with(r, {"--out", d}), {d, "is a directory"});
  only_d(with(r, {"--out", out + "/x.png", "--counts", d}), {d, "is a directory"});
  only_d({"oracle", "--size", "64x64", "--grid", "32", "--iter", "100000", "--out", d},
         {d, "is a directory"});
  only_d({"tmd", "exhaustive", "--func", "exp2", "--k", "24", "--range", "0xbcf30000:0xbcf300ff", "--backend",
          "cpu", "--quiet", "--out", d},
         {d, "is a directory"});
  expect_refused(with(kScan, {"--csv", dir + "/missing/s.csv"}), {"missing"}, dir);
  expect_refused(with(kScan, {"--csv", out + "/s.csv", "--json", out + "/s.csv"}),
                 {"two of this command's outputs"}, d);
  EXPECT_EQ(entries(out), 1);
}

// `oracle --start-bits` above `--max-bits` was accepted (the start silently clipped).
TEST(BadInputs, OracleStartBitsAboveMaxBits) {
  const std::string out = make_tmpdir("bad-out");
  expect_refused({"oracle", "--size", "16x16", "--grid", "2", "--start-bits", "200", "--max-bits", "60",
                  "--out", out + "/g.npy"},
                 {"--start-bits 200", "--max-bits 60"}, out);
}

// DEEPSCOPE_CPU_SIMD (the CPU pixel loop's vector width) names the variable when its value is none
// of auto, scalar, avx2, avx512; a good value renders.
TEST(BadInputs, CpuSimdEnvironmentVariable) {
  const std::string out = make_tmpdir("bad-out");
  const ArgList r = {"render", "--size", "8x8", "--backend", "cpu", "--out", out + "/x.png"};
  setenv("DEEPSCOPE_CPU_SIMD", "avx9", 1);
  expect_refused(r, {"DEEPSCOPE_CPU_SIMD", "avx9"}, out);
  setenv("DEEPSCOPE_CPU_SIMD", "scalar", 1);
  std::string err;
  EXPECT_EQ(run(r, &err), 0) << err;
  EXPECT_TRUE(exists(out + "/x.png"));
  unsetenv("DEEPSCOPE_CPU_SIMD");
}

// An option given twice is refused by name (the last value used to win silently); a repeatable
// one (--shader-param) is not.
TEST(BadInputs, OptionsGivenTwice) {
  const std::string out = make_tmpdir("bad-out");
  const ArgList r = {"render", "--size", "8x8", "--backend", "cpu", "--out", out + "/x.png"};
  expect_refused(with(r, {"--iter", "100", "--iter=200"}), {"--iter", "given twice"}, out);
  expect_refused(with(r, {"--quiet", "--quiet"}), {"--quiet", "given twice"}, out);
  expect_refused(with(r, {"--size", "16x16"}), {"--size", "given twice"}, out);
  expect_refused(with(kScan, {"--na", "3", "--csv", out + "/s.csv"}), {"--na", "given twice"}, out);
  expect_refused({"merge", "--out", out + "/a", "--out", out + "/b", "x"}, {"--out", "given twice"}, out);
}

// NaN or infinity where a number is needed is refused by the option's name, also where the number
// goes as text to MPFR (which takes "nan" and "@Inf@").
TEST(BadInputs, NanAndInfinityAreNamed) {
  const std::string out = make_tmpdir("bad-out");
  const ArgList lef = {"tmd",       "lefevre", "--func",  "exp",   "--k",         "16",
                       "--backend", "cpu",     "--quiet", "--out", out + "/c.csv"};
  expect_refused(with(lef, {"--x-lo", "nan", "--x-hi", "2"}), {"--x-lo", "nan"}, out);
  expect_refused(with(lef, {"--x-lo", "1", "--x-hi", "@Inf@"}), {"--x-hi", "@Inf@"}, out);
  expect_refused(with(lef, {"--x-lo", "1", "--x-hi", "-INF"}), {"--x-hi"}, out);
  expect_refused({"henon", "period", "--a", "NaN", "--b", "0.3"}, {"--a", "NaN"}, out);
  expect_refused(with(kScan, {"--tol", "nan", "--csv", out + "/s.csv"}), {"--tol"}, out);
  expect_refused({"henon", "plane", "--centre-a", "inf", "--size", "8x8", "--out", out + "/p.png"},
                 {"--centre-a"}, out);
}

// `drift md --out PREFIX` writes five files and a resume file named from PREFIX; only PREFIX.csv
// was checked. A directory at PREFIX_pe.png was found after the runs, the other four files written
// (exit 2, half the outputs left); a FIFO at PREFIX.resume hung the resume read; a PREFIX ending in
// '/' wrote hidden files (".csv", "_pe.png") into that folder and exited 0. `drift doundo` checked
// its CSV but not its plots.
TEST(BadInputs, DriftOutputsAreAllCheckedBeforeAnyRun) {
  const ArgList md = {"drift", "md", "--atoms", "500", "--steps", "10", "--backend", "cpu", "--quiet"};
  // Runs `args` in the folder `out`, which holds only `blocker`: exit 2, the message, nothing new.
  auto blocked = [&](const ArgList& args, const std::string& out, const std::string& blocker,
                     std::initializer_list<std::string> says) {
    std::string err;
    EXPECT_EQ(run(args, &err), 2) << blocker << "\n" << err;
    for (const std::string& s : says)
      EXPECT_NE(err.find(s), std::string::npos) << "lacks \"" << s << "\"\n" << err;
    EXPECT_EQ(entries(out), 1) << "something beside " << blocker << " was written";
  };
  {
    const std::string out = make_tmpdir("bad-out"), pe = out + "/md_pe.png";
    ASSERT_EQ(mkdir(pe.c_str(), 0700), 0);
    blocked(with(md, {"--out", out + "/md"}), out, pe, {pe, "is a directory"});
  }
  {
    // Before the fix the run blocked opening the FIFO, so a writer opens and closes it to let the
    // reader through (end of file) instead of hanging the test.
    const std::string out = make_tmpdir("bad-out"), fifo = out + "/md.resume";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::atomic<bool> done{false}, reader{false};
    std::thread unblock([&] {
      while (!done) {
        const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // succeeds only with a reader
        if (fd >= 0) {
          reader = true;
          close(fd);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    blocked(with(md, {"--out", out + "/md"}), out, fifo, {fifo, "not a regular file"});
    done = true;
    unblock.join();
    EXPECT_FALSE(reader) << "the run opened the FIFO " << fifo << " to read it (and waited for a writer)";
  }
  {
    const std::string out = make_tmpdir("bad-out"), d = out + "/d";
    ASSERT_EQ(mkdir(d.c_str(), 0700), 0);
    blocked(with(md, {"--out", d + "/"}), out, d, {"--out", "not '/'"});
    EXPECT_EQ(entries(d), 0);
  }
  {
    const std::string out = make_tmpdir("bad-out"), plot = out + "/doundo_trial2_muldiv.png";
    ASSERT_EQ(mkdir(plot.c_str(), 0700), 0);
    blocked({"drift", "doundo", "--iterations", "1000", "--every", "100", "--trials", "2", "--backend", "cpu",
             "--quiet", "--out-dir", out},
            out, plot, {plot, "is a directory"});
  }
}

// A missing folder is named by the output the user gave: `tmd lefevre --out DIR/no/c.csv` named
// "DIR/no/c.csv.chunks", a file the user never named.
TEST(BadInputs, AMissingFolderIsNamedByTheOutputGiven) {
  const std::string out = make_tmpdir("bad-out");
  expect_refused({"tmd", "lefevre", "--func", "exp", "--k", "16", "--backend", "cpu", "--quiet", "--x-lo", "1",
                  "--x-hi", "2", "--out", out + "/no/c.csv"},
                 {"\"" + out + "/no/c.csv\""}, out);
  expect_refused({"tmd", "exhaustive", "--func", "exp2", "--k", "24", "--range", "0xbcf30000:0xbcf300ff",
                  "--backend", "cpu", "--quiet", "--out", out + "/no/c.csv"},
                 {"\"" + out + "/no/c.csv\""}, out);
}

// A FIFO or a file where an output folder should be is called what it is: `--reference-cache FIFO`
// said "Permission denied".
TEST(BadInputs, AFolderThatIsNoFolderIsNamed) {
  const std::string dir = make_tmpdir("bad-in"), out = make_tmpdir("bad-out");
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(dir + "/file") << "x";
  const ArgList r = {"render", "--size", "8x8", "--iter", "50", "--backend", "cpu", "--quiet"};
  expect_refused(with(r, {"--reference-cache", fifo, "--out", out + "/x.png"}), {fifo, "is not a directory"}, out);
  expect_refused(with(r, {"--out", dir + "/file/x.png"}), {dir + "/file", "is not a directory"}, out);
}

// What the user gave is quoted in messages; its control bytes used to reach the terminal raw (an
// ESC sequence in a location's value, an option's name, or a garbage chunk file's first line).
// They are written as \xNN now; UTF-8 text passes.
TEST(BadInputs, MessagesSendNoRawControlBytes) {
  const std::string dir = make_tmpdir("bad-in"), out = make_tmpdir("bad-out");
  std::ofstream(dir + "/esc.loc") << "re = 1\x1b[31mRED\x07\nim = 0\nzoom = 1\n";
  const std::string garbage = dir + "/garbage.chunks";
  const char bytes[] = "\x89\x01\xff\x9b" "2J\xc2\x9b" "2J junk \xc3\xa9\nmore";
  std::ofstream(garbage, std::ios::binary) << std::string(bytes, sizeof bytes - 1);
  const ArgList r = {"render", "--size", "8x8", "--iter", "50", "--backend", "cpu", "--quiet",
                     "--out", out + "/x.png"};
  auto raw_control = [](const std::string& s) {
    for (unsigned char c : s)
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
    return s.find("\xc2\x9b") != std::string::npos || s.find("\x9b") != std::string::npos ||
           s.find("\xff") != std::string::npos;
  };
  std::string err;
  EXPECT_EQ(run(with(r, {"--location", dir + "/esc.loc"}), &err), 2);
  EXPECT_FALSE(raw_control(err)) << err;
  EXPECT_NE(err.find("1\\x1b[31mRED\\x07"), std::string::npos) << err;
  EXPECT_EQ(run(with(r, {"--\x1b[2Jfoo", "1"}), &err), 2);
  EXPECT_FALSE(raw_control(err)) << err;
  EXPECT_NE(err.find("--\\x1b[2Jfoo"), std::string::npos) << err;
  EXPECT_EQ(run(with(kScan, {"--csv", out + "/s.csv", "--chunk-file", garbage}), &err), 2);
  EXPECT_FALSE(raw_control(err)) << err;
  EXPECT_NE(err.find("\\x89\\x01\\xff\\x9b2J\\xc2\\x9b2J junk \xc3\xa9"), std::string::npos) << err;
  EXPECT_EQ(entries(out), 0);
}

}  // namespace

namespace {

// The exit code, stdout and stderr of the whole command line.
int run_both(const ArgList& args, std::string* out, std::string* err) {
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int rc = ds::app::run(args);
  *out = testing::internal::GetCapturedStdout();
  *err = testing::internal::GetCapturedStderr();
  return rc;
}

}  // namespace

// `henon scan`, `plane`, `basin`, `orbits` and `tmd` printed their banner and estimate ("henon scan:
// 4 x 1 parameters, ...") before they refused a chunk file of another job, a directory as the
// output or too many cases:
// every input is checked first, so the refusal is the first line printed and nothing is written.
TEST(BadInputs, RefusalsComeBeforeAnyBanner) {
  const std::string dir = make_tmpdir("bad-in"), out = make_tmpdir("bad-out");
  const std::string garbage = dir + "/garbage.chunks", d = dir + "/d";
  std::ofstream(garbage, std::ios::binary) << std::string("\x89\x01\xff junk\nmore", 15);
  ASSERT_EQ(mkdir(d.c_str(), 0700), 0);
  const ArgList ex = {"tmd", "exhaustive", "--func", "exp2", "--k", "24", "--range", "0xbcf30000:0xbcf300ff",
                      "--backend", "cpu"};
  const ArgList lef = {"tmd", "lefevre", "--func", "exp", "--k", "16", "--x-lo", "1", "--x-hi", "1.01",
                       "--backend", "cpu"};
  // (the scan without --quiet: its banner is printed either way)
  const ArgList scan(kScan.begin(), kScan.end() - 1);
  const std::pair<ArgList, std::string> cases[] = {
      {with(scan, {"--csv", out + "/s.csv", "--chunk-file", garbage}), "different job"},
      {with(scan, {"--csv", d}), "is a directory"},
      {with(scan, {"--csv", out + "/no/s.csv"}), "/no/s.csv\": directory"},  // the --csv given, not s.csv.chunks
      {with(ex, {"--out", out + "/c.csv", "--chunk-file", garbage}), "different job"},
      {with(ex, {"--out", d}), "is a directory"},
      {{"tmd", "exhaustive", "--func", "exp2", "--mode", "directed", "--k", "4", "--range",
        "0x00800000:0x3f80ffff", "--backend", "cpu", "--out", out + "/c.csv"},
       "--max-cases"},
      {with(lef, {"--out", out + "/c.csv", "--chunk-file", garbage}), "different job"},
      {with(lef, {"--out", d}), "is a directory"},
      // (plane, basin and the orbit catalogue said their banner first too)
      {{"henon", "plane", "--centre-a", "1", "--centre-b", "0.3", "--width", "1", "--size", "8x8", "--out",
        out + "/p.png", "--resume", garbage},
       "different job"},
      {{"henon", "plane", "--centre-a", "1", "--centre-b", "0.3", "--width", "1", "--size", "8x8", "--out",
        out + "/p.png", "--resume", out + "/no/r"},
       "/no/r\": directory"},
      {{"henon", "basin", "--a", "1.4", "--b", "0.3", "--width", "1", "--size", "8x8", "--out", out + "/b.png",
        "--resume", garbage},
       "different job"},
      {{"henon", "orbits", "--period-max", "3", "--out", out + "/o.csv", "--chunk-file", garbage},
       "is not a henon orbits resume file"},
      // (its memory refusal came after the banner, and exited 1)
      {{"henon", "plane", "--centre-a", "1.4", "--centre-b", "0.3", "--width", "0.1", "--size", "32768x30000",
        "--init", "1000000", "--out", out + "/p.png"},
       "(use a smaller --size or --init)"},
  };
  for (const auto& [args, says] : cases) {
    std::string line;
    for (const std::string& a : args) line += a + " ";
    std::string o, e;
    EXPECT_EQ(run_both(args, &o, &e), 2) << line << "\n" << e;
    EXPECT_EQ(o, "") << line;
    EXPECT_EQ(e.rfind("deepscope: ", 0), 0u) << line << ": something was printed before the refusal:\n" << e;
    EXPECT_NE(e.find(says), std::string::npos) << line << ": lacks \"" << says << "\"\n" << e;
    EXPECT_EQ(entries(out), 0) << line << ": something was written";
    EXPECT_EQ(entries(d), 0) << line;
  }
}

// Whether this build runs under AddressSanitizer or ThreadSanitizer (GCC's macros, clang's
// __has_feature): their shadow memory does not fit an address-space limit, and ASan's allocator
// aborts where the limit would throw bad_alloc, so the tests that set one skip there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kUnderSanitizer = true;
#else
constexpr bool kUnderSanitizer = false;
#endif
#else
constexpr bool kUnderSanitizer = false;
#endif

// Runs the command in a child under an address-space limit of `bytes` (ulimit -v), its stderr to
// a file; returns the child's exit code (-1 where a signal ended it) and its stderr in *err.
int run_under_address_limit(rlim_t bytes, const ds::app::ArgList& args, std::string* err) {
  const std::string log = make_tmpdir("bad-log") + "/err.txt";
  const pid_t pid = fork();
  if (pid < 0) return -2;
  if (pid == 0) {
    const rlimit as{bytes, bytes};
    if (setrlimit(RLIMIT_AS, &as) != 0 || !freopen(log.c_str(), "w", stderr)) _exit(99);
    _exit(ds::app::run(args));
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -2;
  *err = ds::test::slurp(log);
  if (!WIFEXITED(status)) *err += "\n(killed by signal " + std::to_string(WTERMSIG(status)) + ")";
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// An allocation the machine cannot give (std::bad_alloc) was "deepscope: error: std::bad_alloc",
// exit 1. The inputs whose memory is known are refused up front (render --size, henon scan, henon
// orbits, find --period); any other is caught at the top: exit 2, saying out of memory and how
// much the process may use. Run in a child under a 1.5 GiB address-space limit (ulimit -v), where
// `henon orbit --points 1e8` (1.6 GB of points before its CSV) cannot get its arrays.
TEST(BadInputs, OutOfMemoryExitsTwoWithAMessage) {
  if (kUnderSanitizer)
    GTEST_SKIP() << "AddressSanitizer's allocator aborts where an address-space limit would throw bad_alloc";
  const std::string out = make_tmpdir("bad-out");
  std::string err;
  EXPECT_EQ(run_under_address_limit(rlim_t{3} << 29,
                                    {"henon", "orbit", "--a", "1.4", "--b", "0.3", "--points", "100000000", "--out",
                                     out + "/h.csv"},
                                    &err),
            2)
      << err;
  EXPECT_EQ(err.rfind("deepscope: henon: out of memory (this process may use 1.50 GiB of address space", 0), 0u)
      << err;
  EXPECT_EQ(entries(out), 0);
}

// A scan of more than 1e9 parameters named neither option ("na * nb must be at most 1e9").
TEST(BadInputs, ATooLargeScanNamesItsOptions) {
  const std::string out = make_tmpdir("bad-out");
  expect_refused({"henon", "scan", "--na", "100000", "--nb", "100000", "--backend", "cpu", "--csv", out + "/s.csv"},
                 {"(--na, --nb) must be at most 1e9, got 100000 x 100000"}, out);
}

// A centre of 5 million digits (1.1e4999999) said "the view reaches |c| = inf": beyond double, its
// size comes from MPFR.
TEST(BadInputs, AHugeCentreIsNamedByItsSize) {
  const std::string dir = make_tmpdir("bad-in"), out = make_tmpdir("bad-out");
  std::ofstream(dir + "/long.loc") << "re = " << std::string(5000000, '1') << "\nim = 0\nzoom = 1\n";
  expect_refused({"render", "--size", "8x8", "--backend", "cpu", "--location", dir + "/long.loc", "--out",
                  out + "/x.png"},
                 {"the view reaches |c| of about 1.11e+4999999", "1e12"}, out);
}

// More worker threads than the machine starts (oracle --threads 4096 under a 2 GiB address-space
// limit: 8 MiB stacks) aborted with "terminate called without an active exception" (exit 134): now
// exit 2 naming the thread that could not start.
TEST(BadInputs, MoreThreadsThanTheMachineStartsExitTwo) {
  if (kUnderSanitizer) GTEST_SKIP() << "sanitizers' shadow memory does not fit an address-space limit";
  const std::string out = make_tmpdir("bad-out");
  std::string err;
  EXPECT_EQ(run_under_address_limit(rlim_t{1} << 31,
                                    {"oracle", "--size", "64x64", "--grid", "4", "--iter", "100", "--threads", "4096",
                                     "--quiet", "--out", out + "/g.npy"},
                                    &err),
            2)
      << err;
  EXPECT_NE(err.find("deepscope: could not start worker thread "), std::string::npos) << err;
  EXPECT_NE(err.find(" of 4096 ("), std::string::npos) << err;
}

// A thread that parallel_for could not start (std::system_error, EAGAIN) was "deepscope: error:
// Resource temporarily unavailable", exit 1: `henon orbits --threads 4096` under a 2 GiB
// address-space limit (8 MiB stacks). Now exit 2 saying what failed and what to ask, nothing written.
TEST(BadInputs, AThreadTheSystemWillNotStartExitsTwo) {
  if (kUnderSanitizer) GTEST_SKIP() << "sanitizers' shadow memory does not fit an address-space limit";
  const std::string out = make_tmpdir("bad-out");
  std::string err;
  EXPECT_EQ(run_under_address_limit(rlim_t{1} << 31,
                                    {"henon", "orbits", "--period-max", "6", "--threads", "4096", "--quiet", "--out",
                                     out + "/o.csv"},
                                    &err),
            2)
      << err;
  EXPECT_EQ(err.rfind("deepscope: henon: could not start a worker thread (", 0), 0u) << err;
  EXPECT_NE(err.find("Ask fewer (--threads"), std::string::npos) << err;
  // No catalogue; the resume file (its header, written before the workers start) may stay for a rerun.
  EXPECT_NE(access((out + "/o.csv").c_str(), F_OK), 0);
  EXPECT_NE(access((out + "/o.json").c_str(), F_OK), 0);
}
