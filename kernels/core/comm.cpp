// The collectives of comm.h over point-to-point messages, and ranks that are threads of one
// process (mailboxes keyed by sender, receiver and tag).
#include "comm.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace ds::work {

namespace {
constexpr int kTagAny = kCommTagBase + 1, kTagGather = kCommTagBase + 2, kTagBroadcast = kCommTagBase + 3;
}

bool any_rank(Comm& c, bool mine) {
  if (c.size() == 1) return mine;
  const std::vector<Bytes> all = gather_to_root(c, Bytes{static_cast<char>(mine ? 1 : 0)});
  bool any = mine;
  for (const Bytes& b : all) any = any || (!b.empty() && b[0] != 0);
  return broadcast_from_root(c, Bytes{static_cast<char>(any ? 1 : 0)}).at(0) != 0;
}

std::vector<Bytes> gather_to_root(Comm& c, const Bytes& mine) {
  const int n = c.size();
  if (c.rank() != 0) {
    c.exchange({{0, kTagGather, mine}}, {});
    return {};
  }
  std::vector<Comm::In> in;
  for (int r = 1; r < n; ++r) in.push_back({r, kTagGather});
  std::vector<Bytes> got = c.exchange({}, in);
  got.insert(got.begin(), mine);
  return got;
}

Bytes broadcast_from_root(Comm& c, const Bytes& root_bytes) {
  const int n = c.size();
  if (c.rank() == 0) {
    std::vector<Comm::Out> out;
    for (int r = 1; r < n; ++r) out.push_back({r, kTagBroadcast, root_bytes});
    c.exchange(out, {});
    return root_bytes;
  }
  return c.exchange({}, {{0, kTagBroadcast}}).at(0);
}

namespace {

struct Post {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::tuple<int, int, int>, std::deque<Bytes>> box;  // (from, to, tag)
};

class LocalComm final : public Comm {
 public:
  LocalComm(std::shared_ptr<Post> post, int rank, int size)
      : post_(std::move(post)), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<Bytes> exchange(const std::vector<Out>& out, const std::vector<In>& in) override {
    {
      std::lock_guard<std::mutex> lock(post_->mu);
      for (const Out& o : out) {
        if (o.to < 0 || o.to >= size_)
          throw std::runtime_error("local_comms: no rank " + std::to_string(o.to));
        post_->box[{rank_, o.to, o.tag}].push_back(o.bytes);
      }
    }
    post_->cv.notify_all();
    std::vector<Bytes> got;
    for (const In& i : in) {
      std::unique_lock<std::mutex> lock(post_->mu);
      auto& q = post_->box[{i.from, rank_, i.tag}];
      post_->cv.wait(lock, [&] { return !q.empty(); });
      got.push_back(std::move(q.front()));
      q.pop_front();
    }
    return got;
  }

 private:
  std::shared_ptr<Post> post_;
  int rank_, size_;
};

}  // namespace

std::vector<std::unique_ptr<Comm>> local_comms(int n) {
  if (n < 1) throw std::invalid_argument("local_comms: at least one rank");
  auto post = std::make_shared<Post>();
  std::vector<std::unique_ptr<Comm>> v;
  for (int r = 0; r < n; ++r) v.push_back(std::make_unique<LocalComm>(post, r, n));
  return v;
}

}  // namespace ds::work
