/* test_stagger.c - parts of a stamp as bodies of their own joined by soft
 * links: two blocks side by side, kicked to jump, leave the floor one after
 * another, the second by the delay later; at frame 0 and at the last frame
 * both are at rest where the whole stamp would be; a periodic drive lags the
 * second block's phase; a block moves otherwise with a neighbour than alone
 * (the neighbour's near side is lifted by the one that jumps first); the same
 * clip comes out twice. */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/stagger.h"

/* A 64x64 image with opaque blocks over columns [x0, x1) of rows [16, 60). */
static void blocks(image *im, int with_left, int with_right)
{
    image_alloc(im, 64, 64, NULL);
    for (int y = 16; y < 60; y++)
        for (int x = 0; x < 64; x++) {
            int left = x >= 4 && x < 28, right = x >= 36 && x < 60;
            if ((left && with_left) || (right && with_right))
                memcpy(im->rgba + 4 * ((size_t)y * 64 + x), "\xc0\x40\x40\xff", 4);
        }
}

/* The highest row with ink in columns [x0, x1) of frame f. */
static int top(const anim *a, int f, int x0, int x1)
{
    const uint8_t *p = anim_frame(a, f);
    for (int y = 0; y < a->height; y++)
        for (int x = x0; x < x1; x++)
            if (p[4 * ((size_t)y * a->width + x) + 3] > 127)
                return y;
    return a->height;
}

/* The defaults, kicked by impulse, drawn on one thread. */
static animate_def def_for(const char *impulse)
{
    animate_def d = animate_default_def();
    d.impulse.kind = (impulse_kind)impulse_lookup(impulse);
    d.threads = 1;
    return d;
}

/* Simulates n parts of the stamp of both blocks, kicked by impulse, from
 * the left block (first 0) or the right one (first 1). */
static poyo_status simulate(const char *impulse, int first, int n, image parts[2], stagger *s, poyo_error *err)
{
    image whole;
    blocks(&whole, 1, 1);
    blocks(&parts[0], 1, 0);
    blocks(&parts[1], 0, 1);
    animate_def d = def_for(impulse);
    poyo_status st = stagger_simulate(&whole, parts + first, n, &d, s, err);
    image_free(&whole);
    return st;
}

/* Simulates and draws the two blocks as parts kicked by impulse. */
static poyo_status film(const char *impulse, stagger *s, anim *a, poyo_error *err)
{
    image parts[2];
    animate_def d = def_for(impulse);
    poyo_status st = simulate(impulse, 0, 2, parts, s, err);
    if (st == POYO_OK && (st = stagger_render(s, &d, a, err)) != POYO_OK)
        stagger_free(s);
    for (int k = 0; k < 2; k++)
        image_free(&parts[k]);
    return st;
}

static void test_jump_one_after_another(void)
{
    stagger s;
    anim a;
    poyo_error err;
    ENSURE_MSG(film("jump", &s, &a, &err) == POYO_OK, "%s", err.msg);
    ENSURE(s.delay >= 2 && a.count == s.count);
    /* the frame each block is highest in: the right one s.delay frames after the left */
    int best[2] = { 0, 0 }, rest[2] = { top(&a, 0, 0, 32), top(&a, 0, 32, 64) };
    for (int f = 0; f < a.count; f++)
        for (int k = 0; k < 2; k++)
            if (top(&a, f, 32 * k, 32 * k + 32) < top(&a, best[k], 32 * k, 32 * k + 32))
                best[k] = f;
    ENSURE_MSG(best[1] - best[0] == s.delay, "peaks at frames %d and %d, delay %d", best[0], best[1], s.delay);
    ENSURE(top(&a, best[0], 0, 32) < rest[0] - 4);
    /* while the left one flies the right one has barely left its place */
    ENSURE(rest[0] == rest[1] && top(&a, s.delay / 2, 32, 64) >= rest[1] - 1);
    /* the clip ends as it starts: both at rest */
    ENSURE(abs(top(&a, a.count - 1, 0, 32) - rest[0]) <= 1 && abs(top(&a, a.count - 1, 32, 64) - rest[1]) <= 1);
    anim_free(&a);
    stagger_free(&s);
}

static void test_periodic_phase_lag(void)
{
    stagger s;
    anim a;
    poyo_error err;
    ENSURE_MSG(film("pat", &s, &a, &err) == POYO_OK, "%s", err.msg);
    ENSURE(s.periodic && s.delay > 0 && a.count == s.m[0].count);
    /* the right block shows at frame f + delay what the left showed at f */
    for (int f = 0; f + s.delay < a.count; f++)
        ENSURE_MSG(abs(top(&a, f + s.delay, 32, 64) - top(&a, f, 0, 32)) <= 1, "frame %d", f);
    anim_free(&a);
    stagger_free(&s);
}

/* The largest distance, pixels, between the nodes of motions a and b over
 * their common frames. */
static double motion_gap(const motion *a, const motion *b)
{
    double most = 0.0;
    int count = a->count < b->count ? a->count : b->count;
    for (int f = 0; f < count; f++)
        for (int k = 0; k < a->n; k++) {
            size_t i = (size_t)f * (size_t)a->n + (size_t)k;
            most = fmax(most, fmax(fabs(a->x[i] - b->x[i]), fabs(a->y[i] - b->y[i])));
        }
    return most;
}

/* Mean displacement from rest at frame f of the nodes of m within columns
 * [x0, x1): rest before frame 0 and past the end of a one-shot clip; a
 * periodic one repeats. */
static void patch_shift(const motion *m, int f, double x0, double x1, double *dx, double *dy)
{
    *dx = *dy = 0.0;
    if (m->periodic)
        f = (f % m->count + m->count) % m->count;
    if (f < 0 || f >= m->count)
        return;
    int count = 0;
    for (int k = 0; k < m->n; k++)
        if (m->qx[k] >= x0 && m->qx[k] < x1) {
            *dx += m->x[(size_t)f * (size_t)m->n + (size_t)k] - m->qx[k];
            *dy += m->y[(size_t)f * (size_t)m->n + (size_t)k] - m->qy[k];
            count++;
        }
    *dx /= count;
    *dy /= count;
}

/* The largest stretch over the clip, pixels, between the facing sides of the
 * left block (clip a) and the right one (clip b, delay frames later). */
static double most_stretch(const motion *a, const motion *b, int delay, int count)
{
    double most = 0.0;
    for (int f = 0; f < count; f++) {
        double ax, ay, bx, by;
        patch_shift(a, f, 16.0, 28.0, &ax, &ay);
        patch_shift(b, f - delay, 36.0, 48.0, &bx, &by);
        most = fmax(most, hypot(bx - ax, by - ay));
    }
    return most;
}

static void test_neighbour_pulls(void)
{
    static const char *const kinds[] = { "jump", "wave", "poke", "squash" };
    for (int t = 0; t < 4; t++) {
        stagger two, left, right;
        image p2[2], pl[2], pr[2];
        poyo_error err;
        ENSURE_MSG(simulate(kinds[t], 0, 2, p2, &two, &err) == POYO_OK, "%s", err.msg);
        ENSURE_MSG(simulate(kinds[t], 0, 1, pl, &left, &err) == POYO_OK, "%s", err.msg);
        ENSURE_MSG(simulate(kinds[t], 1, 1, pr, &right, &err) == POYO_OK, "%s", err.msg);
        /* the left block, first to move, moves otherwise with a neighbour */
        double gap = motion_gap(&two.m[0], &left.m[0]);
        ENSURE_MSG(gap > 0.5, "%s: the left block with and without its neighbour differs by %.2f px", kinds[t], gap);
        /* and the facing sides of the two keep nearer their rest offset than
         * those of two blocks each on its own, started as far apart */
        double linked = most_stretch(&two.m[0], &two.m[1], 0, two.count);
        double apart = most_stretch(&left.m[0], &right.m[0], two.delay, two.count);
        ENSURE_MSG(linked < 0.9 * apart, "%s: facing sides %.2f px from their rest offset linked, %.2f px apart",
                   kinds[t], linked, apart);
        stagger_free(&two);
        stagger_free(&left);
        stagger_free(&right);
        for (int k = 0; k < 2; k++) {
            image_free(&p2[k]);
            image_free(&pl[k]);
            image_free(&pr[k]);
        }
    }
}

static void test_same_clip_twice(void)
{
    stagger a, b;
    image pa[2], pb[2];
    poyo_error err;
    ENSURE_MSG(simulate("jump", 0, 2, pa, &a, &err) == POYO_OK, "%s", err.msg);
    ENSURE_MSG(simulate("jump", 0, 2, pb, &b, &err) == POYO_OK, "%s", err.msg);
    ENSURE(a.count == b.count);
    for (int i = 0; i < 2; i++)
        ENSURE(a.m[i].count == b.m[i].count && motion_gap(&a.m[i], &b.m[i]) == 0.0);
    stagger_free(&a);
    stagger_free(&b);
    for (int k = 0; k < 2; k++) {
        image_free(&pa[k]);
        image_free(&pb[k]);
    }
}

static void test_bad_part_counts(void)
{
    image whole;
    blocks(&whole, 1, 1);
    animate_def d = animate_default_def();
    stagger s;
    poyo_error err;
    ENSURE(stagger_simulate(&whole, &whole, 0, &d, &s, &err) == POYO_ERR_USAGE);
    ENSURE(stagger_simulate(&whole, &whole, STAGGER_MAX_PARTS + 1, &d, &s, &err) == POYO_ERR_USAGE);
    stagger_free(&s);
    image_free(&whole);
}

const struct test_case test_cases[] = {
    { "jump_one_after_another", test_jump_one_after_another },
    { "periodic_phase_lag", test_periodic_phase_lag },
    { "neighbour_pulls", test_neighbour_pulls },
    { "same_clip_twice", test_same_clip_twice },
    { "bad_part_counts", test_bad_part_counts },
    { NULL, NULL },
};
