// `deepscope video`: a zoom from the start zoom to --zoom-to over --frames N, eased, rendered as
// numbered PNGs by `render`'s frame machinery (resumable: frames already written are skipped), and
// with --mp4 piped to ffmpeg (x264, yuv420p) into an MP4 written whole or not at all.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "kernels/core/atomic_file.h"
#include "render_command.h"

namespace ds::app {
namespace {

bool executable(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

// DEEPSCOPE_FFMPEG when set (a path; empty result when it is not an executable), else "ffmpeg" on PATH.
std::string find_ffmpeg() {
  if (const char* env = std::getenv("DEEPSCOPE_FFMPEG")) return executable(env) ? env : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && executable(d + "/ffmpeg")) return d + "/ffmpeg";
  return "";
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The command's output (stdout and stderr), "" when it cannot run.
std::string capture(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return "";
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

bool asks_for_mp4(const ArgList& args) {
  for (const std::string& a : args)
    if (a == "--mp4" || a.rfind("--mp4=", 0) == 0) return true;
  return false;
}

// Pipes the PNGs, in order, to ffmpeg, which writes FILE.part; renamed to FILE when ffmpeg
// succeeded. Returns the exit code (130 when Ctrl-C stopped it).
int encode_mp4(const std::string& ffmpeg, const VideoSettings& vs) {
  const std::string part = vs.mp4 + ".part";
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.6g", vs.fps);
  // yuv420p needs even sizes: pad an odd width or height by one black line.
  const std::string cmd =
      quote(ffmpeg) + " -nostdin -hide_banner -loglevel error -y -f image2pipe -framerate " + rate +
      " -c:v png -i - -c:v libx264 -preset medium -crf " + std::to_string(vs.crf) +
      " -pix_fmt yuv420p -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' -movflags +faststart -f mp4 " + quote(part);
  const bool talk = !vs.quiet;
  const bool tty = talk && isatty(2);
  struct sigaction ignore = {}, old = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);  // a failed ffmpeg is an error below, not a signal
  FILE* pipe = popen(cmd.c_str(), "w");
  if (!pipe) {
    sigaction(SIGPIPE, &old, nullptr);
    throw IoError("cannot start " + ffmpeg);
  }
  bool ok = true, cancelled = false;
  for (size_t k = 0; k < vs.pngs.size() && ok; ++k) {
    if (cancel_flag()) {
      cancelled = true;
      break;
    }
    std::ifstream in(vs.pngs[k], std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string png = bytes.str();
    if (!in || png.empty()) {
      std::cerr << "deepscope video: cannot read " << vs.pngs[k] << "\n";
      ok = false;
      break;
    }
    ok = std::fwrite(png.data(), 1, png.size(), pipe) == png.size();
    if (tty) std::fprintf(stderr, "\rmp4: frame %zu of %zu", k + 1, vs.pngs.size());
  }
  const int status = pclose(pipe);
  sigaction(SIGPIPE, &old, nullptr);
  if (tty) std::fprintf(stderr, "\r%*s\r", 30, "");
  if (cancelled || cancel_flag()) {
    std::remove(part.c_str());
    std::cerr << "deepscope video: cancelled; " << vs.mp4 << " not written (the frames are kept)\n";
    return 130;
  }
  if (!ok || status != 0) {
    std::remove(part.c_str());
    std::cerr << "deepscope video: ffmpeg failed (exit status " << status << "); " << vs.mp4
              << " not written (the frames are kept)\n";
    return 1;
  }
  if (std::rename(part.c_str(), vs.mp4.c_str()) != 0) {
    std::remove(part.c_str());
    throw IoError("cannot rename " + part + " to " + vs.mp4);
  }
  if (talk)
    std::cerr << "deepscope video: wrote " << vs.mp4 << " (" << vs.pngs.size() << " frames at " << rate
              << " fps, x264 crf " << vs.crf << ", yuv420p)\n";
  return 0;
}

}  // namespace

int cmd_video(const ArgList& args) {
  // ffmpeg is looked for before anything is parsed further or rendered.
  std::string ffmpeg;
  if (asks_for_mp4(args)) {
    ffmpeg = find_ffmpeg();
    if (ffmpeg.empty())
      throw cli::UsageError(
          "--mp4 needs ffmpeg, which was not found (PATH, or DEEPSCOPE_FFMPEG); install it (Debian: "
          "ffmpeg) or render the frames without --mp4");
    if (capture(quote(ffmpeg) + " -hide_banner -encoders").find("libx264") == std::string::npos)
      throw cli::UsageError("--mp4: " + ffmpeg + " has no libx264 encoder");
  }
  VideoSettings vs;
  const int rc = render_command(args, &vs);
  if ((rc != 0 && rc != 1) || vs.mp4.empty()) return rc;  // rc 1: frames written, some pixels undecided
  const int mp4 = encode_mp4(ffmpeg, vs);
  return mp4 != 0 ? mp4 : rc;
}

}  // namespace ds::app
