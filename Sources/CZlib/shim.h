// zlib for Swift: STUN's FINGERPRINT is zlib's CRC-32 (RFC 5389 section 15.5).
#ifndef CAMRTP_CZLIB_SHIM_H
#define CAMRTP_CZLIB_SHIM_H

#include <zlib.h>

#endif
