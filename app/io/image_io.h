// Image and array files in memory: PNG (stb_image_write) with tEXt chunks inserted, tEXt lookup in
// PNGs, and NumPy .npy arrays. Callers write the bytes with write_file_atomically.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ds::app {

// PNG of interleaved 8-bit RGB (3 bytes per pixel, rows top to bottom) with one tEXt chunk per
// (keyword, text) pair placed right after IHDR. Keywords: 1-79 printable Latin-1 characters;
// texts: no NUL. Throws IoError when encoding fails or a keyword/text is invalid.
std::string encode_png(const std::vector<uint8_t>& rgb, int width, int height,
                       const std::vector<std::pair<std::string, std::string>>& text = {});

// True when `data` starts with the PNG signature.
bool is_png(const std::string& data);
// Finds the tEXt chunk with `keyword`; returns false if there is none. Throws IoError when the
// chunk structure is malformed (truncated, bad length, CRC mismatch).
bool png_find_text(const std::string& png, const std::string& keyword, std::string* text);

// NumPy .npy (format version 1.0), C order, shape (rows, cols), little-endian '<u4' / '<u8' /
// '<f4' / '<i4' / '<f8', or bytes '|u1' (masks).
std::string encode_npy(const std::vector<uint32_t>& data, int rows, int cols);
std::string encode_npy(const std::vector<uint64_t>& data, int rows, int cols);
std::string encode_npy(const std::vector<float>& data, int rows, int cols);
std::string encode_npy(const std::vector<uint8_t>& data, int rows, int cols);
std::string encode_npy(const std::vector<int32_t>& data, int rows, int cols);
std::string encode_npy(const std::vector<double>& data, int rows, int cols);
// Per-pixel iteration counts as stored by the engine (kernels/mandelbrot/counts.h: counts_high
// empty for a narrow result): '<u4' when every count fits 32 bits (always for max_iter < 2^32, so
// those files are as before), '<u8' otherwise (docs/mandelbrot.md, "Output files").
std::string encode_counts_npy(const std::vector<uint32_t>& counts, const std::vector<uint32_t>& counts_high, int rows,
                              int cols);
// Smooth counts as stored: narrow (counts_high empty), the '<f4' array as it is; wide (smooth holds
// smooth count - count), '<f8' of count + that fraction, so 5e9 + 0.3 stays 5e9 + 0.3.
std::string encode_smooth_npy(const std::vector<float>& smooth, const std::vector<uint32_t>& counts,
                              const std::vector<uint32_t>& counts_high, int rows, int cols);
// The element bytes and shape of a 2-D .npy array as encode_npy writes it, with elements of
// `elem_size` bytes; false when `npy` is not one (bad magic, no shape, or a size that disagrees).
bool decode_npy(const std::string& npy, std::size_t elem_size, int* rows, int* cols, std::string* data);

// CRC-32 (ISO 3309, as PNG uses it) of `n` bytes.
uint32_t crc32(const unsigned char* p, std::size_t n, uint32_t crc = 0);

}  // namespace ds::app
