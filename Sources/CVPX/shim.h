// libvpx for Swift. Function-like macros and variadic functions do not import, so the
// ABI versions are exported as constants and vpx_codec_control_ is wrapped per argument type.
#ifndef CAMRTP_CVPX_SHIM_H
#define CAMRTP_CVPX_SHIM_H

#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

static const int CAMRTP_VPX_ENCODER_ABI_VERSION = VPX_ENCODER_ABI_VERSION;
static const int CAMRTP_VPX_DECODER_ABI_VERSION = VPX_DECODER_ABI_VERSION;

/// vpx_codec_control_ for the many VP8E_* controls that take an int.
static inline vpx_codec_err_t camrtp_vpx_control_int(vpx_codec_ctx_t *ctx, int control, int value) {
    return vpx_codec_control_(ctx, control, value);
}

/// vpx_codec_control_ for the VP8E_* controls that take an unsigned int.
static inline vpx_codec_err_t camrtp_vpx_control_uint(vpx_codec_ctx_t *ctx, int control, unsigned int value) {
    return vpx_codec_control_(ctx, control, value);
}

#endif
