/* mpiwatch --web [ADDR:]PORT: where the live page listens. Kept apart from
 * the server so that the parser and its messages are tested without one. */
#ifndef MWC_WEB_ADDR_H
#define MWC_WEB_ADDR_H

#include <stddef.h>
#include <sys/socket.h>

typedef struct {
    struct sockaddr_storage sa;   /* a sockaddr_in, or a sockaddr_in6 when ipv6 */
    socklen_t len;
    int ipv6;
} mwc_web_addr;

/* "PORT" (on 127.0.0.1), "IPV4:PORT", "localhost:PORT" or "[IPV6]:PORT";
 * PORT from 0 (any free port) to 65535. Host names other than localhost are
 * not looked up: the address says exactly which interface is exposed.
 * 0, or -1 with a message naming the value in err. */
int mwc_web_addr_parse(const char *where, mwc_web_addr *a, char *err, size_t errlen);

/* "http://HOST:PORT/" for a's address and the given port, an IPv6 address
 * in brackets. */
void mwc_web_addr_url(const mwc_web_addr *a, unsigned port, char *url, size_t len);

#endif
