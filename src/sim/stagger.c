/* stagger.c - parts of a stamp as bodies of their own: each part simulated
 * with the same impulse, placed where the whole stamp is, started one after
 * another (or phase-lagged, for a periodic drive) and composited per frame. */
#include "stagger.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

poyo_status stagger_simulate(const image *whole, const image *parts, int n, const animate_def *def, stagger *out,
                             poyo_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || n > STAGGER_MAX_PARTS)
        return poyo_fail(err, POYO_ERR_USAGE, "a stamp of %d parts (1 to %d)", n, STAGGER_MAX_PARTS);
    /* where the whole stamp sits with this motion: every part is placed there */
    motion all;
    poyo_status st = animate_simulate(whole, def, &all, err);
    if (st != POYO_OK)
        return st;
    out->parts = parts;
    for (int i = 0; i < n && st == POYO_OK; i++) {
        st = animate_simulate(&parts[i], def, &out->m[i], err);
        if (st == POYO_OK) {
            out->n = i + 1;
            out->m[i].place = all.place;
            out->m[i].canvas_w = all.canvas_w;
            out->m[i].canvas_h = all.canvas_h;
        }
    }
    motion_free(&all);
    if (st != POYO_OK) {
        stagger_free(out);
        return st;
    }
    out->periodic = out->m[0].periodic;
    if (out->periodic) {
        /* half a period from the first part to the last */
        out->count = out->m[0].count;
        out->delay = n > 1 ? (int)lround(out->count / (2.0 * n)) : 0;
    } else {
        double gap = n > 1 ? fmin(0.1, 0.6 / (n - 1)) : 0;
        out->delay = (int)lround(gap * def->fps);
        for (int i = 0; i < n; i++)
            if (out->m[i].count + i * out->delay > out->count)
                out->count = out->m[i].count + i * out->delay;
    }
    return POYO_OK;
}

/* The frame of part i's own clip (of count frames) shown at frame f. */
static int part_frame(const stagger *s, int i, int f, int count)
{
    int k = f - i * s->delay;
    if (s->periodic)
        return ((k % count) + count) % count;
    /* at rest (its frame 0) before it starts and after it ends */
    return k < 0 || k >= count ? 0 : k;
}

poyo_status stagger_render(const stagger *s, const animate_def *def, anim *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    poyo_status st = POYO_OK;
    for (int i = 0; i < s->n && st == POYO_OK; i++) {
        anim a;
        st = animate_render(&s->parts[i], &s->m[i], def, &a, err);
        if (st != POYO_OK)
            break;
        if (i == 0)
            st = anim_init(out, a.width, a.height, s->count, a.fps, err);
        if (st == POYO_OK) {
            out->loop = a.loop;
            size_t px = (size_t)a.width * (size_t)a.height;
            for (int f = 0; f < s->count; f++) {
                uint8_t *dst = anim_frame(out, f);
                const uint8_t *src = anim_frame(&a, part_frame(s, i, f, a.count));
                for (size_t p = 0; p < px; p++)
                    anim_blend_over(dst + 4 * p, src + 4 * p);
            }
        }
        anim_free(&a);
    }
    if (st != POYO_OK)
        anim_free(out);
    return st;
}

void stagger_free(stagger *s)
{
    for (int i = 0; i < s->n; i++)
        motion_free(&s->m[i]);
    s->n = 0;
}
