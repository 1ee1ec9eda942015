/* A minimal check macro for the client's C unit tests: each failure prints
 * where and what; main returns mwt_failures != 0. */
#ifndef MWT_CHECK_H
#define MWT_CHECK_H

#include <stdio.h>

static int mwt_failures, mwt_checks;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        mwt_checks++;                                                          \
        if (!(cond)) {                                                         \
            mwt_failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

#define CHECK_DONE(name)                                                       \
    (printf("%s: %d checks, %d failed\n", name, mwt_checks, mwt_failures),     \
     mwt_failures != 0)

#endif
