/* test_stagger.c - parts of a stamp as bodies of their own: two blocks side by
 * side, kicked to jump, leave the floor one after another, the second by the
 * delay later; at frame 0 and at the last frame both are at rest where the
 * whole stamp would be; a periodic drive lags the second block's phase. */
#include "test.h"

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

/* Simulates and draws the two blocks as parts kicked by impulse. */
static poyo_status film(const char *impulse, stagger *s, anim *a, poyo_error *err)
{
    image whole, parts[2];
    blocks(&whole, 1, 1);
    blocks(&parts[0], 1, 0);
    blocks(&parts[1], 0, 1);
    animate_def d = animate_default_def();
    d.impulse.kind = (impulse_kind)impulse_lookup(impulse);
    d.threads = 1;
    poyo_status st = stagger_simulate(&whole, parts, 2, &d, s, err);
    if (st == POYO_OK && (st = stagger_render(s, &d, a, err)) != POYO_OK)
        stagger_free(s);
    image_free(&whole);
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
    { "bad_part_counts", test_bad_part_counts },
    { NULL, NULL },
};
