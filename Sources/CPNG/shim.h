// libpng's simplified API for Swift. Its size bound is a function-like macro, and its format
// constants are macros built from other macros: both are exported here as functions and constants.
#ifndef CAMRTP_CPNG_SHIM_H
#define CAMRTP_CPNG_SHIM_H

#include <png.h>

static const png_uint_32 CAMRTP_PNG_IMAGE_VERSION = PNG_IMAGE_VERSION;
/// Three 8-bit channels, R, G, B in memory order.
static const png_uint_32 CAMRTP_PNG_FORMAT_RGB = PNG_FORMAT_RGB;

/// An upper bound on the PNG stream `png_image_write_to_memory` writes for `image`.
static inline png_alloc_size_t camrtp_png_image_png_size_max(const png_image *image) {
    return PNG_IMAGE_PNG_SIZE_MAX(*image);
}

#endif
