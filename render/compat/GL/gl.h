// Stand-in for the system <GL/gl.h> that cuda_gl_interop.h includes: glad's header declares the
// same GL types and functions (and the GPU build machine has no GL development headers).
#pragma once
#include <glad/gl.h>
