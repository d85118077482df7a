// libFuzzer target: a location read from a PNG's tEXt chunk, as read_location_file does it
// (app/image_io.h png_find_text, then parse_location). The input is the file after the PNG
// signature; when its first byte is odd the chunks' CRCs are set right first, so that the fuzzer
// reaches the chunk contents instead of stopping at the CRC check every time.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "app/io/image_io.h"

namespace {

void set_crcs(std::string* png) {
  std::size_t at = 8;
  while (png->size() - at >= 12) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(png->data()) + at;
    const uint32_t len = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    if (len > png->size() - at - 12) return;
    const uint32_t crc = ds::app::crc32(p + 4, len + 4);
    for (int i = 0; i < 4; ++i) (*png)[at + 8 + len + i] = static_cast<char>(crc >> (24 - 8 * i));
    at += 12 + len;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string png("\x89PNG\r\n\x1a\n", 8);
  png += ds::fuzz::text_of(data + 1, size - 1);
  if (data[0] & 1) set_crcs(&png);
  DEEPSCOPE_FUZZ_REQUIRE(ds::app::is_png(png));
  std::string text;
  try {
    if (!ds::app::png_find_text(png, ds::app::kPngLocationKey, &text)) return 0;
  } catch (const ds::IoError&) {
    return 0;
  }
  ds::fuzz::check_location_reader([&] { return ds::app::parse_location(text, "fuzz.png"); });
  // The text written into a PNG of our own is found there again, byte for byte.
  if (text.find('\0') == std::string::npos) {
    const std::string ours =
        ds::app::encode_png(std::vector<uint8_t>(3, 0), 1, 1, {{ds::app::kPngLocationKey, text}});
    std::string again;
    DEEPSCOPE_FUZZ_REQUIRE(ds::app::png_find_text(ours, ds::app::kPngLocationKey, &again) && again == text);
  }
  return 0;
}
