/* test_render.c - the warp: an undeformed lattice reproduces the placed image
 * exactly, the inverse bilinear map inverts the forward one, a smoothly
 * deformed body has no holes, a stretched edge is drawn as steep as at rest,
 * fit auto keeps all motion on the canvas, and the bounds of a clip hold what
 * it draws and little more, and a point's displacement read off the warp is
 * where the grid is drawn. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "image/render.h"
#include "sim/animate.h"

static unsigned rng_state = 99;
static double rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) / 16777216.0;
}

/* A stamp with soft edges, colour gradients and a hole, on transparency. */
static image make_stamp(int w, int h)
{
    image im;
    image_alloc(&im, w, h, NULL);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double dx = (x + 0.5) / w - 0.5, dy = (y + 0.5) / h - 0.55;
            double d = 0.42 - sqrt(dx * dx + dy * dy);
            double a = d * w > 1 ? 1 : d * w < 0 ? 0 : d * w;
            if (fabs(dx) < 0.05 && fabs(dy) < 0.05)
                a = 0.0; /* a hole */
            uint8_t *p = im.rgba + 4 * ((size_t)y * w + x);
            p[0] = (uint8_t)(40 + 200.0 * x / w);
            p[1] = (uint8_t)(30 + 180.0 * y / h);
            p[2] = (uint8_t)((x * 7 + y * 13) & 255);
            p[3] = (uint8_t)(a * 255 + 0.5);
        }
    image_clear_invisible(&im);
    return im;
}

static void identity_copies_the_placed_image(void)
{
    const int sizes[][4] = { { 64, 64, 64, 64 }, { 40, 70, 40, 70 }, { 64, 64, 128, 128 }, { 64, 64, 50, 80 },
                             { 97, 31, 97, 31 } };
    for (int t = 0; t < 5; t++) {
        image im = make_stamp(sizes[t][0], sizes[t][1]);
        lattice lat;
        ENSURE(lattice_build(&im, 8 + t, &lat, NULL) == POYO_OK);
        int W = sizes[t][2], H = sizes[t][3];
        double *x = malloc((size_t)lat.count * sizeof *x), *y = malloc((size_t)lat.count * sizeof *y);
        for (int k = 0; k < lat.count; k++) {
            x[k] = lat.ox + lat.ni[k] * lat.h;
            y[k] = lat.oy + lat.nj[k] * lat.h;
        }
        double box[4] = { 1e300, 1e300, -1e300, -1e300 };
        ENSURE(render_bounds(&lat, x, y, (size_t)lat.count, 1, box, NULL) == POYO_OK);
        for (int fit = 0; fit < 2; fit++) {
            placement pl = render_fit(im.w, im.h, W, H, (fit_mode)fit, box, 0.0, 1, NULL);
            renderer r;
            ENSURE(renderer_init(&r, &im, &lat, W, H, pl, NULL) == POYO_OK);
            uint8_t *out = malloc((size_t)W * H * 4);
            renderer_draw(&r, x, y, out);
            image placed;
            ENSURE(image_place(&im, W, H, pl.pw, pl.ph, pl.ox, pl.oy, &placed, NULL) == POYO_OK);
            size_t bad = 0;
            for (size_t i = 0; i < (size_t)W * H * 4; i++)
                bad += out[i] != placed.rgba[i];
            ENSURE_MSG(bad == 0, "case %d fit %d: %zu bytes differ from the placed image", t, fit, bad);
            if (W == im.w && H == im.h && fit == FIT_NONE) /* at the input's own size the placed image is the input */
                ENSURE(memcmp(out, im.rgba, (size_t)W * H * 4) == 0);
            image_free(&placed);
            free(out);
            renderer_free(&r);
        }
        free(x);
        free(y);
        lattice_free(&lat);
        image_free(&im);
    }
}

static void inverse_bilinear_inverts(void)
{
    for (int t = 0; t < 20000; t++) {
        /* a convex-ish random quad: a jittered square */
        double q[8] = { 0, 0, 10, 0, 10, 10, 0, 10 };
        for (int i = 0; i < 8; i++)
            q[i] += (rnd() - 0.5) * 6.0;
        double u = rnd(), v = rnd();
        double px = (1 - u) * (1 - v) * q[0] + u * (1 - v) * q[2] + u * v * q[4] + (1 - u) * v * q[6];
        double py = (1 - u) * (1 - v) * q[1] + u * (1 - v) * q[3] + u * v * q[5] + (1 - u) * v * q[7];
        double uu, vv;
        ENSURE_MSG(render_inverse_bilinear(px, py, q, 1e-9, &uu, &vv), "point inside not found (t %d)", t);
        ENSURE_NEAR(uu, u, 1e-7);
        ENSURE_NEAR(vv, v, 1e-7);
    }
    /* points outside the unit square are outside */
    double sq[8] = { 0, 0, 1, 0, 1, 1, 0, 1 }, u, v;
    ENSURE(!render_inverse_bilinear(1.5, 0.5, sq, 1e-9, &u, &v));
    ENSURE(!render_inverse_bilinear(-0.1, 0.5, sq, 1e-9, &u, &v));
}

static void deformed_body_has_no_holes(void)
{
    /* an opaque square, bent by a smooth wave and rotated: every pixel whose
     * 3x3 neighbourhood maps inside the deformed square is drawn opaque */
    image im;
    image_alloc(&im, 64, 64, NULL);
    for (int i = 0; i < 64 * 64; i++) {
        im.rgba[4 * i] = 200;
        im.rgba[4 * i + 3] = 255;
    }
    lattice lat;
    ENSURE(lattice_build(&im, 12, &lat, NULL) == POYO_OK);
    double *x = malloc((size_t)lat.count * sizeof *x), *y = malloc((size_t)lat.count * sizeof *y);
    double c = cos(0.3), s = sin(0.3);
    for (int k = 0; k < lat.count; k++) {
        double qx = lat.ox + lat.ni[k] * lat.h - 32, qy = lat.oy + lat.nj[k] * lat.h - 32;
        qx += 4.0 * sin(qy / 9.0);
        x[k] = 64 + c * qx - s * qy;
        y[k] = 64 + s * qx + c * qy;
    }
    placement pl = { 64, 64, 32, 32, 1.0, 1.0 };
    renderer r;
    ENSURE(renderer_init(&r, &im, &lat, 128, 128, pl, NULL) == POYO_OK);
    uint8_t *out = malloc(128 * 128 * 4);
    /* render positions are image pixels mapped by the placement: undo its offset */
    for (int k = 0; k < lat.count; k++) {
        x[k] -= 32;
        y[k] -= 32;
    }
    renderer_draw(&r, x, y, out);
    int holes = 0, drawn = 0;
    for (int py = 1; py < 127; py++)
        for (int px = 1; px < 127; px++) {
            int all_in = 1;
            for (int dy = -1; dy <= 1 && all_in; dy++)
                for (int dx = -1; dx <= 1 && all_in; dx++) {
                    /* pull back by the inverse rotation and the inverse wave */
                    double ux = px + dx + 0.5 - 64, uy = py + dy + 0.5 - 64;
                    double qx = c * ux + s * uy, qy = -s * ux + c * uy;
                    qx -= 4.0 * sin(qy / 9.0);
                    all_in = fabs(qx) < 29 && fabs(qy) < 29;
                }
            if (!all_in)
                continue;
            drawn++;
            if (out[4 * (py * 128 + px) + 3] != 255)
                holes++;
        }
    ENSURE(drawn > 2000);
    ENSURE_MSG(holes == 0, "%d holes in the deformed body", holes);
    free(out);
    free(x);
    free(y);
    renderer_free(&r);
    lattice_free(&lat);
    image_free(&im);
}

static long opaque_pixels(const uint8_t *p, int w, int h)
{
    long n = 0;
    for (long i = 0; i < (long)w * h; i++)
        n += p[4 * i + 3] >= 128;
    return n;
}

static void fit_auto_keeps_motion_inside(void)
{
    /* a stamp filling its whole canvas, kicked hard: drawn on its own canvas with
     * fit auto, every frame shows as much of the body as the same placement on a
     * canvas three times larger, where nothing can be cut off */
    image im;
    image_alloc(&im, 48, 48, NULL);
    for (int i = 0; i < 48 * 48; i++) {
        im.rgba[4 * i + 1] = 180;
        im.rgba[4 * i + 3] = 255;
    }
    const impulse_kind kinds[] = { IMPULSE_SQUASH, IMPULSE_SHAKE, IMPULSE_JUMP, IMPULSE_TWIST, IMPULSE_POKE };
    for (int t = 0; t < 5; t++) {
        animate_def d = animate_default_def();
        d.impulse.kind = kinds[t];
        d.impulse.strength = impulse_get_info(kinds[t])->strength_max * 0.6;
        motion m;
        ENSURE(animate_simulate(&im, &d, &m, NULL) == POYO_OK);
        placement pl = m.place;
        ENSURE(pl.pw < 48); /* the motion needed room */
        placement big = pl;
        big.ox += 48;
        big.oy += 48;
        renderer r1, r2;
        ENSURE(renderer_init(&r1, &im, &m.lat, 48, 48, pl, NULL) == POYO_OK);
        ENSURE(renderer_init(&r2, &im, &m.lat, 144, 144, big, NULL) == POYO_OK);
        uint8_t *a = malloc(48 * 48 * 4), *b2 = malloc(144 * 144 * 4);
        for (int f = 0; f < m.count; f++) {
            renderer_draw(&r1, m.x + (size_t)f * m.n, m.y + (size_t)f * m.n, a);
            renderer_draw(&r2, m.x + (size_t)f * m.n, m.y + (size_t)f * m.n, b2);
            long na = opaque_pixels(a, 48, 48), nb = opaque_pixels(b2, 144, 144);
            ENSURE_MSG(na == nb, "%s frame %d: %ld opaque pixels on the canvas, %ld unclipped",
                       impulse_get_info(kinds[t])->name, f, na, nb);
        }
        free(a);
        free(b2);
        renderer_free(&r1);
        renderer_free(&r2);
        motion_free(&m);
    }
    image_free(&im);
}

static void bounds_hold_what_is_drawn(void)
{
    /* the box render_bounds gives for a clip holds the centre of every opaque
     * pixel any frame draws (drawn at scale 1 on a canvas large enough to cut
     * nothing off); for a square stamp, whose cells are opaque to their edges,
     * it is within 2 px of them on every side (a round stamp's cells have
     * clear corners that the box must still hold) */
    image im[2];
    im[0] = make_stamp(48, 48);
    image_alloc(&im[1], 48, 48, NULL);
    for (int i = 0; i < 48 * 48; i++) {
        int x = i % 48, y = i / 48;
        im[1].rgba[4 * i + 1] = 180;
        im[1].rgba[4 * i + 3] = x >= 4 && x < 44 && y >= 6 && y < 46 ? 255 : 0;
    }
    const impulse_kind kinds[] = { IMPULSE_SQUASH, IMPULSE_STRETCH, IMPULSE_POKE, IMPULSE_TWIST, IMPULSE_JUMP,
                                   IMPULSE_SHAKE };
    for (int t = 0; t < 24; t++) {
        int sq = t >= 12;
        animate_def d = animate_default_def();
        d.impulse.kind = kinds[t % 6];
        const impulse_info *info = impulse_get_info(d.impulse.kind);
        d.impulse.strength = t % 12 < 6 ? info->strength : info->strength_max;
        d.fit = FIT_NONE;
        motion m;
        ENSURE(animate_simulate(&im[sq], &d, &m, NULL) == POYO_OK);
        double box[4] = { 1e300, 1e300, -1e300, -1e300 };
        ENSURE(render_bounds(&m.lat, m.x, m.y, (size_t)m.n, m.count, box, NULL) == POYO_OK);
        /* room for the box on every side, so nothing is cut off */
        double reach = fmax(fmax(-box[0], -box[1]), fmax(box[2] - 48.0, box[3] - 48.0));
        const int off = 8 + (int)ceil(fmax(reach, 0.0)), W = 48 + 2 * off;
        placement pl = { 48, 48, off, off, 1.0, 1.0 };
        renderer r;
        ENSURE(renderer_init(&r, &im[sq], &m.lat, W, W, pl, NULL) == POYO_OK);
        uint8_t *px = malloc((size_t)W * W * 4);
        double seen[4] = { 1e300, 1e300, -1e300, -1e300 };
        for (int f = 0; f < m.count; f++) {
            renderer_draw(&r, m.x + (size_t)f * m.n, m.y + (size_t)f * m.n, px);
            for (int y = 0; y < W; y++)
                for (int x = 0; x < W; x++)
                    if (px[4 * ((size_t)y * W + x) + 3] >= 128) {
                        seen[0] = fmin(seen[0], x + 0.5 - off);
                        seen[1] = fmin(seen[1], y + 0.5 - off);
                        seen[2] = fmax(seen[2], x + 0.5 - off);
                        seen[3] = fmax(seen[3], y + 0.5 - off);
                    }
        }
        const char *shape = sq ? "square" : "round";
        ENSURE_MSG(seen[0] >= box[0] - 0.25 && seen[1] >= box[1] - 0.25 && seen[2] <= box[2] + 0.25 &&
                       seen[3] <= box[3] + 0.25,
                   "%s %s at %.2f: opaque pixels from %.2f %.2f to %.2f %.2f, outside the box %.2f %.2f %.2f %.2f",
                   shape, info->name, d.impulse.strength, seen[0], seen[1], seen[2], seen[3], box[0], box[1],
                   box[2], box[3]);
        ENSURE_MSG(!sq || (seen[0] <= box[0] + 2.0 && seen[1] <= box[1] + 2.0 && seen[2] >= box[2] - 2.0 &&
                           seen[3] >= box[3] - 2.0),
                   "%s %s at %.2f: opaque pixels from %.2f %.2f to %.2f %.2f, the box %.2f %.2f %.2f %.2f is "
                   "too large",
                   shape, info->name, d.impulse.strength, seen[0], seen[1], seen[2], seen[3], box[0], box[1],
                   box[2], box[3]);
        free(px);
        renderer_free(&r);
        motion_free(&m);
    }
    image_free(&im[0]);
    image_free(&im[1]);
}

static void kicked_bodies_never_tear(void)
{
    /* an opaque disc kicked every way, on canvases whose render quads have
     * different sizes: no frame has a clear pixel whose eight neighbours are
     * all opaque (a hole between quads) */
    image im;
    image_alloc(&im, 64, 64, NULL);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            double dx = x + 0.5 - 32, dy = y + 0.5 - 32;
            uint8_t *p = im.rgba + 4 * (y * 64 + x);
            p[0] = 220;
            p[1] = 160;
            p[2] = 60;
            p[3] = dx * dx + dy * dy < 29.0 * 29.0 ? 255 : 0;
        }
    const impulse_kind kinds[] = { IMPULSE_SQUASH, IMPULSE_POKE, IMPULSE_TWIST, IMPULSE_JUMP, IMPULSE_SHAKE };
    const int sizes[] = { 128, 77, 331 };
    for (int t = 0; t < 15; t++) {
        animate_def d = animate_default_def();
        d.impulse.kind = kinds[t % 5];
        int S = sizes[t / 5];
        d.width = d.height = S;
        motion m;
        anim a;
        ENSURE(animate_simulate(&im, &d, &m, NULL) == POYO_OK);
        ENSURE(animate_render(&im, &m, &d, &a, NULL) == POYO_OK);
        for (int f = 0; f < a.count; f++) {
            const uint8_t *p = anim_frame(&a, f);
            for (int y = 1; y < S - 1; y++)
                for (int x = 1; x < S - 1; x++) {
                    if (p[4 * (y * S + x) + 3] != 0)
                        continue;
                    int solid = 1;
                    for (int k = 0; k < 9 && solid; k++)
                        if (k != 4 && p[4 * ((y + k / 3 - 1) * S + x + k % 3 - 1) + 3] != 255)
                            solid = 0;
                    ENSURE_MSG(!solid, "%s at %d px, frame %d: a hole at %d,%d", impulse_get_info(kinds[t % 5])->name,
                               S, f, x, y);
                }
        }
        anim_free(&a);
        motion_free(&m);
    }
    image_free(&im);
}

static void fit_too_tall_keeps_bottom_or_centres(void)
{
    /* a box taller than the canvas allows even at the smallest scale: kept at
     * the bottom, it overflows the top alone; centred, both ends alike */
    const double box[4] = { 10, -40, 54, 80 }; /* image pixels of a 64x64 input */
    for (int keep = 0; keep < 2; keep++) {
        int fits = 1;
        placement p = render_fit(64, 64, 128, 128, FIT_AUTO, box, 0.86, keep, &fits);
        ENSURE(!fits);
        double top = p.oy + p.sy * box[1], bottom = p.oy + p.sy * box[3];
        double over_top = 1.0 - top, over_bottom = bottom - 127.0;
        if (keep) {
            ENSURE_MSG(over_bottom <= 0.0 && over_top > 0.0, "kept: %g px over the top, %g over the bottom", over_top,
                       over_bottom);
        } else {
            ENSURE_MSG(fabs(over_top - over_bottom) <= 1.0, "centred: %g px over the top, %g over the bottom",
                       over_top, over_bottom);
        }
    }
}

static void fit_says_inside_only_when_it_is(void)
{
    /* boxes of every size and place on canvases of several sizes: whenever fit
     * auto says the box fits, its whole-pixel offset keeps the box off the
     * canvas's outermost pixels, and a box that fits unscaled is not shrunk */
    unsigned seen_fit = 0, seen_tight = 0;
    for (int t = 0; t < 20000; t++) {
        int iw = 16 + (int)(rnd() * 100), ih = 16 + (int)(rnd() * 100), W = 32 + (int)(rnd() * 200);
        int H = rnd() < 0.5 ? W : 32 + (int)(rnd() * 200);
        double bw = (0.6 + rnd()) * iw, bh = (0.6 + rnd()) * ih;
        double box[4] = { -0.3 * iw + rnd() * 0.6 * iw, -0.3 * ih + rnd() * 0.6 * ih, 0, 0 };
        box[2] = box[0] + bw;
        box[3] = box[1] + bh;
        int fits = 0;
        placement p = render_fit(iw, ih, W, H, FIT_AUTO, box, 0.5, (int)(rnd() * 2), &fits);
        if (!fits)
            continue;
        seen_fit++;
        double x0 = p.ox + p.sx * box[0], x1 = p.ox + p.sx * box[2];
        double y0 = p.oy + p.sy * box[1], y1 = p.oy + p.sy * box[3];
        ENSURE_MSG(x0 >= 1.0 - 1e-6 && y0 >= 1.0 - 1e-6 && x1 <= W - 1.0 + 1e-6 && y1 <= H - 1.0 + 1e-6,
                   "%dx%d in %dx%d: said to fit, the box is drawn at %.3f %.3f %.3f %.3f", iw, ih, W, H, x0, y0, x1,
                   y1);
        double s0 = fmin((double)W / iw, (double)H / ih);
        if (bw * s0 <= W - 3.0 && bh * s0 <= H - 3.0 && box[0] * s0 >= 1.0 && box[1] * s0 >= 1.0 &&
            box[2] * s0 <= W - 1.0 && box[3] * s0 <= H - 1.0) {
            seen_tight++;
            ENSURE_MSG(p.pw == (int)floor(s0 * iw + 1e-9) || p.ph == (int)floor(s0 * ih + 1e-9),
                       "%dx%d in %dx%d: shrunk to %dx%d though it fits", iw, ih, W, H, p.pw, p.ph);
        }
    }
    ENSURE(seen_fit > 2000 && seen_tight > 50);
}

/* A source made ahead draws the same frame as the renderer's own, and one
 * made for another placement or image is not used: the renderer makes its own. */
static void source_made_ahead_draws_the_same(void)
{
    image im = make_stamp(40, 30), other = make_stamp(40, 30);
    lattice lat;
    ENSURE(lattice_build(&im, 10, &lat, NULL) == POYO_OK);
    double *x = malloc((size_t)lat.count * sizeof *x), *y = malloc((size_t)lat.count * sizeof *y);
    for (int k = 0; k < lat.count; k++) {
        double qx = lat.ox + lat.ni[k] * lat.h, qy = lat.oy + lat.nj[k] * lat.h;
        x[k] = qx + 2.0 * sin(qy / 5.0);
        y[k] = qy + 1.5 * cos(qx / 7.0);
    }
    placement pl = { 80, 60, 24, 30, 2.0, 2.0 }, moved = pl;
    moved.ox++;
    size_t bytes = 128 * 128 * 4;
    uint8_t *own = malloc(bytes), *ahead = malloc(bytes);
    renderer r;
    ENSURE(renderer_init(&r, &im, &lat, 128, 128, pl, NULL) == POYO_OK);
    renderer_draw(&r, x, y, own);
    renderer_free(&r);
    render_source made[3];
    ENSURE(render_source_make(&im, 128, 128, pl, &made[0], NULL) == POYO_OK);
    ENSURE(render_source_make(&im, 128, 128, moved, &made[1], NULL) == POYO_OK);
    ENSURE(render_source_make(&other, 128, 128, pl, &made[2], NULL) == POYO_OK);
    for (int t = 0; t < 3; t++) {
        ENSURE(renderer_init_from(&r, &im, &made[t], &lat, 128, 128, pl, NULL) == POYO_OK);
        ENSURE_MSG((r.src == made[t].px) == (t == 0), "source %d: used %d", t, r.src == made[t].px);
        memset(ahead, 0x5a, bytes);
        renderer_draw(&r, x, y, ahead);
        ENSURE_MSG(memcmp(own, ahead, bytes) == 0, "source %d draws another frame", t);
        renderer_free(&r);
        render_source_free(&made[t]);
        render_source_free(&made[t]); /* twice is safe */
    }
    free(own);
    free(ahead);
    free(x);
    free(y);
    lattice_free(&lat);
    image_free(&im);
    image_free(&other);
}

/* The sum of the squared steps between neighbours along x (axis 0) or y
 * (axis 1), premultiplied, over the canvas's middle rows or columns: how
 * sharp the frame's edges across that axis are. */
static double steps_along(const uint8_t *p, int w, int axis)
{
    double e = 0.0;
    for (int i = 40; i < 88; i++)
        for (int j = 0; j + 1 < w; j++) {
            const uint8_t *a = axis ? p + 4 * ((size_t)j * w + i) : p + 4 * ((size_t)i * w + j);
            const uint8_t *b = axis ? a + 4 * (size_t)w : a + 4;
            for (int c = 0; c < 4; c++) {
                double d = b[c] * (b[3] / 255.0) - a[c] * (a[3] / 255.0);
                e += d * d;
            }
        }
    return e;
}

static void stretched_edges_stay_steep(void)
{
    /* bands, red and blue, on transparency, with edges two pixels soft as
     * an upsampled emoji's, stretched 1.25 times across them: a plain warp
     * draws each edge over 1.25 times the pixels and the steps across them
     * lose a seventh of their sum. Sharpened, the sum is at least 0.95 of
     * rest's and at most 1.5 times it (a hard step's is 2.67 times); no
     * colour overshoots the bands' by more than the cubic upsampling's own
     * 6 of 255; and the pixels at least half covered are as many as the
     * stretch makes. Upright bands stretched along x, then level ones
     * along y. */
    for (int axis = 0; axis < 2; axis++) {
        image im;
        image_alloc(&im, 64, 64, NULL);
        for (int y = 0; y < 64; y++)
            for (int x = 0; x < 64; x++) {
                double f = (axis ? y : x) + 0.5;
                double a = fmin(fmax((f - 10.0) / 2.0, 0.0), 1.0) * fmin(fmax((54.0 - f) / 2.0, 0.0), 1.0);
                double t = fmin(fmax((f - 31.0) / 2.0, 0.0), 1.0); /* red to blue */
                uint8_t *p = im.rgba + 4 * ((size_t)y * 64 + x);
                p[0] = (uint8_t)(220 - 180 * t + 0.5);
                p[1] = 40;
                p[2] = (uint8_t)(40 + 180 * t + 0.5);
                p[3] = (uint8_t)(255 * a + 0.5);
            }
        image_clear_invisible(&im);
        lattice lat;
        ENSURE(lattice_build(&im, 8, &lat, NULL) == POYO_OK);
        double *x = malloc((size_t)lat.count * sizeof *x), *y = malloc((size_t)lat.count * sizeof *y);
        placement pl = { 64, 64, 32, 32, 1.0, 1.0 };
        renderer r;
        ENSURE(renderer_init(&r, &im, &lat, 128, 128, pl, NULL) == POYO_OK);
        uint8_t *rest = malloc(128 * 128 * 4), *wide = malloc(128 * 128 * 4);
        for (int k = 0; k < lat.count; k++) {
            x[k] = lat.ox + lat.ni[k] * lat.h;
            y[k] = lat.oy + lat.nj[k] * lat.h;
        }
        renderer_draw(&r, x, y, rest);
        double *s = axis ? y : x;
        for (int k = 0; k < lat.count; k++)
            s[k] = 32.0 + 1.25 * (s[k] - 32.0);
        renderer_draw(&r, x, y, wide);
        double e0 = steps_along(rest, 128, axis), e1 = steps_along(wide, 128, axis);
        ENSURE_MSG(e1 >= 0.95 * e0 && e1 <= 1.5 * e0, "axis %d: stretched, the steps sum to %.3f of rest's", axis,
                   e1 / e0);
        long n0 = 0, n1 = 0;
        int over = 0;
        for (int i = 0; i < 128 * 128; i++) {
            n0 += rest[4 * i + 3] >= 128;
            n1 += wide[4 * i + 3] >= 128;
            const uint8_t *p = wide + 4 * i;
            if (p[3] >= 32 && (p[0] < 34 || p[0] > 226 || p[1] < 34 || p[1] > 46 || p[2] < 34 || p[2] > 226))
                over++;
        }
        ENSURE_MSG(over == 0, "axis %d: %d pixels overshoot the bands' colours", axis, over);
        ENSURE_MSG(fabs(n1 - 1.25 * n0) <= 0.01 * 1.25 * n0, "axis %d: half covered: %ld at rest, %ld stretched",
                   axis, n0, n1);
        free(rest);
        free(wide);
        free(x);
        free(y);
        renderer_free(&r);
        lattice_free(&lat);
        image_free(&im);
    }
}

static void warp_at_is_where_the_grid_is_drawn(void)
{
    /* a round stamp (its corner nodes inactive, filled from their neighbours)
     * bent and dented: the displacement render_warp_at gives a point of the
     * render grid is where the renderer drew that grid point */
    image im = make_stamp(64, 64);
    lattice lat;
    ENSURE(lattice_build(&im, 12, &lat, NULL) == POYO_OK);
    ENSURE(lat.count < lat.nx * lat.ny);
    double *x = malloc((size_t)lat.count * sizeof *x), *y = malloc((size_t)lat.count * sizeof *y);
    size_t grid = (size_t)lat.nx * lat.ny;
    double *fx = malloc(grid * sizeof *fx), *fy = malloc(grid * sizeof *fy);
    unsigned char *filled = malloc(grid);
    for (int k = 0; k < lat.count; k++) {
        double qx = lat.ox + lat.ni[k] * lat.h, qy = lat.oy + lat.nj[k] * lat.h;
        double dent = 6.0 * exp(-((qx - 30) * (qx - 30) + (qy - 12) * (qy - 12)) / 40.0);
        x[k] = qx + 3.0 * sin(qy / 9.0) + (rnd() - 0.5);
        y[k] = qy + dent + (rnd() - 0.5);
    }
    placement pl = { 64, 64, 32, 32, 1.0, 1.0 };
    renderer r;
    ENSURE(renderer_init(&r, &im, &lat, 128, 128, pl, NULL) == POYO_OK);
    uint8_t *out = malloc(128 * 128 * 4);
    renderer_draw(&r, x, y, out);
    render_warp_field(&lat, x, y, fx, fy, filled);
    double worst = 0.0;
    for (int Y = 0; Y < r.ry; Y++)
        for (int X = 0; X < r.rx; X++) {
            double px = lat.ox + (double)X / r.sub * lat.h, py = lat.oy + (double)Y / r.sub * lat.h, dx, dy;
            render_warp_at(&lat, fx, fy, px, py, &dx, &dy);
            size_t g = (size_t)Y * r.rx + X;
            worst = fmax(worst, fmax(fabs(px + dx - r.gx[g]), fabs(py + dy - r.gy[g])));
        }
    ENSURE_MSG(worst < 1e-9, "render_warp_at is %g px from the drawn grid", worst);
    free(out);
    free(filled);
    free(fx);
    free(fy);
    free(x);
    free(y);
    renderer_free(&r);
    lattice_free(&lat);
    image_free(&im);
}

const struct test_case test_cases[] = {
    { "stretched_edges_stay_steep", stretched_edges_stay_steep },
    { "source_made_ahead_draws_the_same", source_made_ahead_draws_the_same },
    { "fit_too_tall_keeps_bottom_or_centres", fit_too_tall_keeps_bottom_or_centres },
    { "kicked_bodies_never_tear", kicked_bodies_never_tear },
    { "identity_copies_the_placed_image", identity_copies_the_placed_image },
    { "inverse_bilinear_inverts", inverse_bilinear_inverts },
    { "deformed_body_has_no_holes", deformed_body_has_no_holes },
    { "fit_auto_keeps_motion_inside", fit_auto_keeps_motion_inside },
    { "bounds_hold_what_is_drawn", bounds_hold_what_is_drawn },
    { "fit_says_inside_only_when_it_is", fit_says_inside_only_when_it_is },
    { "warp_at_is_where_the_grid_is_drawn", warp_at_is_where_the_grid_is_drawn },
    { NULL, NULL },
};
