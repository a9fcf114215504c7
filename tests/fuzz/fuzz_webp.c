/* fuzz_webp.c - libFuzzer target over the WebP readers: image_decode (a still
 * or an animation's first frame, small pixel limit) and anim_read (every
 * frame) on the same bytes, the second only for canvases up to 64 x 64. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <webp/decode.h>

#include "fuzz_anim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_image_decode(data, size);
    /* the canvas (VP8X) or picture size as libwebp reads it from the header */
    int w = 0, h = 0;
    if (WebPGetInfo(data, size, &w, &h) && (long)w * h > FUZZ_MAX_CANVAS)
        return 0;
    fuzz_anim_read(data, size);
    return 0;
}
