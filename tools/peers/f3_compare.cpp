// Compares Fraktaler-3's raw EXR counts with deepscope's --counts .npy for tools/peers (issue #48):
// per-pixel count differences, pixels that escape in one and not the other, and iteration totals.
// Built by tools/peers/fraktaler3.sh build (against Debian's OpenEXR); not part of deepscope.
//
// usage: f3_compare F3.exr DEEPSCOPE.npy MAX_ITER
//        f3_compare F3.exr ORACLE.npy MAX_ITER --grid N   (ORACLE.npy from `deepscope oracle --grid N`
//        at F3's size: F3's counts at the grid's pixels against MPFR's, trusted pixels only)
// F3 writes N = n + 1024 (its bias) where the pixel escaped at iteration n, and all ones where it
// did not (src/hybrid.cc); its row 0 is the bottom of the view (y grows upward), deepscope's the
// top, so F3's rows are flipped before comparing. The count offset between the two programs' n is
// reported, not assumed: the histogram of f3 - deepscope over pixels both call escaped.
#include <ImfHeader.h>
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfInputFile.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

int fail(const std::string &msg) {
  std::fprintf(stderr, "f3_compare: %s\n", msg.c_str());
  return 2;
}

// Reads a C-order 2-D uint32 or uint64 .npy; returns false with a message on anything else.
bool read_npy(const char *path, std::vector<uint64_t> &out, long &h, long &w, std::string &err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) { err = std::string(path) + ": cannot open"; return false; }
  char magic[8];
  f.read(magic, 8);
  if (!f || std::string(magic, 6) != "\x93NUMPY") { err = std::string(path) + ": not a .npy file"; return false; }
  uint32_t hlen = 0;
  if (magic[6] == 1) { uint16_t l; f.read(reinterpret_cast<char *>(&l), 2); hlen = l; }
  else { f.read(reinterpret_cast<char *>(&hlen), 4); }
  std::string hdr(hlen, ' ');
  f.read(&hdr[0], hlen);
  int bytes = hdr.find("'<u4'") != std::string::npos ? 4 : hdr.find("'<u8'") != std::string::npos ? 8
            : hdr.find("'|u1'") != std::string::npos ? 1 : 0;
  if (!bytes || hdr.find("'fortran_order': False") == std::string::npos) {
    err = std::string(path) + ": expected C-order <u4 or <u8, header " + hdr; return false;
  }
  size_t s = hdr.find("'shape': (");
  if (s == std::string::npos || std::sscanf(hdr.c_str() + s + 10, "%ld, %ld", &h, &w) != 2) {
    err = std::string(path) + ": no 2-D shape in header"; return false;
  }
  out.resize(size_t(h) * size_t(w));
  for (auto &v : out) {
    if (bytes == 1) { uint8_t x; f.read(reinterpret_cast<char *>(&x), 1); v = x; }
    else if (bytes == 4) { uint32_t x; f.read(reinterpret_cast<char *>(&x), 4); v = x; }
    else { f.read(reinterpret_cast<char *>(&v), 8); }
  }
  if (!f) { err = std::string(path) + ": truncated"; return false; }
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  const bool grid_mode = argc == 6 && std::string(argv[4]) == "--grid";
  if (argc != 4 && !grid_mode)
    return fail("usage: f3_compare F3.exr DEEPSCOPE.npy MAX_ITER [--grid N]");
  const uint64_t max_iter = std::strtoull(argv[3], nullptr, 10);
  if (max_iter < 1) return fail("MAX_ITER: must be a positive integer");
  std::vector<uint64_t> ds;
  long h = 0, w = 0;
  std::string err;
  if (!read_npy(argv[2], ds, h, w, err)) return fail(err);
  std::vector<uint64_t> oracle, trusted;
  long grid = 0;
  if (grid_mode) {
    grid = std::strtol(argv[5], nullptr, 10);
    if (grid < 1 || h != grid || w != grid) return fail("--grid: N must match ORACLE.npy's N x N shape");
    oracle.swap(ds);
    std::string tpath = argv[2];
    tpath = tpath.substr(0, tpath.size() - 4) + "_trusted.npy";
    long th = 0, tw = 0;
    if (!read_npy(tpath.c_str(), trusted, th, tw, err)) return fail(err);
    Imf::InputFile probe(argv[1]);
    const Imath::Box2i pw = probe.header().dataWindow();
    w = pw.max.x - pw.min.x + 1;
    h = pw.max.y - pw.min.y + 1;
    ds.assign(size_t(h) * size_t(w), 0);
  }

  std::vector<uint64_t> f3(size_t(h) * size_t(w));
  try {
    Imf::InputFile in(argv[1]);
    const Imath::Box2i dw = in.header().dataWindow();
    const long fw = dw.max.x - dw.min.x + 1, fh = dw.max.y - dw.min.y + 1;
    if (fw != w || fh != h) return fail("sizes differ: F3 " + std::to_string(fw) + "x" + std::to_string(fh) +
                                        ", deepscope " + std::to_string(w) + "x" + std::to_string(h));
    const bool two = in.header().channels().findChannel("N0") != nullptr;
    if (!two && !in.header().channels().findChannel("N")) return fail(std::string(argv[1]) + ": no N channel");
    std::vector<uint32_t> n0(f3.size()), n1(f3.size(), 0);
    Imf::FrameBuffer fb;
    const size_t xs = sizeof(uint32_t), ys = xs * size_t(w);
    char *base0 = reinterpret_cast<char *>(n0.data()) - (dw.min.x + dw.min.y * long(w)) * long(xs);
    char *base1 = reinterpret_cast<char *>(n1.data()) - (dw.min.x + dw.min.y * long(w)) * long(xs);
    fb.insert(two ? "N0" : "N", Imf::Slice(Imf::UINT, base0, xs, ys));
    if (two) fb.insert("N1", Imf::Slice(Imf::UINT, base1, xs, ys));
    in.setFrameBuffer(fb);
    in.readPixels(dw.min.y, dw.max.y);
    for (long y = 0; y < h; ++y)
      for (long x = 0; x < w; ++x) {
        const size_t k = size_t(h - 1 - y) * size_t(w) + size_t(x);  // flip F3's rows
        const uint64_t raw = two ? (uint64_t(n1[k]) << 32 | n0[k]) : n0[k];
        const bool inside = two ? raw == ~uint64_t(0) : raw == 0xFFFFFFFFu;
        f3[size_t(y) * size_t(w) + size_t(x)] = inside ? max_iter : raw - 1024;
      }
  } catch (const std::exception &e) {
    return fail(std::string(argv[1]) + ": " + e.what());
  }

  if (grid_mode) {  // pixel (floor((k + 0.5) W / N), floor((l + 0.5) H / N)) at oracle[l][k]
    long n_trusted = 0, exact = 0, off1 = 0, beyond = 0;
    for (long l = 0; l < grid; ++l)
      for (long k = 0; k < grid; ++k) {
        if (!trusted[size_t(l * grid + k)]) continue;
        const long x = long((k + 0.5) * double(w) / double(grid)), y = long((l + 0.5) * double(h) / double(grid));
        const long long d = (long long)f3[size_t(y) * size_t(w) + size_t(x)] - (long long)oracle[size_t(l * grid + k)];
        ++n_trusted;
        (d == 0 ? exact : std::llabs(d) == 1 ? off1 : beyond)++;
      }
    std::printf("F3 against MPFR on a %ld x %ld grid: %ld trusted pixels, %ld exact, %ld off by one, %ld beyond\n",
                grid, grid, n_trusted, exact, off1, beyond);
    return 0;
  }
  // Offset between the two programs' counts: the most common f3 - deepscope over pixels both escape.
  std::map<long long, long> hist;
  long f3_in = 0, ds_in = 0, only_f3_in = 0, only_ds_in = 0;
  long double f3_sum = 0, ds_sum = 0;
  for (size_t k = 0; k < ds.size(); ++k) {
    const bool a = f3[k] >= max_iter, b = ds[k] >= max_iter;
    f3_in += a; ds_in += b; only_f3_in += a && !b; only_ds_in += b && !a;
    f3_sum += f3[k] < max_iter ? f3[k] : max_iter;
    ds_sum += ds[k] < max_iter ? ds[k] : max_iter;
    if (!a && !b) ++hist[(long long)f3[k] - (long long)ds[k]];
  }
  long long offset = 0;
  long best = -1;
  for (auto &kv : hist) if (kv.second > best) { best = kv.second; offset = kv.first; }
  long within1 = 0, beyond1 = 0;
  for (auto &kv : hist) (std::llabs(kv.first - offset) <= 1 ? within1 : beyond1) += kv.second;
  std::printf("pixels %ld x %ld; max_iter %llu\n", w, h, (unsigned long long)max_iter);
  std::printf("iterations (inside counted as max_iter): F3 %.4Le, deepscope %.4Le\n", f3_sum, ds_sum);
  std::printf("never escaped: F3 %ld, deepscope %ld; F3 only %ld, deepscope only %ld\n", f3_in, ds_in,
              only_f3_in, only_ds_in);
  std::printf("both escaped: count offset f3 - deepscope = %lld on %ld pixels; %ld within 1 of it, %ld beyond\n",
              offset, best, within1, beyond1);
  std::printf("differences (f3 - deepscope - offset: pixels):");
  int shown = 0;
  for (auto &kv : hist)
    if (kv.first != offset && shown++ < 12) std::printf(" %+lld:%ld", kv.first - offset, kv.second);
  std::printf("\n");
  return 0;
}
