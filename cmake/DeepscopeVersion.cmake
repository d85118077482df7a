# Script mode (cmake -P): writes version.h from version.h.in with the current git commit.
# configure_file leaves the file untouched when nothing changed, so no needless rebuilds.
# DEEPSCOPE_GIT_COMMIT in the environment wins (the GPU machine's copy of the tree carries a .git
# from the session's start, which describes an older commit); else git describe.
set(DEEPSCOPE_GIT_COMMIT "unknown")
if(DEFINED ENV{DEEPSCOPE_GIT_COMMIT})
  set(DEEPSCOPE_GIT_COMMIT "$ENV{DEEPSCOPE_GIT_COMMIT}")
endif()
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${GIT_DIR}/.git AND NOT DEFINED ENV{DEEPSCOPE_GIT_COMMIT})
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${GIT_DIR} describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE _c RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_rc EQUAL 0)
    set(DEEPSCOPE_GIT_COMMIT "${_c}")
  endif()
endif()
if(NOT DEEPSCOPE_HOST_FMA)
  set(DEEPSCOPE_HOST_FMA OFF)
endif()
configure_file(${SRC} ${DST} @ONLY)
