/* anim.c - the in-memory animation every encoder takes: allocation, frame
 * merging and delay rounding with the error carried from frame to frame. */
#include "anim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/hugemem.h"

/* anim_init's work; the frames' bytes are zeroed when zero is set. */
static poyo_status anim_make(anim *a, int width, int height, int count, double fps, int zero, poyo_error *err)
{
    memset(a, 0, sizeof *a);
    if (width < 1 || height < 1 || count < 1 || !(fps > 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "invalid animation size %dx%d with %d frames", width, height, count);
    size_t bytes = (size_t)width * (size_t)height * 4u;
    if (bytes / 4u / (size_t)width != (size_t)height || bytes > SIZE_MAX / (size_t)count)
        return poyo_fail(err, POYO_ERR_NOMEM, "animation of %dx%d with %d frames is too large", width, height, count);
    a->rgba = zero ? hugemem_calloc((size_t)count, bytes) : hugemem_alloc((size_t)count, bytes);
    a->hold = malloc((size_t)count * sizeof *a->hold);
    if (!a->rgba || !a->hold) {
        anim_free(a);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d frames of %dx%d", count, width, height);
    }
    for (int i = 0; i < count; i++)
        a->hold[i] = 1;
    a->width = width;
    a->height = height;
    a->count = count;
    a->fps = fps;
    return POYO_OK;
}

poyo_status anim_init(anim *a, int width, int height, int count, double fps, poyo_error *err)
{
    return anim_make(a, width, height, count, fps, 1, err);
}

poyo_status anim_init_undrawn(anim *a, int width, int height, int count, double fps, poyo_error *err)
{
    return anim_make(a, width, height, count, fps, 0, err);
}

poyo_status anim_check_encodable(const anim *a, const char *format, poyo_error *err)
{
    if (!a || !a->rgba || !a->hold || a->count < 1 || a->width < 1 || a->height < 1)
        return poyo_fail(err, POYO_ERR_USAGE, "cannot write an empty animation as %s", format);
    if (!isfinite(a->fps) || !(a->fps > 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "frame rate must be a positive finite number");
    for (int i = 0; i < a->count; i++)
        if (a->hold[i] < 1)
            return poyo_fail(err, POYO_ERR_USAGE, "frame %d is held %d ticks, fewer than 1", i + 1, a->hold[i]);
    return POYO_OK;
}

void anim_free(anim *a)
{
    if (!a)
        return;
    free(a->rgba);
    free(a->hold);
    a->rgba = NULL;
    a->hold = NULL;
    a->count = 0;
}

double anim_duration(const anim *a)
{
    long ticks = 0;
    for (int i = 0; i < a->count; i++)
        ticks += a->hold[i];
    return (double)ticks / a->fps;
}

void anim_merge_identical(anim *a)
{
    if (a->count < 2)
        return;
    size_t fb = anim_frame_bytes(a);
    int out = 0;
    for (int i = 1; i < a->count; i++) {
        if (memcmp(anim_frame(a, out), anim_frame(a, i), fb) == 0) {
            a->hold[out] += a->hold[i];
            continue;
        }
        out++;
        if (out != i) {
            memcpy(anim_frame(a, out), anim_frame(a, i), fb);
            a->hold[out] = a->hold[i];
        }
    }
    a->count = out + 1;
}

void anim_delays(const anim *a, int unit, int min_units, int *out)
{
    long ticks = 0;
    long prev_end = 0;
    for (int i = 0; i < a->count; i++) {
        ticks += a->hold[i];
        long end = lround((double)ticks * unit / a->fps);
        long d = end - prev_end;
        if (d < min_units)
            d = min_units;
        out[i] = (int)d;
        prev_end += d;
    }
}

anim_rect anim_diff_rect(const anim *a, int i, int j)
{
    anim_rect r = { 0, 0, 0, 0 };
    const uint8_t *fa = anim_frame(a, i), *fb = anim_frame(a, j);
    size_t rb = (size_t)a->width * 4u;
    int x0 = a->width, x1 = -1, y0 = -1, y1 = -1;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *pa = fa + (size_t)y * rb, *pb = fb + (size_t)y * rb;
        if (memcmp(pa, pb, rb) == 0)
            continue;
        if (y0 < 0)
            y0 = y;
        y1 = y;
        int l = 0, rr = a->width - 1;
        while (memcmp(pa + (size_t)l * 4, pb + (size_t)l * 4, 4) == 0)
            l++;
        while (memcmp(pa + (size_t)rr * 4, pb + (size_t)rr * 4, 4) == 0)
            rr--;
        if (l < x0)
            x0 = l;
        if (rr > x1)
            x1 = rr;
    }
    if (y0 >= 0) {
        r.x = x0;
        r.y = y0;
        r.w = x1 - x0 + 1;
        r.h = y1 - y0 + 1;
    }
    return r;
}

int anim_over_rect(const anim *a, int i, anim_rect r, uint8_t *dst)
{
    size_t rb = (size_t)a->width * 4u, orb = (size_t)r.w * 4u;
    size_t at = (size_t)r.y * rb + (size_t)r.x * 4u;
    const uint8_t *src = anim_frame(a, i) + at, *prev = anim_frame(a, i - 1) + at;
    int any_same = 0;
    for (int y = 0; y < r.h; y++) {
        const uint8_t *cp = src + (size_t)y * rb, *p = prev + (size_t)y * rb;
        uint8_t *d = dst + (size_t)y * orb;
        for (int x = 0; x < r.w; x++) {
            if (memcmp(cp + x * 4, p + x * 4, 4) == 0) {
                memset(d + x * 4, 0, 4);
                any_same = 1;
            } else if (cp[x * 4 + 3] == 255) {
                memcpy(d + x * 4, cp + x * 4, 4);
            } else {
                return 0;
            }
        }
    }
    return any_same;
}

void anim_blend_over(uint8_t *dst, const uint8_t *src)
{
    unsigned sa = src[3], da = dst[3];
    if (sa == 0)
        return;
    if (sa == 255 || da == 0) {
        memcpy(dst, src, 4);
        return;
    }
    unsigned oa = sa * 255u + da * (255u - sa);   /* output alpha x 255 */
    for (int k = 0; k < 3; k++)
        dst[k] = (uint8_t)((src[k] * sa * 255u + dst[k] * da * (255u - sa) + oa / 2u) / oa);
    dst[3] = (uint8_t)((oa + 127u) / 255u);
}
