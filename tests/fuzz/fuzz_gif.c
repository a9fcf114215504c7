/* fuzz_gif.c - libFuzzer target over the GIF readers: image_decode (the first
 * frame, small pixel limit) and anim_read (every frame, what `poyo check`
 * uses) on the same bytes, the second only for canvases up to 64 x 64. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_anim.h"
#include "image.h"

#define FUZZ_MAX_PIXELS (256 * 256)
#define FUZZ_MAX_CANVAS (64 * 64)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    image im = { 0, 0, NULL };
    if (image_decode(data, size, FUZZ_MAX_PIXELS, &im, NULL) == POYO_OK) {
        if (im.w < 1 || im.h < 1 || (long long)im.w * im.h > FUZZ_MAX_PIXELS || !im.rgba)
            abort();
        volatile uint8_t last = im.rgba[(size_t)im.w * (size_t)im.h * 4u - 1];
        (void)last;
        image_free(&im);
    }
    /* the logical screen's size, little-endian after "GIF89a" */
    if (size >= 10) {
        long w = data[6] | data[7] << 8, h = data[8] | data[9] << 8;
        if (w * h > FUZZ_MAX_CANVAS)
            return 0;
    }
    fuzz_anim_read(data, size);
    return 0;
}
