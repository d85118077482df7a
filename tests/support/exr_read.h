// Reading EXR files back in tests (OpenEXR builds only): a channel's values and a string attribute.
#pragma once
#ifdef DEEPSCOPE_WITH_OPENEXR
#include <Imath/half.h>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfStringAttribute.h>

#include <cstddef>
#include <string>
#include <vector>

namespace ds::test {

// The file's channel `name` as T (uint32_t for UINT, float for FLOAT, half for HALF).
template <typename T>
std::vector<T> exr_channel(Imf::InputFile& in, const char* name, Imf::PixelType type) {
  const Imath::Box2i dw = in.header().dataWindow();
  const int w = dw.max.x - dw.min.x + 1, h = dw.max.y - dw.min.y + 1;
  std::vector<T> out(static_cast<std::size_t>(w) * h);
  Imf::FrameBuffer fb;
  fb.insert(name, Imf::Slice(type, reinterpret_cast<char*>(out.data()), sizeof(T), sizeof(T) * w));
  in.setFrameBuffer(fb);
  in.readPixels(dw.min.y, dw.max.y);
  return out;
}

// A string attribute's value, or "<missing>".
inline std::string exr_attribute(const Imf::Header& h, const char* name) {
  const Imf::StringAttribute* a = h.findTypedAttribute<Imf::StringAttribute>(name);
  return a ? a->value() : std::string("<missing>");
}

}  // namespace ds::test
#endif
