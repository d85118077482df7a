// HeadlessGl: EGL through glad's loader (libEGL.so.1 opened at run time).
#include "headless_gl.h"

#include <glad/egl.h>
#include <glad/gl.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ds::render {
namespace {

std::string egl_error(const char* what) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s failed (EGL error 0x%04x)", what, static_cast<unsigned>(eglGetError()));
  return buf;
}

// The EGL display to use, and a description of it (with why the device platform was passed over).
EGLDisplay pick_display(int cuda_device, std::string* how) {
  std::string skipped;
  // EGL_EXT_device_base (NVIDIA lists only it) includes enumeration and query.
  if (GLAD_EGL_EXT_platform_device && eglQueryDevicesEXT && eglGetPlatformDisplayEXT) {
    EGLint n = 0;
    if (eglQueryDevicesEXT(0, nullptr, &n) && n > 0) {
      std::vector<EGLDeviceEXT> devices(static_cast<size_t>(n));
      eglQueryDevicesEXT(n, devices.data(), &n);
      // The device that drives `cuda_device` first, then the others in order.
      std::vector<int> order;
      for (int k = 0; k < n; ++k) {
        EGLAttrib value = -1;
        if (cuda_device >= 0 && eglQueryDeviceAttribEXT &&
            eglQueryDeviceAttribEXT(devices[static_cast<size_t>(k)], EGL_CUDA_DEVICE_NV, &value) &&
            value == cuda_device)
          order.insert(order.begin(), k);
        else
          order.push_back(k);
      }
      for (int k : order) {
        EGLAttrib cuda = -1;
        if (eglQueryDeviceAttribEXT) eglQueryDeviceAttribEXT(devices[static_cast<size_t>(k)], EGL_CUDA_DEVICE_NV, &cuda);
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[static_cast<size_t>(k)], nullptr);
        EGLint major = 0, minor = 0;
        if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) {
          *how = "EGL device " + std::to_string(k) + " of " + std::to_string(n) +
                 (cuda >= 0 ? ", CUDA device " + std::to_string(cuda) : std::string());
          return d;
        }
        skipped += (skipped.empty() ? "" : "; ") + egl_error(("device " + std::to_string(k)).c_str());
      }
    } else {
      skipped = "no EGL devices listed";
    }
  } else {
    skipped = "no EGL device extensions";
  }
  if (GLAD_EGL_MESA_platform_surfaceless) {
    EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    EGLint major = 0, minor = 0;
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) {
      *how = "surfaceless platform; device platform: " + skipped;
      return d;
    }
  }
  throw GlUnavailable("no EGL device or surfaceless display could be initialised (" + skipped + ")");
}

// Contexts alive per EGL display: eglGetPlatformDisplay gives every HeadlessGl of a process the same
// display, and eglTerminate would take the other threads' contexts with it, so the last one ends it.
std::mutex& users_mutex() {
  static std::mutex m;
  return m;
}
std::map<void*, int>& display_users() {
  static std::map<void*, int> m;
  return m;
}

}  // namespace

HeadlessGl::HeadlessGl(int cuda_device) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    throw GlUnavailable("libEGL.so.1 could not be loaded (install libegl1 and a GL driver)");
  std::string how;
  EGLDisplay d = pick_display(cuda_device, &how);
  display_ = d;
  {
    std::lock_guard<std::mutex> lock(users_mutex());
    ++display_users()[d];
  }
  try {
    if (!gladLoaderLoadEGL(d)) throw GlUnavailable("EGL display functions could not be loaded");
    if (!eglBindAPI(EGL_OPENGL_API)) throw GlUnavailable(egl_error("eglBindAPI(OpenGL)"));
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE,    EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                     EGL_RED_SIZE,        8,               EGL_GREEN_SIZE,      8,
                                     EGL_BLUE_SIZE,       8,               EGL_ALPHA_SIZE,      8,
                                     EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (!eglChooseConfig(d, config_attribs, &config, 1, &configs) || configs < 1)
      throw GlUnavailable(egl_error("eglChooseConfig (RGBA8 pbuffer, desktop OpenGL)"));
    const EGLint surface_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    EGLSurface s = eglCreatePbufferSurface(d, config, surface_attribs);
    if (s == EGL_NO_SURFACE) throw GlUnavailable(egl_error("eglCreatePbufferSurface"));
    surface_ = s;
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_NONE};
    EGLContext c = eglCreateContext(d, config, EGL_NO_CONTEXT, context_attribs);
    if (c == EGL_NO_CONTEXT) throw GlUnavailable(egl_error("eglCreateContext (OpenGL 3.3 core)"));
    context_ = c;
    if (!eglMakeCurrent(d, s, s, c)) throw GlUnavailable(egl_error("eglMakeCurrent"));
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress)))
      throw GlUnavailable("OpenGL 3.3 functions could not be loaded through EGL");
  } catch (...) {
    release();
    throw;
  }
  auto str = [](GLenum e) {
    const GLubyte* s = glGetString(e);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
  };
  description_ = str(GL_VENDOR) + " / " + str(GL_RENDERER) + " / " + str(GL_VERSION) + " (" + how + ")";
}

HeadlessGl::~HeadlessGl() { release(); }

void HeadlessGl::make_current() {
  EGLDisplay d = static_cast<EGLDisplay>(display_);
  if (!eglMakeCurrent(d, static_cast<EGLSurface>(surface_), static_cast<EGLSurface>(surface_),
                      static_cast<EGLContext>(context_)))
    throw GlUnavailable(egl_error("eglMakeCurrent"));
}

void HeadlessGl::release() {
  EGLDisplay d = static_cast<EGLDisplay>(display_);
  if (!d) return;
  eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (context_) eglDestroyContext(d, static_cast<EGLContext>(context_));
  if (surface_) eglDestroySurface(d, static_cast<EGLSurface>(surface_));
  std::lock_guard<std::mutex> lock(users_mutex());
  if (--display_users()[d] <= 0) {
    display_users().erase(d);
    eglTerminate(d);
  }
  context_ = surface_ = display_ = nullptr;
}

}  // namespace ds::render
