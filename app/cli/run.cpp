// The whole command line, as main runs it: picks the subcommand (the window when there is none)
// and maps errors to exit codes: 2 for bad input, 1 for failures while running. The tests call it
// to get exactly the exit code the program returns.
#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "arith/error.h"
#include "cli.h"
#include "commands.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/backend.h"
#include "kernels/core/work.h"
#include "kernels/perturb/perturb.h"
#include "version.h"

namespace ds::app {

namespace {

// A message as it may go to a terminal: it quotes what the user gave (a garbage chunk file's first
// line, a location's malformed value, an unknown option), whose control bytes (ESC sequences,
// BEL) and bytes that are not UTF-8 are written as \xNN instead of being sent raw. Valid UTF-8
// ("Hénon") and newlines stay.
std::string printable(const std::string& s) {
  std::string out;
  auto esc = [&](unsigned char c) {
    static const char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  };
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A whole UTF-8 sequence of 2 to 4 bytes passes, except the C1 controls U+0080..U+009F.
    const int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size() && !(c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0);
    for (int k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok) {
      out.append(s, i, n);
      i += n;
    } else {
      esc(c);
      ++i;
    }
  }
  return out;
}

// What an allocation that failed says: the command and the machine's memory. Outputs are written
// atomically (kernels/core/atomic_file.h) and resume files record whole chunks, so none is left half
// written.
std::string out_of_memory_message(const std::string& sub) {
  const uint64_t host = host_memory_bytes();
  char mem[128] = "";
  struct rlimit as {};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)  // ulimit -v, a batch system's cap
    std::snprintf(mem, sizeof mem, " (this process may use %.2f GiB of address space: ulimit -v)",
                  static_cast<double>(as.rlim_cur) / (1 << 30));
  else if (host)
    std::snprintf(mem, sizeof mem, " (this machine has %.2f GiB)", static_cast<double>(host) / (1 << 30));
  return (sub.empty() ? std::string("the command") : sub) + ": out of memory" + mem +
         ": the options ask for more than it could allocate (no file is left half written; a resume "
         "file keeps the chunks finished so far). Give a smaller size, count, period or range";
}

// A worker thread the system would not start (std::thread's std::system_error, EAGAIN): the
// command's threads times their stacks exceed the process's limits.
std::string thread_start_message(const std::string& sub, const std::system_error& e) {
  return (sub.empty() ? std::string("the command") : sub) + ": could not start a worker thread (" + e.what() +
         "): the machine or its limits (ulimit -u, ulimit -v) allow fewer threads than asked. Ask fewer "
         "(--threads where the command has it); no file is left half written, and a resume file keeps the "
         "chunks finished so far";
}

}  // namespace

int run(const ArgList& args) {
  std::string sub, second;  // the subcommand and its first word, for a usage error's usage
  try {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
      std::cout << usage_text();
      return 0;
    }
    if (!args.empty() && args[0] == "--version") {
      std::cout << "deepscope " << DEEPSCOPE_VERSION << " (" << DEEPSCOPE_GIT_COMMIT << ")\n";
      return 0;
    }
    if (args.empty() || args[0].rfind("--", 0) == 0) return cmd_gui(args);
    sub = args[0];
    try {  // read where a render starts; a bad value is the caller's input
      perturb::cpu_simd_from_environment();
    } catch (const std::invalid_argument& e) {
      throw cli::UsageError(e.what());
    }
    ArgList rest(args.begin() + 1, args.end());
    if (!rest.empty() && rest[0].rfind("-", 0) != 0) second = rest[0];
    for (const std::string& a : rest)
      if (a == "--help" || a == "-h") {
        const std::string u = usage_for(sub, second);
        if (u.empty()) throw cli::UsageError("unknown subcommand \"" + sub + "\"");
        std::cout << u;
        return 0;
      }
    if (sub == "info") return cmd_info(rest);
    if (sub == "render") return cmd_render(rest);
    if (sub == "video") return cmd_video(rest);
    if (sub == "bench") return cmd_bench(rest);
    if (sub == "henon") return cmd_henon(rest);
    if (sub == "drift") return cmd_drift(rest);
    if (sub == "tmd") return cmd_tmd(rest);
    if (sub == "merge") return cmd_merge(rest);
    if (sub == "oracle") return cmd_oracle(rest);
    if (sub == "find") return cmd_find(rest);
    if (sub == "gui") return cmd_gui(rest);
    throw cli::UsageError("unknown subcommand \"" + sub + "\"");
  } catch (const cli::UsageError& e) {
    // The subcommand's own usage where it has one, else the whole program's.
    const std::string u = sub.empty() ? std::string() : usage_for(sub, second);
    std::cerr << "deepscope: " << printable(e.what()) << "\n\n" << (u.empty() ? std::string(usage_text()) : u);
    return 2;
  } catch (const ds::ArithError& e) {
    std::cerr << "deepscope: " << printable(e.what()) << "\n";
    return 2;
  } catch (const ds::IoError& e) {
    std::cerr << "deepscope: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // The inputs whose memory is known beforehand are refused before any work, naming the option
    // (render --size, henon scan, henon orbits --memory-budget, find --period, ...); this is the
    // rest: an allocation the machine could not give, which the input asked for.
    std::cerr << "deepscope: " << out_of_memory_message(sub) << "\n";
    return 2;
  } catch (const work::WorkerStartError& e) {  // as out of memory: the options ask for more threads
    std::cerr << "deepscope: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::system_error& e) {
    if (e.code() != std::errc::resource_unavailable_try_again) {
      std::cerr << "deepscope: error: " << printable(e.what()) << "\n";
      return 1;
    }
    std::cerr << "deepscope: " << printable(thread_start_message(sub, e)) << "\n";
    return 2;
  } catch (const std::length_error& e) {  // a container asked for more than it can ever hold
    std::cerr << "deepscope: " << out_of_memory_message(sub) << " (" << printable(e.what()) << ")\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "deepscope: error: " << printable(e.what()) << "\n";
    return 1;
  }
}

}  // namespace ds::app
