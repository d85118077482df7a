// EXR channels from render results, and their encoding in memory with OpenEXR (callers write the
// bytes with write_file_atomically, so a file is there whole or not at all).
#include "exr_io.h"

#include <cmath>
#include <cstring>

#include "kernels/core/atomic_file.h"

#ifdef DEEPSCOPE_WITH_OPENEXR
#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfIO.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfStringAttribute.h>
#endif

namespace ds::app {

ExrImage exr_channels(const mandel::RenderResult& r, const std::vector<float>& linear_rgb) {
  ExrImage e;
  e.width = r.width;
  e.height = r.height;
  const std::size_t pixels = static_cast<std::size_t>(r.width) * static_cast<std::size_t>(r.height);
  const bool wide = r.wide();
  e.n.resize(pixels);
  e.nf.resize(pixels);
  if (wide) e.n1.resize(pixels);
  for (std::size_t k = 0; k < pixels; ++k) {
    const uint64_t count = r.count(k);
    uint64_t n = 0;
    float nf = 0.0f;
    if (count >= r.max_iter) {
      n = wide ? ~0ull : kExrInterior;
    } else if (count > 0) {
      // mu = count + fraction (wide) or the stored float (narrow); floor taken exactly in either.
      const double f = r.smooth[k];
      const double fl = std::floor(f);
      int64_t base = wide ? static_cast<int64_t>(count) + static_cast<int64_t>(fl) : static_cast<int64_t>(fl);
      nf = static_cast<float>(f - fl);
      if (nf >= 1.0f) nf = std::nextafter(1.0f, 0.0f);
      // Far outside the set (|c| >> 2) mu drops below 1: N stays >= 1, so 0 means undecided only.
      if (base < 1) {
        base = 1;
        nf = 0.0f;
      }
      n = static_cast<uint64_t>(base);
      // A narrow escaped pixel must not read as interior.
      if (!wide && n >= kExrInterior) {
        n = kExrInterior - 1;
        nf = 0.0f;
      }
    }
    e.n[k] = static_cast<uint32_t>(n);
    if (wide) e.n1[k] = static_cast<uint32_t>(n >> 32);
    e.nf[k] = nf;
  }
  if (r.dex.size() == pixels && r.dey.size() == pixels) {
    e.dex = r.dex;
    e.dey = r.dey;
  }
  if (r.phase.size() == pixels) e.t = r.phase;
  if (linear_rgb.size() == 3 * pixels) e.rgb = linear_rgb;
  return e;
}

#ifdef DEEPSCOPE_WITH_OPENEXR

namespace {

// An Imf::OStream into memory.
class StringStream : public Imf::OStream {
 public:
  StringStream() : Imf::OStream("memory") {}
  void write(const char c[], int n) override {
    const std::size_t end = pos_ + static_cast<std::size_t>(n);
    if (end > data.size()) data.resize(end);
    std::memcpy(&data[pos_], c, static_cast<std::size_t>(n));
    pos_ = end;
  }
  uint64_t tellp() override { return pos_; }
  void seekp(uint64_t pos) override { pos_ = static_cast<std::size_t>(pos); }
  std::string data;

 private:
  std::size_t pos_ = 0;
};

}  // namespace

bool exr_supported() { return true; }

std::string encode_exr(const ExrImage& e) {
  const std::size_t pixels = static_cast<std::size_t>(e.width) * static_cast<std::size_t>(e.height);
  auto fits = [&](std::size_t size, std::size_t per) { return size == 0 || size == per * pixels; };
  if (e.width < 1 || e.height < 1 || e.n.size() != pixels || e.nf.size() != pixels || !fits(e.n1.size(), 1) ||
      !fits(e.dex.size(), 1) || e.dex.size() != e.dey.size() || !fits(e.t.size(), 1) ||
      !fits(e.rgb.size(), 3))
    throw IoError("EXR: channel sizes do not match the image's " + std::to_string(e.width) + "x" +
                  std::to_string(e.height));
  std::vector<half> rgb;  // OpenEXR's HALF channels need half-typed buffers
  try {
    Imf::Header h(e.width, e.height);
    h.compression() = Imf::ZIP_COMPRESSION;
    for (const auto& [key, value] : e.attributes) h.insert(key, Imf::StringAttribute(value));
    Imf::FrameBuffer fb;
    const std::size_t row = static_cast<std::size_t>(e.width);
    auto add = [&](const char* name, Imf::PixelType type, const void* base, std::size_t bytes,
                   std::size_t stride) {
      h.channels().insert(name, Imf::Channel(type));
      fb.insert(name, Imf::Slice(type, static_cast<char*>(const_cast<void*>(base)), bytes * stride,
                                 bytes * stride * row));
    };
    add("N", Imf::UINT, e.n.data(), sizeof(uint32_t), 1);
    if (!e.n1.empty()) add("N1", Imf::UINT, e.n1.data(), sizeof(uint32_t), 1);
    add("NF", Imf::FLOAT, e.nf.data(), sizeof(float), 1);
    if (!e.dex.empty()) {
      add("DEX", Imf::FLOAT, e.dex.data(), sizeof(float), 1);
      add("DEY", Imf::FLOAT, e.dey.data(), sizeof(float), 1);
    }
    if (!e.t.empty()) add("T", Imf::FLOAT, e.t.data(), sizeof(float), 1);
    if (!e.rgb.empty()) {
      rgb.resize(e.rgb.size());
      for (std::size_t k = 0; k < rgb.size(); ++k) rgb[k] = half(e.rgb[k]);
      add("R", Imf::HALF, rgb.data(), sizeof(half), 3);
      add("G", Imf::HALF, rgb.data() + 1, sizeof(half), 3);
      add("B", Imf::HALF, rgb.data() + 2, sizeof(half), 3);
    }
    StringStream out;
    {
      Imf::OutputFile file(out, h);
      file.setFrameBuffer(fb);
      file.writePixels(e.height);
    }
    return std::move(out.data);
  } catch (const std::exception& ex) {
    throw IoError(std::string("EXR: ") + ex.what());
  }
}

#else

bool exr_supported() { return false; }

std::string encode_exr(const ExrImage&) {
  throw IoError(
      "EXR output needs OpenEXR, which this build does not have (install libopenexr-dev and configure "
      "again with -DDEEPSCOPE_OPENEXR=ON)");
}

#endif

}  // namespace ds::app
