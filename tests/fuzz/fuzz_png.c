/* fuzz_png.c - libFuzzer target over image_decode on PNG, JPEG and SVG bytes
 * (any format it recognises by content) with a small pixel limit: a decoded
 * image must lie within the limit and own w * h * 4 readable bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "image/image.h"

#define FUZZ_MAX_PIXELS (256 * 256)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint8_t sink; /* keeps the reads below from being optimised away */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    image im = { 0 };
    poyo_error err;
    if (image_decode(data, size, FUZZ_MAX_PIXELS, &im, &err) != POYO_OK)
        return 0;
    if (im.w < 1 || im.h < 1 || (long long)im.w * im.h > FUZZ_MAX_PIXELS || !im.rgba)
        abort();
    /* every pixel must be there: ASan catches a short buffer */
    size_t n = (size_t)im.w * (size_t)im.h * 4u;
    uint8_t sum = 0;
    for (size_t i = 0; i < n; i += 61)
        sum += im.rgba[i];
    sink = sum + im.rgba[n - 1];
    image_free(&im);
    return 0;
}
