/* fuzz_anim.h - what the decoder fuzzers share: anim_read on the bytes with
 * the properties every decoded animation must have. Only for files whose
 * declared canvas is small, so each run stays fast. */
#ifndef POYO_FUZZ_ANIM_H
#define POYO_FUZZ_ANIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "animread.h"

/* Reads data with anim_read; aborts when a decoded animation breaks its contract. */
static void fuzz_anim_read(const uint8_t *data, size_t size)
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
