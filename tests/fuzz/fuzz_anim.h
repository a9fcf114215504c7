/* fuzz_anim.h - what the decoder fuzzers share: image_decode and anim_read on
 * the bytes, with the properties every decoded image and animation must have. Only for files whose
 * declared canvas is small, so each run stays fast. */
#ifndef POYO_FUZZ_ANIM_H
#define POYO_FUZZ_ANIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "image/animread.h"
#include "image/image.h"

#define FUZZ_MAX_PIXELS (256 * 256)
#define FUZZ_MAX_CANVAS (64 * 64)

/* Decodes data with image_decode (FUZZ_MAX_PIXELS); aborts when a decoded image
 * breaks its contract (at least 1 x 1, within the limit, every pixel there). */
static inline void fuzz_image_decode(const uint8_t *data, size_t size)
{
    image im = { 0 };
    if (image_decode(data, size, FUZZ_MAX_PIXELS, &im, NULL) != POYO_OK)
        return;
    if (im.w < 1 || im.h < 1 || (long long)im.w * im.h > FUZZ_MAX_PIXELS || !im.rgba)
        abort();
    volatile uint8_t last = im.rgba[(size_t)im.w * (size_t)im.h * 4u - 1];
    (void)last;
    image_free(&im);
}

/* Reads data with anim_read; aborts when a decoded animation breaks its contract. */
static inline void fuzz_anim_read(const uint8_t *data, size_t size)
{
    anim a;
    anim_meta m;
    poyo_error err;
    if (anim_read(data, size, &a, &m, &err) != POYO_OK)
        return;
    if (a.width < 1 || a.height < 1 || a.count < 1 || !a.rgba || !a.hold)
        abort();
    if ((unsigned long long)a.width * (unsigned long long)a.height > ANIMREAD_MAX_PIXELS)
        abort();
    if (m.frames != a.count || m.width != a.width || m.height != a.height || !m.delay_ms)
        abort();
    if (m.file_bytes != size)
        abort();
    for (int i = 0; i < a.count; i++)
        if (a.hold[i] < 1)
            abort();
    /* the last frame's last byte must be there: ASan catches a short buffer */
    volatile uint8_t last = anim_frame(&a, a.count - 1)[anim_frame_bytes(&a) - 1];
    (void)last;
    anim_free(&a);
    anim_meta_free(&m);
}

#endif
