// Frames and strips of `deepscope render` as work::Job chunks: payload formats, the writer's side
// (files, assembly, report) and the resume rules.
#include "render_work.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "antialias.h"
#include "app/io/exr_io.h"
#include "app/io/image_io.h"
#include "app/io/location.h"
#include "app/io/progress_text.h"
#include "app/io/srgb.h"
#include "app/io/view_png.h"
#include "cancel.h"
#include "progress_line.h"
#include "kernels/core/atomic_file.h"
#include "kernels/mandelbrot/auto_iter.h"
#include "kernels/perturb/oracle.h"
#include "kernels/perturb/perturb.h"

namespace ds::app {
namespace {

using mandel::Method;
using mandel::RenderResult;

// Payloads: length-prefixed byte strings (8-byte little-endian lengths).
void put(std::string* out, const std::string& s) {
  uint64_t n = s.size();
  unsigned char b[8];
  for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(n >> (8 * k));
  out->append(reinterpret_cast<const char*>(b), 8);
  out->append(s);
}

std::string take_field(const std::string& in, size_t* pos) {
  if (in.size() - *pos < 8) throw std::runtime_error("render: malformed chunk payload");
  uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= static_cast<uint64_t>(static_cast<unsigned char>(in[*pos + k])) << (8 * k);
  *pos += 8;
  if (in.size() - *pos < n) throw std::runtime_error("render: malformed chunk payload");
  std::string s = in.substr(*pos, n);
  *pos += n;
  return s;
}



// Perturbation: the reference orbit of the deepest target (most bits), computed afresh once, by
// the first worker that needs it (the others wait for it), and then reused by every target
// (frames share the centre; strips share the view). Pixels then depend on neither the order of the
// chunks, nor the worker, nor an earlier run; and a rerun whose frames are all written computes none.
class SharedReference {
 public:
  explicit SharedReference(const std::vector<const RenderTarget*>& targets) {
    int bits = 0;
    for (const RenderTarget* t : targets) {
      if (t->opt.method != Method::kPerturb) continue;
      const int b = perturb::reference_bits(mandel::geometry(t->view));
      if (!deepest_ || b > bits) {
        deepest_ = t;
        bits = b;
      }
    }
  }
  // False when `stop` was set before the reference was ready. Reports it on `line` (if given).
  bool ensure(const std::atomic<bool>& stop, ProgressLine* line) {
    if (!deepest_) return true;
    std::lock_guard<std::mutex> lock(mu_);
    if (ready_) return true;
    perturb::clear_reference_cache();  // the one at the centre, whatever ran before
    bool reused = false;
    std::string cache;
    const std::function<void(double)> progress = line ? line->reference_callback(deepest_->view.max_iter) : nullptr;
    const auto ref = perturb::reference_for(mandel::geometry(deepest_->view), deepest_->view, &stop, progress,
                                            &reused, deepest_->opt.reference_cache, &cache,
                                            deepest_->opt.reference_path, deepest_->opt.reference_memory,
                                            deepest_->opt.reference_at_nucleus);
    if (!ref) return false;
    ready_ = true;
    if (line) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "deepscope render: reference orbit: %llu points at %d bits, %.3f s\n",
                    static_cast<unsigned long long>(ref->length()), ref->bits, ref->seconds);
      line->print(buf);
      if (!cache.empty()) line->print("deepscope render: reference cache: " + cache + "\n");
    }
    return true;
  }

 private:
  const RenderTarget* deepest_ = nullptr;
  std::mutex mu_;
  bool ready_ = false;
};

void print_per_worker(const work::Stats& s, const char* units) {
  if (s.per_worker.size() < 2) return;
  std::cerr << "deepscope render: " << units << " per worker:";
  for (const auto& [label, n] : s.per_worker) std::cerr << " " << label << " " << n << ";";
  std::cerr << "\n";
}

// A strip's payload: a text line of its facts, then its counts and smooth values as raw bytes.
std::string encode_strip(const RenderResult& r, int row_begin) {
  char line[640];
  const mandel::PerturbInfo& p = r.perturb;
  // reference_stop last, "-" when empty (a word without spaces either way).
  const std::string stop = p.reference_stop.empty() ? "-" : p.reference_stop.substr(0, 32);
  std::snprintf(
      line, sizeof line,
      "strip %d %d %d %llu %d %d %d %d %d %llu %llu %llu %llu %d %d %d %d %.9g %llu %llu %d %llu %s %llu\n",
      row_begin, r.height, r.width, static_cast<unsigned long long>(r.iterations), static_cast<int>(r.method),
      static_cast<int>(r.arith), static_cast<int>(p.delta), static_cast<int>(r.backend),
      static_cast<int>(r.limb_strategy), static_cast<unsigned long long>(p.glitch_pixels),
      static_cast<unsigned long long>(p.bla_skipped), static_cast<unsigned long long>(p.rebases),
      static_cast<unsigned long long>(p.reference_length), p.reference_bits, p.bla_levels, p.reference_escaped ? 1 : 0,
      p.reference_periodic ? 1 : 0, r.seconds, static_cast<unsigned long long>(p.glitch_corrected),
      static_cast<unsigned long long>(p.glitch_unresolved), p.secondary_references,
      static_cast<unsigned long long>(p.interior_pixels), stop.c_str(),
      static_cast<unsigned long long>(p.glitch_refined));
  std::string out;
  put(&out, line);
  put(&out, std::string(reinterpret_cast<const char*>(r.counts.data()), r.counts.size() * sizeof(uint32_t)));
  put(&out, std::string(reinterpret_cast<const char*>(r.smooth.data()), r.smooth.size() * sizeof(float)));
  // Wide views only (counts.h), so narrow strips are the bytes they were.
  if (r.wide())
    put(&out, std::string(reinterpret_cast<const char*>(r.counts_high.data()), r.counts_high.size() * sizeof(uint32_t)));
  // The fields the render asked for (RenderOptions::fields), in this order; none: the bytes as before.
  for (const std::vector<float>* f : {&r.dex, &r.dey, &r.phase, &r.stripe, &r.sqrt_smooth})
    if (!f->empty())
      put(&out, std::string(reinterpret_cast<const char*>(f->data()), f->size() * sizeof(float)));
  return out;
}

// Decodes a strip into rows [row_begin, row_begin + rows) of *img (width and height set) and adds
// its counters; the other facts (format, backend) are set from it. Throws on a malformed payload or
// one that does not fit where chunk c belongs.
namespace {
// Each field *img holds came with the strip, one float a pixel as the smooth counts.
bool fields_fit(std::vector<float>* const field[5], const std::string field_bytes[5], size_t bytes) {
  for (int k = 0; k < 5; ++k)
    if (!field[k]->empty() && field_bytes[k].size() != bytes) return false;
  return true;
}
}  // namespace

void decode_strip(const std::string& payload, int expect_begin, int expect_rows, RenderResult* img) {
  size_t pos = 0;
  const std::string line = take_field(payload, &pos);
  const std::string counts = take_field(payload, &pos), smooth = take_field(payload, &pos);
  const std::string high = img->wide() ? take_field(payload, &pos) : std::string();
  // The fields *img holds (render_strips allocates the ones asked), in encode_strip's order.
  std::vector<float>* field[5] = {&img->dex, &img->dey, &img->phase, &img->stripe, &img->sqrt_smooth};
  std::string field_bytes[5];
  for (int k = 0; k < 5; ++k)
    if (!field[k]->empty()) field_bytes[k] = take_field(payload, &pos);
  int row_begin, rows, width, method, arith, delta, backend, limb, bits, levels, esc, per, secondary;
  unsigned long long iters, glitch, skipped, rebases, corrected, unresolved, interior, refined = 0;
  unsigned long long length;
  double seconds;
  char stop[40];
  if (std::sscanf(
          line.c_str(),
          "strip %d %d %d %llu %d %d %d %d %d %llu %llu %llu %llu %d %d %d %d %lg %llu %llu %d %llu %39s %llu",
          &row_begin, &rows, &width, &iters, &method, &arith, &delta, &backend, &limb, &glitch, &skipped,
          &rebases, &length, &bits, &levels, &esc, &per, &seconds, &corrected, &unresolved, &secondary,
          &interior, stop, &refined) < 23 ||  // chunks written before glitch_refined end at stop
      row_begin != expect_begin || rows != expect_rows || width != img->width ||
      counts.size() != static_cast<size_t>(rows) * width * sizeof(uint32_t) ||
      smooth.size() != static_cast<size_t>(rows) * width * sizeof(float) ||
      (img->wide() && high.size() != counts.size()) ||
      !fields_fit(field, field_bytes, smooth.size()))
    throw std::runtime_error("render: a strip's payload does not fit rows " + std::to_string(expect_begin) +
                             "+" + std::to_string(expect_rows) + " of the image");
  const size_t at = static_cast<size_t>(row_begin) * width;
  std::memcpy(img->counts.data() + at, counts.data(), counts.size());
  std::memcpy(img->smooth.data() + at, smooth.data(), smooth.size());
  if (img->wide()) std::memcpy(img->counts_high.data() + at, high.data(), high.size());
  for (int k = 0; k < 5; ++k)
    if (!field[k]->empty()) std::memcpy(field[k]->data() + at, field_bytes[k].data(), field_bytes[k].size());
  img->iterations += iters;
  img->method = static_cast<Method>(method);
  img->arith = static_cast<Arith>(arith);
  img->backend = static_cast<Backend>(backend);
  img->limb_strategy = static_cast<mandel::LimbStrategy>(limb);
  mandel::PerturbInfo& p = img->perturb;
  p.delta = static_cast<mandel::DeltaFormat>(delta);
  p.glitch_pixels += glitch;
  p.bla_skipped += skipped;
  p.rebases += rebases;
  p.reference_length = length;
  p.reference_bits = bits;
  p.bla_levels = levels;
  p.reference_escaped = esc != 0;
  p.reference_periodic = per != 0;
  p.reference_reused = true;
  p.glitch_corrected += corrected;
  p.glitch_refined += refined;
  p.glitch_unresolved += unresolved;
  p.secondary_references += secondary;
  p.interior_pixels += interior;
  p.reference_stop = std::string(stop) == "-" ? "" : stop;
  img->kernel_seconds += seconds;  // summed over strips: busy time of the workers
}

}  // namespace


int render_frames(const std::vector<RenderTarget>& frames, const RenderPlan& plan) {
  const bool talk = work::is_writer() && !plan.quiet;
  std::vector<const RenderTarget*> all;
  for (const RenderTarget& f : frames) all.push_back(&f);
  SharedReference reference(all);
  ProgressLine line;
  line.start(talk);
  line.label = "frames";
  work::Job job;
  job.chunks = static_cast<int64_t>(frames.size());
  job.header = "deepscope-render-frames";
  job.shard = plan.shard;
  job.workers = plan.workers;
  job.cancel = &cancel_flag();
  job.progress = line.callback();
  job.already_done = [&](int64_t c) { return frame_written(frames[static_cast<size_t>(c)], plan); };
  job.compute = [&](int64_t c, const work::Worker& w, const std::atomic<bool>& stop,
                    const std::function<void(double)>& part, std::string* payload) {
    const RenderTarget& t = frames[static_cast<size_t>(c)];
    if (t.opt.method == Method::kPerturb && !reference.ensure(stop, talk ? &line : nullptr)) return false;
    mandel::RenderOptions o = t.opt;
    o.backend = w.backend;
    if (w.backend == Backend::kCuda) o.cuda_device = w.device;
    o.cancel = &stop;
    o.progress = part;
    o.stage = line.stage_callback();
    TargetFiles f;
    if (!render_target(t, o, plan, &f)) return false;
    payload->clear();
    for (const std::string* field : {&f.png, &f.counts, &f.smooth, &f.exr, &f.summary}) put(payload, *field);
    put(payload, std::to_string(f.unresolved));
    put(payload, f.note);  // colour_frame's note (the fallback's is said once, up front)
    return true;
  };
  uint64_t unresolved_pixels = 0;  // over the frames written by this run (the writer's count)
  int64_t written = 0;
  job.take = [&](int64_t c, const std::string& payload, bool) {
    const RenderTarget& t = frames[static_cast<size_t>(c)];
    size_t pos = 0;
    TargetFiles f;
    for (std::string* field : {&f.png, &f.counts, &f.smooth, &f.exr, &f.summary})
      *field = take_field(payload, &pos);
    unresolved_pixels += std::stoull(take_field(payload, &pos));
    f.note = take_field(payload, &pos);
    write_target(t, f);
    ++written;
    if (talk) {
      char more[64];
      std::snprintf(more, sizeof more, "; frame %lld of %lld", static_cast<long long>(c + 1),
                    static_cast<long long>(frames.size()));
      std::string text = wrote_lines(t.png, f.summary, more);
      if (!f.note.empty() && f.note.find("C++ colour_pixel") == std::string::npos)
        text += "deepscope render: warning: " + f.note + "\n";
      line.print(text);
    }
  };
  const work::Stats s = work::run(job);
  line.clear();
  if (!work::is_writer()) return s.cancelled ? 130 : 0;  // the writer counts the chunks
  if (!s.complete()) {
    if (talk)
      std::cerr << "deepscope render: cancelled; " << s.loaded + s.run << " of " << s.owned
                << " frames are written: run the same command again to render the rest\n";
    return 130;
  }
  if (talk) {
    // The count a resumed run is checked by: frames rendered now, and those found written.
    std::cerr << "deepscope render: " << written << " frames rendered, " << s.loaded << " of " << s.owned
              << " were already written\n";
    print_per_worker(s, "frames");
  }
  return unresolved_exit(unresolved_pixels, "the frames", plan.quiet);
}

int render_strips(const RenderTarget& image, int strip_rows, const RenderPlan& plan) {
  const bool writer = work::is_writer();
  const bool talk = writer && !plan.quiet;
  const mandel::View& v = image.view;
  SharedReference reference({&image});
  const int64_t strips = (v.height + strip_rows - 1) / strip_rows;
  auto rows_of = [&](int64_t c) { return std::min<int64_t>(strip_rows, v.height - c * strip_rows); };
  RenderResult img;
  img.width = v.width;
  img.height = v.height;
  const size_t pixels = static_cast<size_t>(v.width) * static_cast<size_t>(v.height);
  img.max_iter = v.max_iter;
  const mandel::RenderOptions& opt = image.opt;
  img.error_bound = opt.error_bound;
  if (writer) {
    img.counts.assign(pixels, 0);
    img.smooth.assign(pixels, 0.0f);
    if (img.wide()) img.counts_high.assign(pixels, 0);
    // The fields the colouring reads travel with each strip (encode_strip).
    img.assign_fields(opt.fields, pixels);
    if (opt.fields & mandel::kFieldStripe) {
      img.stripe_density = opt.stripe_density;
      img.stripe_memory = opt.stripe_memory;
    }
  }
  ProgressLine line;
  line.start(talk);
  line.label = "render";
  work::Job job;
  job.chunks = strips;
  job.weight = [&](int64_t c) { return static_cast<double>(rows_of(c)); };
  job.chunk_file = image.png + ".chunks";
  // Everything that decides a strip's bytes: a chunk file of other parameters is refused.
  job.header = "deepscope-render-strips 2 re=" + v.re + " im=" + v.im + " zoom=" + v.zoom +
               " size=" + std::to_string(v.width) + "x" + std::to_string(v.height) +
               " iter=" + std::to_string(v.max_iter) + " format=" + format_label_of(image) +
               " bla=" + (opt.bla ? "1" : "0") + " rows=" + std::to_string(strip_rows) +
               " backend=" + mandel::backend_name(plan.workers.front().backend);
  // With fields the strips carry more bytes (an older chunk file without them is refused).
  if (opt.fields) {
    char stripe[64] = "";
    if (opt.fields & mandel::kFieldStripe)
      std::snprintf(stripe, sizeof stripe, " stripe=%d,%.17g", opt.stripe_density, opt.stripe_memory);
    job.header += " fields=" + std::to_string(opt.fields) + stripe;
    if (opt.fields & mandel::kFieldSqrtSmooth) {  // the square-root smoothing's values depend on KF's radius
      char radius[48];
      std::snprintf(radius, sizeof radius, " sqrt_radius=%.17g", opt.sqrt_smooth_radius);
      job.header += radius;
    }
  }
  job.shard = plan.shard;
  job.workers = plan.workers;
  job.cancel = &cancel_flag();
  job.progress = line.callback();
  job.compute = [&](int64_t c, const work::Worker& w, const std::atomic<bool>& stop,
                    const std::function<void(double)>& part, std::string* payload) {
    if (!reference.ensure(stop, talk ? &line : nullptr)) return false;
    mandel::RenderOptions o = opt;
    o.backend = w.backend;
    if (w.backend == Backend::kCuda) o.cuda_device = w.device;
    o.cancel = &stop;
    o.progress = part;
    o.stage = line.stage_callback();
    o.row_begin = static_cast<int>(c * strip_rows);
    o.row_end = static_cast<int>(c * strip_rows + rows_of(c));
    const RenderResult r = mandel::render(v, o);
    if (r.cancelled) return false;
    *payload = encode_strip(r, o.row_begin);
    return true;
  };
  job.take = [&](int64_t c, const std::string& payload, bool) {
    decode_strip(payload, static_cast<int>(c * strip_rows), static_cast<int>(rows_of(c)), &img);
  };
  const work::Stats s = work::run(job);
  line.clear();
  if (!writer) return s.cancelled ? 130 : 0;  // the writer counts the chunks
  if (!s.complete()) {
    if (!plan.quiet) return report_interrupted(s.loaded + s.run, s.owned, "strips", job.chunk_file);
    return 130;
  }
  img.seconds = s.seconds;
  img.stripe_approximate = mandel::count_stripe_approximate(img.stripe);
  std::vector<std::pair<std::string, std::string>> text;
  bool wrong = false;
  if (plan.verify.samples > 0 && !verify_image(v, img, plan.verify, plan.quiet, &text, &wrong)) {
    if (!plan.quiet) return report_interrupted(s.loaded + s.run, s.owned, "strips", job.chunk_file);
    return 130;
  }
  if (!image.counts.empty())
    write_file_atomically(image.counts, encode_counts_npy(img.counts, img.counts_high, img.height, img.width));
  if (!image.smooth.empty())
    write_file_atomically(image.smooth,
                          encode_smooth_npy(img.smooth, img.counts, img.counts_high, img.height, img.width));
  std::string note;
  write_file_atomically(image.png,
                        mandelbrot_png(v, img, plan.palette_name, plan.colouring, text, plan.shader, &note));
  if (!note.empty() && !plan.quiet && note.find("C++ colour_pixel") == std::string::npos)
    std::cerr << "deepscope render: warning: " << note << "\n";
  std::remove(job.chunk_file.c_str());
  if (talk) {
    const std::string summary = render_summary(img);
    const size_t nl = summary.find('\n');
    std::cerr << "deepscope render: wrote " << image.png << " (" << summary.substr(0, nl) << "; " << strips
              << " strips of " << strip_rows << " rows";
    if (s.loaded) std::cerr << ", " << s.loaded << " resumed";
    std::cerr << ")\n";
    if (nl != std::string::npos) std::cerr << "deepscope render: " << summary.substr(nl + 1) << "\n";
    print_per_worker(s, "strips");
  }
  const int code = unresolved_exit(img.perturb.glitch_unresolved, image.png, plan.quiet);
  return wrong ? 1 : code;
}

// The format name a target renders in ("f64", "perturb/f64"), before it is rendered.
std::string format_label_of(const RenderTarget& t) {
  mandel::RenderResult r;
  r.method = t.opt.method;
  if (r.method == mandel::Method::kDirect) {
    r.arith = *t.opt.arith;
  } else {
    r.perturb.delta = t.opt.delta == mandel::DeltaFormat::kAuto
                          ? perturb::auto_delta(mandel::geometry(t.view))
                          : t.opt.delta;
  }
  return mandel::format_label(r);
}

}  // namespace ds::app
