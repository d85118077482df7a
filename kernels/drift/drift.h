// The MD-drift workspace's host API (plain C++, no CUDA types), after Saponaro's thesis
// (shared/papers/composite-float2-md-drift.txt): the global summation suite (section 6.2), the
// do/undo suite (section 6.3), and a Lennard-Jones NVE run in float, double, composite, ff and
// mixed precision, on the CPU (all cores) or CUDA. The panel and `deepscope drift` are front ends
// over these calls.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arith/format.h"
#include "kernels/core/backend.h"

namespace ds::work {
class Comm;  // kernels/core/comm.h
}

namespace ds::drift {

using ds::Backend;

// ---------------------------------------------------------------------------------------------
// Global summation suite (thesis section 6.2, Tables 2-5)

// The arithmetic a sum runs in: the four formats of arith/ (through ds::dispatch) and
// Kahan-compensated binary32 summation, which is an algorithm rather than a number type.
enum class SumMethod : int { kFloat, kDouble, kComposite, kFF, kKahan };
const std::vector<SumMethod>& all_sum_methods();
const char* sum_method_name(SumMethod m);             // "float", "double", "composite", "ff", "kahan"
SumMethod parse_sum_method(const std::string& name);  // throws ArithError listing the names

// The thesis's data: n/2 values, each followed by its negative, so the exact sum is 0. A value is
// large (uniform in [1, 1e6]) or small (uniform in [1e-6, 1e-5]) with probability 1/2, and every
// value is a binary32 number, so every arithmetic sums exactly the same numbers. n is even.
std::vector<double> sum_data(int n, uint64_t seed);

// The six orders of the tables: 0 increasing, 1 decreasing, 2..5 shuffled (trials 1-4).
constexpr int kSumOrders = 6;
const char* sum_order_name(int order);
std::vector<double> sum_ordered(const std::vector<double>& data, int order, uint64_t seed);

// The sum of `data` with `threads` threads: thread t sums the contiguous block
// [t n / threads, (t + 1) n / threads) in order, and the partial sums are then added in thread
// order, all in the method's arithmetic (the thesis adds the partials on the host; we do the same
// on both backends). Returned as the double nearest the format's value.
double sum_array(SumMethod m, const std::vector<double>& data, int threads, Backend backend);

struct SumRow {
  int order = 0;
  int threads = 1;
  double result[5] = {0, 0, 0, 0, 0};  // by SumMethod
};
struct SumSuiteParams {
  int n = 1000;
  uint64_t seed = 2010;
  std::vector<int> threads = {1, 10, 100, 1000};
  Backend backend = Backend::kCpu;
};
// Every order x thread count x method. Throws std::invalid_argument for bad sizes.
std::vector<SumRow> sum_suite(const SumSuiteParams& p);

// ---------------------------------------------------------------------------------------------
// Do/undo suite (thesis section 6.3, Figure 12, Table 6)

constexpr int kDoUndoTrials = 3;
// Trial ranges of x and y (thesis): 1: x, y in (1, 100); 2: x in (1e5, 1e6), y in (1e-6, 1e-5);
// 3: x in (1e-6, 1e-5), y in (1e5, 1e6).
void doundo_ranges(int trial, double* x_lo, double* x_hi, double* y_lo, double* y_hi);

struct DoUndoParams {
  Arith arith = Arith::kF32;  // f32, f64, composite or ff
  int trial = 1;              // 1..3
  bool div_first = false;     // false: x = (x * y) / y; true: x = (x / y) * y
  int64_t iterations = 1'000'000;
  int64_t record_every = 1000;  // one curve point every this many iterations
  uint64_t seed = 2010;
  Backend backend = Backend::kCpu;
};
struct DoUndoResult {
  double x0 = 0;
  std::vector<double> drift;  // (x_k - x0) / x0 after k = record_every, 2 record_every, ... iterations
  double final_x = 0;
  double seconds = 0;  // the loop alone (one thread, as the thesis), launch and copies included on CUDA
};
// y_k and x0 are binary32 numbers drawn from a counter-based generator (the same on both
// backends). Throws std::invalid_argument / ArithError for bad input.
DoUndoResult doundo(const DoUndoParams& p);
bool doundo_arith_supported(Arith a);

// ---------------------------------------------------------------------------------------------
// Lennard-Jones NVE molecular dynamics (reduced units: sigma = epsilon = m = 1)

// Precision modes: which type holds positions, velocities and the force and energy sums (state),
// and which type the pair force is computed in (pair):
//   float:     state float,     pair float
//   double:    state double,    pair double
//   composite: state composite, pair float (the thesis: positions and sums in float2)
//   ff:        state ff,        pair float
//   mixed:     state double,    pair float (OpenMM's mixed mode)
//   fixed:     state double,    pair float, each atom's force and energy summed in 64-bit fixed point
//              (AMBER's SPFP): the sums, and so the trajectory, do not depend on the summation order
enum class Precision : int { kFloat, kDouble, kComposite, kFF, kMixed, kFixed };
const std::vector<Precision>& all_precisions();
const char* precision_name(Precision p);
Precision parse_precision(const std::string& name);  // throws ArithError listing the names

constexpr int kMinCells = 5;   // fcc unit cells per side: 500 atoms (the box must hold 3 cells of rc)
constexpr int kMaxCells = 64;  // 1,048,576 atoms
constexpr int64_t kMaxSteps = 1'000'000'000;
// Fixed-point scale 2^k (precision fixed): resolution 2^-k, range of a sum +-2^(63-k), of which
// the checks use half, 2^(62-k) (docs/drift.md).
constexpr int kMinFixedBits = 8, kMaxFixedBits = 48, kDefaultFixedBits = 32;
// The closest approach the fixed-point range must hold (validate): one pair at 0.5 sigma has
// |F| = 390,144 and u = 16,128 epsilon, 160 kT even at the largest allowed T* = 100.
constexpr double kFixedMinDistance = 0.5;

struct MdCheckpoint;  // below

struct MdParams {
  int cells = 10;  // fcc unit cells per side: N = 4 cells^3 atoms
  double density = 0.8442;
  double temperature = 3.0;  // initial T*, with 3N - 3 degrees of freedom (as LAMMPS)
  double cutoff = 2.5;
  bool shift = true;  // potential shifted to 0 at the cutoff
  // Diagnostic: the force shifted to 0 at the cutoff too (u_sf(r) = u(r) - u(rc) + (r - rc) F(rc)).
  // The potential-shifted force jumps when a pair crosses the cutoff, and each crossing perturbs
  // the energy, in every arithmetic alike; with a continuous force only Verlet's bounded dt^2
  // error and the arithmetic's own drift remain (docs/bench/drift-seeds.md).
  bool shifted_force = false;
  double dt = 0.005;
  int64_t steps = 1000;
  int64_t sample_every = 10;  // energies at step 0 and every this many steps
  // Steps run (and not sampled) before step 0, so that the lattice melts before drift is measured.
  int64_t equilibration = 0;
  uint64_t seed = 87287;
  int cell_capacity = 0;  // initial atoms per cell slot count; 0: 2 x the mean occupancy + 16
  Precision precision = Precision::kDouble;
  int fixed_bits = kDefaultFixedBits;  // precision fixed: pair terms are scaled by 2^fixed_bits
  // CPU only: worker threads (0: all cores), and, when nonzero, the seed of a pseudo-random order of
  // each cell's atoms, drawn afresh every step (a diagnostic: the fixed mode's trajectory must not
  // change, the others' do).
  int cpu_threads = 0;
  uint64_t pair_order_seed = 0;
  Backend backend = Backend::kCpu;
  // Domain decomposition over the ranks of `comm` (null or one rank: none): each rank owns a slab of
  // whole cell layers along z and exchanges halos with its neighbours (md_ranks.cpp); the samples,
  // fit and state hash are the one-process run's to the bit, on every rank. CPU engine only; every
  // rank calls run_md with the same parameters.
  ds::work::Comm* comm = nullptr;
  const std::atomic<bool>* cancel = nullptr;  // polled between samples (the ranks agree to stop)
  std::function<void(double)> progress;       // fraction of steps done
  // Checkpoints (docs/drift.md, "Checkpoints"): when set, on_checkpoint is called with the run's
  // whole state at the end of a sampling interval or an equilibration interval once at least
  // checkpoint_seconds of wall time have passed since the run started or the last checkpoint (0:
  // at every such boundary), and at a cancel. Under ranks every rank calls it with the same
  // checkpoint (the state gathered by global index), and every rank must resume from the same one.
  std::function<void(const MdCheckpoint&)> on_checkpoint;
  double checkpoint_seconds = 30;
  // Start from this checkpoint (taken with the same parameters) instead of from the lattice: the
  // equilibration steps it holds are skipped and the run continues at its step. The samples, fit and
  // state hash are then those of the run that was never stopped, to the bit; on_sample sees the
  // checkpoint's samples first.
  const MdCheckpoint* resume = nullptr;
};

struct MdSample {
  int64_t step = 0;
  double time = 0;
  double ke = 0, pe = 0, total = 0;  // per atom; summed over atoms in the state type
};

// A run's state at an interval boundary, enough to continue it as if it had never stopped.
struct MdCheckpoint {
  int64_t equilibrated = 0;  // equilibration steps done
  bool sampling = false;     // the equilibration is over and step 0 was sampled
  int64_t step = 0;          // steps done after step 0 (0 while equilibrating)
  // The blow-up test's reference (md_host.cpp: E(0) and the tolerance around it).
  double e0 = 0, e_tol = 0;
  double seconds = 0;                 // stepping time so far (MdResult::seconds)
  std::vector<MdSample> samples;      // the samples so far (empty while equilibrating)
  std::vector<unsigned char> engine;  // MdEngine::export_state
};

// Least-squares line through the total energy per atom against time.
struct DriftFit {
  double slope = 0;  // energy per atom per unit time
  double intercept = 0;
  double rms = 0;  // residual
};
DriftFit fit_drift(const std::vector<MdSample>& s);

struct MdResult {
  int64_t atoms = 0;
  double box = 0;
  std::vector<MdSample> samples;
  bool cancelled = false;
  bool blew_up = false;
  bool range_fault = false;  // fixed point: a sum could have left int64 (blew_up is set too)
  // First bad step, found by replaying from the last good sample (during equilibration: minus the
  // end of the interval where it happened).
  int64_t blowup_step = -1;
  std::string message;
  int64_t steps_done = 0;
  double seconds = 0;  // stepping time (setup excluded)
  double steps_per_second = 0;
  DriftFit fit;
  uint64_t state_hash = 0;  // FNV-1a of the final positions and velocities, bytes of the state type
  Backend backend = Backend::kCpu;
};

// Validates p: throws std::invalid_argument with a message naming the field for a non-positive,
// non-finite or absurd value (drift.md lists the bounds), and, in the fixed mode, for a scale whose
// range fixed_point_need_log2(p) exceeds.
void validate(const MdParams& p);
// The largest sum the fixed-point mode must hold by validate's bound: |F(0.5 sigma)| (the pair force
// at kFixedMinDistance) times the neighbours within the cutoff at the run's density (4/3 pi rc^3 rho,
// rounded up), in units of 2^-fixed_bits, as log2; validate asks for less than 62 (half of int64's
// range, the same margin as the run-time check in md.cuh).
double fixed_point_need_log2(const MdParams& p);
// Whether c could be a checkpoint of a run with parameters p (its counts within p's, its samples at
// p's sampling steps, its engine state of p's precision and atom count): throws std::invalid_argument
// saying what does not fit. run_md checks MdParams::resume so; a front end can check before any work.
void validate_checkpoint(const MdParams& p, const MdCheckpoint& c);
// Runs the simulation; a non-finite energy stops it and is reported, with the samples so far.
// `on_sample` (optional) sees each sample as it is taken.
MdResult run_md(const MdParams& p, const std::function<void(const MdSample&)>& on_sample = {});
// The fcc box edge for p: cells * (4 / density)^(1/3).
double box_length(const MdParams& p);

// ---------------------------------------------------------------------------------------------
// Drift in the field's units (kT per ns per degree of freedom), for argon

// Argon's Lennard-Jones mapping (the issue's: sigma 3.405 A, epsilon / kB 119.8 K, and argon's
// standard atomic mass). The unit of time is tau = sigma sqrt(m /
// epsilon), about 2.156 ps (argon_tau_ps computes it from these and CODATA 2018's kB and u).
constexpr double kArgonSigmaAngstrom = 3.405;
constexpr double kArgonEpsilonOverKb = 119.8;  // kelvin
constexpr double kArgonMassDalton = 39.948;
double argon_tau_ps();

// Degrees of freedom of N atoms whose total momentum is zero and conserved (the initial velocities
// have zero total momentum and the pair forces are equal and opposite): 3N - 3, as LAMMPS's
// `compute temp` and OpenMM's StateDataReporter with a CMMotionRemover count them.
int64_t degrees_of_freedom(int64_t atoms);
// The instantaneous kinetic temperature T* = 2 KE / dof of each sample (KE of all atoms, reduced
// units), averaged over the samples: OpenMM's StateDataReporter reports T = 2 KE / (dof R).
double mean_temperature(const std::vector<MdSample>& s, int64_t atoms);
// A drift slope in energy per atom per tau, as kT per ns per degree of freedom:
// N slope / (T* dof tau_ns), with kT = T* epsilon the run's mean temperature.
double kt_per_ns_per_dof(double slope_per_atom, int64_t atoms, double mean_t);

struct DriftUnits {
  int64_t dof = 0;
  double mean_t = 0;         // reduced
  double mean_t_kelvin = 0;  // x epsilon / kB (argon)
  double slope = 0;          // energy per atom per tau (the fit's)
  double kt_ns_dof = 0;      // NAN when the run has fewer than 2 samples or T* <= 0
};
DriftUnits drift_units(const MdResult& r);

// Mean and standard error (sample standard deviation / sqrt(n)) of values from n independent runs
// (seeds); stderr is NAN for n < 2. Non-finite values are skipped and not counted.
struct SeedSpread {
  int n = 0;
  double mean = 0, stderr_mean = 0;
};
SeedSpread seed_spread(const std::vector<double>& values);

namespace detail {

// What an engine needs, built once on the host.
struct MdSetup {
  int64_t n = 0;
  double box = 0, cutoff = 0, dt = 0, ecut = 0;  // ecut: u(rc) when shifted, else 0
  double fcut = 0;                               // F(rc) with shifted_force, else 0
  int ncell = 0, cap = 0;                        // cells per side, atoms per cell capacity
  int fixed_bits = kDefaultFixedBits;
  int cpu_threads = 0;
  uint64_t pair_order_seed = 0;
  std::vector<double> x, v;  // 3n each: all x, then all y, then all z
};

// A running simulation in one precision on one backend.
class MdEngine {
 public:
  virtual ~MdEngine() = default;
  // Advances n >= 1 steps; the energies of the last step are evaluated when `energy` is true.
  virtual void step(int64_t n, bool energy) = 0;
  // Kinetic and potential energy of the last evaluated step, totals summed in the state type.
  virtual void energies(double* ke, double* pe) = 0;
  virtual void save() = 0;     // snapshot of the state
  virtual void restore() = 0;  // back to the snapshot
  virtual uint64_t state_hash() = 0;
  // Cell-list overflow since the last check (the step's forces are then incomplete).
  virtual bool overflowed() = 0;
  // Reallocates the cell list with `cap` slots per cell (forces are unchanged where nothing
  // overflowed: each cell's atoms are in index order whatever the capacity).
  virtual void set_cell_capacity(int cap) = 0;
  virtual int cell_capacity() const = 0;
  // A two-word position's low word left the pair screening's margin since the last check
  // (md.cuh: kMaxLowWord); the forces may then miss pairs.
  virtual bool screen_fault() = 0;
  // Fixed point: an atom's force or energy sum could have left int64 since the last check.
  virtual bool range_fault() = 0;
  // Whether any rank's `mine` is true (a decomposed engine's ranks agree to stop); all ranks call it
  // at the same points.
  virtual bool agree(bool mine) { return mine; }
  // The whole dynamical state (positions, velocities, forces, per-atom energies, the cell capacity)
  // as bytes, and back: after import_state the engine continues exactly as the one that exported it.
  // The layout is the same on the CPU and CUDA engines (md_common.h: pack_state). import_state
  // throws std::invalid_argument for bytes of another size, precision or atom count.
  virtual std::vector<unsigned char> export_state() = 0;
  virtual void import_state(const std::vector<unsigned char>& bytes) = 0;
};

std::unique_ptr<MdEngine> make_md_cpu(const MdSetup& s, Precision p);
std::unique_ptr<MdEngine> make_md_cuda(const MdSetup& s, Precision p);
// The CPU engine split over comm's ranks by slabs of cell layers (md_ranks.cpp); a collective call.
std::unique_ptr<MdEngine> make_md_ranks(const MdSetup& s, Precision p, ds::work::Comm& comm);
// Cell layers per side of the cell list: floor(box / cutoff), each at least one cutoff wide.
int cell_layers(const MdParams& p);

// CUDA backends of the suites (drift.cu), n-element data already in order.
// Fills partial_words[2 t], [2 t + 1] with the two storage words of thread t's partial sum.
void sum_partials_cuda(SumMethod m, const double* data, int n, int threads, double* partial_words);
void doundo_cuda(const DoUndoParams& p, double x0, double* drift, int64_t n_rec, double* final_x,
                 double* seconds);

}  // namespace detail

}  // namespace ds::drift
