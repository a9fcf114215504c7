/* test_charm.c - properties of the swinging charm: ranges, rest without a
 * kick, rope lengths and the stamp's arm while swinging, a seamless clip
 * (tests/golden pins its frames), and the anti-aliased rope drawn under the stamp. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "sim/charm.h"

/* A w x h image holding an opaque disc. */
static int make_disc(image *im, int w, int h)
{
    poyo_error err;
    if (image_alloc(im, w, h, &err) != POYO_OK)
        return 0;
    double r = 0.45 * (w < h ? w : h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = im->rgba + ((size_t)y * w + x) * 4;
            if ((x + 0.5 - 0.5 * w) * (x + 0.5 - 0.5 * w) + (y + 0.5 - 0.5 * h) * (y + 0.5 - 0.5 * h) <= r * r) {
                p[0] = 240;
                p[1] = (uint8_t)(4 * x);
                p[2] = (uint8_t)(4 * y);
                p[3] = 255;
            }
        }
    return 1;
}

static void test_defaults_pass_and_each_bad_field_is_named(void)
{
    poyo_error err;
    charm_def d = charm_default_def();
    ENSURE(charm_check_def(&d, &err) == POYO_OK);
    d.length = 0.0;
    ENSURE(charm_check_def(&d, &err) == POYO_ERR_USAGE && strstr(err.msg, "--length"));
    d = charm_default_def();
    d.segments = 0;
    ENSURE(charm_check_def(&d, &err) == POYO_ERR_USAGE && strstr(err.msg, "--segments"));
    d = charm_default_def();
    d.kick = NAN;
    ENSURE(charm_check_def(&d, &err) == POYO_ERR_USAGE && strstr(err.msg, "--kick"));
    d = charm_default_def();
    d.anchor.x = INFINITY;
    ENSURE(charm_check_def(&d, &err) == POYO_ERR_USAGE && strstr(err.msg, "--anchor-at"));
    d = charm_default_def();
    d.body.hz = 50.0;
    ENSURE(charm_check_def(&d, &err) == POYO_ERR_USAGE && strstr(err.msg, "--hz"));
}

static void test_without_a_kick_the_rope_hangs_still(void)
{
    poyo_error err;
    charm_def d = charm_default_def();
    d.kick = 0.0;
    charm *c = NULL;
    ENSURE(charm_create(&d, NULL, &c, &err) == POYO_OK);
    int n = charm_point_count(c);
    ENSURE(n == d.segments + 1);
    v2 a[64], b[64];
    charm_points(c, a);
    for (int f = 0; f < 50; f++)
        charm_step_frame(c);
    charm_points(c, b);
    double worst = 0.0;
    for (int i = 0; i < n; i++)
        worst = fmax(worst, v2_dist(a[i], b[i]));
    charm_destroy(c);
    ENSURE_SMALL(worst, 0.05); /* pixels: the solver settles its small stretch under gravity */
    ENSURE_NEAR(a[n - 1].y - a[0].y, d.length * d.height, 1e-9);
}

static void test_swinging_rope_and_arm_keep_their_lengths(void)
{
    poyo_error err;
    image im;
    ENSURE(make_disc(&im, 40, 40));
    charm_def d = charm_default_def();
    d.kick = 1.5;
    charm *c = NULL;
    poyo_status st = charm_create(&d, &im, &c, &err);
    image_free(&im);
    ENSURE_MSG(st == POYO_OK, "%s", err.msg);
    int n = charm_point_count(c);
    ENSURE(n == d.segments + 2);
    v2 p[64];
    charm_points(c, p);
    double arm = v2_dist(p[n - 2], p[n - 1]), seg = d.length * d.height / d.segments;
    double worst_seg = 0.0, worst_arm = 0.0, reach = 0.0;
    for (int f = 0; f < 75; f++) {
        charm_step_frame(c);
        charm_points(c, p);
        for (int i = 0; i + 2 < n; i++)
            worst_seg = fmax(worst_seg, fabs(v2_dist(p[i], p[i + 1]) - seg) / seg);
        worst_arm = fmax(worst_arm, fabs(v2_dist(p[n - 2], p[n - 1]) - arm) / arm);
        reach = fmax(reach, fabs(p[n - 1].x - p[0].x));
    }
    charm_destroy(c);
    ENSURE_MSG(worst_seg < 0.02, "segments stretch by %g", worst_seg);
    ENSURE_MSG(worst_arm < 1e-6, "the arm changes by %g", worst_arm);
    ENSURE_MSG(reach > 10.0, "the stamp swings only %g pixels", reach);
}

static void test_clip_loops(void)
{
    poyo_error err;
    image im;
    ENSURE(make_disc(&im, 32, 32));
    charm_def d = charm_default_def();
    d.width = d.height = 96;
    charm_clip a;
    ENSURE(charm_simulate(&d, &im, &a, &err) == POYO_OK);
    image_free(&im);
    ENSURE(a.periodic && a.count >= 10 && a.n > 0);
    ENSURE_NEAR(a.count, a.period * d.fps, 0.51);
    /* the end of the clip flows into its start like any two neighbouring frames */
    double step_max = 0.0, seam = 0.0;
    int e = a.npoints - 1;
    for (int f = 0; f < a.count; f++) {
        v2 p = a.rope[(size_t)f * a.npoints + e], q = a.rope[(size_t)((f + 1) % a.count) * a.npoints + e];
        if (f + 1 < a.count)
            step_max = fmax(step_max, v2_dist(p, q));
        else
            seam = v2_dist(p, q);
    }
    charm_clip_free(&a);
    ENSURE_MSG(seam <= 1.05 * step_max, "seam %g, largest step %g", seam, step_max);
}

static void test_rope_is_antialiased_and_under_the_stamp(void)
{
    int w = 64, h = 32;
    uint8_t *px = calloc((size_t)w * h * 4, 1);
    float *cov = malloc((size_t)w * h * sizeof *cov);
    ENSURE(px && cov);
    uint8_t *opaque = px + ((size_t)10 * w + 40) * 4;
    opaque[0] = 1, opaque[1] = 2, opaque[2] = 3, opaque[3] = 255;
    v2 pts[3] = { { 8.0, 10.0 }, { 30.0, 10.0 }, { 56.0, 10.0 } };
    const uint8_t rgb[3] = { 200, 100, 50 };
    charm_draw_rope(px, w, h, pts, 3, 3.0, rgb, cov);
    const uint8_t *mid = px + ((size_t)10 * w + 20) * 4, *edge = px + ((size_t)11 * w + 20) * 4;
    const uint8_t *far = px + ((size_t)20 * w + 20) * 4;
    int ok_mid = mid[0] == 200 && mid[1] == 100 && mid[2] == 50 && mid[3] == 255;
    int ok_edge = edge[3] > 0 && edge[3] < 255; /* the line's edge at y = 11.5 is one pixel off the centre */
    int ok_far = far[3] == 0;
    int ok_under = opaque[0] == 1 && opaque[1] == 2 && opaque[2] == 3 && opaque[3] == 255;
    free(px);
    free(cov);
    ENSURE(ok_mid);
    ENSURE(ok_edge);
    ENSURE(ok_far);
    ENSURE(ok_under);
}

const struct test_case test_cases[] = {
    { "defaults_pass_and_each_bad_field_is_named", test_defaults_pass_and_each_bad_field_is_named },
    { "without_a_kick_the_rope_hangs_still", test_without_a_kick_the_rope_hangs_still },
    { "swinging_rope_and_arm_keep_their_lengths", test_swinging_rope_and_arm_keep_their_lengths },
    { "clip_loops", test_clip_loops },
    { "rope_is_antialiased_and_under_the_stamp", test_rope_is_antialiased_and_under_the_stamp },
    { NULL, NULL },
};
