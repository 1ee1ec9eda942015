/* Where the live page listens (web_addr.h). */
#include "web_addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE "give PORT, IPV4:PORT or [IPV6]:PORT"

/* PORT: digits only (no sign, no spaces), at most 65535. */
static int port_of(const char *s, unsigned *port)
{
    size_t n = strlen(s);
    if (n == 0 || n > 5 || strspn(s, "0123456789") != n)
        return -1;
    unsigned long p = strtoul(s, NULL, 10);
    if (p > 65535)
        return -1;
    *port = (unsigned)p;
    return 0;
}

static int v4(mwc_web_addr *a, const char *host, unsigned port)
{
    struct sockaddr_in *in = (struct sockaddr_in *)&a->sa;
    in->sin_family = AF_INET;
    in->sin_port = htons((uint16_t)port);
    a->len = sizeof *in;
    a->ipv6 = 0;
    return inet_pton(AF_INET, host, &in->sin_addr) == 1 ? 0 : -1;
}

static int v6(mwc_web_addr *a, const char *host, unsigned port)
{
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->sa;
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons((uint16_t)port);
    a->len = sizeof *in6;
    a->ipv6 = 1;
    return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1 ? 0 : -1;
}

int mwc_web_addr_parse(const char *where, mwc_web_addr *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    char host[INET6_ADDRSTRLEN + 8];
    const char *port;
    unsigned p;
    if (where[0] == '[') {
        const char *close = strchr(where, ']');
        if (close == NULL) {
            snprintf(err, errlen, "--web %s: no ']' after the IPv6 address: %s", where, USAGE);
            return -1;
        }
        size_t n = (size_t)(close - where - 1);
        if (close[1] != ':') {
            snprintf(err, errlen, "--web %s: no port after the address: %s", where,
                     close[1] ? "give [IPV6]:PORT" : "add :PORT");
            return -1;
        }
        if (n == 0 || n >= sizeof host) {
            snprintf(err, errlen, "--web %s: '%.*s' is not an IPv6 address (such as ::1 or ::)",
                     where, (int)(n < 64 ? n : 64), where + 1);
            return -1;
        }
        memcpy(host, where + 1, n);
        host[n] = '\0';
        port = close + 2;
        if (port_of(port, &p) != 0) {
            snprintf(err, errlen, "--web %s: the port must be a number from 0 to 65535", where);
            return -1;
        }
        if (v6(a, host, p) != 0) {
            snprintf(err, errlen, "--web %s: '%s' is not an IPv6 address (such as ::1 or ::)",
                     where, host);
            return -1;
        }
        return 0;
    }
    const char *colon = strrchr(where, ':');
    if (colon != NULL && memchr(where, ':', (size_t)(colon - where)) != NULL) {
        /* two colons or more: an IPv6 address, whose own colons would hide
         * the port's: show the brackets where they would make sense */
        char head[INET6_ADDRSTRLEN + 8];
        struct in6_addr any;
        unsigned p6;
        size_t n = (size_t)(colon - where);
        int split = n < sizeof head && port_of(colon + 1, &p6) == 0;
        if (split) {
            memcpy(head, where, n);
            head[n] = '\0';
            split = inet_pton(AF_INET6, head, &any) == 1;
        }
        if (split)
            snprintf(err, errlen, "--web %s: put an IPv6 address in brackets: [%s]:%u", where,
                     head, p6);
        else
            snprintf(err, errlen, "--web %s: put an IPv6 address in brackets: [%.*s]:PORT", where,
                     inet_pton(AF_INET6, where, &any) == 1 ? 64 : (int)(n < 64 ? n : 64), where);
        return -1;
    }
    port = colon ? colon + 1 : where;
    if (port_of(port, &p) != 0) {
        snprintf(err, errlen, "--web %s: the port must be a number from 0 to 65535%s", where,
                 colon ? "" : " (" USAGE ")");
        return -1;
    }
    size_t n = colon ? (size_t)(colon - where) : 0;
    if (colon == NULL)
        snprintf(host, sizeof host, "127.0.0.1");
    else if (n == 0 || n >= sizeof host) {
        snprintf(err, errlen, "--web %s: %s before the port: %s", where,
                 n ? "an address too long" : "no address", USAGE);
        return -1;
    } else {
        memcpy(host, where, n);
        host[n] = '\0';
        if (strcmp(host, "localhost") == 0)
            snprintf(host, sizeof host, "127.0.0.1");
    }
    if (v4(a, host, p) != 0) {
        snprintf(err, errlen, "--web %s: '%s' is not an IPv4 address (such as 127.0.0.1 or "
                              "0.0.0.0; an IPv6 one goes in brackets: [::1]:PORT)", where, host);
        return -1;
    }
    return 0;
}

void mwc_web_addr_url(const mwc_web_addr *a, unsigned port, char *url, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    if (a->ipv6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&a->sa)->sin6_addr, host, sizeof host);
    else
        inet_ntop(AF_INET, &((const struct sockaddr_in *)&a->sa)->sin_addr, host, sizeof host);
    snprintf(url, len, a->ipv6 ? "http://[%s]:%u/" : "http://%s:%u/", host, port);
}
