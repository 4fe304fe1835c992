// An OpenGL context with no display, through EGL, for the tests that need GL buffers on a
// machine without X (the lent GPU machines have neither a display nor Xvfb). libEGL.so.1
// (GLVND's) is opened at run time, so a binary built with this still starts where it is
// missing; the context is then refused with a reason, as it is without EGL's headers at
// build time. Devices are tried first (EGL_EXT_platform_device), those CUDA can name
// (EGL_NV_device_cuda: NVIDIA's, whose OpenGL shares buffers with CUDA) ahead of the
// others and each group in EGL's order (on a machine of several GPUs the first may not be
// CUDA's current device: the interop tests were made for one), then Mesa's surfaceless
// platform, then the default display. The context is
// OpenGL 3.3 core, current without a surface (EGL_KHR_surfaceless_context) or on a 1x1
// pbuffer, with glad loaded from eglGetProcAddress. GL's objects must go before it does.
#pragma once

#include <glad/gl.h>

#include <dlfcn.h>

#include <cstdio>
#include <string>
#include <vector>

#if __has_include(<EGL/egl.h>) && __has_include(<EGL/eglext.h>)
#ifndef EGL_NO_X11
#define EGL_NO_X11  // (Xlib's macros, None and Status among them, stay out of the tests)
#endif
#include <EGL/egl.h>
#include <EGL/eglext.h>
#define TP_TEST_HAVE_EGL 1
#else
#define TP_TEST_HAVE_EGL 0
#endif

namespace tp {

class EglContext {
 public:
  EglContext() {
#if TP_TEST_HAVE_EGL
    make();
#else
    error_ = "EGL's headers were not found at build time (libegl-dev)";
#endif
  }
  ~EglContext() {
#if TP_TEST_HAVE_EGL
    if (display_ != EGL_NO_DISPLAY) {
      f_.make_current(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      if (context_ != EGL_NO_CONTEXT) f_.destroy_context(display_, context_);
      if (surface_ != EGL_NO_SURFACE) f_.destroy_surface(display_, surface_);
      f_.terminate(display_);
    }
#endif
    if (library_) dlclose(library_);
  }
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  // Which EGL display it took ("device 0 (EGL_NV_device_cuda)", "surfaceless", "default").
  const std::string& source() const { return source_; }

 private:
#if TP_TEST_HAVE_EGL
  struct Functions {
    PFNEGLGETPROCADDRESSPROC get_proc = nullptr;
    PFNEGLGETERRORPROC get_error = nullptr;
    PFNEGLGETDISPLAYPROC get_display = nullptr;
    PFNEGLINITIALIZEPROC initialize = nullptr;
    PFNEGLTERMINATEPROC terminate = nullptr;
    PFNEGLQUERYSTRINGPROC query_string = nullptr;
    PFNEGLBINDAPIPROC bind_api = nullptr;
    PFNEGLCHOOSECONFIGPROC choose_config = nullptr;
    PFNEGLCREATECONTEXTPROC create_context = nullptr;
    PFNEGLDESTROYCONTEXTPROC destroy_context = nullptr;
    PFNEGLCREATEPBUFFERSURFACEPROC create_pbuffer = nullptr;
    PFNEGLDESTROYSURFACEPROC destroy_surface = nullptr;
    PFNEGLMAKECURRENTPROC make_current = nullptr;
    PFNEGLQUERYDEVICESEXTPROC query_devices = nullptr;                // may stay null
    PFNEGLQUERYDEVICESTRINGEXTPROC query_device_string = nullptr;     // may stay null
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display = nullptr;   // may stay null
  };

  template <class T>
  bool load(T* out, const char* name) {
    *out = reinterpret_cast<T>(dlsym(library_, name));
    if (!*out && f_.get_proc) *out = reinterpret_cast<T>(f_.get_proc(name));
    return *out != nullptr;
  }

  static std::string hex(EGLint code) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%04x", unsigned(code));
    return text;
  }

  void make() {
    // Never unloaded (GLVND has crashed when a vendor library went while its dispatch stayed).
    library_ = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!library_) {
      error_ = std::string("libEGL.so.1 cannot be opened (") + dlerror() + ")";
      return;
    }
    load(&f_.get_proc, "eglGetProcAddress");
    if (!(load(&f_.get_error, "eglGetError") && load(&f_.get_display, "eglGetDisplay") &&
          load(&f_.initialize, "eglInitialize") && load(&f_.terminate, "eglTerminate") &&
          load(&f_.query_string, "eglQueryString") && load(&f_.bind_api, "eglBindAPI") &&
          load(&f_.choose_config, "eglChooseConfig") && load(&f_.create_context, "eglCreateContext") &&
          load(&f_.destroy_context, "eglDestroyContext") &&
          load(&f_.create_pbuffer, "eglCreatePbufferSurface") &&
          load(&f_.destroy_surface, "eglDestroySurface") && load(&f_.make_current, "eglMakeCurrent"))) {
      error_ = "libEGL.so.1 lacks the EGL 1.4 functions";
      return;
    }
    const char* client = f_.query_string(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    const std::string client_extensions = client ? client : "";
    auto has = [](const std::string& list, const char* name) {
      return (" " + list + " ").find(std::string(" ") + name + " ") != std::string::npos;
    };
    if (has(client_extensions, "EGL_EXT_platform_base")) load(&f_.get_platform_display, "eglGetPlatformDisplayEXT");
    if (has(client_extensions, "EGL_EXT_device_enumeration") || has(client_extensions, "EGL_EXT_device_base"))
      load(&f_.query_devices, "eglQueryDevicesEXT");
    if (has(client_extensions, "EGL_EXT_device_query") || has(client_extensions, "EGL_EXT_device_base"))
      load(&f_.query_device_string, "eglQueryDeviceStringEXT");

    std::string tried;
    // The devices, NVIDIA's (those CUDA can name) first.
    if (f_.query_devices && f_.get_platform_display && has(client_extensions, "EGL_EXT_platform_device")) {
      EGLint count = 0;
      EGLDeviceEXT devices[16];
      if (f_.query_devices(16, devices, &count) == EGL_TRUE) {
        std::vector<std::pair<EGLDeviceEXT, std::string>> cuda, others;
        for (EGLint k = 0; k < count; ++k) {
          const char* e = f_.query_device_string ? f_.query_device_string(devices[k], EGL_EXTENSIONS) : nullptr;
          const bool named = e && has(e, "EGL_NV_device_cuda");
          (named ? cuda : others).push_back({devices[k], "device " + std::to_string(k) + (named ? " (EGL_NV_device_cuda)" : "")});
        }
        cuda.insert(cuda.end(), others.begin(), others.end());
        for (const auto& [device, name] : cuda) {
          if (try_display(f_.get_platform_display(EGL_PLATFORM_DEVICE_EXT, device, nullptr), name, &tried)) return;
        }
      }
    }
    if (f_.get_platform_display && has(client_extensions, "EGL_MESA_platform_surfaceless") &&
        try_display(f_.get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
                    "surfaceless", &tried))
      return;
    if (try_display(f_.get_display(EGL_DEFAULT_DISPLAY), "default", &tried)) return;
    error_ = "no EGL display gave an OpenGL 3.3 core context (" + (tried.empty() ? std::string("none found") : tried) + ")";
  }

  // Takes the display if it gives a current 3.3 core context with glad loaded; else adds why
  // not to *tried and leaves nothing open.
  bool try_display(EGLDisplay display, const std::string& name, std::string* tried) {
    auto fail = [&](const std::string& why) {
      *tried += (tried->empty() ? "" : "; ") + name + ": " + why + " (EGL error " + hex(f_.get_error()) + ")";
      if (display != EGL_NO_DISPLAY) {
        f_.make_current(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (context_ != EGL_NO_CONTEXT) f_.destroy_context(display, context_);
        if (surface_ != EGL_NO_SURFACE) f_.destroy_surface(display, surface_);
        f_.terminate(display);
      }
      context_ = EGL_NO_CONTEXT;
      surface_ = EGL_NO_SURFACE;
      return false;
    };
    if (display == EGL_NO_DISPLAY) return fail("no display");
    EGLint major = 0, minor = 0;
    if (f_.initialize(display, &major, &minor) != EGL_TRUE) {
      display = EGL_NO_DISPLAY;  // (nothing to terminate)
      return fail("eglInitialize failed");
    }
    if (f_.bind_api(EGL_OPENGL_API) != EGL_TRUE) return fail("no desktop OpenGL");
    const char* e = f_.query_string(display, EGL_EXTENSIONS);
    const bool surfaceless = e && (" " + std::string(e) + " ").find(" EGL_KHR_surfaceless_context ") != std::string::npos;
    const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE,
                                        surfaceless ? 0 : EGL_PBUFFER_BIT, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (f_.choose_config(display, config_attributes, &config, 1, &configs) != EGL_TRUE || configs < 1)
      return fail("no OpenGL config");
    const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
    context_ = f_.create_context(display, config, EGL_NO_CONTEXT, context_attributes);
    if (context_ == EGL_NO_CONTEXT) return fail("no 3.3 core context");
    if (!surfaceless) {
      const EGLint size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
      surface_ = f_.create_pbuffer(display, config, size);
      if (surface_ == EGL_NO_SURFACE) return fail("no pbuffer");
    }
    if (f_.make_current(display, surface_, surface_, context_) != EGL_TRUE) return fail("eglMakeCurrent failed");
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(f_.get_proc))) return fail("glad could not load OpenGL");
    display_ = display;
    source_ = name;
    ok_ = true;
    return true;
  }

  Functions f_;
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  EGLSurface surface_ = EGL_NO_SURFACE;
#endif
  void* library_ = nullptr;
  bool ok_ = false;
  std::string error_, source_;
};

}  // namespace tp
