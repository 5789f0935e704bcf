// Linux interfaces that Swift's Glibc module leaves out (it is built without _GNU_SOURCE):
// batched datagram calls, epoll, eventfd, timerfd, the ICMP error queue and thread names.
#ifndef CAMRTP_CLINUX_SHIM_H
#define CAMRTP_CLINUX_SHIM_H

#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <netinet/in.h>
#include <linux/errqueue.h>
#include <pthread.h>

/// Glibc's `struct mmsghdr`, `sendmmsg(2)` and `recvmmsg(2)`, declared only under _GNU_SOURCE.
struct camrtp_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
int camrtp_sendmmsg(int fd, struct camrtp_mmsghdr *messages, unsigned int count, int flags)
    __asm__("sendmmsg");

/// The first control message of a `msghdr`, and the next one: CMSG_FIRSTHDR and CMSG_NXTHDR are macros.
static inline struct cmsghdr *camrtp_cmsg_first(struct msghdr *message) {
    return CMSG_FIRSTHDR(message);
}
static inline struct cmsghdr *camrtp_cmsg_next(struct msghdr *message, struct cmsghdr *header) {
    return CMSG_NXTHDR(message, header);
}
/// The data of a control message (CMSG_DATA), here a `struct sock_extended_err`.
static inline const struct sock_extended_err *camrtp_cmsg_extended_error(struct cmsghdr *header) {
    return (const struct sock_extended_err *)CMSG_DATA(header);
}

/// `pthread_setname_np(3)`, declared only under _GNU_SOURCE: the name `top -H` and debuggers show,
/// up to 15 bytes.
int camrtp_pthread_setname_np(pthread_t thread, const char *name) __asm__("pthread_setname_np");

#endif
