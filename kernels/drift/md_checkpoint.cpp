// PREFIX.ckpt's encoding (md_checkpoint.h): the header lines, the fields, the checksum.
#include "md_checkpoint.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "md_common.h"

namespace ds::drift {

namespace {

const char kMagic[] = "deepscope drift md checkpoint v1\n";

template <class T>
void put(std::string* b, const T& v) {
  b->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

struct Reader {
  const std::string& b;
  std::size_t at = 0;
  void need(std::size_t n, const char* what) {
    if (b.size() - at < n) throw std::invalid_argument(std::string("truncated in its ") + what);
  }
  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, b.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
};

}  // namespace

std::string checkpoint_file_bytes(const MdCheckpointFile& f) {
  if (f.fingerprint.find('\n') != std::string::npos)
    throw std::invalid_argument("checkpoint: the fingerprint must be one line");
  std::string b = kMagic + f.fingerprint + "\n";
  const MdCheckpoint& c = f.state;
  put(&b, static_cast<uint32_t>(f.precision));
  put(&b, f.seed);
  put(&b, c.equilibrated);
  put(&b, static_cast<uint8_t>(c.sampling ? 1 : 0));
  put(&b, c.step);
  put(&b, c.e0);
  put(&b, c.e_tol);
  put(&b, c.seconds);
  put(&b, static_cast<uint64_t>(c.samples.size()));
  for (const MdSample& s : c.samples) {
    put(&b, s.step);
    put(&b, s.time);
    put(&b, s.ke);
    put(&b, s.pe);
    put(&b, s.total);
  }
  put(&b, static_cast<uint64_t>(c.engine.size()));
  b.append(reinterpret_cast<const char*>(c.engine.data()), c.engine.size());
  put(&b, detail::fnv1a(detail::kFnvOffset, b.data(), b.size()));
  return b;
}

MdCheckpointFile parse_checkpoint_file(const std::string& bytes) {
  const std::size_t m = sizeof kMagic - 1;
  if (bytes.size() < m || bytes.compare(0, m, kMagic) != 0)
    throw std::invalid_argument(
        "not a drift md checkpoint (its first line is not \"deepscope drift md checkpoint v1\")");
  if (bytes.size() < m + sizeof(uint64_t)) throw std::invalid_argument("truncated in its fingerprint");
  uint64_t sum;
  const std::size_t body = bytes.size() - sizeof sum;
  std::memcpy(&sum, bytes.data() + body, sizeof sum);
  if (detail::fnv1a(detail::kFnvOffset, bytes.data(), body) != sum)
    throw std::invalid_argument("its checksum does not match its content (truncated or altered)");
  const std::string content = bytes.substr(0, body);
  const std::size_t eol = content.find('\n', m);
  if (eol == std::string::npos) throw std::invalid_argument("truncated in its fingerprint");
  MdCheckpointFile f;
  f.fingerprint = content.substr(m, eol - m);
  Reader r{content, eol + 1};
  const uint32_t prec = r.get<uint32_t>("precision");
  if (prec >= all_precisions().size())
    throw std::invalid_argument("unknown precision number " + std::to_string(prec));
  f.precision = static_cast<Precision>(prec);
  f.seed = r.get<uint64_t>("seed");
  MdCheckpoint& c = f.state;
  c.equilibrated = r.get<int64_t>("equilibration steps");
  const uint8_t sampling = r.get<uint8_t>("phase");
  if (sampling > 1) throw std::invalid_argument("bad phase byte " + std::to_string(sampling));
  c.sampling = sampling == 1;
  c.step = r.get<int64_t>("step");
  c.e0 = r.get<double>("E(0)");
  c.e_tol = r.get<double>("tolerance");
  c.seconds = r.get<double>("seconds");
  const uint64_t ns = r.get<uint64_t>("sample count");
  constexpr std::size_t kSampleBytes = sizeof(int64_t) + 4 * sizeof(double);
  if (ns > (content.size() - r.at) / kSampleBytes)
    throw std::invalid_argument("truncated in its samples (" + std::to_string(ns) + " announced)");
  c.samples.resize(static_cast<std::size_t>(ns));
  for (MdSample& s : c.samples) {
    s.step = r.get<int64_t>("samples");
    s.time = r.get<double>("samples");
    s.ke = r.get<double>("samples");
    s.pe = r.get<double>("samples");
    s.total = r.get<double>("samples");
  }
  const uint64_t ne = r.get<uint64_t>("engine state size");
  if (ne != content.size() - r.at)
    throw std::invalid_argument("its engine state is " + std::to_string(content.size() - r.at) + " bytes, " +
                                std::to_string(ne) + " announced");
  c.engine.assign(content.begin() + static_cast<std::ptrdiff_t>(r.at), content.end());
  return f;
}

}  // namespace ds::drift
