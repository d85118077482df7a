// InteropBuffer in a build without CUDA: there is nothing to share buffers with.
#include "gl_interop.h"

namespace ds::render {

InteropBuffer::InteropBuffer(int) { throw GlUnavailable("this build has no CUDA, so there is no CUDA-GL interop"); }
InteropBuffer::~InteropBuffer() = default;
void InteropBuffer::draw(Texture2D&, int, int, void*, const std::function<void(uint8_t*)>&) {}
unsigned InteropBuffer::fill(std::size_t, void*, const std::function<void(uint8_t*)>&) { return 0; }
void InteropBuffer::release() {}

}  // namespace ds::render
