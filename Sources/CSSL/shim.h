// OpenSSL 3 for Swift. Function-like macros and variadic calls are wrapped as static inline
// functions, and option bits built with SSL_OP_BIT as constants: Swift imports neither.
#ifndef CAMRTP_CSSL_SHIM_H
#define CAMRTP_CSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/srtp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

static const uint64_t CAMRTP_SSL_OP_NO_QUERY_MTU = SSL_OP_NO_QUERY_MTU;
static const uint64_t CAMRTP_SSL_OP_NO_TICKET = SSL_OP_NO_TICKET;
static const uint64_t CAMRTP_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const int CAMRTP_MBSTRING_ASC = MBSTRING_ASC;

/// A P-256 (or other named-curve) key pair; EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen.
static inline EVP_PKEY *camrtp_EVP_EC_gen(const char *curve) {
    return EVP_EC_gen(curve);
}

static inline int camrtp_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

static inline int camrtp_SSL_CTX_set_max_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_max_proto_version(context, version);
}

static inline void camrtp_SSL_CTX_disable_session_cache(SSL_CTX *context) {
    (void)SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
}

/// Largest datagram DTLS writes (records plus headers), used with SSL_OP_NO_QUERY_MTU; returns
/// `mtu` when taken, 0 when below the DTLS minimum.
static inline int camrtp_SSL_set_mtu(SSL *ssl, long mtu) {
    return (int)SSL_set_mtu(ssl, mtu);
}

/// 1 and the time left when a retransmission timer runs, 0 when none does.
static inline int camrtp_DTLSv1_get_timeout(SSL *ssl, struct timeval *remaining) {
    return (int)DTLSv1_get_timeout(ssl, remaining);
}

/// 1 after retransmitting the last flight, 0 when the timer has not expired, -1 on failure.
static inline int camrtp_DTLSv1_handle_timeout(SSL *ssl) {
    return (int)DTLSv1_handle_timeout(ssl);
}

/// Makes an empty memory BIO report "retry" rather than end of file.
static inline void camrtp_BIO_set_mem_eof_return(BIO *bio, int value) {
    (void)BIO_set_mem_eof_return(bio, value);
}

static inline int camrtp_BIO_reset(BIO *bio) {
    return BIO_reset(bio);
}

static inline long camrtp_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

#endif
