/* fuzz_gif.c - libFuzzer target over the GIF readers: image_decode (the first
 * frame, small pixel limit) and anim_read (every frame, what `poyo check`
 * uses) on the same bytes, the second only for canvases up to 64 x 64. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_anim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_image_decode(data, size);
    /* the logical screen's size, little-endian after "GIF89a" */
    if (size >= 10) {
        long w = data[6] | data[7] << 8, h = data[8] | data[9] << 8;
        if (w * h > FUZZ_MAX_CANVAS)
            return 0;
    }
    fuzz_anim_read(data, size);
    return 0;
}
