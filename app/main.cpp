// deepscope's entry point: picks the subcommand (the window when there is none) and maps errors
// to exit codes: 2 for bad input, 1 for failures while running.
#include <cstring>
#include <iostream>

#include "arith/error.h"
#include "kernels/atomic_file.h"
#include "cli.h"
#include "commands.h"
#include "version.h"

int main(int argc, char** argv) {
  using namespace ds;
  app::ArgList args(argv + 1, argv + argc);
  try {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
      std::cout << app::usage_text();
      return 0;
    }
    if (!args.empty() && args[0] == "--version") {
      std::cout << "deepscope " << DEEPSCOPE_VERSION << " (" << DEEPSCOPE_GIT_COMMIT << ")\n";
      return 0;
    }
    if (args.empty() || args[0].rfind("--", 0) == 0) return app::cmd_gui(args);
    std::string sub = args[0];
    app::ArgList rest(args.begin() + 1, args.end());
    if (sub == "info") return app::cmd_info(rest);
    if (sub == "render") return app::cmd_render(rest);
    if (sub == "bench") return app::cmd_bench(rest);
    if (sub == "henon") return app::cmd_henon(rest);
    if (sub == "drift") return app::cmd_drift(rest);
    if (sub == "tmd") return app::cmd_tmd(rest);
    if (sub == "gui") return app::cmd_gui(rest);
    throw cli::UsageError("unknown subcommand \"" + sub + "\"");
  } catch (const cli::UsageError& e) {
    std::cerr << "deepscope: " << e.what() << "\n\n" << app::usage_text();
    return 2;
  } catch (const ArithError& e) {
    std::cerr << "deepscope: " << e.what() << "\n";
    return 2;
  } catch (const IoError& e) {
    std::cerr << "deepscope: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "deepscope: error: " << e.what() << "\n";
    return 1;
  }
}
