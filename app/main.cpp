// deepscope's entry point: the command line goes to app::run (app/run.cpp).
#include "commands.h"

int main(int argc, char** argv) { return ds::app::run(ds::app::ArgList(argv + 1, argv + argc)); }
