/* test_drop.c - a stamp dropped into a distance-field scene: it comes to rest on a
 * floor touching it without sinking in, bounces higher with more restitution, slides
 * less with more friction, lands on bare segments, leaves a canvas with no floor,
 * and stays finite; tests/golden pins its frames. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geom/scene.h"
#include "geom/vec2.h"
#include "sim/drop.h"

enum { SHAPE_DISK, SHAPE_SQUARE };

/* A size x size stamp: an opaque disk (anti-aliased edge) or a square, with a
 * transparent margin of 4 pixels. */
static int make_stamp(image *im, int size, int shape)
{
    if (image_alloc(im, size, size, NULL) != POYO_OK)
        return 0;
    double c = 0.5 * size, r = 0.5 * size - 4.0;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            double a;
            if (shape == SHAPE_DISK) {
                double d = hypot(x + 0.5 - c, y + 0.5 - c) - r;
                a = fmin(fmax(0.5 - d, 0.0), 1.0);
            } else {
                a = (x >= 4 && x < size - 4 && y >= 4 && y < size - 4) ? 1.0 : 0.0;
            }
            uint8_t *p = im->rgba + 4 * ((size_t)y * size + x);
            p[0] = (uint8_t)(40 + x * 3);
            p[1] = 160;
            p[2] = (uint8_t)(200 - y * 2);
            p[3] = (uint8_t)lrint(a * 255.0);
        }
    return 1;
}

static sdf_scene *scene_of(const char *text, const drop_def *d)
{
    sdf_scene *s = NULL;
    if (scene_parse(text, d->width, d->height, &s, NULL, NULL) != POYO_OK)
        return NULL;
    return s;
}

/* Centroid of the nodes of frame f, canvas pixels. */
static v2 centroid(const drop_motion *m, int f)
{
    v2 c = v2_make(0.0, 0.0);
    for (int k = 0; k < m->n; k++)
        c = v2_add(c, drop_node_canvas(m, f, k));
    return v2_scale(c, 1.0 / m->n);
}

/* Lowest row of the frame holding a pixel with alpha >= 128, or -1. */
static int lowest_opaque_row(const uint8_t *rgba, int w, int h)
{
    for (int y = h - 1; y >= 0; y--)
        for (int x = 0; x < w; x++)
            if (rgba[4 * ((size_t)y * w + x) + 3] >= 128)
                return y;
    return -1;
}

/* Drops a stamp on floor(level) and checks that its drawn pixels come to rest on the
 * floor: the lowest opaque pixel's centre is at most half a pixel below the floor line,
 * and its bottom edge is within a pixel above it. */
static int rests_on_floor(int shape, int size, double stamp_size, double tilt, double *sink, double *gap)
{
    drop_def d = drop_default_def();
    d.width = d.height = 160;
    d.stamp_size = stamp_size;
    d.tilt = tilt;
    d.draw_scene = 0;
    const double level = 0.8;
    image im = { 0 };
    drop_motion m;
    memset(&m, 0, sizeof m);
    anim a;
    memset(&a, 0, sizeof a);
    sdf_scene *s = scene_of("floor(0.8)", &d);
    int ok = 0;
    if (s && make_stamp(&im, size, shape) && drop_simulate(&im, s, &d, &m, NULL) == POYO_OK && m.settled &&
        drop_render(&im, s, &m, &d, &a, NULL) == POYO_OK) {
        int row = lowest_opaque_row(anim_frame(&a, a.count - 1), a.width, a.height);
        double floor_px = level * d.height;
        *sink = (row + 0.5) - floor_px;
        *gap = floor_px - (row + 1.0);
        ok = row >= 0;
    }
    anim_free(&a);
    drop_motion_free(&m);
    image_free(&im);
    sdf_scene_destroy(s);
    return ok;
}

static void test_disk_rests_on_floor(void)
{
    double sink = 0, gap = 0;
    ENSURE_MSG(rests_on_floor(SHAPE_DISK, 48, 0.3, 0.0, &sink, &gap), "the disk did not come to rest");
    ENSURE_MSG(sink <= 0.5, "the disk sinks %.2f px below the floor", sink);
    ENSURE_MSG(gap <= 1.0, "the disk hovers %.2f px above the floor", gap);
}

static void test_large_disk_rests_on_floor(void)
{
    double sink = 0, gap = 0;
    ENSURE_MSG(rests_on_floor(SHAPE_DISK, 64, 0.6, 0.0, &sink, &gap), "the disk did not come to rest");
    ENSURE_MSG(sink <= 0.5, "the disk sinks %.2f px below the floor", sink);
    ENSURE_MSG(gap <= 1.0, "the disk hovers %.2f px above the floor", gap);
}

static void test_tilted_square_rests_on_floor(void)
{
    double sink = 0, gap = 0;
    ENSURE_MSG(rests_on_floor(SHAPE_SQUARE, 40, 0.3, 30.0, &sink, &gap), "the square did not come to rest");
    ENSURE_MSG(sink <= 0.5, "the square sinks %.2f px below the floor", sink);
    ENSURE_MSG(gap <= 1.0, "the square hovers %.2f px above the floor", gap);
}

static void test_frame0_is_the_start(void)
{
    drop_def d = drop_default_def();
    d.width = 200;
    d.height = 120;
    d.at = v2_make(0.3, 0.2);
    d.duration = 0.2;
    image im = { 0 };
    drop_motion m;
    memset(&m, 0, sizeof m);
    sdf_scene *s = scene_of("floor(0.9)", &d);
    ENSURE(s && make_stamp(&im, 40, SHAPE_SQUARE));
    ENSURE(drop_simulate(&im, s, &d, &m, NULL) == POYO_OK);
    /* the square is symmetric, so its node centroid is its visible centre */
    v2 c = centroid(&m, 0);
    ENSURE_NEAR(c.x, 0.3 * 200, 0.5);
    ENSURE_NEAR(c.y, 0.2 * 120, 0.5);
    ENSURE(m.count == 5);
    /* it falls */
    ENSURE(centroid(&m, m.count - 1).y > c.y + 1.0);
    drop_motion_free(&m);
    image_free(&im);
    sdf_scene_destroy(s);
}

/* Highest point (smallest y) of the centroid after its first landing. */
static double bounce_height(double restitution)
{
    drop_def d = drop_default_def();
    d.width = d.height = 160;
    d.restitution = restitution;
    d.body.hz = 8.0; /* stiff, so the bounce is the contact's, not the wobble's */
    d.duration = 2.0;
    image im = { 0 };
    drop_motion m;
    memset(&m, 0, sizeof m);
    sdf_scene *s = scene_of("floor(0.8)", &d);
    double top = NAN;
    if (s && make_stamp(&im, 40, SHAPE_SQUARE) && drop_simulate(&im, s, &d, &m, NULL) == POYO_OK) {
        int f = 1;
        while (f + 1 < m.count && centroid(&m, f + 1).y >= centroid(&m, f).y)
            f++; /* the landing: the centroid stops going down */
        top = INFINITY;
        for (; f < m.count; f++)
            top = fmin(top, centroid(&m, f).y);
    }
    drop_motion_free(&m);
    image_free(&im);
    sdf_scene_destroy(s);
    return top;
}

static void test_restitution_bounces_higher(void)
{
    double low = bounce_height(0.0), high = bounce_height(0.8);
    ENSURE(isfinite(low) && isfinite(high));
    ENSURE_MSG(high < low - 5.0, "restitution 0.8 rises to y %.1f, restitution 0 to y %.1f", high, low);
}

/* How far a square set down on a 20-degree slope slides in a second. */
static double slide(double friction)
{
    drop_def d = drop_default_def();
    d.width = d.height = 200;
    d.friction = friction;
    /* the slope rises to the right through (100, 110); the square's 60-pixel side lies on it */
    double a = 20.0 * PI / 180.0;
    d.tilt = -20.0;
    d.at = v2_make((100.0 - 31.0 * sin(a)) / 200.0, (110.0 - 31.0 * cos(a)) / 200.0);
    d.duration = 1.0;
    image im = { 0 };
    drop_motion m;
    memset(&m, 0, sizeof m);
    sdf_scene *s = scene_of("plane(0.5,0.55,20)", &d);
    double run = NAN;
    if (s && make_stamp(&im, 40, SHAPE_SQUARE) && drop_simulate(&im, s, &d, &m, NULL) == POYO_OK)
        run = centroid(&m, 0).x - centroid(&m, m.count - 1).x; /* the slope falls to the left */
    drop_motion_free(&m);
    image_free(&im);
    sdf_scene_destroy(s);
    return run;
}

static void test_friction_holds_on_a_slope(void)
{
    double ice = slide(0.0), grip = slide(1.0);
    ENSURE(isfinite(ice) && isfinite(grip));
    ENSURE_MSG(ice > 20.0, "without friction the square slides only %.1f px", ice);
    ENSURE_MSG(grip < 0.25 * ice, "with friction 1 it slides %.1f px, without %.1f px", grip, ice);
}

static void test_lands_on_bare_segment(void)
{
    drop_def d = drop_default_def();
    d.width = d.height = 160;
    d.at = v2_make(0.5, 0.2);
    d.duration = 2.0;
    image im = { 0 };
    drop_motion m;
    memset(&m, 0, sizeof m);
    sdf_scene *s = scene_of("segment(0.1,0.6,0.9,0.6)", &d);
    ENSURE(s && make_stamp(&im, 40, SHAPE_SQUARE));
    ENSURE(drop_simulate(&im, s, &d, &m, NULL) == POYO_OK);
    for (int k = 0; k < m.n; k++) {
        v2 p = drop_node_canvas(&m, m.count - 1, k);
        ENSURE_MSG(p.y <= 0.6 * 160 + 4.0, "node %d fell through the line to y %.1f", k, p.y);
    }
    ENSURE(m.left == 0);
    drop_motion_free(&m);
    image_free(&im);
    sdf_scene_destroy(s);
}

static void test_leaves_a_canvas_without_floor(void)
{
    drop_def d = drop_default_def();
    d.width = d.height = 100;
    image im = { 0 };
    drop_motion m;
    memset(&m, 0, sizeof m);
    sdf_scene *s = scene_of("ceiling(-5)", &d);
    ENSURE(s && make_stamp(&im, 32, SHAPE_DISK));
    ENSURE(drop_simulate(&im, s, &d, &m, NULL) == POYO_OK);
    ENSURE(m.left == 1 && m.settled == 0);
    ENSURE(m.count < (int)lround(d.max_duration * d.fps));
    /* it fell straight down, out of the bottom */
    ENSURE(centroid(&m, m.count - 1).y > 100.0);
    ENSURE_NEAR(centroid(&m, m.count - 1).x, 50.0, 0.5);
    drop_motion_free(&m);
    image_free(&im);
    sdf_scene_destroy(s);
}

static void test_finite(void)
{
    drop_def d = drop_default_def();
    d.width = d.height = 128;
    d.spin = 120.0;
    d.velocity = v2_make(0.4, -0.5);
    image im = { 0 };
    drop_motion a;
    memset(&a, 0, sizeof a);
    sdf_scene *s = scene_of("floor(0.9); circle(0.6,0.6,0.1) smin(0.05) box(0.2,0.6,0.1,0.05); wall(0); wall(1)", &d);
    ENSURE(s && make_stamp(&im, 40, SHAPE_DISK));
    ENSURE(drop_simulate(&im, s, &d, &a, NULL) == POYO_OK);
    for (size_t i = 0; i < (size_t)a.count * a.n; i++)
        ENSURE(isfinite(a.x[i]) && isfinite(a.y[i]));
    drop_motion_free(&a);
    image_free(&im);
    sdf_scene_destroy(s);
}

static void test_bad_definitions_refused(void)
{
    poyo_error err;
    drop_def d = drop_default_def();
    ENSURE(drop_check_def(&d, &err) == POYO_OK);
    d.stamp_size = NAN;
    ENSURE(drop_check_def(&d, &err) == POYO_ERR_USAGE);
    d = drop_default_def();
    d.gravity = INFINITY;
    ENSURE(drop_check_def(&d, &err) == POYO_ERR_USAGE);
    d = drop_default_def();
    d.at.x = NAN;
    ENSURE(drop_check_def(&d, &err) == POYO_ERR_USAGE);
    d = drop_default_def();
    d.friction = -0.1;
    ENSURE(drop_check_def(&d, &err) == POYO_ERR_USAGE);
    d = drop_default_def();
    d.width = 0;
    ENSURE(drop_check_def(&d, &err) == POYO_ERR_USAGE);
    d = drop_default_def();
    d.body.hz = 0.0;
    ENSURE(drop_check_def(&d, &err) == POYO_ERR_USAGE);
    /* a fully transparent stamp is an input error, not a crash */
    d = drop_default_def();
    image im = { 0 };
    ENSURE(image_alloc(&im, 16, 16, NULL) == POYO_OK);
    sdf_scene *s = scene_of("floor(0.9)", &d);
    drop_motion m;
    ENSURE(s && drop_simulate(&im, s, &d, &m, &err) == POYO_ERR_INPUT);
    ENSURE(m.x == NULL && m.count == 0);
    image_free(&im);
    sdf_scene_destroy(s);
}

static void test_paint_scene_covers_solid(void)
{
    drop_def d = drop_default_def();
    d.width = d.height = 40;
    sdf_scene *s = scene_of("floor(0.5); segment(0.1,0.2,0.9,0.2)", &d);
    ENSURE(s != NULL);
    uint8_t *rgba = malloc(40 * 40 * 4);
    ENSURE(rgba != NULL);
    drop_paint_scene(s, d.scene_rgb, rgba, 40, 40);
    ENSURE(rgba[4 * (30 * 40 + 20) + 3] == 255); /* inside the floor */
    ENSURE(rgba[4 * (5 * 40 + 20) + 3] == 0);    /* open air */
    /* the bare segment at y = 8 shows as a line */
    int line = 0;
    for (int y = 6; y <= 9; y++)
        line = line || rgba[4 * (y * 40 + 20) + 3] >= 128;
    ENSURE(line);
    free(rgba);
    sdf_scene_destroy(s);
}

const struct test_case test_cases[] = {
    { "disk_rests_on_floor", test_disk_rests_on_floor },
    { "large_disk_rests_on_floor", test_large_disk_rests_on_floor },
    { "tilted_square_rests_on_floor", test_tilted_square_rests_on_floor },
    { "frame0_is_the_start", test_frame0_is_the_start },
    { "restitution_bounces_higher", test_restitution_bounces_higher },
    { "friction_holds_on_a_slope", test_friction_holds_on_a_slope },
    { "lands_on_bare_segment", test_lands_on_bare_segment },
    { "leaves_a_canvas_without_floor", test_leaves_a_canvas_without_floor },
    { "finite", test_finite },
    { "bad_definitions_refused", test_bad_definitions_refused },
    { "paint_scene_covers_solid", test_paint_scene_covers_solid },
    { NULL, NULL },
};
