// The domain decomposition of the rank engine (md_ranks.cpp), as pure functions: the box's cell
// layers along z cut into one slab of whole layers per rank, the rank that owns a layer, the halo
// layers a slab needs, and which of a rank's atoms stay, migrate or go into a neighbour's halo.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ds::drift::detail {

// Rank r owns the cell layers z in [begin(r), end(r)): ncell layers shared as evenly as possible
// (the first slabs are the thinner ones). The cells are at least one cutoff wide, so force_atom's
// 27 cells reach one layer beyond a slab on each side: a slab needs one whole layer, and its halo is
// the layer below it and the layer above it (periodically), which its two neighbours own.
struct Slabs {
  int ncell = 1, ranks = 1;
  Slabs(int ncell_, int ranks_) : ncell(ncell_), ranks(ranks_) {
    if (ranks < 1 || ranks > ncell)
      throw std::invalid_argument("Slabs: " + std::to_string(ranks) + " ranks for " + std::to_string(ncell) +
                                  " cell layers (each slab needs one whole layer)");
  }
  int begin(int r) const { return static_cast<int>(static_cast<int64_t>(r) * ncell / ranks); }
  int end(int r) const { return begin(r + 1); }
  // The rank whose slab holds layer z (0 <= z < ncell).
  int owner(int z) const {
    int r = static_cast<int>((static_cast<int64_t>(z) + 1) * ranks / ncell);
    if (r >= ranks) r = ranks - 1;
    while (begin(r) > z) --r;
    while (end(r) <= z) ++r;
    return r;
  }
  int below(int r) const { return (begin(r) - 1 + ncell) % ncell; }  // halo layer under the slab
  int above(int r) const { return end(r) % ncell; }                  // halo layer over it
  int rank_below(int r) const { return (r - 1 + ranks) % ranks; }    // owner of below(r)
  int rank_above(int r) const { return (r + 1) % ranks; }            // owner of above(r)
  // With two ranks, a slab of ncell - 1 layers has one layer for both halos (the other rank's single
  // layer): it is then taken once.
  bool one_halo_layer(int r) const { return below(r) == above(r); }
};

// Rank r's atoms by their layer: those that leave its slab (to[q] lists the indices going to rank q,
// in the given order) and those that stay.
struct Migration {
  std::vector<int> stay;
  std::vector<std::vector<int>> to;
};
inline Migration plan_migration(const Slabs& s, int r, const std::vector<int>& layer) {
  Migration m;
  m.to.resize(static_cast<std::size_t>(s.ranks));
  const int b = s.begin(r), e = s.end(r);
  for (int i = 0; i < static_cast<int>(layer.size()); ++i) {
    const int z = layer[static_cast<std::size_t>(i)];
    if (z >= b && z < e)
      m.stay.push_back(i);
    else
      m.to[static_cast<std::size_t>(s.owner(z))].push_back(i);
  }
  return m;
}

// The atoms of rank r's bottom layer (the halo above its lower neighbour's slab) and of its top layer
// (the halo below its upper neighbour's), in the given order. Every atom must be in r's slab.
struct HaloSend {
  std::vector<int> down, up;
};
inline HaloSend plan_halo(const Slabs& s, int r, const std::vector<int>& layer) {
  HaloSend h;
  const int b = s.begin(r), t = s.end(r) - 1;
  for (int i = 0; i < static_cast<int>(layer.size()); ++i) {
    const int z = layer[static_cast<std::size_t>(i)];
    if (z == b) h.down.push_back(i);
    if (z == t) h.up.push_back(i);  // a one-layer slab sends its atoms both ways
  }
  return h;
}

}  // namespace ds::drift::detail
