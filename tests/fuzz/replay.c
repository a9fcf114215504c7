/* replay.c - runs a fuzz target's LLVMFuzzerTestOneInput over files, without
 * libFuzzer: `make check` replays the kept crashers and seeds this way. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0;
        for (;;) {
            if (len == cap) {
                cap = cap ? cap * 2 : 65536;
                uint8_t *p = realloc(buf, cap);
                if (!p)
                    return 1;
                buf = p;
            }
            size_t r = fread(buf + len, 1, cap - len, f);
            if (r == 0)
                break;
            len += r;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        n++;
    }
    printf("replayed %d inputs\n", n);
    return 0;
}
