// The Lennard-Jones run's host side: precision names, input checks, the fcc lattice and initial
// velocities, the sampling loop with blow-up detection (replayed step by step to find the exact
// step), and the drift fit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "drift.h"
#include "kernels/core/comm.h"
#include "md_common.h"
#include "suite.cuh"

namespace ds::drift {

namespace {

const char* const kPrecisionNames[] = {"float", "double", "composite", "ff", "mixed", "fixed"};

void check(bool ok, const std::string& msg) {
  if (!ok) throw std::invalid_argument(msg);
}

std::string fmt_g(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// fcc positions (LAMMPS `lattice fcc`: basis (0,0,0), (1/2,1/2,0), (1/2,0,1/2), (0,1/2,1/2) times
// the lattice constant a = (4 / density)^(1/3)), and Gaussian velocities (Box-Muller on the
// counter-based stream) with zero total momentum, scaled to the temperature with 3N - 3 degrees
// of freedom, as LAMMPS's `velocity ... create` does.
detail::MdSetup make_setup(const MdParams& p) {
  detail::MdSetup s;
  const int c = p.cells;
  s.n = 4LL * c * c * c;
  const double a = std::cbrt(4.0 / p.density);
  s.box = c * a;
  s.cutoff = p.cutoff;
  s.dt = p.dt;
  s.ecut = p.shift || p.shifted_force ? 4.0 * (std::pow(p.cutoff, -12) - std::pow(p.cutoff, -6)) : 0.0;
  s.fcut = p.shifted_force ? 24.0 * (2.0 * std::pow(p.cutoff, -12) - std::pow(p.cutoff, -6)) / p.cutoff : 0.0;
  s.ncell = detail::cell_layers(p);
  s.fixed_bits = p.fixed_bits;
  s.cpu_threads = p.cpu_threads;
  s.pair_order_seed = p.pair_order_seed;
  const double side = s.box / s.ncell;
  s.cap = p.cell_capacity > 0 ? p.cell_capacity
                              : static_cast<int>(std::ceil(2.0 * p.density * side * side * side)) + 16;
  const std::size_t n = static_cast<std::size_t>(s.n);
  s.x.resize(3 * n);
  s.v.resize(3 * n);
  static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  std::size_t i = 0;
  for (int k = 0; k < c; ++k)
    for (int j = 0; j < c; ++j)
      for (int l = 0; l < c; ++l)
        for (int b = 0; b < 4; ++b, ++i) {
          s.x[i] = (l + basis[b][0]) * a;
          s.x[n + i] = (j + basis[b][1]) * a;
          s.x[2 * n + i] = (k + basis[b][2]) * a;
        }
  double mean[3] = {0, 0, 0};
  for (std::size_t q = 0; q < 3 * n; ++q) {
    const double u1 = 1.0 - uniform01(p.seed, 2 * q), u2 = uniform01(p.seed, 2 * q + 1);
    s.v[q] = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    mean[q / n] += s.v[q];
  }
  double ke = 0;
  for (std::size_t q = 0; q < 3 * n; ++q) {
    s.v[q] -= mean[q / n] / static_cast<double>(n);
    ke += 0.5 * s.v[q] * s.v[q];
  }
  const double target = 0.5 * (3.0 * static_cast<double>(n) - 3.0) * p.temperature;
  const double scale = ke > 0 ? std::sqrt(target / ke) : 0.0;
  for (double& v : s.v) v *= scale;
  return s;
}

}  // namespace

const std::vector<Precision>& all_precisions() {
  static const std::vector<Precision> v = {Precision::kFloat, Precision::kDouble, Precision::kComposite,
                                           Precision::kFF,    Precision::kMixed,  Precision::kFixed};
  return v;
}

const char* precision_name(Precision p) {
  const int i = static_cast<int>(p);
  if (i < 0 || i > 5) throw ArithError("unknown MD precision " + std::to_string(i));
  return kPrecisionNames[i];
}

Precision parse_precision(const std::string& name) {
  for (Precision p : all_precisions())
    if (name == precision_name(p)) return p;
  throw ArithError("unknown precision \"" + name + "\" (float, double, composite, ff, mixed, fixed)");
}

double box_length(const MdParams& p) { return p.cells * std::cbrt(4.0 / p.density); }

namespace detail {
int cell_layers(const MdParams& p) { return static_cast<int>(std::floor(box_length(p) / p.cutoff)); }
}  // namespace detail

namespace {
int ranks_of(const MdParams& p) { return p.comm ? p.comm->size() : 1; }
}  // namespace

double fixed_point_need_log2(const MdParams& p) {
  const double r = kFixedMinDistance;
  const double force = 24.0 * (2.0 * std::pow(r, -13) - std::pow(r, -7));
  const double neighbours =
      std::ceil(4.0 / 3.0 * 3.141592653589793 * p.cutoff * p.cutoff * p.cutoff * p.density);
  return std::log2(force * neighbours) + p.fixed_bits;
}

// Each message starts with the field it is about (MdParams's name; the CLI's flag is beside it).
void validate(const MdParams& p) {
  check(p.cells >= kMinCells && p.cells <= kMaxCells,
        "cells: the lattice must have " + std::to_string(kMinCells) + " to " + std::to_string(kMaxCells) +
            " fcc cells per side (500 to 1,048,576 atoms), got " + std::to_string(p.cells));
  // Density: the LJ liquid and solid lie near 0.8 to 1.1; above 1.5 the fcc neighbours sit at
  // 0.97 sigma and below 0.05 the cell list is nearly empty (a gas, not a drift benchmark).
  check(std::isfinite(p.density) && p.density >= 0.05 && p.density <= 1.5,
        "density (--density) must be in [0.05, 1.5] (reduced units), got " + num(p.density));
  // Temperature: the initial velocities are scaled to it; 0 would leave the lattice at rest (no
  // dynamics and no kT to measure drift in), above 100 (12,000 K in argon) is absurd for LJ argon.
  check(std::isfinite(p.temperature) && p.temperature > 0 && p.temperature <= 100,
        "temperature (--temp) must be in (0, 100] (reduced units), got " + num(p.temperature));
  // Timestep: velocity Verlet is stable below 2 / omega, omega = sqrt(u''(r_min) / mu) =
  // sqrt(57.15 / 0.5) = 10.7 for a pair at the potential's minimum, so 0.187; we refuse above 0.1
  // (LAMMPS's melt example uses 0.005).
  check(std::isfinite(p.dt) && p.dt > 0 && p.dt <= 0.1,
        "dt (--dt, the timestep) must be in (0, 0.1] (Verlet's stability bound is 0.187), got " + num(p.dt));
  check(p.steps >= 1 && p.steps <= kMaxSteps,
        "steps (--steps) must be in [1, 1e9], got " + std::to_string(p.steps));
  check(p.sample_every >= 1 && p.sample_every <= p.steps,
        "sample_every (--every) must be in [1, steps], got " + std::to_string(p.sample_every));
  check(p.cell_capacity >= 0 && p.cell_capacity <= 4096, "cell_capacity must be in [0, 4096]");
  check(p.equilibration >= 0 && p.equilibration <= kMaxSteps,
        "equilibration (--equilibrate) must be in [0, 1e9], got " + std::to_string(p.equilibration));
  // Cutoff: below 1 sigma the attractive well is cut away; the minimum image needs rc < box / 2,
  // and the cell list asks for more, box >= 3 rc.
  check(std::isfinite(p.cutoff) && p.cutoff >= 1.0 && p.cutoff <= 5.0,
        "cutoff (--cutoff) must be in [1, 5] (reduced units), got " + num(p.cutoff));
  check(box_length(p) >= 3.0 * p.cutoff, "cutoff (--cutoff): the box (" + num(box_length(p)) +
                                             ") must be at least 3 cutoffs wide (" + num(3.0 * p.cutoff) +
                                             ") for the cell list: use more cells or a smaller cutoff");
  precision_name(p.precision);
  check(p.fixed_bits >= kMinFixedBits && p.fixed_bits <= kMaxFixedBits,
        "fixed_bits (--fixed-bits) must be in [" + std::to_string(kMinFixedBits) + ", " +
            std::to_string(kMaxFixedBits) + "], got " + std::to_string(p.fixed_bits));
  if (p.precision == Precision::kFixed) {
    const double need = fixed_point_need_log2(p);
    check(need < 62.0,
          "fixed_bits (--fixed-bits): the fixed-point range 2^(62-" + std::to_string(p.fixed_bits) +
              ") = " + fmt_g(std::ldexp(1.0, 62 - p.fixed_bits)) + " cannot hold the force of one pair at " +
              num(kFixedMinDistance) + " sigma times the neighbours within the cutoff (" +
              fmt_g(std::exp2(need - p.fixed_bits)) + "): use --fixed-bits " +
              std::to_string(static_cast<int>(std::ceil(62.0 - (need - p.fixed_bits))) - 1) + " or less");
  }
  check(p.cpu_threads >= 0 && p.cpu_threads <= 1024, "cpu_threads must be in [0, 1024]");
  check(p.pair_order_seed == 0 || p.backend != Backend::kCuda,
        "pair_order_seed: the shuffled pair order is a CPU diagnostic");
  // Ranks: one slab of whole cell layers each (md_slabs.h). The cells are at least one cutoff wide,
  // so the cutoff spans one layer: a slab needs one layer, and there can be no more ranks than layers.
  const int ranks = ranks_of(p);
  if (ranks > 1) {
    const std::string np = "ranks (mpirun -np " + std::to_string(ranks) + ")";
    const int layers = detail::cell_layers(p);
    check(ranks <= layers,
          np + ": the box (" + num(box_length(p)) + ") has " + std::to_string(layers) +
              " cell layers along z at least one cutoff (" + num(p.cutoff) +
              ") wide, and each rank's slab needs at least one whole layer (the cutoff's span), so at most " +
              std::to_string(layers) + " ranks can share it: use at most " + std::to_string(layers) +
              " ranks, more --cells or a smaller --cutoff");
    check(p.backend != Backend::kCuda,
          np + ": the domain decomposition runs on the CPU engine (--backend cpu), not on CUDA");
    check(p.pair_order_seed == 0,
          np + ": the shuffled pair order (pair_order_seed) is a one-process diagnostic");
  }
  check(std::isfinite(p.checkpoint_seconds) && p.checkpoint_seconds >= 0,
        "checkpoint_seconds (--checkpoint-every) must be a finite number of seconds >= 0, got " +
            num(p.checkpoint_seconds));
}

// A checkpoint handed to run_md (MdParams::resume) must be one this run could have taken: its
// counts within the parameters' and its samples at the sampling steps, and its engine state's header
// this precision's and size's (import_state checks it again). The file's own format is
// md_checkpoint.cpp's.
void validate_checkpoint(const MdParams& p, const MdCheckpoint& c) {
  const std::string w = "resume (checkpoint): ";
  std::size_t state_size = 0;
  dispatch_precision(p.precision, [&](auto types) { state_size = sizeof(typename decltype(types)::State); });
  detail::EngineStateHeader h;
  const int64_t n = 4LL * p.cells * p.cells * p.cells;
  check(c.engine.size() >= sizeof h, w + "no engine state");
  std::memcpy(&h, c.engine.data(), sizeof h);
  check(h.state_size == state_size && h.n == n &&
            c.engine.size() == sizeof h + detail::kStateArrays * state_size * static_cast<std::size_t>(n),
        w + "the engine state is not one of " + std::to_string(n) + " atoms in " + precision_name(p.precision));
  check(c.equilibrated >= 0 && c.equilibrated <= p.equilibration,
        w + "equilibration steps done " + std::to_string(c.equilibrated) + " outside [0, " +
            std::to_string(p.equilibration) + "]");
  check(!std::isnan(c.e0) && c.e_tol > 0, w + "energy reference E(0) " + num(c.e0) + " +- " + num(c.e_tol));
  check(std::isfinite(c.seconds) && c.seconds >= 0, w + "seconds " + num(c.seconds));
  if (!c.sampling) {
    check(c.step == 0 && c.samples.empty(), w + "samples or steps before the equilibration is over");
    return;
  }
  check(c.equilibrated == p.equilibration, w + "sampling before the equilibration is over");
  check(c.step >= 0 && c.step <= p.steps && (c.step == p.steps || c.step % p.sample_every == 0),
        w + "step " + std::to_string(c.step) + " is not a sampling step of this run");
  const int64_t want = c.step / p.sample_every + 1 + (c.step % p.sample_every != 0 ? 1 : 0);
  check(static_cast<int64_t>(c.samples.size()) == want, w + std::to_string(c.samples.size()) +
                                                            " samples at step " + std::to_string(c.step) +
                                                            ", expected " + std::to_string(want));
  for (std::size_t i = 0; i < c.samples.size(); ++i) {
    const int64_t at = std::min<int64_t>(static_cast<int64_t>(i) * p.sample_every, p.steps);
    check(c.samples[i].step == at && std::isfinite(c.samples[i].total),
          w + "sample " + std::to_string(i) + " is not a finite sample of step " + std::to_string(at));
  }
}

DriftFit fit_drift(const std::vector<MdSample>& s) {
  DriftFit f;
  const double n = static_cast<double>(s.size());
  if (s.size() < 2) {
    if (!s.empty()) f.intercept = s[0].total;
    return f;
  }
  double mt = 0, me = 0;
  for (const MdSample& q : s) mt += q.time, me += q.total;
  mt /= n;
  me /= n;
  double stt = 0, ste = 0;
  for (const MdSample& q : s) stt += (q.time - mt) * (q.time - mt), ste += (q.time - mt) * (q.total - me);
  f.slope = stt > 0 ? ste / stt : 0.0;
  f.intercept = me - f.slope * mt;
  double r2 = 0;
  for (const MdSample& q : s) {
    const double r = q.total - (f.intercept + f.slope * q.time);
    r2 += r * r;
  }
  f.rms = std::sqrt(r2 / n);
  return f;
}

MdResult run_md(const MdParams& p, const std::function<void(const MdSample&)>& on_sample) {
  validate(p);
  MdResult res;
  const int ranks = ranks_of(p);
  res.backend = ranks > 1 ? Backend::kCpu : select_backend(p.backend);
  detail::MdSetup setup = make_setup(p);
  res.atoms = setup.n;
  res.box = setup.box;
  // Cell capacity: grown (doubling) whenever a cell overflows, up to max_cap; beyond it only a
  // system that is blowing up crowds atoms so.
  const int max_cap = static_cast<int>(std::min<int64_t>(setup.n, std::max(4 * setup.cap, 256)));
  auto make = [&] {
    if (ranks > 1) return detail::make_md_ranks(setup, p.precision, *p.comm);
    return res.backend == Backend::kCuda ? detail::make_md_cuda(setup, p.precision)
                                         : detail::make_md_cpu(setup, p.precision);
  };
  std::unique_ptr<detail::MdEngine> eng = make();
  while (eng->overflowed() && setup.cap < max_cap) {  // the initial forces need every atom
    setup.cap = std::min(max_cap, 2 * setup.cap);
    eng = make();
  }
  if (eng->range_fault())
    throw std::invalid_argument(
        "fixed_bits (--fixed-bits): the initial forces exceed the fixed-point range 2^(62-" +
        std::to_string(p.fixed_bits) + "); use fewer bits");
  const std::string range_msg =
      "a fixed-point force or energy sum could have exceeded the range 2^(62-" +
      std::to_string(p.fixed_bits) + ") = " + fmt_g(std::ldexp(1.0, 62 - p.fixed_bits)) +
      " (fixed_bits, --fixed-bits: atoms came closer than the range allows; use fewer bits)";
  const double inv_n = 1.0 / static_cast<double>(setup.n);
  auto sample = [&](int64_t step, MdSample* out) {
    double ke, pe;
    eng->energies(&ke, &pe);
    out->step = step;
    out->time = static_cast<double>(step) * p.dt;
    out->ke = ke * inv_n;
    out->pe = pe * inv_n;
    out->total = out->ke + out->pe;
    return std::isfinite(out->total);
  };
  // NVE conserves energy: a total that moved by more than 100 (1 + |E(0)|) per atom (or is not a
  // number) means the integrator has failed, whether or not the numbers have overflowed yet.
  double e0 = 0, e_tol = INFINITY;
  auto sane = [&](const MdSample& s) { return std::isfinite(s.total) && std::fabs(s.total - e0) <= e_tol; };
  auto take = [&](const MdSample& s) {
    res.samples.push_back(s);
    if (on_sample) on_sample(s);
  };
  // Checkpoints: the state at an interval boundary (the snapshot save() took there is the state
  // itself, and every fault flag has just been read), at most every checkpoint_seconds, and at a
  // cancel. A resumed run imports the engine's state, capacity included, and saves it, so that the
  // replay and the capacity growth start from what the stopped run had at that boundary.
  auto last_ckpt = std::chrono::steady_clock::now();
  double seconds_before = 0;  // stepping time of the run before it was resumed
  auto checkpoint = [&](bool now, int64_t equilibrated, bool sampling, int64_t step, double seconds) {
    if (!p.on_checkpoint) return;
    const auto t = std::chrono::steady_clock::now();
    // The ranks' clocks differ: they agree (any rank's due) before the collective export.
    const bool due = now || std::chrono::duration<double>(t - last_ckpt).count() >= p.checkpoint_seconds;
    if (!eng->agree(due)) return;
    MdCheckpoint c;
    c.equilibrated = equilibrated;
    c.sampling = sampling;
    c.step = step;
    c.e0 = e0;
    c.e_tol = e_tol;
    c.seconds = seconds;
    c.samples = res.samples;
    c.engine = eng->export_state();
    p.on_checkpoint(c);
    last_ckpt = std::chrono::steady_clock::now();
  };
  int64_t done_eq = 0, done = 0;
  bool resumed_sampling = false;
  if (p.resume != nullptr) {
    const MdCheckpoint& c = *p.resume;
    validate_checkpoint(p, c);
    eng->import_state(c.engine);
    eng->save();
    e0 = c.e0;
    e_tol = c.e_tol;
    done_eq = c.equilibrated;
    if (c.sampling) {
      resumed_sampling = true;
      done = c.step;
      res.steps_done = done;
      seconds_before = c.seconds;
      for (const MdSample& s : c.samples) take(s);
    }
  }
  // Equilibration, in intervals so that it can be cancelled and a blow-up is caught (against the
  // energy of the lattice).
  if (p.equilibration > 0 && p.resume == nullptr) {
    MdSample q;
    sample(0, &q);
    e0 = q.total;
    e_tol = 100.0 * (1.0 + std::fabs(e0));
  }
  while (!resumed_sampling && done_eq < p.equilibration) {
    if (eng->agree(p.cancel != nullptr && p.cancel->load())) {
      checkpoint(true, done_eq, false, 0, 0);
      res.cancelled = true;
      return res;
    }
    const int64_t k = std::min(std::max<int64_t>(p.sample_every, 100), p.equilibration - done_eq);
    eng->save();
    eng->step(k, true);
    while (eng->overflowed() && eng->cell_capacity() < max_cap) {
      eng->restore();
      eng->set_cell_capacity(std::min(max_cap, 2 * eng->cell_capacity()));
      eng->step(k, true);
    }
    if (eng->range_fault()) {
      res.range_fault = res.blew_up = true;
      res.blowup_step = -(done_eq + k);
      res.message = range_msg + " during equilibration, between its steps " + std::to_string(done_eq) +
                    " and " + std::to_string(done_eq + k);
      return res;
    }
    MdSample q;
    if (!sample(done_eq + k, &q) || !sane(q)) {
      res.blew_up = true;
      res.blowup_step = -(done_eq + k);
      res.message = "the energy became non-finite or left E(0) +- " + fmt_g(e_tol) +
                    " per atom during equilibration, between its steps " + std::to_string(done_eq) + " and " +
                    std::to_string(done_eq + k) + " (reduce dt)";
      return res;
    }
    done_eq += k;
    if (done_eq < p.equilibration) checkpoint(false, done_eq, false, 0, 0);
  }
  if (!resumed_sampling) {
    MdSample s0;
    if (!sample(0, &s0)) {
      res.blew_up = true;
      res.blowup_step = 0;
      res.message = "the initial energy is not finite";
      return res;
    }
    take(s0);
    e0 = s0.total;
    e_tol = 100.0 * (1.0 + std::fabs(e0));
    eng->save();
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return seconds_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  while (done < p.steps) {
    if (eng->agree(p.cancel != nullptr && p.cancel->load())) {
      checkpoint(true, p.equilibration, true, done, elapsed());
      res.cancelled = true;
      break;
    }
    const int64_t k = std::min(p.sample_every, p.steps - done);
    eng->step(k, true);
    MdSample s;
    bool finite = sample(done + k, &s) && sane(s);
    bool crowded = eng->overflowed();
    // A cell holding more atoms than its capacity drops some from the force sums: grow the cell
    // list (up to max_cap) and redo the interval from the last sample; the trajectory is then the
    // same as with a large enough list from the start. Beyond max_cap the system is blowing up.
    while (finite && crowded && eng->cell_capacity() < max_cap) {
      eng->restore();
      eng->set_cell_capacity(std::min(max_cap, 2 * eng->cell_capacity()));
      eng->step(k, true);
      finite = sample(done + k, &s) && sane(s);
      crowded = eng->overflowed();
    }
    if (eng->range_fault()) {
      res.range_fault = res.blew_up = true;
      res.blowup_step = done + k;
      res.message = range_msg + " between steps " + std::to_string(done) + " and " +
                    std::to_string(done + k) + "; the run stops here (samples up to step " +
                    std::to_string(done) + " are kept)";
      break;
    }
    if (eng->screen_fault()) {
      res.blew_up = true;
      res.blowup_step = done + k;
      res.message =
          "a composite position's error word exceeded 0.05 (the pair screening's margin) between steps " +
          std::to_string(done) + " and " + std::to_string(done + k) +
          "; the run stops here (samples up to step " + std::to_string(done) + " are kept)";
      break;
    }
    if (!finite || crowded) {
      // Replay from the last good sample one step at a time (the run is deterministic) to find the
      // first bad step.
      eng->restore();
      int64_t bad = done + k;
      bool bad_crowded = crowded && finite;
      for (int64_t q = done + 1; q <= done + k; ++q) {
        eng->step(1, true);
        MdSample r;
        const bool fin = sample(q, &r) && sane(r);
        const bool over = eng->overflowed();
        if (!fin || over) {
          bad = q;
          bad_crowded = over && fin;
          break;
        }
      }
      res.blew_up = true;
      res.blowup_step = bad;
      res.message = (bad_crowded ? "atoms crowded beyond " + std::to_string(max_cap) + " per cell at step "
                                 : std::string("the energy became non-finite or left E(0) +- ") +
                                       fmt_g(e_tol) + " per atom at step ") +
                    std::to_string(bad) + " (the system blew up: reduce dt); samples up to step " +
                    std::to_string(done) + " are kept";
      break;
    }
    take(s);
    done += k;
    res.steps_done = done;
    eng->save();
    if (p.progress) p.progress(static_cast<double>(done) / static_cast<double>(p.steps));
    if (done < p.steps) checkpoint(false, p.equilibration, true, done, elapsed());
  }
  res.seconds = elapsed();
  res.steps_per_second = res.seconds > 0 ? static_cast<double>(res.steps_done) / res.seconds : 0.0;
  res.fit = fit_drift(res.samples);
  res.state_hash = eng->state_hash();
  return res;
}

}  // namespace ds::drift
