// libsrtp2 for Swift. The suite setters that are macros are reached through their functions.
#ifndef CAMRTP_CSRTP_SHIM_H
#define CAMRTP_CSRTP_SHIM_H

#include <srtp2/srtp.h>

/// SRTP_AES_ICM_128 master key (16) plus salt (14), RFC 3711 section 8.2 / RFC 4568.
static const int CAMRTP_SRTP_AES_128_KEY_SALT_LEN = SRTP_AES_ICM_128_KEY_LEN_WSALT;
static const int CAMRTP_SRTP_AES_256_KEY_SALT_LEN = SRTP_AES_ICM_256_KEY_LEN_WSALT;
/// AEAD_AES_*_GCM master key plus 12-byte salt, RFC 7714 section 12.
static const int CAMRTP_SRTP_AES_GCM_128_KEY_SALT_LEN = SRTP_AES_GCM_128_KEY_LEN_WSALT;
static const int CAMRTP_SRTP_AES_GCM_256_KEY_SALT_LEN = SRTP_AES_GCM_256_KEY_LEN_WSALT;
static const int CAMRTP_SRTP_MAX_TRAILER_LEN = SRTP_MAX_TRAILER_LEN;

#endif
