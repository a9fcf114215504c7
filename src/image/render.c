/* render.c - warps the stamp over the deformed lattice. Node displacements
 * are refined with Catmull-Rom splines onto a finer grid (quads of at most
 * 8 px); each refined quad is filled by inverting its bilinear map at every
 * pixel centre and sampling bilinearly, in premultiplied alpha, a copy of the
 * placed source upsampled with Keys' cubic, four times up to chat sizes and
 * twice above (so a moving frame stays as crisp as the rest frame, whose
 * samples fall on the source's own pixels).
 * Quads that are parallelograms to within 0.02 px have an affine inverse and
 * are filled a row span at a time; others are split into the quads of their
 * own bilinear map. Quads are drawn in lattice order and the
 * first one to cover a pixel keeps it. A quad that stretches the source
 * draws its edges wider than at rest, so softer; the frame is sharpened
 * there afterwards, by as much as each widened (sharpen_widened). */
#include "render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/hugemem.h"
#include "util/workers.h"

/* Four floats handled as one value (GCC and Clang vector extension). */
typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));

static inline v4f load4(const float *p)
{
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

void render_warp_field(const lattice *lat, const double *x, const double *y, double *dx, double *dy,
                       unsigned char *filled)
{
    int nx = lat->nx, ny = lat->ny;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            size_t g = (size_t)j * nx + i;
            int k = lat->index[g];
            if (k >= 0) {
                dx[g] = x[k] - (lat->ox + i * lat->h);
                dy[g] = y[k] - (lat->oy + j * lat->h);
                filled[g] = 2;
            } else {
                dx[g] = dy[g] = 0.0;
                filled[g] = 0;
            }
        }
    /* inactive nodes take the mean of their filled neighbours, layer by layer */
    for (int pass = 0; pass < nx + ny; pass++) {
        int changed = 0;
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                size_t g = (size_t)j * nx + i;
                if (filled[g])
                    continue;
                double sx = 0, sy = 0;
                int c = 0;
                for (int dj = -1; dj <= 1; dj++)
                    for (int di = -1; di <= 1; di++) {
                        int i2 = i + di, j2 = j + dj;
                        if ((di | dj) == 0 || i2 < 0 || j2 < 0 || i2 >= nx || j2 >= ny)
                            continue;
                        size_t g2 = (size_t)j2 * nx + i2;
                        if (filled[g2] >= 2) {
                            sx += dx[g2];
                            sy += dy[g2];
                            c++;
                        }
                    }
                if (c) {
                    dx[g] = sx / c;
                    dy[g] = sy / c;
                    filled[g] = 1;
                    changed = 1;
                }
            }
        if (!changed)
            break;
        for (size_t g = 0; g < (size_t)nx * ny; g++)
            if (filled[g] == 1)
                filled[g] = 2;
    }
}

/* The transparent border around the placed source, pixels: its cubic
 * upsampling reads two pixels either side. */
#define PAD 3
#define SRC_OFF (PAD - 0.5f)

/* Catmull-Rom weights for the segment [p1, p2] at t in [0, 1]. */
static void cr_weights(double t, double w[4])
{
    double t2 = t * t, t3 = t2 * t;
    w[0] = 0.5 * (-t + 2.0 * t2 - t3);
    w[1] = 0.5 * (2.0 - 5.0 * t2 + 3.0 * t3);
    w[2] = 0.5 * (t + 4.0 * t2 - 3.0 * t3);
    w[3] = 0.5 * (-t2 + t3);
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* floor and ceil of x as ints, for x already clamped to a canvas-sized range */
static inline int ifloor(double x)
{
    int i = (int)x;
    return i > x ? i - 1 : i;
}

static inline int iceil(double x)
{
    int i = (int)x;
    return i < x ? i + 1 : i;
}

static inline double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
/* min and max without fmin's NaN rules, which make it a library call */
static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }

void render_warp_at(const lattice *lat, const double *dx, const double *dy, double px, double py, double *ox,
                    double *oy)
{
    int nx = lat->nx, ny = lat->ny;
    double u = clampd((px - lat->ox) / lat->h, 0.0, nx - 1), v = clampd((py - lat->oy) / lat->h, 0.0, ny - 1);
    int i = clampi((int)u, 0, nx - 2), j = clampi((int)v, 0, ny - 2);
    double wu[4], wv[4];
    cr_weights(u - i, wu);
    cr_weights(v - j, wv);
    *ox = *oy = 0.0;
    for (int b = 0; b < 4; b++) {
        size_t row = (size_t)clampi(j - 1 + b, 0, ny - 1) * nx;
        for (int a = 0; a < 4; a++) {
            size_t g = row + clampi(i - 1 + a, 0, nx - 1);
            *ox += wu[a] * wv[b] * dx[g];
            *oy += wu[a] * wv[b] * dy[g];
        }
    }
}

/* Refined positions in image pixels into r->gx, r->gy. */
static void refine(renderer *r, const double *x, const double *y)
{
    const lattice *lat = r->lat;
    int nx = lat->nx, ny = lat->ny, sub = r->sub, rx = r->rx, ry = r->ry;
    render_warp_field(lat, x, y, r->dx, r->dy, r->filled);
    for (int X = 0; X < rx; X++) {
        int i = X / sub;
        double t = (double)(X % sub) / sub;
        if (i >= nx - 1) {
            i = nx - 2;
            t = 1.0;
        }
        double w[4];
        cr_weights(t, w);
        int i0 = clampi(i - 1, 0, nx - 1), i1 = i, i2 = clampi(i + 1, 0, nx - 1), i3 = clampi(i + 2, 0, nx - 1);
        for (int j = 0; j < ny; j++) {
            const double *dxr = r->dx + (size_t)j * nx, *dyr = r->dy + (size_t)j * nx;
            r->tx[(size_t)j * rx + X] = w[0] * dxr[i0] + w[1] * dxr[i1] + w[2] * dxr[i2] + w[3] * dxr[i3];
            r->ty[(size_t)j * rx + X] = w[0] * dyr[i0] + w[1] * dyr[i1] + w[2] * dyr[i2] + w[3] * dyr[i3];
        }
    }
    for (int Y = 0; Y < ry; Y++) {
        int j = Y / sub;
        double t = (double)(Y % sub) / sub;
        if (j >= ny - 1) {
            j = ny - 2;
            t = 1.0;
        }
        double w[4];
        cr_weights(t, w);
        int j0 = clampi(j - 1, 0, ny - 1), j1 = j, j2 = clampi(j + 1, 0, ny - 1), j3 = clampi(j + 2, 0, ny - 1);
        const double *a0 = r->tx + (size_t)j0 * rx, *a1 = r->tx + (size_t)j1 * rx, *a2 = r->tx + (size_t)j2 * rx,
                     *a3 = r->tx + (size_t)j3 * rx;
        const double *b0 = r->ty + (size_t)j0 * rx, *b1 = r->ty + (size_t)j1 * rx, *b2 = r->ty + (size_t)j2 * rx,
                     *b3 = r->ty + (size_t)j3 * rx;
        double ry0 = lat->oy + (double)Y / sub * lat->h;
        for (int X = 0; X < rx; X++) {
            double rx0 = lat->ox + (double)X / sub * lat->h;
            r->gx[(size_t)Y * rx + X] = rx0 + w[0] * a0[X] + w[1] * a1[X] + w[2] * a2[X] + w[3] * a3[X];
            r->gy[(size_t)Y * rx + X] = ry0 + w[0] * b0[X] + w[1] * b1[X] + w[2] * b2[X] + w[3] * b3[X];
        }
    }
}

static int cell_drawn(const lattice *lat, int ci, int cj)
{
    return lat->cell[(size_t)cj * (lat->nx - 1) + ci];
}

/* Keys' cubic convolution kernel with a = -1: interpolating like Catmull-Rom's
 * (a = -0.5) but sharper, so that an edge drawn between the source's pixels
 * keeps the crispness it has on them. */
static double keys(double x)
{
    const double a = -1.0;
    x = fabs(x);
    return x <= 1.0 ? ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0 : x < 2.0 ? ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a : 0.0;
}

/* Largest canvas side drawn from a source upsampled four times (its float
 * copy is then 256 bytes per canvas pixel, 4.6 MB at 128 px). Sampled between
 * points a quarter of a pixel apart, a moving frame keeps more of the rest
 * frame's sharpness than between points half a pixel apart: over 910 clips
 * at 128 px, 10 fell under 0.95 of it, against 24 upsampled twice (15 three
 * times), for 2.2 ms more of a 12.4 ms run (1.2 ms three times). */
#define UP4_MAX_SIDE 160
/* Largest canvas side drawn from a source upsampled twice (64 bytes per
 * canvas pixel); larger canvases sample the source itself. */
#define UP2_MAX_SIDE 1024

/* d = w[0] a0 + w[1] a1 + w[2] a2 + w[3] a3 for each channel: the point Keys'
 * cubic puts between a1 and a2. */
static inline void keys_mix(float *d, const float *a0, const float *a1, const float *a2, const float *a3,
                            const float w[4])
{
    /* halfway, the weights pair up */
    v4f v = w[0] == w[3] ? w[0] * (load4(a0) + load4(a3)) + w[1] * (load4(a1) + load4(a2))
                         : w[0] * load4(a0) + w[1] * load4(a1) + w[2] * load4(a2) + w[3] * load4(a3);
    memcpy(d, &v, sizeof v);
}

/* 1 when the four points are clear (alpha 0, so their colours are 0 too):
 * then so is every point Keys' cubic puts between them. */
static inline int all_clear(const float *a0, const float *a1, const float *a2, const float *a3)
{
    return a0[3] == 0.0f && a1[3] == 0.0f && a2[3] == 0.0f && a3[3] == 0.0f;
}

/* Alpha into 0..255, then each colour into 0..alpha (a colour below 0 is 0,
 * one above alpha is alpha), four channels at once. */
static inline void clamp_premultiplied(float *d)
{
    float a = d[3] < 0.0f ? 0.0f : d[3] > 255.0f ? 255.0f : d[3];
    v4f v = load4(d), av = { a, a, a, a };
    v4i over = v > av, below = v < 0.0f;
    v4i bits = (((v4i)v & ~over) | ((v4i)av & over)) & ~below;
    memcpy(d, &bits, sizeof bits);
    d[3] = a;
}

/* Premultiplied float copy of im with a transparent border of PAD pixels, at
 * up times its resolution (1, 2 or 4): the points in between are Keys'
 * cubic of their four neighbours along each axis (overshoot cut), so a
 * bilinear sample of it is nearly as sharp as a bicubic one of the source,
 * while a sample on a source pixel is that pixel. */
static poyo_status premultiply_padded(const image *im, int up, float **out, poyo_error *err)
{
    size_t pw = (size_t)im->w + 2 * PAD, ph = (size_t)im->h + 2 * PAD;
    size_t uw = pw * (size_t)up, uh = ph * (size_t)up;
    /* every point is written once below: no block of zeros first */
    float *f = hugemem_alloc(uw * uh * 4, sizeof *f);
    if (!f)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d image", im->w, im->h);
    static const float clear[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    for (size_t y = 0; y < ph; y++)
        for (size_t x = 0; x < pw; x++) {
            float *d = f + ((y * uw + x) * (size_t)up) * 4;
            if (y < PAD || y >= PAD + (size_t)im->h || x < PAD || x >= PAD + (size_t)im->w) {
                memcpy(d, clear, sizeof clear);
                continue;
            }
            const uint8_t *p = im->rgba + ((y - PAD) * im->w + (x - PAD)) * 4;
            float a = p[3];
            d[0] = p[0] * a / 255.0f;
            d[1] = p[1] * a / 255.0f;
            d[2] = p[2] * a / 255.0f;
            d[3] = a;
        }
    if (up > 1) {
        /* the weights of the four source pixels around each point in between */
        float wt[4][4];
        for (int k = 1; k < up; k++) {
            double t = (double)k / up;
            wt[k][0] = (float)keys(1.0 + t);
            wt[k][1] = (float)keys(t);
            wt[k][2] = (float)keys(1.0 - t);
            wt[k][3] = (float)keys(2.0 - t);
        }
        size_t su = (size_t)up;
        /* along the source's rows, between its pixels */
        for (size_t y = 0; y < uh; y += su)
            for (size_t x1 = 0; x1 < uw; x1 += su) {
                size_t x0 = x1 >= su ? x1 - su : x1, x2 = x1 + su < uw ? x1 + su : x1;
                size_t x3 = x2 + su < uw ? x2 + su : x2;
                const float *a0 = f + (y * uw + x0) * 4, *a1 = f + (y * uw + x1) * 4;
                const float *a2 = f + (y * uw + x2) * 4, *a3 = f + (y * uw + x3) * 4;
                int none = all_clear(a0, a1, a2, a3);
                for (size_t k = 1; k < su; k++) {
                    float *d = f + (y * uw + x1 + k) * 4;
                    if (none)
                        memcpy(d, clear, sizeof clear);
                    else
                        keys_mix(d, a0, a1, a2, a3, wt[k]);
                }
            }
        /* then along every column, from those rows; each point in between
         * brought within range as it is made */
        for (size_t y1 = 0; y1 < uh; y1 += su) {
            size_t y0 = y1 >= su ? y1 - su : y1, y2 = y1 + su < uh ? y1 + su : y1;
            size_t y3 = y2 + su < uh ? y2 + su : y2;
            for (size_t x = 0; x < uw; x++) {
                const float *a0 = f + (y0 * uw + x) * 4, *a1 = f + (y1 * uw + x) * 4;
                const float *a2 = f + (y2 * uw + x) * 4, *a3 = f + (y3 * uw + x) * 4;
                int none = all_clear(a0, a1, a2, a3);
                for (size_t k = 1; k < su; k++) {
                    float *d = f + ((y1 + k) * uw + x) * 4;
                    if (none) {
                        memcpy(d, clear, sizeof clear);
                    } else {
                        keys_mix(d, a0, a1, a2, a3, wt[k]);
                        clamp_premultiplied(d);
                    }
                }
            }
        }
        /* and the points in between along the source's rows, used above as they were */
        for (size_t y = 0; y < uh; y += su)
            for (size_t x = 0; x < uw; x++)
                if (x % su)
                    clamp_premultiplied(f + (y * uw + x) * 4);
    }
    *out = f;
    return POYO_OK;
}

/* How many times the canvas's resolution the placed source is kept at. */
static int source_up(int w, int h)
{
    return w <= UP4_MAX_SIDE && h <= UP4_MAX_SIDE ? 4 : w <= UP2_MAX_SIDE && h <= UP2_MAX_SIDE ? 2 : 1;
}

double renderer_bytes(int w, int h)
{
    int up = source_up(w, h);
    double src = ((double)w + 2 * PAD) * up * ((double)h + 2 * PAD) * up * 4.0 * sizeof(float);
    /* the placed canvas, the stamp resampled for it (at most the canvas), a mask per thread;
     * three rows per thread for sharpening */
    return src + (double)w * h * (4.0 + 4.0 + WORKERS_MAX) + (double)w * 12.0 * sizeof(float) * WORKERS_MAX;
}

/* src placed on a w x h canvas at place, premultiplied, bordered and
 * upsampled by source_up, into *out. */
static poyo_status place_source(const image *src, int w, int h, placement place, float **out, poyo_error *err)
{
    image placed;
    poyo_status st = image_place(src, w, h, place.pw, place.ph, place.ox, place.oy, &placed, err);
    if (st == POYO_OK) {
        st = premultiply_padded(&placed, source_up(w, h), out, err);
        image_free(&placed);
    }
    return st;
}

poyo_status renderer_init(renderer *r, const image *src, const lattice *lat, int w, int h, placement place,
                          poyo_error *err)
{
    memset(r, 0, sizeof *r);
    r->lat = lat;
    r->w = w;
    r->h = h;
    r->place = place;
    /* render quads of at most 8 px on a side, at least two per cell so the
     * spline bends the cell's edges; quads that are not parallelograms are
     * split further while drawn */
    int sub = (int)ceil(lat->h * fmax(place.sx, place.sy) / 8.0);
    r->sub = clampi(sub, 2, 16);
    r->rx = (lat->nx - 1) * r->sub + 1;
    r->ry = (lat->ny - 1) * r->sub + 1;
    size_t nn = (size_t)lat->nx * lat->ny, nr = (size_t)r->rx * r->ry;
    r->dx = malloc(nn * sizeof(double));
    r->dy = malloc(nn * sizeof(double));
    r->filled = malloc(nn);
    r->tx = malloc((size_t)lat->ny * r->rx * sizeof(double));
    r->ty = malloc((size_t)lat->ny * r->rx * sizeof(double));
    r->gx = malloc(nr * sizeof(double));
    r->gy = malloc(nr * sizeof(double));
    r->mask = malloc((size_t)w * h);
    r->ring = malloc((size_t)w * 12 * sizeof(float));
    r->src_max_x = (float)(w + PAD);
    r->src_max_y = (float)(h + PAD);
    r->up = source_up(w, h);
    r->src_stride = ((size_t)w + 2 * PAD) * 4 * (size_t)r->up;
    for (int a = 0; a < 256; a++) {
        float k = a ? 255.0f / (float)a : 0.0f;
        r->unpremul[a][0] = r->unpremul[a][1] = r->unpremul[a][2] = k;
        r->unpremul[a][3] = 1.0f;
    }
    if (!r->dx || !r->dy || !r->filled || !r->tx || !r->ty || !r->gx || !r->gy || !r->mask || !r->ring) {
        renderer_free(r);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d canvas", w, h);
    }
    if (src) {
        poyo_status st = place_source(src, w, h, place, &r->src, err);
        if (st != POYO_OK) {
            renderer_free(r);
            return st;
        }
    }
    return POYO_OK;
}

poyo_status render_source_make(const image *src, int w, int h, placement place, render_source *out,
                               poyo_error *err)
{
    memset(out, 0, sizeof *out);
    poyo_status st = place_source(src, w, h, place, &out->px, err);
    if (st != POYO_OK)
        return st;
    out->from = src;
    out->w = w;
    out->h = h;
    out->place = place;
    return POYO_OK;
}

void render_source_free(render_source *s)
{
    free(s->px);
    memset(s, 0, sizeof *s);
}

static int same_place(placement a, placement b)
{
    return a.pw == b.pw && a.ph == b.ph && a.ox == b.ox && a.oy == b.oy && a.sx == b.sx && a.sy == b.sy;
}

poyo_status renderer_init_from(renderer *r, const image *src, const render_source *s, const lattice *lat, int w,
                               int h, placement place, poyo_error *err)
{
    if (!s || !s->px || !src || s->from != src || s->w != w || s->h != h || !same_place(s->place, place))
        return renderer_init(r, src, lat, w, h, place, err);
    poyo_status st = renderer_init(r, NULL, lat, w, h, place, err);
    if (st == POYO_OK) {
        r->src = s->px;
        r->shared_src = 1;
    }
    return st;
}

void renderer_free(renderer *r)
{
    if (!r->shared_src)
        free(r->src);
    free(r->dx);
    free(r->dy);
    free(r->filled);
    free(r->tx);
    free(r->ty);
    free(r->gx);
    free(r->gy);
    free(r->mask);
    free(r->ring);
    r->src = r->ring = NULL;
    r->dx = r->dy = r->tx = r->ty = r->gx = r->gy = NULL;
    r->filled = NULL;
    r->mask = NULL;
}

/* The least and greatest of r + t h + d(t) for t in [t0, t1], where d is the
 * Catmull-Rom segment through c[0..3] (the spline of refine()) and the point
 * rests at r + t h: at the ends, and where its derivative is zero between. */
static void spline_range(const double c[4], double r, double h, double t0, double t1, double *lo, double *hi)
{
    /* d(t) = c1 + b t + q t^2 + k t^3 */
    double b = 0.5 * (c[2] - c[0]);
    double q = 0.5 * (2.0 * c[0] - 5.0 * c[1] + 4.0 * c[2] - c[3]);
    double k = 0.5 * (-c[0] + 3.0 * c[1] - 3.0 * c[2] + c[3]);
    double ts[4] = { t0, t1, t0, t0 };
    int nt = 2;
    /* zeros of h + b + 2 q t + 3 k t^2 */
    double A = 3.0 * k, B = 2.0 * q, C = h + b;
    if (fabs(A) > 1e-12 * (fabs(B) + fabs(C))) {
        double disc = B * B - 4.0 * A * C;
        if (disc >= 0.0) {
            double sq = sqrt(disc), qq = -0.5 * (B + (B >= 0.0 ? sq : -sq));
            ts[nt++] = qq / A;
            if (qq != 0.0)
                ts[nt++] = C / qq;
        }
    } else if (B != 0.0) {
        ts[nt++] = -C / B;
    }
    for (int i = 0; i < nt; i++) {
        double t = ts[i];
        if (!(t >= t0 && t <= t1))
            continue;
        double v = r + t * h + c[1] + t * (b + t * (q + t * k));
        *lo = dmin(*lo, v);
        *hi = dmax(*hi, v);
    }
}

/* What cell (ci, cj) draws, image pixels: the box of its opaque pixels (their
 * whole squares), or with `any` (a picture with no opaque pixel) the visible
 * box inside it; 0 when that is empty or the cell is not drawn. */
static int cell_content(const lattice *lat, int ci, int cj, int any, double c[4])
{
    if (ci < 0 || cj < 0 || ci >= lat->nx - 1 || cj >= lat->ny - 1 || !cell_drawn(lat, ci, cj))
        return 0;
    if (!any) {
        const float *b = lat->cell_box + 4 * ((size_t)cj * (lat->nx - 1) + ci);
        for (int k = 0; k < 4; k++)
            c[k] = b[k];
    } else {
        double rx0 = lat->ox + ci * lat->h, ry0 = lat->oy + cj * lat->h;
        c[0] = dmax(rx0, lat->bx0);
        c[1] = dmax(ry0, lat->by0);
        c[2] = dmin(rx0 + lat->h, lat->bx1);
        c[3] = dmin(ry0 + lat->h, lat->by1);
    }
    return c[0] < c[2] && c[1] < c[3];
}

/* 1 when cell (ci, cj)'s content c has its edge e (top, bottom, left, right) on
 * the cell's own edge and the neighbour across it draws all along it: the edge
 * is inside what is drawn. */
static int edge_inside(const lattice *lat, int ci, int cj, int any, int e, const double c[4])
{
    double rx0 = lat->ox + ci * lat->h, ry0 = lat->oy + cj * lat->h, eps = 1e-9 * (1.0 + lat->h);
    double nb[4];
    switch (e) {
    case 0:
        return c[1] <= ry0 + eps && cell_content(lat, ci, cj - 1, any, nb) && nb[3] >= ry0 - eps &&
               nb[0] <= c[0] + eps && nb[2] >= c[2] - eps;
    case 1:
        return c[3] >= ry0 + lat->h - eps && cell_content(lat, ci, cj + 1, any, nb) &&
               nb[1] <= ry0 + lat->h + eps && nb[0] <= c[0] + eps && nb[2] >= c[2] - eps;
    case 2:
        return c[0] <= rx0 + eps && cell_content(lat, ci - 1, cj, any, nb) && nb[2] >= rx0 - eps &&
               nb[1] <= c[1] + eps && nb[3] >= c[3] - eps;
    default:
        return c[2] >= rx0 + lat->h - eps && cell_content(lat, ci + 1, cj, any, nb) &&
               nb[0] <= rx0 + lat->h + eps && nb[1] <= c[1] + eps && nb[3] >= c[3] - eps;
    }
}

/* The spline along one edge of cell (ci, cj), at fraction s across it: for the
 * four nodes along the edge (i - 1 .. i + 2, or j - 1 .. j + 2 with rows), the
 * mix across the edge of their column (row) at s, of dx into ox and of dy into oy. */
static void edge_nodes(const lattice *lat, const double *dx, const double *dy, int ci, int cj, int rows, double s,
                       double ox[4], double oy[4])
{
    int nx = lat->nx, ny = lat->ny;
    double w[4];
    cr_weights(s, w);
    size_t along[4], across[4];
    for (int a = 0; a < 4; a++) {
        size_t i = (size_t)clampi(ci - 1 + a, 0, nx - 1), j = (size_t)clampi(cj - 1 + a, 0, ny - 1) * nx;
        along[a] = rows ? j : i;
        across[a] = rows ? i : j;
    }
    for (int a = 0; a < 4; a++) {
        double sx = 0.0, sy = 0.0;
        for (int b = 0; b < 4; b++) {
            size_t g = along[a] + across[b];
            sx += w[b] * dx[g];
            sy += w[b] * dy[g];
        }
        ox[a] = sx;
        oy[a] = sy;
    }
}

poyo_status render_bounds(const lattice *lat, const double *x, const double *y, size_t n, int frames, double box[4],
                          poyo_error *err)
{
    size_t nn = (size_t)lat->nx * lat->ny;
    double *dx = malloc(nn * sizeof *dx), *dy = malloc(nn * sizeof *dy);
    unsigned char *filled = malloc(nn);
    if (!dx || !dy || !filled) {
        free(dx);
        free(dy);
        free(filled);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a lattice of %dx%d nodes", lat->nx, lat->ny);
    }
    double h = lat->h;
    /* opaque pixels (alpha >= 1/2) where the picture has any, else all it shows */
    int any = !(lat->sx1 > lat->sx0 && lat->sy1 > lat->sy0);
    double b[4] = { 1e300, 1e300, -1e300, -1e300 };
    for (int f = 0; f < frames; f++) {
        render_warp_field(lat, x + (size_t)f * n, y + (size_t)f * n, dx, dy, filled);
        /* the lattice does not fold, so what is drawn lies inside the spline's
         * image of the outline of what the cells draw: each edge of a cell's
         * content that is not inside the rest is searched for its extremes */
        for (int cj = 0; cj < lat->ny - 1; cj++)
            for (int ci = 0; ci < lat->nx - 1; ci++) {
                double c[4];
                if (!cell_content(lat, ci, cj, any, c))
                    continue;
                double rx0 = lat->ox + ci * h, ry0 = lat->oy + cj * h;
                double u0 = (c[0] - rx0) / h, u1 = (c[2] - rx0) / h;
                double v0 = (c[1] - ry0) / h, v1 = (c[3] - ry0) / h;
                for (int e = 0; e < 4; e++) {
                    /* e: top, bottom (along x, at v0, v1), left, right (along y, at u0, u1) */
                    int rows = e >= 2;
                    if (edge_inside(lat, ci, cj, any, e, c))
                        continue;
                    double s = e == 0 ? v0 : e == 1 ? v1 : e == 2 ? u0 : u1;
                    double px[4], py[4];
                    edge_nodes(lat, dx, dy, ci, cj, rows, s, px, py);
                    if (!rows) {
                        /* along x: x = rx0 + t h + dx(t), y = ry0 + s h + dy(t) */
                        spline_range(px, rx0, h, u0, u1, &b[0], &b[2]);
                        spline_range(py, ry0 + s * h, 0.0, u0, u1, &b[1], &b[3]);
                    } else {
                        spline_range(px, rx0 + s * h, 0.0, v0, v1, &b[0], &b[2]);
                        spline_range(py, ry0, h, v0, v1, &b[1], &b[3]);
                    }
                }
            }
    }
    /* sampling blends a pixel up to half a pixel past its square */
    if (b[0] <= b[2]) {
        box[0] = dmin(box[0], b[0] - 0.5);
        box[1] = dmin(box[1], b[1] - 0.5);
        box[2] = dmax(box[2], b[2] + 0.5);
        box[3] = dmax(box[3], b[3] + 0.5);
    }
    free(dx);
    free(dy);
    free(filled);
    return POYO_OK;
}

/* The offsets (x, then y) that put box, drawn at p's scale, inside the
 * canvas's outermost pixels: lo[a] to hi[a], none when lo[a] > hi[a]. */
static void offset_range(placement p, int w, int h, const double box[4], double lo[2], double hi[2])
{
    lo[0] = 1.0 - p.sx * box[0];
    hi[0] = w - 1.0 - p.sx * box[2];
    lo[1] = 1.0 - p.sy * box[1];
    hi[1] = h - 1.0 - p.sy * box[3];
}

/* Moves the whole-pixel offset *o the least into [lo, hi]; 0 when no whole
 * offset lies there (it is then out by a fraction of a pixel). */
static int shift_in(int *o, double lo, double hi)
{
    if (*o < lo) *o = (int)ceil(lo);
    if (*o > hi) *o = (int)floor(hi);
    return *o >= lo - 1e-9;
}

placement render_fit(int iw, int ih, int w, int h, fit_mode fit, const double box[4], double min_scale,
                     int keep_bottom, int *fits)
{
    placement p;
    double s0 = fmin((double)w / iw, (double)h / ih), s = s0;
    double bw = box[2] - box[0], bh = box[3] - box[1];
    int auto_fit = fit == FIT_AUTO && bw > 0.0 && bh > 0.0;
    if (auto_fit) {
        double need = fmin((w - 2.0) / bw, (h - 2.0) / bh);
        s = fmax(fmin(s0, need), min_scale * s0);
        if (s <= 0.0)
            s = s0;
    }
    double lo[2], hi[2];
    for (int k = 0;; k++) {
        /* whole pixels for the resampled image; rounding down keeps the motion inside */
        p.pw = (int)floor(s * iw + 1e-9);
        p.ph = (int)floor(s * ih + 1e-9);
        if (p.pw < 1) p.pw = 1;
        if (p.ph < 1) p.ph = 1;
        p.sx = (double)p.pw / iw;
        p.sy = (double)p.ph / ih;
        if (!auto_fit || k == 16 || s <= min_scale * s0)
            break;
        /* the offsets are whole pixels: where the box fits, a whole offset must
         * too, else a smaller scale by a quarter of a pixel of the box */
        offset_range(p, w, h, box, lo, hi);
        int ok_x = lo[0] > hi[0] || ceil(lo[0] - 1e-9) <= hi[0] + 1e-9;
        int ok_y = lo[1] > hi[1] || ceil(lo[1] - 1e-9) <= hi[1] + 1e-9;
        if (ok_x && ok_y)
            break;
        s = fmax(s - 0.25 / fmax(bw, bh), min_scale * s0);
    }
    int o[2] = { (int)floor((w - p.pw) * 0.5 + 0.5), (int)floor((h - p.ph) * 0.5 + 0.5) };
    int inside = 1;
    if (auto_fit) {
        /* keep the box off the outermost pixels: shift it in; too wide, centre it;
         * too tall, keep its bottom (or centre it) */
        offset_range(p, w, h, box, lo, hi);
        for (int a = 0; a < 2; a++) {
            if (lo[a] <= hi[a]) {
                inside &= shift_in(&o[a], lo[a], hi[a]);
            } else {
                o[a] = a == 1 && keep_bottom ? (int)floor(hi[a]) : (int)floor(0.5 * (lo[a] + hi[a]) + 0.5);
                inside = 0;
            }
        }
    }
    p.ox = o[0];
    p.oy = o[1];
    if (fits)
        *fits = inside;
    return p;
}

void render_keep_rest(placement *p, int w, int h, const double rest[4])
{
    double lo[2], hi[2];
    offset_range(*p, w, h, rest, lo, hi);
    shift_in(&p->ox, lo[0], hi[0]);
    shift_in(&p->oy, lo[1], hi[1]);
}

void render_inner_box(placement place, int w, int h, double box[4])
{
    box[0] = (1.0 - place.ox) / place.sx;
    box[1] = (1.0 - place.oy) / place.sy;
    box[2] = (w - 1.0 - place.ox) / place.sx;
    box[3] = (h - 1.0 - place.oy) / place.sy;
}

int render_inverse_bilinear(double px, double py, const double q[8], double eps, double *u, double *v)
{
    /* p = a + u e + v f + u v g, with a = p00, e = p10 - p00, f = p01 - p00 */
    double ax = q[0], ay = q[1];
    double ex = q[2] - ax, ey = q[3] - ay;
    double fx = q[6] - ax, fy = q[7] - ay;
    double gx = ax - q[2] + q[4] - q[6], gy = ay - q[3] + q[5] - q[7];
    double hx = px - ax, hy = py - ay;
    double k2 = gx * fy - gy * fx;
    double k1 = (ex * fy - ey * fx) + (hx * gy - hy * gx);
    double k0 = hx * ey - hy * ex;
    double roots[2];
    int nroots = 0;
    double scale = fabs(k1) + fabs(k0) + fabs(k2);
    if (fabs(k2) <= 1e-12 * scale) {
        if (fabs(k1) <= 1e-300)
            return 0;
        roots[nroots++] = -k0 / k1;
    } else {
        double disc = k1 * k1 - 4.0 * k0 * k2;
        if (disc < 0.0) {
            if (disc < -1e-12 * k1 * k1)
                return 0;
            disc = 0.0;
        }
        double sq = sqrt(disc);
        double qq = -0.5 * (k1 + (k1 >= 0 ? sq : -sq));
        if (fabs(qq) > 1e-300) {
            roots[nroots++] = k0 / qq;
            roots[nroots++] = qq / k2;
        } else {
            roots[nroots++] = -k1 / (2.0 * k2);
        }
    }
    for (int i = 0; i < nroots; i++) {
        double vv = roots[i];
        if (vv < -eps || vv > 1.0 + eps)
            continue;
        double denx = ex + gx * vv, deny = ey + gy * vv;
        double uu;
        if (fabs(denx) >= fabs(deny)) {
            if (fabs(denx) <= 1e-300)
                continue;
            uu = (hx - fx * vv) / denx;
        } else {
            uu = (hy - fy * vv) / deny;
        }
        if (uu < -eps || uu > 1.0 + eps)
            continue;
        *u = uu;
        *v = vv;
        return 1;
    }
    return 0;
}


/* The bilinear mix of the four pixels at p, p + 4, p + stride, p + stride + 4
 * (floats) at fractions tx, ty. */
static inline v4f bilerp(const float *p, size_t stride, float tx, float ty)
{
    const float *p2 = p + stride;
    v4f a = load4(p), b = load4(p2);
    v4f top = a + (load4(p + 4) - a) * tx;
    v4f bottom = b + (load4(p2 + 4) - b) * tx;
    return top + (bottom - top) * ty;
}

/* Sample of the placed source at (fx, fy) in bordered source coordinates
 * (pixel centres at x + 0.5 - PAD), premultiplied. The source has a
 * transparent border of PAD pixels and points are clamped one pixel inside
 * it, so no sample needs a bounds check. */
static inline v4f sample_at(const renderer *r, float fx, float fy)
{
    fx = fx < 1.0f ? 1.0f : fx > r->src_max_x ? r->src_max_x : fx;
    fy = fy < 1.0f ? 1.0f : fy > r->src_max_y ? r->src_max_y : fy;
    fx *= (float)r->up, fy *= (float)r->up;
    int x0 = (int)fx, y0 = (int)fy;
    return bilerp(r->src + (size_t)y0 * r->src_stride + (size_t)x0 * 4, r->src_stride, fx - (float)x0, fy - (float)y0);
}

/* The same at canvas point (sx, sy). */
static inline v4f sample(const renderer *r, float sx, float sy) { return sample_at(r, sx + SRC_OFF, sy + SRC_OFF); }

/* Writes a premultiplied sample as straight-alpha bytes. Alpha rounds to a8;
 * the colours are scaled by 255 / a8 and alpha by 1, so one rounding and one
 * saturating pack give all four bytes (a8 = 0 gives a transparent zero). */
static inline void store(const renderer *r, uint8_t *d, v4f px)
{
    int a8 = (int)(px[3] + 0.5f) & 255; /* a convex mix of alphas: 0 to 255 already */
    v4f c = px * load4(r->unpremul[a8]) + 0.5f; /* premultiplied colours are >= 0 */
#if defined(__SSE2__)
    __m128i i = _mm_cvttps_epi32((__m128)c);
    i = _mm_packs_epi32(i, i);
    i = _mm_packus_epi16(i, i);
    uint32_t v = (uint32_t)_mm_cvtsi128_si32(i);
    memcpy(d, &v, 4);
#else
    v4i i = __builtin_convertvector(c, v4i);
    d[0] = (uint8_t)(i[0] > 255 ? 255 : i[0]);
    d[1] = (uint8_t)(i[1] > 255 ? 255 : i[1]);
    d[2] = (uint8_t)(i[2] > 255 ? 255 : i[2]);
    d[3] = (uint8_t)i[3];
#endif
}

/* Draws pixels k0..k1 of a row (mask row m, output row out) that no quad took
 * yet, sampling at (sx, sy) + k (dsx, dsy) in bordered source coordinates.
 * The caller has checked that every sample is inside the source, so the
 * coordinates are >= 0 and truncation is floor. Kept out of line: the row
 * loop gets the registers to itself. */
static __attribute__((noinline)) void fill_row(const renderer *r, uint8_t *m, uint8_t *out, int k0, int k1, float sx,
                                               float sy, float dsx, float dsy, uint8_t lvl)
{
    const float *src = r->src;
    const int stride = (int)r->src_stride;
    float up = (float)r->up;
    v4f s = { sx * up, sy * up, 0.0f, 0.0f }, ds = { dsx * up, dsy * up, 0.0f, 0.0f };
    for (int k = k0; k <= k1; k++, s += ds) {
        if (m[k])
            continue;
        m[k] = lvl;
        v4i i = __builtin_convertvector(s, v4i);
        v4f t = s - __builtin_convertvector(i, v4f);
        store(r, out + (size_t)k * 4, bilerp(src + (i[1] * stride + i[0] * 4), (size_t)stride, t[0], t[1]));
    }
}

/* The same for rows whose samples may leave the source: each is clamped. */
static __attribute__((noinline)) void fill_row_clamped(const renderer *r, uint8_t *m, uint8_t *out, int k0, int k1,
                                                       float sx, float sy, float dsx, float dsy, uint8_t lvl)
{
    for (int k = k0; k <= k1; k++, sx += dsx, sy += dsy) {
        if (m[k])
            continue;
        m[k] = lvl;
        store(r, out + (size_t)k * 4, sample_at(r, sx, sy));
    }
}

/* Quads whose far corner misses the parallelogram of their near sides by at
 * most FLAT (|gx| + |gy|, px) are drawn as parallelograms widened by REACH px. */
#define FLAT 0.08
#define REACH 0.025

/* For w = c + wx px + wy py and lo <= w <= hi: the bounds on px as linear
 * functions of py, lower lb[0] + lb[1] py and upper ub[0] + ub[1] py. Returns 0
 * (bounds unbounded) when w hardly changes along a row. */
static int row_bounds(double c, double wx, double wy, double lo, double hi, double lb[2], double ub[2])
{
    if (fabs(wx) <= 1e-12) {
        lb[0] = -1e9;
        ub[0] = 1e9;
        lb[1] = ub[1] = 0.0;
        return 0;
    }
    double i = 1.0 / wx, e0 = (lo - c) * i, e1 = (hi - c) * i;
    lb[0] = i > 0 ? e0 : e1;
    ub[0] = i > 0 ? e1 : e0;
    lb[1] = ub[1] = -wy * i;
    return 1;
}

/* A quad's bilinear map p = a + u e + v f + u v g (e, f, g relative to a),
 * and the box of pixels its corners span. */
typedef struct quad_map {
    double ax, ay, ex, ey, fx, fy, gx, gy;
    int px0, px1, py0, py1;
} quad_map;

/* How much wider than at rest a quad draws edges, in steps of WIDEN_STEP,
 * up to WIDEN_LEVELS - 1 of them; sharpen_widened undoes it with
 * SHARPEN_GAIN per unit of widening. */
#define WIDEN_STEP 0.02
#define WIDEN_LEVELS 15
#define SHARPEN_GAIN 4.0f

/* The mask value of the pixels of a quad whose mean sides are E and F on
 * the canvas and cw x ch in the source: 1 + qx + WIDEN_LEVELS qy, where qx
 * and qy count in WIDEN_STEPs how much wider than at rest an edge crossed
 * along the canvas's x and y axes is drawn. An edge crossed along x is
 * widened by the length of the first row of the quad's source-to-canvas
 * map [Ex/cw Fx/ch; Ey/cw Fy/ch], along y by that of the second: exact for
 * stretches along x and y, a mean of the two for one along a diagonal. */
static uint8_t widen_level(double Ex, double Ey, double Fx, double Fy, double cw, double ch)
{
    double wx = hypot(Ex / cw, Fx / ch), wy = hypot(Ey / cw, Fy / ch);
    int qx = (int)((wx - 1.0) / WIDEN_STEP + 0.5), qy = (int)((wy - 1.0) / WIDEN_STEP + 0.5);
    qx = clampi(qx, 0, WIDEN_LEVELS - 1);
    qy = clampi(qy, 0, WIDEN_LEVELS - 1);
    return (uint8_t)(1 + qx + WIDEN_LEVELS * qy);
}

/* Fills the pixels of a quad that is a parallelogram to within FLAT / 4 px,
 * p = o + u E + v F with its mean sides E and F (cEF = E x F), from the
 * source cell at (s0x, s0y) of cw x ch. */
static void fill_parallelogram(renderer *r, const quad_map *qm, double Ex, double Ey, double Fx, double Fy, double cEF,
                               double s0x, double s0y, double cw, double ch, uint8_t lvl, uint8_t *rgba)
{
    int W = r->w, px0 = qm->px0, px1 = qm->px1, py0 = qm->py0, py1 = qm->py1;
    double ax = qm->ax, ay = qm->ay, gx = qm->gx, gy = qm->gy;
    /* a parallelogram to within FLAT / 4 px, so its inverse is affine: at
     * pixel (px, py), u = uc + ux px + uy py and v = vc + vx px + vy py.
     * Each side is widened by REACH px, more than the dropped term, so
     * that neighbours' edges meet without a gap; the first quad to reach
     * a pixel keeps it. */
    double ox = ax - 0.25 * gx, oy = ay - 0.25 * gy; /* o = centre - E/2 - F/2 */
    double ux = Fy / cEF, uy = -Fx / cEF, vx = -Ey / cEF, vy = Ex / cEF;
    double uc = ((0.5 - ox) * Fy - (0.5 - oy) * Fx) / cEF, vc = (Ex * (0.5 - oy) - Ey * (0.5 - ox)) / cEF;
    /* REACH px across the u = const lines is REACH |F| / |E x F| in u */
    double tu = REACH * sqrt(Fx * Fx + Fy * Fy) / fabs(cEF), tv = REACH * sqrt(Ex * Ex + Ey * Ey) / fabs(cEF);
    double ulo = -tu, uhi = 1.0 + tu, vlo = -tv, vhi = 1.0 + tv;
    /* the pixels of row py inside are L(py) <= px <= U(py) for u and for
     * v, each bound linear in py; a direction that does not change along
     * rows only decides whether a row has any */
    double lu[2], hu[2], lv[2], hv[2];
    int ucut = row_bounds(uc, ux, uy, ulo, uhi, lu, hu), vcut = row_bounds(vc, vx, vy, vlo, vhi, lv, hv);
    /* bordered source coordinates (see sample) at pixel (px, py): s = s0 + SRC_OFF + (u cw, v ch) */
    double sxc = s0x + SRC_OFF + uc * cw, sxx = ux * cw, sxy = uy * cw;
    double syc = s0y + SRC_OFF + vc * ch, syx = vx * ch, syy = vy * ch;
    double bx0 = s0x + SRC_OFF + ulo * cw, bx1 = s0x + SRC_OFF + uhi * cw;
    double by0 = s0y + SRC_OFF + vlo * ch, by1 = s0y + SRC_OFF + vhi * ch;
    int clamp = !(bx0 >= 1.01 && bx1 <= r->src_max_x - 0.01 && by0 >= 1.01 && by1 <= r->src_max_y - 0.01);
    float dsx = (float)sxx, dsy = (float)syx;
    for (int py = py0; py <= py1; py++) {
        if (!ucut) {
            double u = uc + uy * py;
            if (u < ulo || u > uhi)
                continue;
        }
        if (!vcut) {
            double v = vc + vy * py;
            if (v < vlo || v > vhi)
                continue;
        }
        double xa = dmax(px0, dmax(lu[0] + lu[1] * py, lv[0] + lv[1] * py));
        double xb = dmin(px1, dmin(hu[0] + hu[1] * py, hv[0] + hv[1] * py));
        if (xa > xb)
            continue;
        int k0 = iceil(xa), k1 = ifloor(xb);
        if (k0 > k1)
            continue;
        /* a span is a few pixels: single precision steps stay within 1e-5 px */
        float sx = (float)(sxc + sxx * k0 + sxy * py), sy = (float)(syc + syx * k0 + syy * py);
        uint8_t *m = r->mask + (size_t)py * W, *out = rgba + (size_t)py * W * 4;
        if (clamp)
            fill_row_clamped(r, m, out, k0, k1, sx, sy, dsx, dsy, lvl);
        else
            fill_row(r, m, out, k0, k1, sx, sy, dsx, dsy, lvl);
    }
}

/* Splits a quad too curved to fill as a parallelogram into four, at the
 * bilinear map's midpoints, each filled from its quarter of the source cell. */
static void fill_quad(renderer *r, const double q[8], double s0x, double s0y, double cw, double ch, int depth,
                      uint8_t *rgba);

static void fill_quarters(renderer *r, const quad_map *qm, double s0x, double s0y, double cw, double ch, int depth,
                          uint8_t *rgba)
{
    double ax = qm->ax, ay = qm->ay, ex = qm->ex, ey = qm->ey, fx = qm->fx, fy = qm->fy, gx = qm->gx, gy = qm->gy;
    /* the bilinear map at u, v = 0, 1/2, 1: row-major 3 x 3 points */
    double m[18];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double u = 0.5 * i, v = 0.5 * j;
            m[2 * (3 * j + i)] = ax + u * ex + v * fx + u * v * gx;
            m[2 * (3 * j + i) + 1] = ay + u * ey + v * fy + u * v * gy;
        }
    for (int b = 0; b < 2; b++)
        for (int a = 0; a < 2; a++) {
            int k00 = 3 * b + a, k10 = k00 + 1, k01 = k00 + 3, k11 = k00 + 4;
            double sq[8] = { m[2 * k00], m[2 * k00 + 1], m[2 * k10], m[2 * k10 + 1],
                             m[2 * k11], m[2 * k11 + 1], m[2 * k01], m[2 * k01 + 1] };
            fill_quad(r, sq, s0x + 0.5 * a * cw, s0y + 0.5 * b * ch, 0.5 * cw, 0.5 * ch, depth - 1, rgba);
        }
}

/* Fills the pixels whose centres lie in quad q (canvas pixels: p00, p10, p11,
 * p01) that no earlier quad took, sampling the source rectangle whose corner
 * is (s0x, s0y) and whose sides are cw x ch. The bilinear map is inverted per
 * pixel. A quad that is a parallelogram has an affine inverse, so each row's
 * pixels inside it are one span found in closed form and stepped along; one
 * that is not is split into the four quads of its own bilinear map (whose
 * uv g term is a quarter as large; the split points lie on the straight
 * edges, so neighbours still meet) and, `depth` splits down, inverted exactly. */
static void fill_quad(renderer *r, const double q[8], double s0x, double s0y, double cw, double ch, int depth,
                      uint8_t *rgba)
{
    int W = r->w, H = r->h;
    double mnx = q[0], mxx = q[0], mny = q[1], mxy = q[1];
    for (int c = 2; c < 8; c += 2) {
        if (q[c] < mnx) mnx = q[c];
        if (q[c] > mxx) mxx = q[c];
        if (q[c + 1] < mny) mny = q[c + 1];
        if (q[c + 1] > mxy) mxy = q[c + 1];
    }
    int px0 = iceil(clampd(mnx - 0.5, 0.0, W)), px1 = ifloor(clampd(mxx - 0.5, -1.0, W - 1));
    int py0 = iceil(clampd(mny - 0.5, 0.0, H)), py1 = ifloor(clampd(mxy - 0.5, -1.0, H - 1));
    if (px0 > px1 || py0 > py1)
        return;
    /* p = a + u e + v f + u v g, in coordinates relative to a */
    double ax = q[0], ay = q[1];
    double ex = q[2] - ax, ey = q[3] - ay, fx = q[6] - ax, fy = q[7] - ay;
    double gx = ax - q[2] + q[4] - q[6], gy = ay - q[3] + q[5] - q[7];
    quad_map qm = { ax, ay, ex, ey, fx, fy, gx, gy, px0, px1, py0, py1 };
    const double eps = 1e-4;
    /* the parallelogram through the quad's centre with its mean sides E and F,
     * p = o + u E + v F, differs from the quad by (u - 1/2)(v - 1/2) g: at most
     * |g| / 4, at the corners */
    double Ex = ex + 0.5 * gx, Ey = ey + 0.5 * gy, Fx = fx + 0.5 * gx, Fy = fy + 0.5 * gy;
    double cEF = Ex * Fy - Ey * Fx;
    uint8_t lvl = fabs(cEF) > 1e-9 ? widen_level(Ex, Ey, Fx, Fy, cw, ch) : 1;
    r->widened |= lvl > 1;
    if (fabs(gx) + fabs(gy) <= FLAT && fabs(cEF) > 1e-9) {
        fill_parallelogram(r, &qm, Ex, Ey, Fx, Fy, cEF, s0x, s0y, cw, ch, lvl, rgba);
        return;
    }
    if (depth > 0 && fabs(gx) + fabs(gy) > FLAT) {
        fill_quarters(r, &qm, s0x, s0y, cw, ch, depth, rgba);
        return;
    }
    for (int py = py0; py <= py1; py++) {
        uint8_t *mrow = r->mask + (size_t)py * W;
        for (int px = px0; px <= px1; px++) {
            double u, v;
            if (mrow[px] || !render_inverse_bilinear(px + 0.5, py + 0.5, q, eps, &u, &v))
                continue;
            store(r, rgba + ((size_t)py * W + px) * 4, sample(r, (float)(s0x + u * cw), (float)(s0y + v * ch)));
            mrow[px] = lvl;
        }
    }
}

/* Row y of rgba as floats. */
static void float_row(const uint8_t *rgba, int w, int y, float *row)
{
    const uint8_t *p = rgba + (size_t)y * w * 4;
    for (int x = 0; x < 4 * w; x++)
        row[x] = p[x];
}

static inline v4f vmin(v4f a, v4f b)
{
    v4i lt = a < b;
    return (v4f)(((v4i)a & lt) | ((v4i)b & ~lt));
}

static inline v4f vmax(v4f a, v4f b)
{
    v4i gt = a > b;
    return (v4f)(((v4i)a & gt) | ((v4i)b & ~gt));
}

/* Where the warp drew edges wider than at rest (mask levels above 1), makes
 * them as sharp as at rest again, by SHARPEN_GAIN times the widening:
 * - the colours (straight, so the silhouette's edge keeps its colour) are
 *   sharpened along x by the widening of edges across x and along y by that
 *   across y, each kept within the range of its four neighbours' (no
 *   ringing); a clear neighbour counts with the pixel's own colour;
 * - where the silhouette crosses half cover (the pixel or a neighbour on
 *   each side of it), alpha is steepened about 127.5 by the widening across
 *   the silhouette, so which pixels are half covered, and where a bilinear
 *   look at them crosses half, stays as drawn; a pixel a quarter covered
 *   stays a quarter covered, so a thin join is never cut.
 * Rows are read into a ring of three before they are written. */
static void sharpen_widened(renderer *r, uint8_t *rgba)
{
    int W = r->w, H = r->h;
    size_t rs = (size_t)W * 4;
    float *ring = r->ring;
    float_row(rgba, W, 0, ring);
    for (int y = 0; y < H; y++) {
        /* rows y - 1, y, y + 1 are in slots (y + 2) % 3, y % 3, (y + 1) % 3 */
        const float *cur = ring + (size_t)(y % 3) * rs;
        const float *up = y > 0 ? ring + (size_t)((y + 2) % 3) * rs : cur;
        const float *down = cur;
        if (y + 1 < H) {
            float_row(rgba, W, y + 1, ring + (size_t)((y + 1) % 3) * rs);
            down = ring + (size_t)((y + 1) % 3) * rs;
        }
        const uint8_t *m = r->mask + (size_t)y * W;
        for (int x = 0; x < W; x++) {
            size_t o = (size_t)x * 4;
            if (m[x] <= 1 || cur[o + 3] <= 0.0f)
                continue;
            int qx = (m[x] - 1) % WIDEN_LEVELS, qy = (m[x] - 1) / WIDEN_LEVELS;
            float wx = 1.0f + WIDEN_STEP * (float)qx, wy = 1.0f + WIDEN_STEP * (float)qy;
            v4f c = load4(cur + o), n[4]; /* left, right, up, down */
            n[0] = load4(cur + (x > 0 ? o - 4 : o));
            n[1] = load4(cur + (x + 1 < W ? o + 4 : o));
            n[2] = load4(up + o);
            n[3] = load4(down + o);
            for (int k = 0; k < 4; k++)
                if (n[k][3] <= 0.0f) {
                    n[k] = c;
                    n[k][3] = 0.0f;
                }
            v4f v = c + SHARPEN_GAIN * (wx - 1.0f) * (c - 0.5f * (n[0] + n[1])) +
                    SHARPEN_GAIN * (wy - 1.0f) * (c - 0.5f * (n[2] + n[3]));
            v4f lo = vmin(vmin(vmin(c, n[0]), vmin(n[1], n[2])), n[3]);
            v4f hi = vmax(vmax(vmax(c, n[0]), vmax(n[1], n[2])), n[3]);
            v = vmin(vmax(v, lo), hi);
            float a = c[3];
            if (lo[3] < 127.5f && hi[3] >= 127.5f) {
                /* the widening across the silhouette, whose normal is alpha's gradient */
                float gx = n[1][3] - n[0][3], gy = n[3][3] - n[2][3], g2 = gx * gx + gy * gy;
                float wn = g2 > 0.0f ? sqrtf((wx * wx * gx * gx + wy * wy * gy * gy) / g2) : 1.0f;
                a = 127.5f + (1.0f + SHARPEN_GAIN * (wn - 1.0f)) * (a - 127.5f);
                a = a > 255.0f ? 255.0f : a < 0.0f ? 0.0f : a;
                if (c[3] >= 64.0f && a < 64.0f)
                    a = 64.0f;
            }
            /* v is within its neighbours' range of bytes */
            uint8_t *d = rgba + o + (size_t)y * W * 4;
            int a8 = (int)(a + 0.5f);
            for (int k = 0; k < 3; k++)
                d[k] = a8 ? (uint8_t)(v[k] + 0.5f) : 0;
            d[3] = (uint8_t)a8;
        }
    }
}

void renderer_draw(renderer *r, const double *x, const double *y, uint8_t *rgba)
{
    const lattice *lat = r->lat;
    int W = r->w, H = r->h, sub = r->sub, rxn = r->rx;
    double sx = r->place.sx, sy = r->place.sy, ox = r->place.ox, oy = r->place.oy;
    refine(r, x, y);
    memset(rgba, 0, (size_t)W * H * 4);
    memset(r->mask, 0, (size_t)W * H);
    r->widened = 0;
    double cw = sx * lat->h / sub, chh = sy * lat->h / sub; /* a refined quad's sides in the placed source */
    for (int cj = 0; cj < lat->ny - 1; cj++)
        for (int ci = 0; ci < lat->nx - 1; ci++) {
            if (!cell_drawn(lat, ci, cj))
                continue;
            for (int b = 0; b < sub; b++)
                for (int a = 0; a < sub; a++) {
                    int X = ci * sub + a, Y = cj * sub + b;
                    size_t g00 = (size_t)Y * rxn + X, g10 = g00 + 1, g01 = g00 + rxn, g11 = g01 + 1;
                    double q[8] = {
                        sx * r->gx[g00] + ox, sy * r->gy[g00] + oy, sx * r->gx[g10] + ox, sy * r->gy[g10] + oy,
                        sx * r->gx[g11] + ox, sy * r->gy[g11] + oy, sx * r->gx[g01] + ox, sy * r->gy[g01] + oy,
                    };
                    /* the rest position of the quad's corner in the placed source */
                    double s0x = sx * (lat->ox + (double)X / sub * lat->h) + ox;
                    double s0y = sy * (lat->oy + (double)Y / sub * lat->h) + oy;
                    fill_quad(r, q, s0x, s0y, cw, chh, 3, rgba);
                }
        }
    if (r->widened)
        sharpen_widened(r, rgba);
}

poyo_status renderer_clone(renderer *dst, const renderer *src, poyo_error *err)
{
    poyo_status st = renderer_init(dst, NULL, src->lat, src->w, src->h, src->place, err);
    if (st != POYO_OK)
        return st;
    dst->src = src->src;
    dst->shared_src = 1;
    return POYO_OK;
}

typedef struct draw_task {
    renderer *r;
    const double *x, *y;
    int n, first, count, step;
    uint8_t *frames;
} draw_task;

/* Whether frame f's nodes are where frame 0's are: a still frame a clip
 * snaps to its first, drawn as a copy of it. */
static int same_as_first(const draw_task *t, int f)
{
    size_t nb = (size_t)t->n * sizeof *t->x;
    return f > 0 && memcmp(t->x + (size_t)f * t->n, t->x, nb) == 0 && memcmp(t->y + (size_t)f * t->n, t->y, nb) == 0;
}

/* Draws frames i, i + step, ... of task i, but for the copies of frame 0,
 * made once every task is done. */
static void draw_some(void *arg, int i)
{
    draw_task *t = (draw_task *)arg + i;
    size_t fb = (size_t)t->r->w * t->r->h * 4;
    for (int f = t->first; f < t->count; f += t->step)
        if (!same_as_first(t, f))
            renderer_draw(t->r, t->x + (size_t)f * t->n, t->y + (size_t)f * t->n, t->frames + fb * (size_t)f);
}

poyo_status renderer_draw_frames(renderer *r, const double *x, const double *y, int n, int count, uint8_t *frames,
                                 int threads, poyo_error *err)
{
    int parts = threads;
    if (parts > WORKERS_MAX)
        parts = WORKERS_MAX;
    if (parts > count / 4)
        parts = count / 4;
    if (parts < 1)
        parts = 1;
    renderer extra[WORKERS_MAX];
    draw_task tasks[WORKERS_MAX];
    int made = 1;
    poyo_status st = POYO_OK;
    for (int t = 1; t < parts; t++) {
        if (renderer_clone(&extra[t], r, err) != POYO_OK)
            break;
        made = t + 1;
    }
    for (int t = 0; t < made; t++) {
        tasks[t].r = t == 0 ? r : &extra[t];
        tasks[t].x = x;
        tasks[t].y = y;
        tasks[t].n = n;
        tasks[t].first = t;
        tasks[t].count = count;
        tasks[t].step = made;
        tasks[t].frames = frames;
    }
    workers_run(made, threads, draw_some, tasks);
    size_t fb = (size_t)r->w * r->h * 4;
    for (int f = 1; f < count; f++)
        if (same_as_first(&tasks[0], f))
            memcpy(frames + fb * (size_t)f, frames, fb);
    for (int t = 1; t < made; t++)
        renderer_free(&extra[t]);
    return st;
}
