/* fuzz_apng.c - libFuzzer target over anim_read on APNG (and still PNG)
 * bytes: every frame composited, for canvases up to 64 x 64. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_anim.h"

#define FUZZ_MAX_CANVAS (64 * 64)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* IHDR's width and height, big-endian after the signature and chunk header */
    if (size >= 24) {
        uint32_t w = (uint32_t)data[16] << 24 | (uint32_t)data[17] << 16 | (uint32_t)data[18] << 8 | data[19];
        uint32_t h = (uint32_t)data[20] << 24 | (uint32_t)data[21] << 16 | (uint32_t)data[22] << 8 | data[23];
        if ((uint64_t)w * h > FUZZ_MAX_CANVAS)
            return 0;
    }
    fuzz_anim_read(data, size);
    return 0;
}
