# Compiler flags shared by every target. FMA contraction is off everywhere so that host and device
# round identically: the arithmetic core writes every fused multiply-add explicitly.
include(CheckCXXSourceRuns)

add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>
                    $<$<COMPILE_LANGUAGE:CXX>:-Wall> $<$<COMPILE_LANGUAGE:CXX>:-Wextra>)

# Inline hardware FMA on hosts that have it (glibc's fma() would otherwise be a library call).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(CMAKE_REQUIRED_FLAGS "-mfma")
  check_cxx_source_runs("
    #include <cmath>
    int main() { volatile double a = 1.0 + 0x1p-30; return __builtin_cpu_supports(\"fma\") && std::fma(a, a, -1.0) != 0 ? 0 : 1; }"
    DEEPSCOPE_HOST_FMA)
  unset(CMAKE_REQUIRED_FLAGS)
  if(DEEPSCOPE_HOST_FMA)
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-mfma>)
    # GCC 12's SLP vectorizer fuses a complex product (t = a c - b d; u = a d + b c) into
    # vfmaddsub even with -ffp-contract=off (seen in perturb_pixel's BLA step and in
    # finder_perturbed.cpp): a rounding the device and the scalar code do not make. Off.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-tree-slp-vectorize>)
    endif()
  endif()
endif()
