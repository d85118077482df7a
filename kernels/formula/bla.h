// Bilinear approximation for formulas (issue 45): the table of perturb_step.h's FormulaBlaEntry over
// a formula's reference orbit, levels merged as the Mandelbrot tables are (kernels/perturb/
// bla_levels.h), each entry carrying the bound on what it drops. docs/perturbation/formulas.md, "BLA for
// formulas". Host only.
#pragma once
#include <cstdint>
#include <vector>

#include "formula.h"
#include "perturb.h"
#include "perturb_step.h"

namespace ds::formula {

struct FormulaBlaTable {
  std::vector<FormulaBlaEntry> entries;
  uint64_t level_offset[perturb::kMaxBlaLevels + 1] = {};  // level l: [level_offset[l], level_offset[l+1])
  int levels = 0;
  double dcmax = 0;  // the radii hold for pixels with |dc~| + ec <= dcmax
  uint64_t usable = 0;  // entries with r > 0
};

// The table for f's reference orbit `ref` (compute_formula_reference) and pixels with |dc| <=
// dcmax: one entry per iteration m = 1 .. length - 2 (its phase's opcodes composed, bla.cpp) merged
// into levels 2 and up (kernels/perturb/bla_levels.h: levels 0 and 1 stay empty). Empty (levels 0)
// for a reference shorter than 3 points.
FormulaBlaTable build_formula_bla(const Formula& f, const FormulaReference& ref, double dcmax);

// Points p's BLA at t (p.bla_levels = 0 for an empty table).
void attach_bla(PerturbParams& p, const FormulaBlaTable& t);

}  // namespace ds::formula
