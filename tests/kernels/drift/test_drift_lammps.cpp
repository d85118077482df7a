// The Lennard-Jones melt against LAMMPS at 32,000 atoms (issue #47): LAMMPS's examples/melt with
// its region scaled from 10^3 to 20^3 cells (tests/data/lammps: the input and three logs, velocity
// seeds 87287, 12345 and 4928459; LAMMPS 29 Sep 2021 Update 2, Debian 12's lammps package). The two
// programs' trajectories differ (each draws its own velocities), so the test compares what does
// not depend on them: the step-0 energies, to the 7 digits LAMMPS prints, and the melt's averages
// over steps 100 to 250 (T, E_pair and TotEng per atom), ours from one seed against the mean of
// LAMMPS's three runs, within 0.5 % (the bound; LAMMPS's three runs spread by 0.1 % in T).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/drift/drift.h"

namespace {

using namespace ds::drift;

struct Thermo {
  double temp, e_pair, tot_eng;
};

// LAMMPS's thermo table (Step Temp E_pair E_mol TotEng Press) from a log, by step.
std::map<long, Thermo> lammps_thermo(const std::string& name) {
  std::ifstream in(std::string(DEEPSCOPE_TEST_DATA) + "/lammps/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::map<long, Thermo> out;
  std::string line;
  bool table = false;
  while (std::getline(in, line)) {
    if (line.find("Step Temp E_pair") != std::string::npos) {
      table = true;
      continue;
    }
    if (!table) continue;
    if (line.rfind("Loop time", 0) == 0) break;
    std::istringstream f(line);
    long step;
    double temp, e_pair, e_mol, tot_eng, press;
    if (f >> step >> temp >> e_pair >> e_mol >> tot_eng >> press) out[step] = {temp, e_pair, tot_eng};
  }
  return out;
}

TEST(DriftLammps, Melt32kStepZeroAndAverages) {
  const std::vector<std::string> logs = {"melt32k-87287.log", "melt32k-12345.log", "melt32k-4928459.log"};
  const std::vector<long> steps = {100, 150, 200, 250};
  Thermo theirs{0, 0, 0};
  double tot0 = 0;  // TotEng at step 0: the same in every log (T = 3 exactly)
  for (const std::string& log : logs) {
    const std::map<long, Thermo> t = lammps_thermo(log);
    ASSERT_EQ(t.size(), 6u) << log;  // steps 0, 50, ..., 250
    EXPECT_EQ(t.at(0).temp, 3.0);
    EXPECT_EQ(t.at(0).e_pair, -6.7733681);
    if (log == logs[0]) tot0 = t.at(0).tot_eng;
    EXPECT_EQ(t.at(0).tot_eng, tot0) << log;
    for (long s : steps) {
      theirs.temp += t.at(s).temp / (logs.size() * steps.size());
      theirs.e_pair += t.at(s).e_pair / (logs.size() * steps.size());
      theirs.tot_eng += t.at(s).tot_eng / (logs.size() * steps.size());
    }
  }
  MdParams p;
  p.cells = 20;  // 32,000 atoms
  p.shift = false;  // lj/cut
  p.precision = Precision::kDouble;
  p.steps = 250;
  p.sample_every = 50;
  p.seed = 1;
  const MdResult r = run_md(p);
  ASSERT_EQ(r.atoms, 32000);
  ASSERT_EQ(r.samples.size(), 6u);
  const double n = 32000.0, dof = 3 * n - 3;
  // Step 0, to LAMMPS's printed digits (T = 3 exactly: KE / N = 1.5 (N - 1) / N 3).
  EXPECT_NEAR(r.samples[0].pe, -6.7733681, 5e-8);
  EXPECT_NEAR(r.samples[0].total, tot0, 5e-8);
  Thermo ours{0, 0, 0};
  for (const MdSample& s : r.samples) {
    if (s.step < 100) continue;
    ours.temp += 2 * s.ke * n / dof / steps.size();
    ours.e_pair += s.pe / steps.size();
    ours.tot_eng += s.total / steps.size();
  }
  std::cout << "steps 100 to 250: T " << ours.temp << " (LAMMPS " << theirs.temp << "), E_pair " << ours.e_pair
            << " (" << theirs.e_pair << "), TotEng " << ours.tot_eng << " (" << theirs.tot_eng << ")\n";
  EXPECT_NEAR(ours.temp, theirs.temp, 0.005 * theirs.temp);
  EXPECT_NEAR(ours.e_pair, theirs.e_pair, 0.005 * std::fabs(theirs.e_pair));
  EXPECT_NEAR(ours.tot_eng, theirs.tot_eng, 0.005 * std::fabs(theirs.tot_eng));
}

}  // namespace
