# Host sanitizers: DEEPSCOPE_SANITIZE=address,undefined (any -fsanitize= list) compiles and links
# every C and C++ target with them, keeps frame pointers and debug info so that reports name the
# file and line, and makes undefined behaviour fatal, so a test that hits it fails instead of
# printing a line nobody reads. Line tables only (-g1), and -O1 in the preset asan-ubsan: at -O3
# with full debug info, GCC spent more than 6 minutes on each of the templated number-type files.
# CUDA code is not instrumented: the preset builds the CPU program and tests (docs/quality.md).
if(DEEPSCOPE_SANITIZE)
  string(REPLACE ";" "," _ds_san "${DEEPSCOPE_SANITIZE}")
  set(_ds_san_flags -fsanitize=${_ds_san} -fno-omit-frame-pointer -g1)
  if(_ds_san MATCHES "undefined")
    list(APPEND _ds_san_flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_ds_san_flags}>")
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:-fsanitize=${_ds_san}>")
  message(STATUS "deepscope: host code built with -fsanitize=${_ds_san}")
endif()

# Fuzzing (DEEPSCOPE_FUZZ=ON, clang only): every C and C++ target gets libFuzzer's coverage
# instrumentation, so the readers inside deepscope_app and deepscope_kernels are what the fuzzer
# explores; tests/fuzz links the targets with libFuzzer's main.
if(DEEPSCOPE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "DEEPSCOPE_FUZZ needs clang (libFuzzer): configure a separate build directory "
                        "with CC=clang CXX=clang++, or `cmake --preset fuzz` (docs/quality.md)")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>")
endif()
