// Command-line parsing and whole-or-nothing file output.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "kernels/core/atomic_file.h"
#include "kernels/core/input_file.h"
#include "app/cli/cli.h"
#include "app/cli/commands.h"

namespace {

using ds::cli::Args;
using ds::cli::UsageError;

TEST(Cli, ParsesValuesFlagsAndRejectsUnknowns) {
  Args a({"--iter", "500", "--arith=dd", "--quick", "pos"}, {"iter", "arith"}, {"quick"});
  EXPECT_EQ(a.get_int("iter", 0, 1, 1000), 500);
  EXPECT_EQ(a.get("arith", ""), "dd");
  EXPECT_TRUE(a.flag("quick"));
  ASSERT_EQ(a.positional().size(), 1u);
  EXPECT_THROW(Args({"--bogus"}, {"iter"}, {}), UsageError);
  EXPECT_THROW(Args({"-x"}, {"iter"}, {}), UsageError);
  EXPECT_THROW(Args({"--iter"}, {"iter"}, {}), UsageError);
  EXPECT_THROW(Args({"--quick=1"}, {}, {"quick"}), UsageError);
  EXPECT_THROW(Args({"--iter", "12x"}, {"iter"}, {}).get_int("iter", 0, 1, 100), UsageError);
  EXPECT_THROW(Args({"--iter", "0"}, {"iter"}, {}).get_int("iter", 0, 1, 100), UsageError);
  // Negative numbers are values, not options.
  Args neg({"--re", "-1.75"}, {"re"}, {});
  EXPECT_EQ(neg.get("re", ""), "-1.75");
}

// An option given twice is an error naming it (the last value used to win silently), in either
// spelling and for flags too; options declared repeatable keep every value.
TEST(Cli, RepeatedOptionsAreErrorsUnlessRepeatable) {
  const struct {
    std::vector<std::string> argv;
    const char* name;
  } cases[] = {{{"--iter", "5", "--iter", "6"}, "--iter"},
               {{"--iter=5", "x", "--iter", "5"}, "--iter"},
               {{"--quick", "--quick"}, "--quick"}};
  for (const auto& c : cases) {
    try {
      Args(c.argv, {"iter"}, {"quick"});
      ADD_FAILURE() << c.name << " twice was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(c.name) + " is given twice"), std::string::npos)
          << e.what();
    }
  }
  Args p({"--shader-param", "a=1", "--shader-param=b=2"}, {"shader-param"}, {}, {"shader-param"});
  EXPECT_EQ(p.get_all("shader-param"), (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_THROW(Args({"--shader-param", "a=1", "--shader-param", "b=2"}, {"shader-param"}, {}), UsageError);
}

// Numbers kept as text for MPFR: NaN and infinity in any spelling MPFR reads are refused by name.
TEST(Cli, FiniteTextRefusesNanAndInfinity) {
  for (const char* bad : {"nan", "NaN", "-nan", "@NaN@", "inf", "-Inf", "+INFINITY", "@inf@"}) {
    try {
      Args({"--x-lo", bad}, {"x-lo"}, {}).get_finite_text("x-lo", "");
      FAIL() << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--x-lo"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  for (const char* good : {"1.5", "-0x1.8p-3", "1e-400", "12345678901234567890.5"})
    EXPECT_EQ(Args({"--x-lo", good}, {"x-lo"}, {}).get_finite_text("x-lo", ""), good);
  EXPECT_EQ(Args({}, {"x-lo"}, {}).get_finite_text("x-lo", "2"), "2");
}

TEST(Cli, ParsesSizes) {
  int w = 0, h = 0;
  ds::cli::parse_size("1920x1080", 65536, &w, &h);
  EXPECT_EQ(w, 1920);
  EXPECT_EQ(h, 1080);
  for (const char* bad : {"0x10", "10x0", "10", "x10", "10x", "-5x5", "5x5x5", "100000x100000", "axb"})
    EXPECT_THROW(ds::cli::parse_size(bad, 65536, &w, &h), UsageError) << bad;
}

std::string tmpdir() {
  char tmpl[] = "/tmp/deepscope-test-XXXXXX";
  return mkdtemp(tmpl);
}

TEST(AtomicFile, WritesWholeFileAndLeavesNoTemporary) {
  std::string dir = tmpdir(), path = dir + "/out.bin";
  std::string data(1 << 20, 'x');
  ds::write_file_atomically(path, data);
  std::ifstream in(path, std::ios::binary);
  std::string back((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(back, data);
  ds::write_file_atomically(path, "short");  // replaces, never appends
  std::ifstream in2(path, std::ios::binary);
  std::string back2((std::istreambuf_iterator<char>(in2)), {});
  EXPECT_EQ(back2, "short");
  EXPECT_EQ(std::system(("test $(ls " + dir + " | wc -l) -eq 1").c_str()), 0) << "a temporary file was left";
}

TEST(AtomicFile, UnwritablePathsThrowAndWriteNothing) {
  EXPECT_THROW(ds::write_file_atomically("/nonexistent-dir/x.png", "data"), ds::IoError);
  EXPECT_THROW(ds::check_writable("/nonexistent-dir/x.png"), ds::IoError);
  EXPECT_THROW(ds::check_writable(""), ds::IoError);
  if (geteuid() != 0) {  // root can write anywhere; the read-only check only means something otherwise
    std::string dir = tmpdir();
    chmod(dir.c_str(), 0500);
    EXPECT_THROW(ds::write_file_atomically(dir + "/x.png", "data"), ds::IoError);
  }
}

// A directory, a device or a name ending in '/' is no place for an output: refused up front, not
// when the finished file is renamed onto it. Two outputs with one name are refused too.
TEST(AtomicFile, CheckWritableRefusesDirectoriesAndDevices) {
  const std::string dir = tmpdir();
  auto message = [](const std::string& path) {
    try {
      ds::check_writable(path);
    } catch (const ds::IoError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(dir).find("is a directory"), std::string::npos) << message(dir);
  EXPECT_NE(message(dir + "/").find("is a directory"), std::string::npos);
  EXPECT_NE(message(dir + "/new/").find("new"), std::string::npos);
  EXPECT_NE(message("/dev/null").find("not a regular file"), std::string::npos) << message("/dev/null");
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message(fifo).find("not a regular file"), std::string::npos);
  EXPECT_EQ(message(dir + "/fine.png"), "");
  std::ofstream(dir + "/old.png") << "x";
  EXPECT_EQ(message(dir + "/old.png"), "") << "an existing file may be replaced";
  EXPECT_NO_THROW(ds::check_outputs({dir + "/a", "", dir + "/b", ""}));
  EXPECT_THROW(ds::check_outputs({dir + "/a", dir + "/b", dir + "/a"}), ds::IoError);
  EXPECT_THROW(ds::check_outputs({dir + "/a", dir}), ds::IoError);
  EXPECT_THROW(ds::write_file_atomically(dir, "data"), ds::IoError);
  EXPECT_EQ(std::system(("test $(ls -A " + dir + " | wc -l) -eq 2").c_str()), 0)
      << "a temporary file was left";
}

// The one reader of user-named input files: regular files only, within the reader's limit.
TEST(InputFile, ReadsRegularFilesAndRefusesTheRest) {
  const std::string dir = tmpdir();
  auto message = [](const std::string& path, uint64_t limit) {
    try {
      ds::read_input_file(path, "location", limit);
    } catch (const ds::IoError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::ofstream(dir + "/a.txt") << "re = 1\n";
  EXPECT_EQ(ds::read_input_file(dir + "/a.txt", "location", 7), "re = 1\n");
  EXPECT_EQ(ds::read_input_head(dir + "/a.txt", "location", 2), "re");
  EXPECT_NE(message(dir + "/a.txt", 6).find("over the 6 bytes limit for location files"), std::string::npos)
      << message(dir + "/a.txt", 6);
  EXPECT_NE(message(dir, 100).find("is a directory"), std::string::npos) << message(dir, 100);
  EXPECT_NE(message("/dev/zero", ds::kNoInputLimit).find("character device"), std::string::npos);
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message(fifo, 100).find("FIFO"), std::string::npos) << "and it must not wait for a writer";
  EXPECT_NE(message(dir + "/none", 100).find("No such file"), std::string::npos)
      << message(dir + "/none", 100);
  const std::string big = dir + "/big.loc";
  std::ofstream(big) << "x";
  ASSERT_EQ(truncate(big.c_str(), ds::kMaxTextInputBytes + 1), 0);
  EXPECT_NE(message(big, ds::kMaxTextInputBytes).find("16 MiB limit"), std::string::npos)
      << message(big, ds::kMaxTextInputBytes);
  EXPECT_EQ(ds::byte_size_name(ds::kMaxPngInputBytes), "1 GiB");
}

}  // namespace

// Each subcommand answers --help with its own usage (exit 0), and a usage error shows that
// subcommand's usage rather than the whole program's.
TEST(Cli, SubcommandHelp) {
  const std::string render = ds::app::usage_for("render");
  EXPECT_NE(render.find("deepscope render [--re R"), std::string::npos);
  EXPECT_NE(render.find("--verify N"), std::string::npos);
  EXPECT_EQ(render.find("deepscope henon"), std::string::npos);
  const std::string scan = ds::app::usage_for("henon", "scan");
  EXPECT_NE(scan.find("deepscope henon scan"), std::string::npos);
  EXPECT_EQ(scan.find("deepscope henon orbit"), std::string::npos);
  EXPECT_NE(ds::app::usage_for("henon").find("deepscope henon orbit"), std::string::npos);
  EXPECT_NE(ds::app::usage_for("tmd", "regular").find("lefevre|regular"), std::string::npos);
  EXPECT_TRUE(ds::app::usage_for("nonesuch").empty());
  EXPECT_EQ(ds::app::run({"render", "--help"}), 0);
  EXPECT_EQ(ds::app::run({"henon", "scan", "-h"}), 0);
  EXPECT_EQ(ds::app::run({"render", "--bogus"}), 2);
  EXPECT_EQ(ds::app::run({"nonesuch", "--help"}), 2);
}
