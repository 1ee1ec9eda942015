/* Runs fuzz_decoder.c's target on files, without libFuzzer: make check
 * replays the seed corpus (and any crash reproducer added to it) with the
 * ordinary compiler. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        size_t cap = 1 << 16, n = 0, k;
        uint8_t *p = malloc(cap);
        while (p && (k = fread(p + n, 1, cap - n, f)) > 0) {
            n += k;
            if (n == cap)
                p = realloc(p, cap *= 2);
        }
        fclose(f);
        if (!p)
            return 1;
        LLVMFuzzerTestOneInput(p, n);
        free(p);
    }
    printf("fuzz_main: %d inputs ran\n", argc - 1);
    return 0;
}
