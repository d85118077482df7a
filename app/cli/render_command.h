// `deepscope render` and `deepscope video` share one parser and one renderer (cmd_render.cpp);
// video adds the easing of the zoom and the MP4 (cmd_video.cpp).
#pragma once
#include <string>
#include <vector>

#include "commands.h"
#include "zoom_frames.h"

namespace ds::app {

// What `video` adds to a render of frames.
struct VideoSettings {
  Easing easing = Easing::kLinear;
  std::string mp4;  // "" no MP4
  double fps = 30;
  int crf = 18;  // x264's constant rate factor (0 lossless .. 51)
  bool quiet = false;
  std::vector<std::string> pngs;  // every frame's PNG, in order (filled by render_command)
};

// Parses and runs a render. video == nullptr: `render`; otherwise `video` (--frames N >= 2 and
// --zoom-to required, --easing, --fps, --crf and --mp4 accepted and returned in *video with the
// frames' names). Returns the exit code; throws cli::UsageError for bad input.
int render_command(const ArgList& args, VideoSettings* video);

}  // namespace ds::app
