// libvpx for Swift. Function-like macros and variadic functions do not import, so the
// ABI versions are exported as constants. The typed vpx_codec_control_VP8E_* helpers import as they are.
#ifndef CAMRTP_CVPX_SHIM_H
#define CAMRTP_CVPX_SHIM_H

#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

static const int CAMRTP_VPX_ENCODER_ABI_VERSION = VPX_ENCODER_ABI_VERSION;
static const int CAMRTP_VPX_DECODER_ABI_VERSION = VPX_DECODER_ABI_VERSION;

#endif
