/* mpiwatch --web [ADDR:]PORT (client/web_addr.c): IPv4, localhost and
 * bracketed IPv6 addresses with their ports, the URLs printed for them, and
 * a message that names the mistake for each bad value. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "check.h"
#include "web_addr.h"

static void good(void)
{
    static const struct { const char *where; int ipv6; const char *url; } ok[] = {
        {"8080", 0, "http://127.0.0.1:8080/"},
        {"0", 0, "http://127.0.0.1:0/"},
        {"127.0.0.1:65535", 0, "http://127.0.0.1:65535/"},
        {"0.0.0.0:80", 0, "http://0.0.0.0:80/"},
        {"localhost:8080", 0, "http://127.0.0.1:8080/"},
        {"[::1]:8080", 1, "http://[::1]:8080/"},
        {"[::]:0", 1, "http://[::]:0/"},
        {"[fd00::2]:9000", 1, "http://[fd00::2]:9000/"},
        {"[::ffff:127.0.0.1]:81", 1, "http://[::ffff:127.0.0.1]:81/"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        mwc_web_addr a;
        char err[300] = "", url[80];
        int rc = mwc_web_addr_parse(ok[i].where, &a, err, sizeof err);
        CHECK(rc == 0, "'%s' is accepted, got: %s", ok[i].where, err);
        if (rc != 0)
            continue;
        CHECK(a.ipv6 == ok[i].ipv6 && a.sa.ss_family == (ok[i].ipv6 ? AF_INET6 : AF_INET) &&
                  a.len == (ok[i].ipv6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in)),
              "'%s': family %d, length %u", ok[i].where, a.sa.ss_family, (unsigned)a.len);
        unsigned port = ntohs(a.ipv6 ? ((struct sockaddr_in6 *)&a.sa)->sin6_port
                                     : ((struct sockaddr_in *)&a.sa)->sin_port);
        mwc_web_addr_url(&a, port, url, sizeof url);
        CHECK(strcmp(url, ok[i].url) == 0, "'%s' gives %s, not %s", ok[i].where, url, ok[i].url);
    }
}

static void bad(void)
{
    static const struct { const char *where, *says; } no[] = {
        {"", "the port must be a number from 0 to 65535"},
        {"65536", "the port must be a number from 0 to 65535"},
        {"-1", "the port must be a number from 0 to 65535"},
        {"+80", "the port must be a number from 0 to 65535"},
        {" 80", "the port must be a number from 0 to 65535"},
        {"80x", "the port must be a number from 0 to 65535"},
        {"99999999999999999999", "the port must be a number from 0 to 65535"},
        {"127.0.0.1:", "the port must be a number from 0 to 65535"},
        {":8080", "no address before the port"},
        {"example.org:80", "'example.org' is not an IPv4 address"},
        {"300.1.1.1:80", "'300.1.1.1' is not an IPv4 address"},
        {"::1:8080", "put an IPv6 address in brackets: [::1]:8080"},
        {"fe80::zz:80", "put an IPv6 address in brackets: [fe80::zz]:PORT"},
        {"::1", "put an IPv6 address in brackets: [::1]:PORT"},
        {"[::1]", "no port after the address: add :PORT"},
        {"[::1]8080", "no port after the address: give [IPV6]:PORT"},
        {"[::1:8080", "no ']' after the IPv6 address"},
        {"[]:80", "'' is not an IPv6 address"},
        {"[127.0.0.1]:80", "'127.0.0.1' is not an IPv6 address"},
        {"[::1]:http", "the port must be a number from 0 to 65535"},
        {"[fe80::1%eth0]:80", "'fe80::1%eth0' is not an IPv6 address"},
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        mwc_web_addr a;
        char err[300] = "";
        int rc = mwc_web_addr_parse(no[i].where, &a, err, sizeof err);
        CHECK(rc == -1, "'%s' is refused", no[i].where);
        CHECK(strstr(err, no[i].says) != NULL && strncmp(err, "--web ", 6) == 0,
              "'%s': the message '%s' says '%s'", no[i].where, err, no[i].says);
    }
}

int main(void)
{
    good();
    bad();
    return CHECK_DONE("test_web_addr");
}
