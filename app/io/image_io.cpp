// PNG encoding through stb_image_write (Debian's compiled libstb) with tEXt chunk insertion, PNG
// chunk reading, .npy encoding.
#include "image_io.h"

#include <cstdio>

#include <stb_image_write.h>

#include <cstring>

#include "kernels/core/atomic_file.h"

namespace ds::app {
namespace {

const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

void put_be32(std::string& out, uint32_t v) {
  out.push_back(static_cast<char>(v >> 24));
  out.push_back(static_cast<char>(v >> 16));
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v));
}

uint32_t get_be32(const std::string& s, std::size_t at) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(s.data()) + at;
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

std::string text_chunk(const std::string& keyword, const std::string& text) {
  if (keyword.empty() || keyword.size() > 79) throw IoError("PNG text keyword must have 1-79 characters");
  for (unsigned char c : keyword)
    if (c < 32 || c > 126)
      throw IoError("PNG text keyword \"" + keyword + "\" has a non-printable character");
  if (text.find('\0') != std::string::npos) throw IoError("PNG text must not contain NUL");
  std::string body = "tEXt" + keyword + std::string(1, '\0') + text;
  std::string chunk;
  put_be32(chunk, static_cast<uint32_t>(body.size() - 4));
  chunk += body;
  put_be32(chunk, crc32(reinterpret_cast<const unsigned char*>(body.data()), body.size()));
  return chunk;
}

void append_to_string(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

template <class T>
std::string npy(const std::vector<T>& data, int rows, int cols, const char* descr) {
  if (rows < 0 || cols < 0 || data.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    throw IoError("npy: data size does not match the shape");
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of 64
  // and ended by a newline.
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  static_assert(sizeof(T) == 8 || sizeof(T) == 4 || sizeof(T) == 1, "npy: 1-, 4- or 8-byte elements");
  out.reserve(out.size() + data.size() * sizeof(T));
  for (T v : data) {
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof(T));
    for (std::size_t b = 0; b < sizeof(T); ++b)
      out.push_back(static_cast<char>((u >> (8 * b)) & 0xff));  // little-endian
  }
  return out;
}

}  // namespace

// Slicing-by-8 (Intel's, Kounavis and Berry 2008): eight tables fold eight bytes per step, so the
// binary TMD case files' 300 MB are checked at about a byte per cycle instead of five.
uint32_t crc32(const unsigned char* p, std::size_t n, uint32_t crc) {
  static const auto table = [] {
    struct T {
      uint32_t v[8][256];
    } t;
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t.v[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t.v[s][i] = (t.v[s - 1][i] >> 8) ^ t.v[0][t.v[s - 1][i] & 0xff];
    return t;
  }();
  const auto& v = table.v;
  crc = ~crc;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint32_t lo = crc ^ (uint32_t{p[i]} | uint32_t{p[i + 1]} << 8 | uint32_t{p[i + 2]} << 16 |
                               uint32_t{p[i + 3]} << 24);
    crc = v[7][lo & 0xff] ^ v[6][(lo >> 8) & 0xff] ^ v[5][(lo >> 16) & 0xff] ^ v[4][lo >> 24] ^
          v[3][p[i + 4]] ^ v[2][p[i + 5]] ^ v[1][p[i + 6]] ^ v[0][p[i + 7]];
  }
  for (; i < n; ++i) crc = v[0][(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::string encode_png(const std::vector<uint8_t>& rgb, int width, int height,
                       const std::vector<std::pair<std::string, std::string>>& text) {
  if (width < 1 || height < 1 || rgb.size() != static_cast<std::size_t>(width) * height * 3)
    throw IoError("PNG: pixel data does not match the size");
  if (static_cast<uint64_t>(width) * static_cast<uint64_t>(height) * 3 > 0x7fffffffu)
    throw IoError("PNG: " + std::to_string(width) + "x" + std::to_string(height) +
                  " is beyond the encoder's 2 GiB limit");
  std::string png;
  if (!stbi_write_png_to_func(append_to_string, &png, width, height, 3, rgb.data(), width * 3))
    throw IoError("PNG encoding failed");
  // stb writes the signature, then IHDR (8 + 13 + 4 bytes): chunks go right after it.
  const std::size_t after_ihdr = 8 + 25;
  if (png.size() < after_ihdr || png.compare(12, 4, "IHDR") != 0) throw IoError("PNG encoder gave no IHDR");
  std::string chunks;
  for (const auto& kv : text) chunks += text_chunk(kv.first, kv.second);
  png.insert(after_ihdr, chunks);
  return png;
}

bool is_png(const std::string& data) {
  return data.size() >= 8 && std::memcmp(data.data(), kSignature, 8) == 0;
}

bool png_find_text(const std::string& png, const std::string& keyword, std::string* text) {
  if (!is_png(png)) throw IoError("not a PNG file");
  std::size_t at = 8;
  while (at < png.size()) {
    if (png.size() - at < 12) throw IoError("PNG is truncated");
    const uint32_t len = get_be32(png, at);
    if (len > 0x7fffffffu || png.size() - at - 12 < len) throw IoError("PNG chunk length is invalid");
    const std::string type = png.substr(at + 4, 4);
    const uint32_t crc = get_be32(png, at + 8 + len);
    if (crc32(reinterpret_cast<const unsigned char*>(png.data()) + at + 4, len + 4) != crc)
      throw IoError("PNG chunk " + type + " fails its CRC check");
    if (type == "tEXt") {
      const std::string body = png.substr(at + 8, len);
      const std::size_t nul = body.find('\0');
      if (nul != std::string::npos && body.compare(0, nul, keyword) == 0 && nul == keyword.size()) {
        *text = body.substr(nul + 1);
        return true;
      }
    }
    if (type == "IEND") return false;
    at += 12 + len;
  }
  throw IoError("PNG has no IEND chunk");
}

std::string encode_npy(const std::vector<uint32_t>& data, int rows, int cols) {
  return npy(data, rows, cols, "<u4");
}
std::string encode_npy(const std::vector<uint64_t>& data, int rows, int cols) {
  return npy(data, rows, cols, "<u8");
}
std::string encode_counts_npy(const std::vector<uint32_t>& counts, const std::vector<uint32_t>& counts_high,
                              int rows, int cols) {
  bool fits = true;
  for (uint32_t h : counts_high) fits = fits && h == 0;
  if (fits) return encode_npy(counts, rows, cols);
  if (counts_high.size() != counts.size()) throw IoError("npy: counts and their high words differ in size");
  std::vector<uint64_t> all(counts.size());
  for (std::size_t k = 0; k < all.size(); ++k)
    all[k] = (static_cast<uint64_t>(counts_high[k]) << 32) | counts[k];
  return encode_npy(all, rows, cols);
}
std::string encode_smooth_npy(const std::vector<float>& smooth, const std::vector<uint32_t>& counts,
                              const std::vector<uint32_t>& counts_high, int rows, int cols) {
  if (counts_high.empty()) return encode_npy(smooth, rows, cols);
  if (counts_high.size() != smooth.size() || counts.size() != smooth.size())
    throw IoError("npy: smooth counts and counts differ in size");
  std::vector<double> all(smooth.size());
  for (std::size_t k = 0; k < all.size(); ++k)
    all[k] = static_cast<double>((static_cast<uint64_t>(counts_high[k]) << 32) | counts[k]) + smooth[k];
  return encode_npy(all, rows, cols);
}
std::string encode_npy(const std::vector<float>& data, int rows, int cols) {
  return npy(data, rows, cols, "<f4");
}
std::string encode_npy(const std::vector<uint8_t>& data, int rows, int cols) {
  return npy(data, rows, cols, "|u1");
}
std::string encode_npy(const std::vector<int32_t>& data, int rows, int cols) {
  return npy(data, rows, cols, "<i4");
}
std::string encode_npy(const std::vector<double>& data, int rows, int cols) {
  return npy(data, rows, cols, "<f8");
}

bool decode_npy(const std::string& npy, std::size_t elem_size, int* rows, int* cols, std::string* data) {
  if (npy.size() < 10 || npy.compare(0, 6, "\x93NUMPY") != 0) return false;
  const std::size_t header_len = static_cast<unsigned char>(npy[8]) |
                                 (static_cast<std::size_t>(static_cast<unsigned char>(npy[9])) << 8);
  if (npy.size() < 10 + header_len) return false;
  const std::string header = npy.substr(10, header_len);
  const std::size_t shape = header.find("'shape': (");
  if (shape == std::string::npos) return false;
  if (std::sscanf(header.c_str() + shape + 10, "%d, %d", rows, cols) != 2 || *rows < 1 || *cols < 1)
    return false;
  *data = npy.substr(10 + header_len);
  return data->size() == static_cast<std::size_t>(*rows) * static_cast<std::size_t>(*cols) * elem_size;
}

}  // namespace ds::app
