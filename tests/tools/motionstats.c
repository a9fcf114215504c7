/* motionstats.c - how a clip moves, measured from its frames alone (DIR/frame_NNNN.png as
 * poyo --frames writes them). The displacement field F(i) of frame 0 onto frame i comes from
 * a free-form deformation registration: a bilinear control grid, Levenberg-Marquardt on the
 * squared difference of premultiplied RGBA plus a bending penalty, coarse to fine (after
 * Rueckert et al., "Nonrigid registration using free-form deformations", IEEE TMI 1999).
 * Silhouette distances use the exact Euclidean distance transform of Felzenszwalb and
 * Huttenlocher ("Distance transforms of sampled functions", Theory of Computing 2012).
 *
 *   motionstats [options] DIR      the figures, one "key value" per line
 *     --impulse NAME    which strength measure applies (poyo's impulse names)
 *     --at X,Y          kick point: image fractions of --input as poyo takes them, or
 *                       without --input fractions of frame 0's opaque bounding box;
 *                       default poyo's --at for poke (0.5,0.15) and pat (0.5,0); a poke's
 *                       or pat's point with no opaque pixel of frame 0 within 0.1 h0 is
 *                       taken at the nearest one
 *     --input FILE.png  the input image: size_ratio against it fitted into the canvas
 *                       whole (its transparent margin included), as a still emoji shows
 *     --fps F           frame rate for duration (default 25; DIR/frames.json or DIR.json in
 *                       poyo's sprite-sheet format, with a "duration" per frame, overrides it)
 *     --periodic        seam_ratio against the two steps beside the seam
 *     --landing         area_dev_landing for any impulse (always for jump and drop)
 *     --exact "OPTS"    the poyo options the frames were made with (-s -i --strength --at
 *                       --angle --anchor --fps --hz --damping --volume --grid --rate --drag
 *                       --outline --substeps --duration), with --input:
 *                       F is taken from the render grid of the same clip simulated again,
 *                       and flow_error says how far the frame-only estimate is from it; area_dev
 *                       is measured against the body drawn at rest (a periodic clip's
 *                       frame 0 is a moment of its steady motion, not rest), without it
 *                       against frame 0
 *     --json            one JSON object instead (nan and inf as null)
 *     --per-frame       also D, its two parts, area, height, bottom edge ... per frame
 *                       (on standard error with --json)
 *   motionstats --selftest [--input FILE.png]
 *                       registers FILE (default tests/data/1f600.png, placed in a 128 px
 *                       canvas) warped by known fields; prints the RMS error of F over the
 *                       opaque pixels; exit 1 when one is 0.35 px or more
 * Exit status: 0 done, 1 unusable frames or a failed self-test, 2 usage error.
 *
 * Opaque means alpha >= 128; a hole is a region under it inside the silhouette with a pixel
 * a viewer sees through (alpha < 64); a frame opens one when most of what is seen through
 * it was opaque at rest (found through F). A frame changes the parts when a gap seen through
 * parts more of them than were apart at rest at full opacity (a piece torn off), or when fewer
 * of them than a gap parted at rest are apart at full opacity (two pieces run together).
 * Registration sees colour and outline only: inside a flat colour F is the smoothest field
 * that fits the outline and the features around it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "geom/vec2.h"
#include "image/image.h"
#include "image/lattice.h"
#include "image/render.h"
#include "sim/animate.h"
#include "sim/impulse.h"

#include "toolutil.h"

#define MAXLEV 6
#define OPAQUE 128
#define SEE_THROUGH 64 /* a hole is seen through where alpha is below this */
#define KINK_SMOOTH 30 /* degrees: an outline that turns less than this over 3 px each side is smooth */

/* ---- frames ----------------------------------------------------------------------- */

/* One frame: straight 8-bit RGBA as read, and premultiplied RGBA in [0, 1]. */
typedef struct frame {
    uint8_t *rgba;   /* owned, w * h * 4 */
    float *pm;       /* owned, w * h * 4 */
} frame;

static void frame_premultiply(frame *f, int w, int h)
{
    for (long k = 0; k < (long)w * h; k++) {
        float a = f->rgba[4 * k + 3] / 255.0f;
        for (int c = 0; c < 3; c++)
            f->pm[4 * k + c] = f->rgba[4 * k + c] / 255.0f * a;
        f->pm[4 * k + 3] = a;
    }
}

/* The q-quantile (0..1) of n values; sorts v in place. */
static double quantile(double *v, long n, double q)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    long k = (long)ceil(q * n) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

/* ---- banded Cholesky ------------------------------------------------------------- */

/* A symmetric positive definite n x n matrix with half-bandwidth b, lower band stored
 * row by row: A(i, j) for i - b <= j <= i at a[i * (b + 1) + (i - j)]. */
typedef struct band {
    int n, b;
    double *a;
} band;

static double *band_at(band *m, int i, int j) { return &m->a[(size_t)i * (m->b + 1) + (i - j)]; }

/* Adds v to A(i, j) and A(j, i) for i != j, to A(i, i) once. */
static void band_add(band *m, int i, int j, double v)
{
    if (i < j) {
        int t = i;
        i = j;
        j = t;
    }
    *band_at(m, i, j) += v;
}

/* Factors A = L L^T in place; returns 0 when A is not positive definite. */
static int band_cholesky(band *m)
{
    int n = m->n, b = m->b;
    for (int i = 0; i < n; i++) {
        int j0 = i - b < 0 ? 0 : i - b;
        double *ri = m->a + (size_t)i * (b + 1) + i;   /* L(i, k) = ri[-k] */
        for (int j = j0; j <= i; j++) {
            const double *rj = m->a + (size_t)j * (b + 1) + j;
            double s = ri[-j];
            for (int k = j0; k < j; k++)   /* j0 >= j - b, so L(j, k) is in the band */
                s -= ri[-k] * rj[-k];
            if (i == j) {
                if (s <= 0)
                    return 0;
                ri[-i] = sqrt(s);
            } else {
                ri[-j] = s / rj[-j];
            }
        }
    }
    return 1;
}

/* Solves L L^T x = r with the factor from band_cholesky; x may be r. */
static void band_solve(band *m, const double *r, double *x)
{
    int n = m->n, b = m->b;
    if (x != r)
        memcpy(x, r, (size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) {
        for (int k = i - b < 0 ? 0 : i - b; k < i; k++)
            x[i] -= *band_at(m, i, k) * x[k];
        x[i] /= *band_at(m, i, i);
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k <= i + b && k < n; k++)
            x[i] -= *band_at(m, k, i) * x[k];
        x[i] /= *band_at(m, i, i);
    }
}

/* ---- registration ----------------------------------------------------------------- */

/* One pyramid level: premultiplied RGBA and where it or a 4-neighbour is non-zero.
 * Coordinates: pixel x covers [x, x + 1); level l is 2^l times coarser. */
typedef struct level {
    int w, h;
    float *v;         /* 4 per pixel */
    uint8_t *live;    /* 1 per pixel */
} level;

typedef struct pyramid {
    int n;
    level lv[MAXLEV];
} pyramid;

/* The registration of frames onto one template: a control grid of cell x cell level pixels
 * at every level (the grid halves with the image), so the bending weight means the same. */
typedef struct reg {
    int w, h, nlev;
    double cell;            /* level pixels per grid cell */
    double lambda;          /* bending weight against the squared RGBA difference, finest level */
    double lambda_coarse;   /* the same on the coarser levels */
    double blur;            /* Gaussian sigma (pixels) applied to both images before registering */
    int nx[MAXLEV], ny[MAXLEV];
    pyramid tpl;            /* frame 0 */
    band hm, hw, ht;        /* normal matrices: current, factored, trial */
    double *g, *gt, *u, *ut, *step, *delta, *tmp;
    double *cellacc;        /* per cell: 36 Hessian + 8 gradient sums */
    float *base;            /* per pixel of the current level: 2 displacement */
} reg;

static void level_free(level *l)
{
    free(l->v);
    free(l->live);
    memset(l, 0, sizeof *l);
}

static void pyramid_free(pyramid *p)
{
    for (int i = 0; i < p->n; i++)
        level_free(&p->lv[i]);
    p->n = 0;
}

static void level_live(level *l)
{
    int w = l->w, h = l->h;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            long k = (long)y * w + x;
            int live = 0;
            for (int c = 0; c < 4; c++) {
                float xm = x > 0 ? l->v[4 * (k - 1) + c] : 0, xp = x + 1 < w ? l->v[4 * (k + 1) + c] : 0;
                float ym = y > 0 ? l->v[4 * (k - w) + c] : 0, yp = y + 1 < h ? l->v[4 * (k + w) + c] : 0;
                live |= l->v[4 * k + c] != 0 || xm != 0 || xp != 0 || ym != 0 || yp != 0;
            }
            l->live[k] = (uint8_t)live;
        }
}

static int level_alloc(level *l, int w, int h)
{
    l->w = w;
    l->h = h;
    size_t n = (size_t)w * h;
    l->v = calloc(4 * n, sizeof *l->v);
    l->live = malloc(n);
    return l->v && l->live;
}

/* Blurs 4-channel image v (w x h) in place with a Gaussian of sigma pixels (0 outside). */
static void blur4(float *v, int w, int h, double sigma)
{
    if (sigma <= 0)
        return;
    int rad = (int)ceil(3 * sigma), n = w > h ? w : h;
    double k[64];
    rad = rad > 31 ? 31 : rad;
    double sum = 0;
    for (int i = -rad; i <= rad; i++)
        sum += k[i + rad] = exp(-i * i / (2 * sigma * sigma));
    for (int i = 0; i <= 2 * rad; i++)
        k[i] /= sum;
    float *line = malloc((size_t)n * 4 * sizeof *line);
    for (int pass = 0; pass < 2; pass++) {
        int len = pass ? h : w, cnt = pass ? w : h;
        long step = pass ? 4L * w : 4;
        for (int o = 0; o < cnt; o++) {
            float *base = v + (pass ? 4L * o : 4L * o * w);
            for (int i = 0; i < len; i++)
                for (int c = 0; c < 4; c++)
                    line[4 * i + c] = base[i * step + c];
            for (int i = 0; i < len; i++)
                for (int c = 0; c < 4; c++) {
                    double s = 0;
                    for (int j = -rad; j <= rad; j++)
                        if (i + j >= 0 && i + j < len)
                            s += k[j + rad] * line[4 * (i + j) + c];
                    base[i * step + c] = (float)s;
                }
        }
    }
    free(line);
}

/* Builds nlev levels from premultiplied RGBA, blurred by sigma, by 2 x 2 box averages. */
static int pyramid_build(pyramid *p, const float *pm, int w, int h, int nlev, double sigma)
{
    pyramid_free(p);
    for (int l = 0; l < nlev; l++) {
        level *cur = &p->lv[l];
        int lw = l ? (p->lv[l - 1].w + 1) / 2 : w, lh = l ? (p->lv[l - 1].h + 1) / 2 : h;
        p->n = l + 1;
        if (!level_alloc(cur, lw, lh))
            return 0;
        if (l == 0) {
            memcpy(cur->v, pm, (size_t)w * h * 4 * sizeof *pm);
            blur4(cur->v, w, h, sigma);
        } else {
            const level *up = &p->lv[l - 1];
            for (int y = 0; y < lh; y++)
                for (int x = 0; x < lw; x++)
                    for (int c = 0; c < 4; c++) {
                        float s = 0;
                        for (int dy = 0; dy < 2; dy++)
                            for (int dx = 0; dx < 2; dx++) {
                                int ux = 2 * x + dx, uy = 2 * y + dy;
                                if (ux < up->w && uy < up->h)
                                    s += up->v[4 * ((long)uy * up->w + ux) + c];
                            }
                        cur->v[4 * ((long)y * lw + x) + c] = 0.25f * s;
                    }
        }
        level_live(cur);
    }
    return 1;
}

/* Bilinear weights of point (X, Y) (level pixels) on the grid: its cell and (tx, ty). */
static void grid_locate(double X, double Y, double cell, int nx, int ny, int *ci, int *cj, double *tx, double *ty)
{
    int i = (int)floor(X / cell), j = (int)floor(Y / cell);
    i = i < 0 ? 0 : i > nx - 2 ? nx - 2 : i;
    j = j < 0 ? 0 : j > ny - 2 ? ny - 2 : j;
    *ci = i;
    *cj = j;
    *tx = X / cell - i;
    *ty = Y / cell - j;
}

/* The displacement at (X, Y) of grid u (2 per node). */
static void grid_eval(const double *u, int nx, int ny, double cell, double X, double Y, double *dx, double *dy)
{
    int i, j;
    double tx, ty;
    grid_locate(X, Y, cell, nx, ny, &i, &j, &tx, &ty);
    const double *a = u + 2 * (j * nx + i), *b = a + 2, *c = a + 2 * nx, *d = c + 2;
    double w0 = (1 - tx) * (1 - ty), w1 = tx * (1 - ty), w2 = (1 - tx) * ty, w3 = tx * ty;
    *dx = w0 * a[0] + w1 * b[0] + w2 * c[0] + w3 * d[0];
    *dy = w0 * a[1] + w1 * b[1] + w2 * c[1] + w3 * d[1];
}

/* Bilinear sample of 4-channel image v at pixel-index coordinates (sx, sy); 0 outside. */
static void sample4(const float *v, int w, int h, double sx, double sy, double out[4])
{
    int x = (int)floor(sx), y = (int)floor(sy);
    double fx = sx - x, fy = sy - y;
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int dy = 0; dy < 2; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= h)
            continue;
        double wy = dy ? fy : 1 - fy;
        for (int dx = 0; dx < 2; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= w)
                continue;
            double wgt = wy * (dx ? fx : 1 - fx);
            const float *p = v + 4 * ((long)yy * w + xx);
            for (int c = 0; c < 4; c++)
                out[c] += wgt * p[c];
        }
    }
}

/* Bilinear sample of 4-channel image v at (sx, sy) and its exact derivatives along x and y
 * (those of the bilinear interpolant, so the energy and its gradient agree); 0 outside. */
static void sample4_grad(const float *v, int w, int h, double sx, double sy, double out[4], double gx[4], double gy[4])
{
    int x = (int)floor(sx), y = (int)floor(sy);
    double fx = sx - x, fy = sy - y, p[4][4];
    for (int q = 0; q < 4; q++) {
        int xx = x + (q & 1), yy = y + (q >> 1);
        int in = xx >= 0 && yy >= 0 && xx < w && yy < h;
        const float *s = in ? v + 4 * ((long)yy * w + xx) : NULL;
        for (int c = 0; c < 4; c++)
            p[q][c] = in ? s[c] : 0;
    }
    for (int c = 0; c < 4; c++) {
        double top = p[0][c] + fx * (p[1][c] - p[0][c]), bot = p[2][c] + fx * (p[3][c] - p[2][c]);
        out[c] = top + fy * (bot - top);
        gx[c] = (1 - fy) * (p[1][c] - p[0][c]) + fy * (p[3][c] - p[2][c]);
        gy[c] = bot - top;
    }
}

static int live_near(const level *l, double sx, double sy)
{
    int x = (int)floor(sx), y = (int)floor(sy);
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && yy >= 0 && xx < l->w && yy < l->h && l->live[(long)yy * l->w + xx])
                return 1;
        }
    return 0;
}

/* Adds lambda * w * (sum_k coef_k u[idx_k])^2 to the energy, its half-gradient and Hessian. */
static double bend_term(const double *u, const int *idx, const double *coef, int n, double lw, band *hm, double *g)
{
    double s = 0;
    for (int k = 0; k < n; k++)
        s += coef[k] * u[idx[k]];
    for (int k = 0; k < n; k++) {
        g[idx[k]] += lw * s * coef[k];
        for (int m = 0; m <= k; m++)
            band_add(hm, idx[k], idx[m], lw * coef[k] * coef[m]);
    }
    return lw * s * s;
}

/* Bending energy of grid u: squared second differences along x and y and the cross
 * difference (twice), zero for any affine field. Adds to hm and g when they are given. */
static double bend_energy(const double *u, int nx, int ny, double lambda, band *hm, double *g)
{
    double e = 0;
    static const double c3[3] = { 1, -2, 1 }, c4[4] = { 1, -1, -1, 1 };
    for (int c = 0; c < 2; c++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                int idx[4];
                if (i > 0 && i < nx - 1) {
                    idx[0] = 2 * (j * nx + i - 1) + c, idx[1] = 2 * (j * nx + i) + c, idx[2] = 2 * (j * nx + i + 1) + c;
                    e += bend_term(u, idx, c3, 3, lambda, hm, g);
                }
                if (j > 0 && j < ny - 1) {
                    idx[0] = 2 * ((j - 1) * nx + i) + c, idx[1] = 2 * (j * nx + i) + c, idx[2] = 2 * ((j + 1) * nx + i) + c;
                    e += bend_term(u, idx, c3, 3, lambda, hm, g);
                }
                if (i < nx - 1 && j < ny - 1) {
                    idx[0] = 2 * (j * nx + i) + c, idx[1] = idx[0] + 2, idx[2] = idx[0] + 2 * nx, idx[3] = idx[2] + 2;
                    e += bend_term(u, idx, c4, 4, 2 * lambda, hm, g);
                }
            }
    return e;
}

/* Energy of grid u at level l (displacement = base + grid, level pixels); fills the
 * Gauss-Newton normal matrix and half-gradient. */
static double reg_accumulate(reg *r, int l, const level *T, const level *I, const double *u, band *hm, double *g)
{
    int nx = r->nx[l], ny = r->ny[l], np = 2 * nx * ny, ncell = (nx - 1) * (ny - 1);
    double cell = r->cell;
    memset(r->cellacc, 0, (size_t)ncell * 44 * sizeof *r->cellacc);
    double e = 0;
    for (int y = 0; y < T->h; y++)
        for (int x = 0; x < T->w; x++) {
            long k = (long)y * T->w + x;
            double X = x + 0.5, Y = y + 0.5;
            int ci, cj;
            double tx, ty;
            grid_locate(X, Y, cell, nx, ny, &ci, &cj, &tx, &ty);
            double wt[4] = { (1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty };
            const double *n0 = u + 2 * (cj * nx + ci);
            const double *nn[4] = { n0, n0 + 2, n0 + 2 * nx, n0 + 2 * nx + 2 };
            double dx = r->base[2 * k], dy = r->base[2 * k + 1];
            for (int q = 0; q < 4; q++) {
                dx += wt[q] * nn[q][0];
                dy += wt[q] * nn[q][1];
            }
            const float *t = T->v + 4 * k;
            double sx = x + dx, sy = y + dy;   /* pixel-index coordinates of X + d - 0.5 */
            int tl = t[0] != 0 || t[1] != 0 || t[2] != 0 || t[3] != 0;
            if (!tl && !live_near(I, sx, sy))
                continue;
            double iv[4], gx[4], gy[4];
            sample4_grad(I->v, I->w, I->h, sx, sy, iv, gx, gy);
            double a = 0, b = 0, c = 0, r0 = 0, r1 = 0;
            for (int ch = 0; ch < 4; ch++) {
                double res = iv[ch] - t[ch];
                e += res * res;
                a += gx[ch] * gx[ch];
                b += gx[ch] * gy[ch];
                c += gy[ch] * gy[ch];
                r0 += gx[ch] * res;
                r1 += gy[ch] * res;
            }
            if (!hm)
                continue;
            double *acc = r->cellacc + 44 * (cj * (nx - 1) + ci);
            int m = 0;
            for (int p = 0; p < 4; p++) {
                for (int q = p; q < 4; q++, m += 3) {
                    double ww = wt[p] * wt[q];
                    acc[m] += ww * a;
                    acc[m + 1] += ww * b;
                    acc[m + 2] += ww * c;
                }
                acc[30 + 2 * p] += wt[p] * r0;
                acc[31 + 2 * p] += wt[p] * r1;
            }
        }
    if (hm) {
        memset(hm->a, 0, (size_t)hm->n * (hm->b + 1) * sizeof *hm->a);
        memset(g, 0, (size_t)np * sizeof *g);
        for (int cj = 0; cj < ny - 1; cj++)
            for (int ci = 0; ci < nx - 1; ci++) {
                const double *acc = r->cellacc + 44 * (cj * (nx - 1) + ci);
                int node[4] = { cj * nx + ci, cj * nx + ci + 1, (cj + 1) * nx + ci, (cj + 1) * nx + ci + 1 };
                int m = 0;
                for (int p = 0; p < 4; p++) {
                    for (int q = p; q < 4; q++, m += 3) {
                        int pa = 2 * node[p], qa = 2 * node[q];
                        band_add(hm, pa, qa, acc[m]);
                        band_add(hm, pa + 1, qa + 1, acc[m + 2]);
                        band_add(hm, pa, qa + 1, acc[m + 1]);
                        if (p != q)
                            band_add(hm, pa + 1, qa, acc[m + 1]);
                    }
                    g[2 * node[p]] += acc[30 + 2 * p];
                    g[2 * node[p] + 1] += acc[31 + 2 * p];
                }
            }
    }
    /* at the finest level the base is folded into u, so the bend covers the whole field */
    return e + bend_energy(u, nx, ny, l ? r->lambda_coarse : r->lambda, hm, g);
}

/* Levenberg-Marquardt on grid u at level l; returns the final energy. */
static double reg_level(reg *r, int l, const level *T, const level *I, double *u, int maxit)
{
    int np = 2 * r->nx[l] * r->ny[l], b = 4 * r->nx[l] + 1;
    r->hm.n = r->hw.n = r->ht.n = np;
    r->hm.b = r->hw.b = r->ht.b = b;
    double e = reg_accumulate(r, l, T, I, u, &r->hm, r->g), mu = 1e-3;
    int rejected = 0;
    for (int it = 0; it < maxit; it++) {
        memcpy(r->hw.a, r->hm.a, (size_t)np * (b + 1) * sizeof *r->hw.a);
        for (int i = 0; i < np; i++)
            *band_at(&r->hw, i, i) += mu * *band_at(&r->hm, i, i) + 1e-6;
        if (!band_cholesky(&r->hw)) {
            mu *= 10;
            continue;
        }
        band_solve(&r->hw, r->g, r->step);
        double big = 0;
        for (int i = 0; i < np; i++) {
            r->ut[i] = u[i] - r->step[i];
            big = fabs(r->step[i]) > big ? fabs(r->step[i]) : big;
        }
        double et = reg_accumulate(r, l, T, I, r->ut, &r->ht, r->gt);
        if (et < e) {
            memcpy(u, r->ut, (size_t)np * sizeof *u);
            band sw = r->hm;
            r->hm = r->ht;
            r->ht = sw;
            double *gs = r->g;
            r->g = r->gt;
            r->gt = gs;
            mu = mu / 3 > 1e-7 ? mu / 3 : 1e-7;
            rejected = 0;
            if (big < 0.01 || (e - et) < 1e-7 * e)
                break;
            e = et;
        } else {
            mu *= 4;
            if (++rejected == 3)   /* at the minimum up to the model's accuracy */
                break;
        }
    }
    return e;
}

/* Grid at level l + 1 (coarse) to level l: nodes halfway take the mean, values double. */
static void grid_refine(const double *uc, int nxc, int nyc, double *uf, int nxf, int nyf)
{
    for (int j = 0; j < nyf; j++)
        for (int i = 0; i < nxf; i++) {
            double dx, dy;
            grid_eval(uc, nxc, nyc, 1.0, i * 0.5, j * 0.5, &dx, &dy);
            uf[2 * (j * nxf + i)] = 2 * dx;
            uf[2 * (j * nxf + i) + 1] = 2 * dy;
        }
}

static void reg_free(reg *r)
{
    pyramid_free(&r->tpl);
    free(r->hm.a);
    free(r->hw.a);
    free(r->ht.a);
    free(r->g);
    free(r->gt);
    free(r->u);
    free(r->ut);
    free(r->step);
    free(r->delta);
    free(r->tmp);
    free(r->cellacc);
    free(r->base);
    memset(r, 0, sizeof *r);
}

/* Sets up registration onto template pm (premultiplied RGBA, w x h). */
static int reg_init(reg *r, const float *pm, int w, int h)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    r->h = h;
    int side = w > h ? w : h;
    r->cell = side / 16.0 > 8 ? floor(side / 16.0) : side >= 64 ? 8 : 4;
    r->lambda = 0.3;
    r->lambda_coarse = 1.0;
    r->blur = 0.7 * r->cell / 8;
    r->nx[0] = (int)ceil(w / r->cell) + 1;
    r->ny[0] = (int)ceil(h / r->cell) + 1;
    r->nlev = 1;
    while (r->nlev < MAXLEV) {
        int nx = (r->nx[r->nlev - 1] - 1 + 1) / 2 + 1, ny = (r->ny[r->nlev - 1] - 1 + 1) / 2 + 1;
        if (nx < 5 || ny < 5)
            break;
        r->nx[r->nlev] = nx;
        r->ny[r->nlev] = ny;
        r->nlev++;
    }
    int np = 2 * r->nx[0] * r->ny[0], b = 4 * r->nx[0] + 1;
    size_t bs = (size_t)np * (b + 1) * sizeof(double);
    r->hm.a = malloc(bs);
    r->hw.a = malloc(bs);
    r->ht.a = malloc(bs);
    r->g = malloc(np * sizeof(double));
    r->gt = malloc(np * sizeof(double));
    r->u = malloc(np * sizeof(double));
    r->ut = malloc(np * sizeof(double));
    r->step = malloc(np * sizeof(double));
    r->delta = malloc(np * sizeof(double));
    r->tmp = malloc(np * sizeof(double));
    r->cellacc = malloc((size_t)r->nx[0] * r->ny[0] * 44 * sizeof(double));
    r->base = malloc((size_t)w * h * 2 * sizeof(float));
    if (!r->hm.a || !r->hw.a || !r->ht.a || !r->g || !r->gt || !r->u || !r->ut || !r->step || !r->delta || !r->tmp ||
        !r->cellacc || !r->base || !pyramid_build(&r->tpl, pm, w, h, r->nlev, r->blur)) {
        reg_free(r);
        return 0;
    }
    return 1;
}

/* Registers target pyramid I: finds the level-0 grid out (2 per node, pixels) with
 * I(p + F(p)) ~ template(p), starting from grid init (NULL: zero) moved by (sx, sy). */
static void reg_run(reg *r, const pyramid *I, const double *init, double sx, double sy, double *out)
{
    int top = r->nlev - 1;
    int np0 = 2 * r->nx[0] * r->ny[0];
    double *d = r->delta;
    for (int i = 0; i < 2 * r->nx[top] * r->ny[top]; i += 2) {
        d[i] = sx / (1 << top);
        d[i + 1] = sy / (1 << top);
    }
    for (int l = top; l >= 1; l--) {
        const level *T = &r->tpl.lv[l];
        double sc = 1.0 / (1 << l);
        for (int y = 0; y < T->h; y++)
            for (int x = 0; x < T->w; x++) {
                double dx = 0, dy = 0;
                if (init)
                    grid_eval(init, r->nx[0], r->ny[0], r->cell, (x + 0.5) / sc, (y + 0.5) / sc, &dx, &dy);
                r->base[2 * ((long)y * T->w + x)] = (float)(dx * sc);
                r->base[2 * ((long)y * T->w + x) + 1] = (float)(dy * sc);
            }
        reg_level(r, l, T, &I->lv[l], d, l == top ? 30 : 20);
        grid_refine(d, r->nx[l], r->ny[l], r->tmp, r->nx[l - 1], r->ny[l - 1]);
        memcpy(d, r->tmp, (size_t)2 * r->nx[l - 1] * r->ny[l - 1] * sizeof *d);
    }
    for (int i = 0; i < np0; i++)
        out[i] = d[i] + (init ? init[i] : 0);
    memset(r->base, 0, (size_t)r->w * r->h * 2 * sizeof *r->base);
    reg_level(r, 0, &r->tpl.lv[0], &I->lv[0], out, 15);
}

/* ---- silhouettes ----------------------------------------------------------------- */

/* 1-D squared Euclidean distance transform of f (n samples) into d. */
static void edt1d(const float *f, int n, float *d, int *v, float *z)
{
    int k = 0;
    v[0] = 0;
    z[0] = -1e30f;
    z[1] = 1e30f;
    for (int q = 1; q < n; q++) {
        float s;
        for (;;) {
            int p = v[k];
            s = ((f[q] + (float)q * q) - (f[p] + (float)p * p)) / (2.0f * (q - p));
            if (s <= z[k] && k > 0)
                k--;
            else
                break;
        }
        if (s <= z[k]) { /* k == 0 */
            v[0] = q;
            z[0] = -1e30f;
            z[1] = 1e30f;
            continue;
        }
        k++;
        v[k] = q;
        z[k] = s;
        z[k + 1] = 1e30f;
    }
    k = 0;
    for (int q = 0; q < n; q++) {
        while (z[k + 1] < q)
            k++;
        float dq = (float)(q - v[k]);
        d[q] = dq * dq + f[v[k]];
    }
}

/* Squared distance (in mask pixels) from every pixel to the nearest set pixel of m. */
static void edt2d(const uint8_t *m, int w, int h, float *out, float *buf)
{
    int n = w > h ? w : h;
    float *f = buf, *d = buf + n, *z = buf + 2 * n;
    int *v = (int *)(buf + 3 * n + 2);
    for (long k = 0; k < (long)w * h; k++)
        out[k] = m[k] ? 0 : 1e20f;
    for (int x = 0; x < w; x++) {
        for (int y = 0; y < h; y++)
            f[y] = out[(long)y * w + x];
        edt1d(f, h, d, v, z);
        for (int y = 0; y < h; y++)
            out[(long)y * w + x] = d[y];
    }
    for (int y = 0; y < h; y++) {
        memcpy(f, out + (long)y * w, (size_t)w * sizeof *f);
        edt1d(f, w, d, v, z);
        memcpy(out + (long)y * w, d, (size_t)w * sizeof *d);
    }
}

#define UP 4   /* sub-pixel factor of the silhouette distances */

/* The silhouette at quarter-pixel precision (alpha upsampled bilinearly, >= 128) over the
 * cw x ch window at (u0, v0) of the UP-times finer grid. */
static void upsample_mask(const uint8_t *rgba, int w, int h, int u0, int v0, int cw, int ch, uint8_t *m)
{
    for (int v = 0; v < ch; v++) {
        double sy = (v0 + v + 0.5) / UP - 0.5;
        int y = (int)floor(sy);
        double fy = sy - y;
        for (int u = 0; u < cw; u++) {
            double sx = (u0 + u + 0.5) / UP - 0.5;
            int x = (int)floor(sx);
            double fx = sx - x, a = 0;
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++) {
                    int xx = x + dx, yy = y + dy;
                    if (xx >= 0 && yy >= 0 && xx < w && yy < h)
                        a += (dy ? fy : 1 - fy) * (dx ? fx : 1 - fx) * rgba[4 * ((long)yy * w + xx) + 3];
                }
            m[(long)v * cw + u] = a >= OPAQUE - 1e-9;
        }
    }
}

/* Largest distance (original pixels) from a set pixel of mask a (aw x ah at (au, av)) to
 * the set whose squared distance transform is dt (bw wide at (bu, bv)); every set pixel
 * of a must lie inside dt's window. -1 when a is empty. */
static double directed_hausdorff(const uint8_t *a, int au, int av, int aw, int ah, const float *dt, int bu, int bv,
                                 int bw)
{
    float best = -1;
    for (int v = 0; v < ah; v++)
        for (int u = 0; u < aw; u++)
            if (a[(long)v * aw + u]) {
                float d = dt[(long)(av + v - bv) * bw + (au + u - bu)];
                best = d > best ? d : best;
            }
    return best < 0 ? -1 : sqrt(best) / UP;
}

/* Labels the components of pixels with mask value want (8- or 4-connected) into lab
 * (1-based); returns their count, sizes in *size (malloc'ed), whether each touches the
 * border in *border (malloc'ed, may be NULL). */
static int label(const uint8_t *mask, int want, int w, int h, int conn8, int *lab, int **size, uint8_t **border,
                 int *stack)
{
    int n = 0, cap = 64;
    int *sz = malloc(cap * sizeof *sz);
    uint8_t *bd = malloc((size_t)cap);
    memset(lab, 0, (size_t)w * h * sizeof *lab);
    for (long s = 0; s < (long)w * h; s++) {
        if (lab[s] || (mask[s] != 0) != want)
            continue;
        if (n == cap) {
            cap *= 2;
            sz = realloc(sz, cap * sizeof *sz);
            bd = realloc(bd, (size_t)cap);
        }
        int id = ++n, top = 0;
        sz[id - 1] = 0;
        bd[id - 1] = 0;
        lab[s] = id;
        stack[top++] = (int)s;
        while (top) {
            int p = stack[--top], x = p % w, y = p / w;
            sz[id - 1]++;
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                bd[id - 1] = 1;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    if ((!dx && !dy) || (!conn8 && dx && dy))
                        continue;
                    int xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                        continue;
                    long q = (long)yy * w + xx;
                    if (!lab[q] && (mask[q] != 0) == want) {
                        lab[q] = id;
                        stack[top++] = (int)q;
                    }
                }
        }
    }
    *size = sz;
    if (border)
        *border = bd;
    else
        free(bd);
    return n;
}

/* The outer outline of component id, traced with Moore neighbours from its first pixel
 * until the trace returns there in the direction it left: pixel centres into ptx, pty
 * (each holds cap points); the number of points. */
static int trace_outline(const int *lab, int w, int h, int id, double *ptx, double *pty, int cap)
{
    static const int ddx[8] = { 1, 1, 0, -1, -1, -1, 0, 1 }, ddy[8] = { 0, 1, 1, 1, 0, -1, -1, -1 };
    long s = 0;
    while (lab[s] != id)
        s++;
    int sx = (int)(s % w), sy = (int)(s / w), px = sx, py = sy, back = 4, first = -1;
    int n = 0;
#define FG(X, Y) ((X) >= 0 && (Y) >= 0 && (X) < w && (Y) < h && lab[(long)(Y) * w + (X)] == id)
    while (n < cap) {
        ptx[n] = px + 0.5;
        pty[n] = py + 0.5;
        n++;
        int dir = -1;
        for (int k = 1; k <= 8; k++) {
            int dd = (back + k) % 8;
            if (FG(px + ddx[dd], py + ddy[dd])) {
                dir = dd;
                break;
            }
        }
        if (dir < 0)
            break;
        if (px == sx && py == sy) {
            if (first < 0)
                first = dir;
            else if (dir == first) {
                n--;
                break;
            }
        }
        int bd = (dir + 7) % 8, bx = px + ddx[bd], by = py + ddy[bd];
        px += ddx[dir];
        py += ddy[dir];
        for (int k = 0; k < 8; k++)
            if (px + ddx[k] == bx && py + ddy[k] == by)
                back = k;
    }
#undef FG
    return n;
}

/* Index i of a closed outline of n points, taken around it into 0 .. n - 1. */
static int around(int i, int n) { return (i % n + n) % n; }

/* The closed outline of n points smoothed with a Gaussian of 1.5 px (5 points each side). */
static void smooth_outline(const double *ptx, const double *pty, int n, double *qx, double *qy)
{
    for (int i = 0; i < n; i++) {
        double sxw = 0, syw = 0, sw = 0;
        for (int k = -5; k <= 5; k++) {
            double wg = exp(-k * k / (2 * 1.5 * 1.5));
            int j = around(i + k, n);
            sxw += wg * ptx[j];
            syw += wg * pty[j];
            sw += wg;
        }
        qx[i] = sxw / sw;
        qy[i] = syw / sw;
    }
}

/* How many points before (*back) and after (*ahead) point i of a closed outline of n
 * points lie the first ones 3 px of arc from it (at most n). */
static void arc_3px(const double *qx, const double *qy, int n, int i, int *back, int *ahead)
{
    int b = 0, f = 0;
    for (double l = 0; l < 3 && b < n; b++)
        l += hypot(qx[around(i - b, n)] - qx[around(i - b - 1, n)], qy[around(i - b, n)] - qy[around(i - b - 1, n)]);
    for (double l = 0; l < 3 && f < n; f++)
        l += hypot(qx[around(i + f + 1, n)] - qx[around(i + f, n)], qy[around(i + f + 1, n)] - qy[around(i + f, n)]);
    *back = b;
    *ahead = f;
}

/* The signed turning angle (degrees) at each of the n points of a closed outline into
 * turn, measured between the points 3 px of arc before and after it (how many points
 * back and ahead those are: arc_3px, into back and ahead); the largest in magnitude.
 * All 0 for an outline of 12 px or less. */
static double outline_turns(const double *qx, const double *qy, int n, float *turn, int *back, int *ahead)
{
    double total = 0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        total += hypot(qx[j] - qx[i], qy[j] - qy[i]);
        turn[i] = 0;
    }
    double best = 0;
    for (int i = 0; i < n; i++) {
        arc_3px(qx, qy, n, i, &back[i], &ahead[i]);
        if (total <= 12)
            continue;
        int a = around(i - back[i], n), c = around(i + ahead[i], n);
        double ux = qx[i] - qx[a], uy = qy[i] - qy[a], vx = qx[c] - qx[i], vy = qy[c] - qy[i];
        double ang = atan2(ux * vy - uy * vx, ux * vx + uy * vy) * 180 / PI;
        turn[i] = (float)ang;
        best = fabs(ang) > best ? fabs(ang) : best;
    }
    return best;
}

/* A frame's outer outline: the outline of its largest opaque part, traced with Moore
 * neighbours (ix, iy: the pixels), each pixel moved to where the alpha crosses one half
 * (edge_point: a staircase of whole pixels turns 20 degrees at every step), smoothed
 * with a Gaussian of 1.5 px (x, y), and the signed turn at each point, measured over
 * 3 px each side. */
typedef struct outline {
    int n;
    int *ix, *iy;
    double *x, *y;
    float *turn;
    int *back, *ahead;  /* the points 3 px of arc either side of each (arc_3px) */
} outline;

static void outline_free(outline *o)
{
    free(o->ix);
    free(o->iy);
    free(o->x);
    free(o->y);
    free(o->turn);
    free(o->back);
    free(o->ahead);
    memset(o, 0, sizeof *o);
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The point where the alpha around pixel (x, y), opaque, crosses one half: its centre moved
 * against the alpha's gradient (Sobel) by as far as the alpha must fall, at most 1.5 px. */
static void edge_point(const uint8_t *rgba, int w, int h, int x, int y, double *ex, double *ey)
{
    double a3[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            a3[j][i] = rgba[4 * ((long)clampi(y - 1 + j, 0, h - 1) * w + clampi(x - 1 + i, 0, w - 1)) + 3];
    double gx = (a3[0][2] + 2 * a3[1][2] + a3[2][2] - a3[0][0] - 2 * a3[1][0] - a3[2][0]) / 8;
    double gy = (a3[2][0] + 2 * a3[2][1] + a3[2][2] - a3[0][0] - 2 * a3[0][1] - a3[0][2]) / 8;
    double a = a3[1][1], g = hypot(gx, gy);
    *ex = x + 0.5;
    *ey = y + 0.5;
    if (g < 1e-9)
        return;
    double t = fmin((a - 127.5) / g, 1.5);
    t = fmax(t, 0.0);
    *ex -= t * gx / g;
    *ey -= t * gy / g;
}

/* Traces component id of the frame rgba into o; its largest turn in magnitude (degrees;
 * 0 for an outline of fewer than 12 points, which o then does not keep). */
static double outline_of(const uint8_t *rgba, const int *lab, int w, int h, int id, int area, outline *o)
{
    int cap = 4 * area + 16;
    double *ptx = malloc((size_t)cap * sizeof *ptx), *pty = malloc((size_t)cap * sizeof *pty);
    int n = trace_outline(lab, w, h, id, ptx, pty, cap);
    double best = 0;
    memset(o, 0, sizeof *o);
    if (n >= 12) {
        o->n = n;
        o->ix = malloc((size_t)n * sizeof *o->ix);
        o->iy = malloc((size_t)n * sizeof *o->iy);
        o->x = malloc((size_t)n * sizeof *o->x);
        o->y = malloc((size_t)n * sizeof *o->y);
        o->turn = malloc((size_t)n * sizeof *o->turn);
        o->back = malloc((size_t)n * sizeof *o->back);
        o->ahead = malloc((size_t)n * sizeof *o->ahead);
        for (int i = 0; i < n; i++) {
            o->ix[i] = (int)ptx[i];
            o->iy[i] = (int)pty[i];
            edge_point(rgba, w, h, o->ix[i], o->iy[i], &ptx[i], &pty[i]);
        }
        smooth_outline(ptx, pty, n, o->x, o->y);
        best = outline_turns(o->x, o->y, n, o->turn, o->back, o->ahead);
    }
    free(ptx);
    free(pty);
    return best;
}

/* ---- per-frame facts --------------------------------------------------------------- */

typedef struct facts {
    long area;
    double qarea;                /* opaque area at quarter-pixel precision (the silhouette of the
                                  * bilinearly upsampled alpha), pixels */
    int x0, y0, x1, y1;          /* opaque bounding box, [x0, x1) x [y0, y1) */
    double ey0, ey1;             /* its top and bottom to a fraction of a pixel: where the rows' alpha crosses 1/2 */
    double cx, cy, acx, acy;     /* opaque centroid; alpha-weighted centroid */
    double mu20, mu02, mu11;     /* second central moments of the opaque pixels */
    int edge, ident, parts, parts_apart, holes; /* parts: at full opacity; parts_apart: across a gap seen through */
    double sharp, kink;          /* kink: the largest turn of the outline, degrees */
    double kink_new, kink_x, kink_y; /* the largest turn frame 0 had nowhere near (kink_new_of), and where */
    outline ol;                  /* the outer outline, owned */
    double haus, p95, d;         /* Hausdorff to frame 0, 95th percentile of |F|, D */
    double step;                 /* step(i): to the next frame (the last: to frame 0) */
} facts;

static double sharpness(const uint8_t *rgba, int w, int h)
{
    double s = 0;
    long n = 0;
#define LUM(X, Y)                                                                                                      \
    ((0.2126 * rgba[4 * ((long)(Y) * w + (X))] + 0.7152 * rgba[4 * ((long)(Y) * w + (X)) + 1] +                        \
      0.0722 * rgba[4 * ((long)(Y) * w + (X)) + 2]) *                                                                  \
     rgba[4 * ((long)(Y) * w + (X)) + 3] / 255.0)
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            double gx = LUM(x + 1, y - 1) + 2 * LUM(x + 1, y) + LUM(x + 1, y + 1) - LUM(x - 1, y - 1) -
                        2 * LUM(x - 1, y) - LUM(x - 1, y + 1);
            double gy = LUM(x - 1, y + 1) + 2 * LUM(x, y + 1) + LUM(x + 1, y + 1) - LUM(x - 1, y - 1) -
                        2 * LUM(x, y - 1) - LUM(x + 1, y - 1);
            s += gx * gx + gy * gy;
            n++;
        }
#undef LUM
    return n ? sqrt(s / n) : 0;
}

/* The largest alpha of row y, 0 to 1; 0 outside the frame. */
static double row_alpha(const uint8_t *rgba, int w, int h, int y)
{
    int a = 0;
    if (y >= 0 && y < h)
        for (int x = 0; x < w; x++)
            a = rgba[4 * ((long)y * w + x) + 3] > a ? rgba[4 * ((long)y * w + x) + 3] : a;
    return a / 255.0;
}

/* The opaque box's top and bottom edges to a fraction of a pixel: between
 * the centres of the last row below one half and the first above it, where
 * the rows' largest alpha crosses one half (a crisp edge: the pixel border).
 * A thin stamp's height is then measured finer than its whole pixels, which
 * are a twentieth of a bar 20 px high. */
static void subpixel_rows(const uint8_t *rgba, int w, int h, facts *st)
{
    double a0 = row_alpha(rgba, w, h, st->y0 - 1), a1 = row_alpha(rgba, w, h, st->y0);
    st->ey0 = st->y0 - 0.5 + (a1 > a0 ? (0.5 - a0) / (a1 - a0) : 0.5);
    a0 = row_alpha(rgba, w, h, st->y1 - 1);
    a1 = row_alpha(rgba, w, h, st->y1);
    st->ey1 = st->y1 - 0.5 + (a0 > a1 ? (a0 - 0.5) / (a0 - a1) : 0.5);
}

/* Holes: components of the pixels under OPAQUE (labelled in lab, n of them)
 * that do not touch the border, of 2 pixels or more, and that a viewer sees
 * through: one pixel at least is under SEE_THROUGH. A semi-transparent line
 * drawn inside a stamp (an ice cube's facet, alpha 124 to 140) crosses
 * OPAQUE back and forth as it is resampled without opening anything. */
static int count_holes(const uint8_t *rgba, const int *lab, long npix, int n, const int *size, const uint8_t *border)
{
    uint8_t *clear = calloc((size_t)n + 1, 1);
    if (!clear)
        return 0;
    for (long k = 0; k < npix; k++)
        if (lab[k] && rgba[4 * k + 3] < SEE_THROUGH)
            clear[lab[k]] = 1;
    int holes = 0;
    for (int i = 0; i < n; i++)
        holes += !border[i] && size[i] >= 2 && clear[i + 1];
    free(clear);
    return holes;
}

/* Parts a viewer sees apart, counted two ways. Components of the opaque
 * pixels (8-connected, 4 pixels or more) are the parts at full opacity; the
 * components of the pixels at SEE_THROUGH or more that hold one of them are
 * the parts that a gap seen through separates (as for holes), never more
 * than the first. Two squares of pixel art that meet only at a corner touch
 * at a point, which a warp keeps; where it falls between pixel centres the
 * pixels around it are half covered (alpha about 100 to 127): two parts at
 * full opacity, one across the gap. On entry mask holds the opaque pixels
 * and lab their n components (of op_size pixels each), as frame_facts
 * labelled them; mask holds them again on return, lab does not. */
static void count_parts(const uint8_t *rgba, int w, int h, uint8_t *mask, int *lab, int *stack, int n,
                        const int *op_size, facts *st)
{
    long npix = (long)w * h;
    for (int i = 0; i < n; i++)
        st->parts += op_size[i] >= 4;
    /* 2: a pixel of a part at full opacity, 1: one at SEE_THROUGH or more */
    for (long k = 0; k < npix; k++)
        mask[k] = lab[k] && op_size[lab[k] - 1] >= 4 ? 2 : rgba[4 * k + 3] >= SEE_THROUGH;
    int *size;
    n = label(mask, 1, w, h, 1, lab, &size, NULL, stack);
    memset(size, 0, (size_t)n * sizeof *size);
    for (long k = 0; k < npix; k++) {
        if (mask[k] == 2)
            size[lab[k] - 1] = 1;
        mask[k] = rgba[4 * k + 3] >= OPAQUE;
    }
    for (int i = 0; i < n; i++)
        st->parts_apart += size[i];
    free(size);
}

/* Everything about one frame that needs no displacement field. */
static void frame_facts(const uint8_t *rgba, int w, int h, facts *st, uint8_t *mask, int *lab, int *stack)
{
    memset(st, 0, sizeof *st);
    st->x0 = w;
    st->y0 = h;
    st->x1 = st->y1 = 0;
    double sx = 0, sy = 0, sa = 0, sax = 0, say = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            long k = (long)y * w + x;
            int a = rgba[4 * k + 3];
            mask[k] = a >= OPAQUE;
            sa += a;
            sax += a * (x + 0.5);
            say += a * (y + 0.5);
            if (!mask[k])
                continue;
            st->area++;
            sx += x + 0.5;
            sy += y + 0.5;
            st->x0 = x < st->x0 ? x : st->x0;
            st->y0 = y < st->y0 ? y : st->y0;
            st->x1 = x + 1 > st->x1 ? x + 1 : st->x1;
            st->y1 = y + 1 > st->y1 ? y + 1 : st->y1;
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                st->edge = 1;
        }
    st->acx = sa > 0 ? sax / sa : w / 2.0;
    st->acy = sa > 0 ? say / sa : h / 2.0;
    st->sharp = sharpness(rgba, w, h);
    if (!st->area)
        return;
    subpixel_rows(rgba, w, h, st);
    st->cx = sx / st->area;
    st->cy = sy / st->area;
    for (int y = st->y0; y < st->y1; y++)
        for (int x = st->x0; x < st->x1; x++)
            if (mask[(long)y * w + x]) {
                double dx = x + 0.5 - st->cx, dy = y + 0.5 - st->cy;
                st->mu20 += dx * dx;
                st->mu02 += dy * dy;
                st->mu11 += dx * dy;
            }
    int *size;
    uint8_t *border;
    int n = label(mask, 1, w, h, 1, lab, &size, NULL, stack), big = 0;
    for (int i = 0; i < n; i++)
        if (size[i] > size[big])
            big = i;
    st->kink = outline_of(rgba, lab, w, h, big + 1, size[big], &st->ol);
    count_parts(rgba, w, h, mask, lab, stack, n, size, st);
    free(size);
    n = label(mask, 0, w, h, 0, lab, &size, &border, stack);
    st->holes = count_holes(rgba, lab, w * h, n, size, border);
    free(size);
    free(border);
}

/* Principal axis angle (radians, mod pi) and the ratio of the second-moment eigenvalues. */
static double principal_axis(const facts *s, double *ratio)
{
    double tr = s->mu20 + s->mu02, det = s->mu20 * s->mu02 - s->mu11 * s->mu11;
    double disc = sqrt(fmax(tr * tr / 4 - det, 0));
    double l1 = tr / 2 + disc, l2 = tr / 2 - disc;
    if (ratio)
        *ratio = l2 > 1e-12 ? l1 / l2 : INFINITY;
    return 0.5 * atan2(2 * s->mu11, s->mu20 - s->mu02);
}

/* Least-squares affine fit F(p) ~ A (p - c) + t over n points (px, py) with displacements
 * (fx, fy); returns the rotation angle of the map p -> p + F(p), and the RMS of the
 * residual and of F - mean F through rres and rtot. */
static double affine_fit(const double *px, const double *py, const float *f, long n, double *rres, double *rtot)
{
    double cx = 0, cy = 0, mx = 0, my = 0;
    for (long k = 0; k < n; k++) {
        cx += px[k];
        cy += py[k];
        mx += f[2 * k];
        my += f[2 * k + 1];
    }
    cx /= n;
    cy /= n;
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0, syy = 0, bx[2] = { 0, 0 }, by[2] = { 0, 0 }, tot = 0;
    for (long k = 0; k < n; k++) {
        double x = px[k] - cx, y = py[k] - cy, fx = f[2 * k] - mx, fy = f[2 * k + 1] - my;
        sxx += x * x;
        sxy += x * y;
        syy += y * y;
        bx[0] += x * fx;
        bx[1] += y * fx;
        by[0] += x * fy;
        by[1] += y * fy;
        tot += fx * fx + fy * fy;
    }
    double det = sxx * syy - sxy * sxy, a11 = 0, a12 = 0, a21 = 0, a22 = 0;
    if (fabs(det) > 1e-12) {
        a11 = (syy * bx[0] - sxy * bx[1]) / det;
        a12 = (sxx * bx[1] - sxy * bx[0]) / det;
        a21 = (syy * by[0] - sxy * by[1]) / det;
        a22 = (sxx * by[1] - sxy * by[0]) / det;
    }
    double res = 0;
    for (long k = 0; k < n; k++) {
        double x = px[k] - cx, y = py[k] - cy;
        double ex = f[2 * k] - mx - (a11 * x + a12 * y), ey = f[2 * k + 1] - my - (a21 * x + a22 * y);
        res += ex * ex + ey * ey;
    }
    *rres = sqrt(res / n);
    *rtot = sqrt(tot / n);
    return atan2(a21 - a12, 2 + a11 + a22);
}

/* ---- the clip ---------------------------------------------------------------------- */

typedef struct opts {
    const char *dir, *impulse, *input;
    double atx, aty, fps;
    int have_at, periodic, landing, json, per_frame, selftest;
    const char *exact;   /* poyo's options the frames were made with: F from the render grid */
} opts;

typedef struct clip {
    int w, h, n;
    frame *fr;
    facts *st;
    long npix;           /* opaque pixels of frame 0 */
    double *px, *py;     /* their centres */
    float *F;            /* n * npix * 2: displacement of each on each frame */
    uint8_t *rest;       /* with --exact: the picture drawn at rest (w * h RGBA), or NULL */
    double rest_qarea;   /* its opaque area at quarter-pixel precision (0: not known) */
    double reg_ms;
} clip;

static void clipset_free(clip *c)
{
    for (int i = 0; i < c->n; i++) {
        free(c->fr[i].rgba);
        free(c->fr[i].pm);
    }
    free(c->fr);
    for (int i = 0; c->st && i < c->n; i++)
        outline_free(&c->st[i].ol);
    free(c->st);
    free(c->px);
    free(c->py);
    free(c->F);
    free(c->rest);
    memset(c, 0, sizeof *c);
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "motionstats: %s: %s\n", what, why);
    return 1;
}

/* Reads DIR/frame_0000.png, frame_0001.png, ... until one is missing. */
static int clipset_load(clip *c, const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return !fail(dir, "not a directory");
    size_t plen = strlen(dir) + 32;
    char *path = malloc(plen);
    int cap = 0, ok = 1;
    for (int i = 0; ok; i++) {
        snprintf(path, plen, "%s/frame_%04d.png", dir, i);
        if (stat(path, &sb) != 0)
            break;
        image im = { 0 };
        poyo_error err;
        char msg[400];
        if (image_load(path, IMAGE_DEFAULT_MAX_PIXELS, &im, &err) != POYO_OK) {
            snprintf(msg, sizeof msg, "frame_%04d.png: %s", i, err.msg);
            ok = !fail(dir, msg);
            break;
        }
        if (i == 0) {
            c->w = im.w;
            c->h = im.h;
        } else if (im.w != c->w || im.h != c->h) {
            snprintf(msg, sizeof msg, "frame_%04d.png is %dx%d but frame_0000.png is %dx%d", i, im.w, im.h, c->w, c->h);
            image_free(&im);
            ok = !fail(dir, msg);
            break;
        }
        if (c->n == cap) {
            cap = cap ? 2 * cap : 64;
            c->fr = realloc(c->fr, (size_t)cap * sizeof *c->fr);
        }
        frame *fr = &c->fr[c->n++];
        fr->rgba = im.rgba;
        fr->pm = malloc((size_t)im.w * im.h * 4 * sizeof *fr->pm);
        frame_premultiply(fr, im.w, im.h);
    }
    free(path);
    if (ok && c->n == 0)
        ok = !fail(dir, "no frames (expected frame_0000.png, frame_0001.png, ... as poyo --frames writes them)");
    return ok;
}

/* Registers every frame onto frame 0, each warm-started from the one before, and
 * stores F at the opaque pixels of frame 0. */
static int clipset_register(clip *c)
{
    int w = c->w, h = c->h;
    reg r;
    if (!reg_init(&r, c->fr[0].pm, w, h))
        return 0;
    int np = 2 * r.nx[0] * r.ny[0];
    double *prev = calloc((size_t)np, sizeof *prev), *cur = malloc((size_t)np * sizeof *cur);
    c->F = calloc((size_t)c->n * c->npix * 2, sizeof *c->F);
    pyramid P = { 0, { { 0 } } };
    double t0 = now_ms();
    for (int i = 1; i < c->n; i++) {
        if (!c->st[i].area)
            continue;   /* nothing to register; F stays 0 and D is set from the silhouette */
        pyramid_build(&P, c->fr[i].pm, w, h, r.nlev, r.blur);
        double sx = c->st[i].acx - c->st[i - 1].acx, sy = c->st[i].acy - c->st[i - 1].acy;
        reg_run(&r, &P, prev, sx, sy, cur);
        float *F = c->F + (size_t)i * c->npix * 2;
        for (long k = 0; k < c->npix; k++) {
            double dx, dy;
            grid_eval(cur, r.nx[0], r.ny[0], r.cell, c->px[k], c->py[k], &dx, &dy);
            F[2 * k] = (float)dx;
            F[2 * k + 1] = (float)dy;
        }
        memcpy(prev, cur, (size_t)np * sizeof *prev);
    }
    c->reg_ms = c->n > 1 ? (now_ms() - t0) / (c->n - 1) : 0;
    pyramid_free(&P);
    free(prev);
    free(cur);
    reg_free(&r);
    return 1;
}

/* Mean |F(i)| over the rest pixels within radius of (ax, ay); NAN when there are none. */
static double mean_disp_near(const clip *c, int i, double ax, double ay, double r0, double r1)
{
    const float *F = c->F + (size_t)i * c->npix * 2;
    double s = 0;
    long n = 0;
    for (long k = 0; k < c->npix; k++) {
        double d = hypot(c->px[k] - ax, c->py[k] - ay);
        if (d < r0 || d > r1)
            continue;
        s += hypot(F[2 * k], F[2 * k + 1]);
        n++;
    }
    return n ? s / n : NAN;
}

/* The mean of F . (nx, ny) over the opaque pixels of frame 0 within r1 of
 * (ax, ay): how far they moved along a unit direction (NAN: no pixels). */
static double mean_disp_along(const clip *c, int i, double ax, double ay, double r1, double nx, double ny)
{
    const float *F = c->F + (size_t)i * c->npix * 2;
    double s = 0;
    long n = 0;
    for (long k = 0; k < c->npix; k++) {
        if (hypot(c->px[k] - ax, c->py[k] - ay) > r1)
            continue;
        s += F[2 * k] * nx + F[2 * k + 1] * ny;
        n++;
    }
    return n ? s / n : NAN;
}

static int impulse_is(const opts *o, const char *a, const char *b)
{
    return o->impulse && (strcmp(o->impulse, a) == 0 || (b && strcmp(o->impulse, b) == 0));
}

/* The figures, in print order. */
typedef struct figure {
    const char *key;
    double v;
    int is_int;
} figure;

static double fps_from_sidecar(const char *dir, int n, double fps)
{
    /* a sprite-sheet style JSON beside the frames ("duration": ms per frame) sets the rate */
    const char *names[2] = { "%s/frames.json", "%s.json" };
    for (int t = 0; t < 2; t++) {
        char path[4200];
        snprintf(path, sizeof path, names[t], dir);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        double total = 0;
        int cnt = 0;
        char buf[512];
        while (fgets(buf, sizeof buf, f)) {
            const char *p = strstr(buf, "\"duration\"");
            if (p && (p = strchr(p, ':'))) {
                total += atof(p + 1);
                cnt++;
            }
        }
        fclose(f);
        if (cnt == n && total > 0)
            return n * 1000.0 / total;
    }
    return fps;
}

/* Sets def from the poyo options in args (-s, -i, --strength, --at, --angle,
 * --anchor, --fps, --hz, --damping, --volume, --grid, --rate, --drag,
 * --outline, --substeps, --duration); 0 on an option it does not know. */
static int exact_def(const char *args, animate_def *d)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", args);
    char *tok[64];
    int nt = 0;
    for (char *t = strtok(buf, " "); t && nt < 64; t = strtok(NULL, " "))
        tok[nt++] = t;
    for (int i = 0; i + 1 < nt; i += 2) {
        const char *k = tok[i], *v = tok[i + 1];
        if (!strcmp(k, "-s") || !strcmp(k, "--size")) {
            if (sscanf(v, "%dx%d", &d->width, &d->height) != 2)
                d->width = d->height = atoi(v);
        } else if (!strcmp(k, "-i") || !strcmp(k, "--impulse")) {
            int kind = impulse_lookup(v);
            if (kind < 0)
                return 0;
            d->impulse.kind = (impulse_kind)kind;
        } else if (!strcmp(k, "--strength"))
            d->impulse.strength = atof(v);
        else if (!strcmp(k, "--at")) {
            if (sscanf(v, "%lf,%lf", &d->impulse.at.x, &d->impulse.at.y) != 2)
                return 0;
        } else if (!strcmp(k, "--angle"))
            d->impulse.angle = atof(v);
        else if (!strcmp(k, "--anchor")) {
            d->anchor_auto = !strcmp(v, "auto");
            d->body.anchor = !strcmp(v, "top") ? ANCHOR_TOP : !strcmp(v, "none") ? ANCHOR_NONE : ANCHOR_BOTTOM;
        } else if (!strcmp(k, "--fps"))
            d->fps = atof(v);
        else if (!strcmp(k, "--hz"))
            d->body.hz = atof(v);
        else if (!strcmp(k, "--damping"))
            d->body.damping = atof(v);
        else if (!strcmp(k, "--volume"))
            d->body.volume = atof(v);
        else if (!strcmp(k, "--grid"))
            d->grid = atoi(v);
        else if (!strcmp(k, "--rate"))
            d->impulse.rate = atof(v);
        else if (!strcmp(k, "--drag"))
            d->body.drag = atof(v);
        else if (!strcmp(k, "--outline") || !strcmp(k, "--outline-stiffness"))
            d->body.outline = atof(v);
        else if (!strcmp(k, "--substeps"))
            d->body.substeps = atoi(v);
        else if (!strcmp(k, "--duration"))
            d->duration = atof(v);
        else
            return 0;
    }
    return nt % 2 == 0;
}

/* at[] (w * h) maps each pixel to the index k of frame 0's opaque pixel there (into px,
 * py and F), or -1. */
static void opaque_index(const clip *c, long *at)
{
    for (long i = 0; i < (long)c->w * c->h; i++)
        at[i] = -1;
    for (long k = 0; k < c->npix; k++)
        at[(long)c->py[k] * c->w + (long)c->px[k]] = k;
}

/* Where each opaque pixel k of frame 0 rests in the render grid (ru[k], rv[k] in grid
 * cells): frame 0's quads (f0x, f0y, before the placement) inverted, which is the rest
 * pose unless the clip is one period of a drive; at[] maps a pixel to its k or -1. */
static void rest_points(const clip *c, const motion *m, const renderer *r, const double *f0x, const double *f0y,
                        long *at, double *ru, double *rv)
{
    const lattice *lat = &m->lat;
    double sx = m->place.sx, sy = m->place.sy, cell = lat->h / r->sub;
    opaque_index(c, at);
    for (long k = 0; k < c->npix; k++) {
        ru[k] = ((c->px[k] - m->place.ox) / sx - lat->ox) / cell; /* the rest pose's answer */
        rv[k] = ((c->py[k] - m->place.oy) / sy - lat->oy) / cell;
    }
    for (int Y = 0; Y + 1 < r->ry; Y++)
        for (int X = 0; X + 1 < r->rx; X++) {
            size_t g = (size_t)Y * r->rx + X;
            double q[8] = { sx * f0x[g] + m->place.ox, sy * f0y[g] + m->place.oy,
                            sx * f0x[g + 1] + m->place.ox, sy * f0y[g + 1] + m->place.oy,
                            sx * f0x[g + r->rx + 1] + m->place.ox, sy * f0y[g + r->rx + 1] + m->place.oy,
                            sx * f0x[g + r->rx] + m->place.ox, sy * f0y[g + r->rx] + m->place.oy };
            double x0 = q[0], x1 = q[0], y0 = q[1], y1 = q[1];
            for (int i = 2; i < 8; i += 2) {
                x0 = fmin(x0, q[i]), x1 = fmax(x1, q[i]);
                y0 = fmin(y0, q[i + 1]), y1 = fmax(y1, q[i + 1]);
            }
            for (int py = (int)fmax(0, floor(y0)); py <= (int)fmin(c->h - 1, ceil(y1)); py++)
                for (int px = (int)fmax(0, floor(x0)); px <= (int)fmin(c->w - 1, ceil(x1)); px++) {
                    long k = at[(long)py * c->w + px];
                    double u, v;
                    if (k >= 0 && render_inverse_bilinear(px + 0.5, py + 0.5, q, 1e-6, &u, &v)) {
                        ru[k] = X + u;
                        rv[k] = Y + v;
                    }
                }
        }
}

/* Each frame drawn over scratch, and each pixel's rest point (ru, rv) carried by it, less
 * where frame 0 (f0x, f0y) had it: F's n * npix * 2 floats. */
static void carry_points(const clip *c, const motion *m, renderer *r, const double *f0x, const double *f0y,
                         const double *ru, const double *rv, uint8_t *scratch, float *F)
{
    double sx = m->place.sx, sy = m->place.sy;
    for (int f = 0; f < c->n; f++) {
        renderer_draw(r, m->x + (size_t)f * m->n, m->y + (size_t)f * m->n, scratch);
        float *Ff = F + (size_t)f * c->npix * 2;
        for (long k = 0; k < c->npix; k++) {
            double u = ru[k], v = rv[k];
            int X = (int)floor(u), Y = (int)floor(v);
            if (X < 0) X = 0;
            if (Y < 0) Y = 0;
            if (X > r->rx - 2) X = r->rx - 2;
            if (Y > r->ry - 2) Y = r->ry - 2;
            double a = u - X, b = v - Y, dx = 0, dy = 0;
            const double wgt[4] = { (1 - a) * (1 - b), a * (1 - b), (1 - a) * b, a * b };
            for (int q = 0; q < 4; q++) {
                int GX = X + (q & 1), GY = Y + (q >> 1);
                size_t g = (size_t)GY * r->rx + GX;
                dx += wgt[q] * sx * (r->gx[g] - f0x[g]);
                dy += wgt[q] * sy * (r->gy[g] - f0y[g]);
            }
            Ff[2 * k] = (float)dx;
            Ff[2 * k + 1] = (float)dy;
        }
    }
}

/* F from the render grid itself: the clip simulated again with poyo's library
 * from --input and the options it was made with, and each opaque pixel of
 * frame 0 carried from where frame 0 has it to where frame i has the same
 * point of the body (the bilinear maps of the render quads). Returns
 * n * npix * 2 floats, or NULL (with a message) when it cannot. */
static float *exact_flow(const opts *o, clip *c)
{
    animate_def d = animate_default_def();
    if (!o->input || !exact_def(o->exact, &d)) {
        fail("--exact", "needs --input and poyo options it knows (-s -i --strength --at --angle --anchor --fps --hz --damping --volume --grid --rate --drag --outline --substeps --duration)");
        return NULL;
    }
    image im = { 0 };
    poyo_error err;
    motion m;
    memset(&m, 0, sizeof m);
    renderer r;
    memset(&r, 0, sizeof r);
    float *F = NULL;
    uint8_t *scratch = NULL;
    if (image_load(o->input, IMAGE_DEFAULT_MAX_PIXELS, &im, &err) != POYO_OK || animate_check_def(&d, &err) != POYO_OK ||
        animate_simulate(&im, &d, &m, &err) != POYO_OK ||
        renderer_init(&r, &im, &m.lat, m.canvas_w, m.canvas_h, m.place, &err) != POYO_OK) {
        fail(o->input, err.msg);
        goto done;
    }
    if (m.count != c->n || m.canvas_w != c->w || m.canvas_h != c->h) {
        char msg[200];
        snprintf(msg, sizeof msg, "these options make %d frames of %dx%d, the folder holds %d of %dx%d", m.count,
                 m.canvas_w, m.canvas_h, c->n, c->w, c->h);
        fail("--exact", msg);
        goto done;
    }
    F = calloc((size_t)c->n * c->npix * 2, sizeof *F);
    scratch = malloc((size_t)c->w * c->h * 4);
    double *ru = malloc((size_t)c->npix * sizeof *ru), *rv = malloc((size_t)c->npix * sizeof *rv);
    double *f0x = malloc((size_t)r.rx * r.ry * sizeof *f0x), *f0y = malloc((size_t)r.rx * r.ry * sizeof *f0y);
    long *at = malloc((size_t)c->w * c->h * sizeof *at);
    if (!ru || !rv || !f0x || !f0y || !at || !F || !scratch) {
        free(F);
        F = NULL;
        fail("--exact", "out of memory");
        goto flow_done;
    }
    /* the body at rest, where a periodic clip's frame 0 is not */
    if ((c->rest = malloc((size_t)c->w * c->h * 4)))
        renderer_draw(&r, m.qx, m.qy, c->rest);
    renderer_draw(&r, m.x, m.y, scratch);
    memcpy(f0x, r.gx, (size_t)r.rx * r.ry * sizeof *f0x);
    memcpy(f0y, r.gy, (size_t)r.rx * r.ry * sizeof *f0y);
    rest_points(c, &m, &r, f0x, f0y, at, ru, rv);
    carry_points(c, &m, &r, f0x, f0y, ru, rv, scratch, F);
flow_done:
    free(ru);
    free(rv);
    free(f0x);
    free(f0y);
    free(at);
done:
    free(scratch);
    renderer_free(&r);
    motion_free(&m);
    image_free(&im);
    return F;
}

/* The figures, in the order they are printed. */
typedef struct figset {
    figure fig[64];
    int n;
} figset;

static void fig_add(figset *fs, const char *key, double v, int is_int)
{
    fs->fig[fs->n].key = key;
    fs->fig[fs->n].v = v;
    fs->fig[fs->n++].is_int = is_int;
}

/* What the figures share: frame 0's facts and size, the kick point, and the
 * first frame back on the floor after a leap (-1 when none). */
typedef struct basis {
    const facts *s0;
    double h0, w0;
    int jumpy;
    double ax, ay;
    int have_kick;
    int touchdown;
} basis;

/* Each frame's facts, frame 0's opaque pixels, and F registered (with --exact,
 * taken from the render grid, *flow_error saying how far the frame-only F is
 * from it). Returns 0, or 1 after saying why not. */
static int measure_frames(const opts *o, clip *c, double *flow_error)
{
    int w = c->w, h = c->h, n = c->n;
    long wh = (long)w * h;
    uint8_t *mask = malloc((size_t)wh);
    int *lab = malloc((size_t)wh * sizeof *lab), *stack = malloc((size_t)wh * sizeof *stack);
    c->st = calloc((size_t)n, sizeof *c->st);
    for (int i = 0; i < n; i++) {
        frame_facts(c->fr[i].rgba, w, h, &c->st[i], mask, lab, stack);
        c->st[i].ident = memcmp(c->fr[i].rgba, c->fr[0].rgba, (size_t)wh * 4) == 0;
    }
    free(mask);
    free(lab);
    free(stack);
    if (!c->st[0].area)
        return fail(o->dir, "frame_0000.png has no opaque pixel (alpha >= 128)");
    c->npix = c->st[0].area;
    c->px = malloc((size_t)c->npix * sizeof *c->px);
    c->py = malloc((size_t)c->npix * sizeof *c->py);
    long m = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (c->fr[0].rgba[4 * ((long)y * w + x) + 3] >= OPAQUE) {
                c->px[m] = x + 0.5;
                c->py[m++] = y + 0.5;
            }
    if (!clipset_register(c))
        return fail(o->dir, "out of memory");
    *flow_error = NAN;
    if (o->exact) {
        /* the frame-only estimate against the render grid, then the exact F for the figures */
        float *E = exact_flow(o, c);
        if (!E)
            return 1;
        double se = 0, sf = 0;
        for (size_t k = 0; k < (size_t)c->n * c->npix * 2; k++) {
            se += (double)(c->F[k] - E[k]) * (c->F[k] - E[k]);
            sf += (double)E[k] * E[k];
        }
        *flow_error = sf > 0 ? sqrt(se / sf) : 0.0;
        free(c->F);
        c->F = E;
    }
    return 0;
}

/* The area of a mask on the UP-times finer grid, pixels. */
static double mask_area(const uint8_t *m, long n)
{
    long set = 0;
    for (long k = 0; k < n; k++)
        set += m[k];
    return (double)set / (UP * UP);
}

/* D(i): Hausdorff distance of the quarter-pixel silhouettes, 95th percentile of |F|;
 * each frame's opaque area at quarter-pixel precision */
static void distances(clip *c)
{
    int w = c->w, h = c->h, n = c->n;
    const facts *s0 = &c->st[0];
    int uw = UP * w, uh = UP * h, side = uw > uh ? uw : uh;
    long un = (long)uw * uh;
    uint8_t *m0 = malloc((size_t)un), *mi = malloc((size_t)un);
    float *dt0 = malloc((size_t)un * sizeof *dt0), *dti = malloc((size_t)un * sizeof *dti);
    float *buf = malloc((size_t)(5 * side + 8) * sizeof *buf);
    double *mag = malloc((size_t)c->npix * sizeof *mag);
    upsample_mask(c->fr[0].rgba, w, h, 0, 0, uw, uh, m0);
    edt2d(m0, uw, uh, dt0, buf);
    c->st[0].qarea = mask_area(m0, un);
    if (c->rest) {
        upsample_mask(c->rest, w, h, 0, 0, uw, uh, mi);
        c->rest_qarea = mask_area(mi, un);
    }
    for (int i = 0; i < n; i++) {
        facts *st = &c->st[i];
        if (i == 0)
            continue;
        if (!st->area) {
            st->haus = st->d = hypot(w, h);
            st->p95 = 0;
            continue;
        }
        /* the silhouettes lie within 1 px of their opaque boxes: work in their union */
        int bx0 = (st->x0 < s0->x0 ? st->x0 : s0->x0) - 1, by0 = (st->y0 < s0->y0 ? st->y0 : s0->y0) - 1;
        int bx1 = (st->x1 > s0->x1 ? st->x1 : s0->x1) + 1, by1 = (st->y1 > s0->y1 ? st->y1 : s0->y1) + 1;
        bx0 = bx0 < 0 ? 0 : bx0;
        by0 = by0 < 0 ? 0 : by0;
        bx1 = bx1 > w ? w : bx1;
        by1 = by1 > h ? h : by1;
        int cu = UP * bx0, cv = UP * by0, cw = UP * (bx1 - bx0), ch = UP * (by1 - by0);
        upsample_mask(c->fr[i].rgba, w, h, cu, cv, cw, ch, mi);
        st->qarea = mask_area(mi, (long)cw * ch);
        edt2d(mi, cw, ch, dti, buf);
        double a = directed_hausdorff(m0, 0, 0, uw, uh, dti, cu, cv, cw);
        double b = directed_hausdorff(mi, cu, cv, cw, ch, dt0, 0, 0, uw);
        st->haus = a > b ? a : b;
        const float *F = c->F + (size_t)i * c->npix * 2;
        for (long k = 0; k < c->npix; k++)
            mag[k] = hypot(F[2 * k], F[2 * k + 1]);
        st->p95 = quantile(mag, c->npix, 0.95);
        st->d = st->haus > st->p95 ? st->haus : st->p95;
    }
    free(m0);
    free(mi);
    free(dt0);
    free(dti);
    free(buf);
    free(mag);
}

/* The input at rest, for the kick point: its size, its lattice (as --exact
 * asks for it), whose opaque box and samples poyo places a finger by, and
 * whether the body hangs (w 0 when --input is not given). */
typedef struct input_picture {
    int w, h;
    lattice lat;
    int hangs;
} input_picture;

/* The input at rest (*in), for the kick point, and the size ratio: the stamp
 * at rest against the input as a still emoji shows it, the whole image (its
 * transparent margin included) fitted into the canvas. Returns 0, or 1 after
 * saying why not. */
static int fig_size(const opts *o, const clip *c, const basis *b, figset *fs, input_picture *in_pic)
{
    double size_ratio = NAN;
    if (o->input) {
        image in = { 0 };
        poyo_error err;
        if (image_load(o->input, IMAGE_DEFAULT_MAX_PIXELS, &in, &err) != POYO_OK)
            return fail(o->input, err.msg);
        int bx0 = in.w, by0 = in.h, bx1 = 0, by1 = 0;
        for (int y = 0; y < in.h; y++)
            for (int x = 0; x < in.w; x++)
                if (in.rgba[4 * ((long)y * in.w + x) + 3] >= OPAQUE) {
                    bx0 = x < bx0 ? x : bx0;
                    by0 = y < by0 ? y : by0;
                    bx1 = x + 1 > bx1 ? x + 1 : bx1;
                    by1 = y + 1 > by1 ? y + 1 : by1;
                }
        int in_w = in.w, in_h = in.h;
        if (bx1 <= bx0) {
            image_free(&in);
            return fail(o->input, "has no opaque pixel (alpha >= 128)");
        }
        animate_def d = animate_default_def();
        if (o->exact && !exact_def(o->exact, &d))
            d = animate_default_def();
        poyo_status st = lattice_build(&in, d.grid, &in_pic->lat, &err);
        image_free(&in);
        if (st != POYO_OK)
            return fail(o->input, err.msg);
        in_pic->w = in_w, in_pic->h = in_h;
        in_pic->hangs = d.body.anchor == ANCHOR_TOP;
        double bw = bx1 - bx0, bh = by1 - by0, sc = fmin((double)c->w / in_w, (double)c->h / in_h);
        size_ratio = 0.5 * (b->w0 / (sc * bw) + b->h0 / (sc * bh));
    }
    fig_add(fs, "size_ratio", size_ratio, 0);
    int edge = 0;
    for (int i = 0; i < c->n; i++)
        edge += c->st[i].edge;
    fig_add(fs, "edge_touch", edge, 1);
    return 0;
}

/* Moves (*x, *y) to the nearest opaque pixel of frame 0 when none lies
 * within r of it, so that a point off the picture, between a cat's ears or
 * beside a banana's curve, is measured where the picture is nearest instead
 * of not at all (NaN). */
static void onto_picture(const clip *c, double r, double *x, double *y)
{
    long best = -1;
    double bd = INFINITY;
    for (long k = 0; k < c->npix; k++) {
        double d = hypot(c->px[k] - *x, c->py[k] - *y);
        if (d < bd)
            bd = d, best = k;
    }
    if (best >= 0 && bd > r)
        *x = c->px[best], *y = c->py[best];
}

/* The kick point: --at, or poyo's default for poke (0.5,0.15) and pat
 * (0.5,0), mirrored up and down on a hanging body, in the input's image
 * fractions when it is known (a default point outside the input's opaque box
 * taken in that box's fractions, as poyo takes it), else in frame 0's box. A
 * poke's or pat's point off the picture lands on it (within the 0.1 of the
 * height its strength is measured over): on the input at rest as poyo lands
 * it, by the lattice's opaque box and samples (an SVG's drawn at its own
 * size, not the canvas's), and is carried into frame 0 by the boxes'
 * fractions; on frame 0
 * (onto_picture) when the input is not known, or nothing of frame 0 is near
 * the point carried there. Landed on frame 0, a periodic loop's first frame,
 * which is not at rest, the two boys 1f46c-1f3fb patted free at twice the
 * default strength were measured on the head poyo did not pat. */
static void kick_point(const opts *o, const clip *c, basis *b, const input_picture *in)
{
    const facts *s0 = b->s0;
    double h0 = b->h0, w0 = b->w0, atx = 0.5, aty = 0.5;
    int dent = impulse_is(o, "poke", "pat");
    b->have_kick = o->have_at || dent;
    if (o->have_at)
        atx = o->atx, aty = o->aty;
    else if (impulse_is(o, "poke", NULL))
        aty = 0.15;
    else if (impulse_is(o, "pat", NULL))
        aty = 0.0;
    if (!o->have_at && in->hangs) /* a hanging body is poked and patted at its free end */
        aty = 1.0 - aty;
    b->ax = s0->x0 + atx * w0, b->ay = s0->y0 + aty * h0;
    if (in->w > 0) {
        const lattice *l = &in->lat;
        int solid = l->sx1 > l->sx0 && l->sy1 > l->sy0;
        double box[4] = { solid ? l->sx0 : l->bx0, solid ? l->sy0 : l->by0, solid ? l->sx1 : l->bx1,
                          solid ? l->sy1 : l->by1 };
        double px = atx * in->w, py = aty * in->h;
        /* a default point off the box is taken in the box's fractions; any
         * other, the box's nearest point */
        if (!o->have_at && (px < box[0] || px > box[2] || py < box[1] || py > box[3]))
            px = box[0] + atx * (box[2] - box[0]), py = box[1] + aty * (box[3] - box[1]);
        px = fmin(fmax(px, box[0]), box[2]);
        py = fmin(fmax(py, box[1]), box[3]);
        if (dent) {
            /* within 0.1 of the height strengths are fractions of: the opaque
             * box's, or where that is under a cell, the nodes' span */
            double size = box[3] - box[1];
            if (size < l->h) {
                int j0 = l->ny, j1 = 0;
                for (int k = 0; k < l->count; k++)
                    j0 = l->nj[k] < j0 ? l->nj[k] : j0, j1 = l->nj[k] > j1 ? l->nj[k] : j1;
                size = fmax((j1 - j0) * l->h, l->h);
            }
            long best = -1;
            double bd = INFINITY, r = 0.1 * size;
            for (long k = 0; k < l->op_n; k++) {
                double d = hypot(l->op_x[k] - px, l->op_y[k] - py);
                if (d < bd)
                    bd = d, best = k;
            }
            if (best >= 0 && bd > r)
                px = l->op_x[best], py = l->op_y[best];
        }
        b->ax = s0->x0 + (px - box[0]) / (box[2] - box[0]) * w0;
        b->ay = s0->y0 + (py - box[1]) / (box[3] - box[1]) * h0;
    }
    if (dent)
        onto_picture(c, 0.1 * h0, &b->ax, &b->ay);
}

/* 4. strength in poyo's units */
static double strength_of(const opts *o, const clip *c, const basis *b)
{
    const facts *s0 = b->s0;
    double h0 = b->h0;
    int n = c->n;
    if (impulse_is(o, "squash", "stretch")) {
        double lo = h0, hi = h0;
        for (int i = 0; i < n; i++)
            if (c->st[i].area) {
                double hh = c->st[i].ey1 - c->st[i].ey0;
                lo = hh < lo ? hh : lo;
                hi = hh > hi ? hh : hi;
            }
        return impulse_is(o, "squash", NULL) ? 1 - lo / h0 : hi / h0 - 1;
    }
    if (b->jumpy) {
        double t = 0;
        for (int i = 0; i < n; i++)
            if (c->st[i].area)
                t = fmax(t, fabs(c->st[i].ey1 - s0->ey1));
        return t / h0;
    }
    if (impulse_is(o, "shake", "wave")) {
        double best = 0;
        for (int i = 1; i < n; i++) {
            const float *F = c->F + (size_t)i * c->npix * 2;
            double s = 0;
            long cnt = 0;
            for (long k = 0; k < c->npix; k++)
                if (c->py[k] < s0->y0 + h0 / 4) {
                    s += F[2 * k];
                    cnt++;
                }
            if (cnt)
                best = fmax(best, fabs(s / cnt));
        }
        return best / h0;
    }
    if (impulse_is(o, "twist", NULL)) {
        double best = 0, rr, rt;
        for (int i = 1; i < n; i++)
            best = fmax(best, fabs(affine_fit(c->px, c->py, c->F + (size_t)i * c->npix * 2, c->npix, &rr, &rt)));
        return best;
    }
    if (impulse_is(o, "poke", "pat")) {
        double best = NAN;
        for (int i = 1; i < n; i++) {
            double v = mean_disp_near(c, i, b->ax, b->ay, 0, 0.1 * h0);
            if (!isnan(v))
                best = isnan(best) ? v : fmax(best, v);
        }
        return best / h0;
    }
    return NAN;
}

/* 5. local jelly: the three frames with the largest D */
static double jelly_of(const clip *c)
{
    int top[3] = { -1, -1, -1 };
    for (int i = 1; i < c->n; i++)
        for (int t = 0; t < 3; t++)
            if (top[t] < 0 || c->st[i].d > c->st[top[t]].d) {
                for (int u = 2; u > t; u--)
                    top[u] = top[u - 1];
                top[t] = i;
                break;
            }
    double js = 0;
    int jn = 0;
    for (int t = 0; t < 3; t++) {
        if (top[t] < 0)
            continue;
        double rr, rt;
        affine_fit(c->px, c->py, c->F + (size_t)top[t] * c->npix * 2, c->npix, &rr, &rt);
        if (rt > 1e-6) {
            js += rr / rt;
            jn++;
        }
    }
    return jn ? js / jn : NAN;
}

/* A dent: how much deeper it is than the mirrored point moves (*ratio) and
 * whether it spreads outward after (*spread); NaN without a kick point. */
static void dent_of(const clip *c, const basis *b, double *ratio, double *spread)
{
    const facts *s0 = b->s0;
    double h0 = b->h0, w0 = b->w0, ax = b->ax, ay = b->ay;
    int n = c->n;
    *ratio = *spread = NAN;
    if (!b->have_kick)
        return;
    /* the dent is deepest where the pixels around the kick point have
     * moved furthest inward, toward the stamp's centre (a rim springing
     * back outward is not a deeper dent); a dent held a few frames is
     * deepest from the first of them within 5 % of that depth on */
    double nx = s0->x0 + 0.5 * w0 - ax, ny = s0->y0 + 0.5 * h0 - ay, nl = hypot(nx, ny);
    nx = nl > 1e-9 ? nx / nl : 0.0;
    ny = nl > 1e-9 ? ny / nl : 1.0;
    int deep = -1;
    double dv = 0, most = 0, *in = malloc((size_t)n * sizeof *in);
    for (int i = 1; in && i < n; i++) {
        in[i] = mean_disp_along(c, i, ax, ay, 0.15 * h0, nx, ny);
        most = isnan(in[i]) ? most : fmax(most, in[i]);
    }
    for (int i = 1; in && i < n && deep < 0 && most > 0; i++)
        if (!isnan(in[i]) && in[i] >= 0.95 * most)
            dv = in[i], deep = i;
    free(in);
    if (deep <= 0)
        return;
    double mx = s0->x0 + w0 - (ax - s0->x0), my = s0->y0 + h0 - (ay - s0->y0);
    onto_picture(c, 0.15 * h0, &mx, &my);
    double mv = mean_disp_near(c, deep, mx, my, 0, 0.15 * h0);
    *ratio = isnan(mv) ? NAN : mv > 1e-9 ? dv / mv : INFINITY;
    /* spreading: the mean |F| on the ring 0.25..0.35 h0 around the kick point grows
     * within the three frames after the deepest one */
    double ring0 = mean_disp_near(c, deep, ax, ay, 0.25 * h0, 0.35 * h0), later = -1;
    for (int i = deep + 1; i < n && i <= deep + 3; i++) {
        double v = mean_disp_near(c, i, ax, ay, 0.25 * h0, 0.35 * h0);
        later = isnan(v) ? later : fmax(later, v);
    }
    *spread = isnan(ring0) ? NAN : later > ring0;
}

/* The least alpha of frame 0 within a pixel of (x, y) (the pixels whose
 * centres lie within 1.5 px), 0 off the canvas: a slit one pixel wide is
 * found where F takes a pixel back to within a pixel of it. */
static double rest_alpha_near(const clip *c, double x, double y)
{
    int x0 = (int)floor(x - 0.5), y0 = (int)floor(y - 0.5);
    double a = 255;
    for (int yy = y0 - 1; yy <= y0 + 2; yy++)
        for (int xx = x0 - 1; xx <= x0 + 2; xx++) {
            double dx = xx + 0.5 - x, dy = yy + 0.5 - y;
            if (dx * dx + dy * dy > 1.5 * 1.5)
                continue;
            a = xx < 0 || yy < 0 || xx >= c->w || yy >= c->h ? 0
                                                             : fmin(a, c->fr[0].rgba[4 * ((long)yy * c->w + xx) + 3]);
        }
    return a;
}

/* The holes of frame i (as count_holes finds them) that opened: most of what
 * a viewer sees through was opaque at rest, to within a pixel. Where a
 * see-through pixel was at rest is found through F: the pixel less the
 * displacement of the nearest pixel of frame 0 that F moved there. A slit
 * pinched shut at its mouth (a party popper's streamer pressed onto its
 * cone, a ponytail onto a shoulder) holds what was seen through before; a
 * body stretched until it is seen through, or torn, does not. A pixel with
 * no pixel of frame 0 moved within r of it does not vote. Taken back to
 * within a pixel, a hole that opens within 1.5 px of the outline, or of a
 * line drawn at alpha under OPAQUE, is not counted. */
static int holes_opened(const clip *c, int i)
{
    int w = c->w, h = c->h, opened = 0;
    int r = 4; /* how far a pixel looks for a pixel of frame 0 that F moved near it */
    long wh = (long)w * h;
    const uint8_t *rgba = c->fr[i].rgba;
    const float *F = c->F + (size_t)i * c->npix * 2;
    uint8_t *mask = malloc((size_t)wh);
    int *lab = malloc((size_t)wh * sizeof *lab), *stack = malloc((size_t)wh * sizeof *stack);
    long *near = malloc((size_t)wh * sizeof *near), *was = NULL, *seen = NULL;
    int *size = NULL, n = 0;
    uint8_t *border = NULL;
    if (!mask || !lab || !stack || !near)
        goto done;
    for (long k = 0; k < wh; k++) {
        mask[k] = rgba[4 * k + 3] >= OPAQUE;
        near[k] = -1;
    }
    for (long k = 0; k < c->npix; k++) {
        int x = (int)floor(c->px[k] + F[2 * k]), y = (int)floor(c->py[k] + F[2 * k + 1]);
        if (x >= 0 && y >= 0 && x < w && y < h)
            near[(long)y * w + x] = k;
    }
    n = label(mask, 0, w, h, 0, lab, &size, &border, stack);
    was = calloc((size_t)n + 1, sizeof *was);
    seen = calloc((size_t)n + 1, sizeof *seen);
    if (!was || !seen)
        goto done;
    for (long q = 0; q < wh; q++) {
        int l = lab[q];
        if (!l || border[l - 1] || size[l - 1] < 2 || rgba[4 * q + 3] >= SEE_THROUGH)
            continue;
        int qx = (int)(q % w), qy = (int)(q / w);
        long best = -1;
        double bd = INFINITY;
        for (int y = qy - r; y <= qy + r; y++)
            for (int x = qx - r; x <= qx + r; x++) {
                if (x < 0 || y < 0 || x >= w || y >= h || near[(long)y * w + x] < 0)
                    continue;
                double d = (double)(x - qx) * (x - qx) + (double)(y - qy) * (y - qy);
                if (d < bd) {
                    bd = d;
                    best = near[(long)y * w + x];
                }
            }
        if (best < 0)
            continue;
        seen[l]++;
        if (rest_alpha_near(c, qx + 0.5 - F[2 * best], qy + 0.5 - F[2 * best + 1]) < OPAQUE)
            was[l]++;
    }
    for (int l = 1; l <= n; l++)
        opened += seen[l] && 2 * was[l] < seen[l];
done:
    free(mask);
    free(lab);
    free(stack);
    free(near);
    free(size);
    free(border);
    free(was);
    free(seen);
    return opened;
}

/* Where rest point m lies along the rest outline of n0 points from rest point
 * from: the points ahead when it is at most MATCH_NEAR ahead, else minus the
 * points back. Two matches are on one stretch of the outline when it is
 * within MATCH_NEAR either way. */
#define MATCH_NEAR 9
static int along_rest(int m, int from, int n0)
{
    int ahead = around(m - from, n0);
    return ahead <= MATCH_NEAR ? ahead : -around(from - m, n0);
}

/* 1 when two stretches of the rest outline meet within the outline that
 * makes q's turn: 3 px of arc either side of q (outline_turns), widened by
 * the 5 points either side that smooth it (smooth_outline). Two points there
 * whose matches (match[], -1: none) are more than MATCH_NEAR points apart along the
 * rest outline of n0 points, with no matched point between them, are where
 * one part's outline meets another's, as where a swinging ponytail crosses
 * the shoulder under it. Points crowd into such a notch, so the 3 points
 * either side of q can fall short of it while q's turn does not. */
static int parts_meet(const outline *o, const int *match, int q, int n0)
{
    int n = o->n, back = o->back[q], ahead = o->ahead[q];
    int last = -1;
    for (int s = q - back - 5; s <= q + ahead + 5 && s - (q - back) < n; s++) {
        int m = match[around(s, n)];
        if (m < 0)
            continue;
        if (last >= 0 && abs(along_rest(m, last, n0)) > MATCH_NEAR)
            return 1;
        last = m;
    }
    return 0;
}

/* The kink of frame i, degrees: the most its outline turns past what frame 0's turned at
 * the same place, where frame 0's was smooth. Each point of frame 0's outline is carried
 * by F; each point of frame i's outline is matched to the nearest carried one within
 * reach, and its turn is taken against the range of turns at rest within 2 points of that
 * one and over the stretch of rest outline its turn is measured across (the matches of the
 * points 3 px of arc either side, and the rest points between them: the same place where
 * the outline is squeezed along its length, as in a notch pressed shut), when all of them are
 * under KINK_SMOOTH and the points 3 either side are matched within MATCH_NEAR points either side
 * of it, or not at all, and no two parts meet where its turn is measured (parts_meet).
 * A corner the picture has at rest (a tip, a notch between two parts) may sharpen as its
 * sides bend and is not judged; a corner where the outline was smooth (a lattice bent at a
 * node, a notch pinched under a finger, a spike) is. Outline no point of the rest outline is carried to within reach
 * (a gap opened between two parts, where F is exact) is not judged. *at_x, *at_y: where.
 * idx: the index into F of each pixel of frame 0 (-1: not opaque). */
static double kink_new_of(const clip *c, int i, const long *idx, double reach, double *at_x, double *at_y)
{
    const outline *o0 = &c->st[0].ol, *oi = &c->st[i].ol;
    if (!o0->n || !oi->n)
        return 0;
    const float *F = c->F + (size_t)i * c->npix * 2;
    int n0 = o0->n;
    double *mx = malloc((size_t)n0 * sizeof *mx), *my = malloc((size_t)n0 * sizeof *my);
    for (int j = 0; j < n0; j++) {
        long k = idx[(long)o0->iy[j] * c->w + o0->ix[j]];
        mx[j] = o0->x[j] + (k >= 0 ? F[2 * k] : 0);
        my[j] = o0->y[j] + (k >= 0 ? F[2 * k + 1] : 0);
    }
    int ni = oi->n, *match = malloc((size_t)ni * sizeof *match);
    for (int q = 0; q < ni; q++) {
        match[q] = -1;
        double bd = reach * reach;
        for (int j = 0; j < n0; j++) {
            double dx = oi->x[q] - mx[j], dy = oi->y[q] - my[j], d = dx * dx + dy * dy;
            if (d < bd) {
                bd = d;
                match[q] = j;
            }
        }
    }
    double worst = 0;
    for (int q = 0; q < ni; q++) {
        int best = match[q], a = match[around(q - 3, ni)], b = match[around(q + 3, ni)];
        /* the outline 3 points either side must be the rest outline either side of the
         * match (or new outline), not another stretch of it: where two parts meet, the
         * outline turns from one to the other, and that is no kink */
        if (best < 0)
            continue;
        int da = around(best - a, n0), db = around(b - best, n0);
        if ((a >= 0 && da > MATCH_NEAR) || (b >= 0 && db > MATCH_NEAR) || parts_meet(oi, match, q, n0))
            continue;
        /* the rest turns within 2 points of the match, and over the stretch of
         * the rest outline the points making q's turn (3 px of arc either side)
         * came from, those squeezed out between them included: an outline
         * squeezed along its length near a corner (a notch pressed shut) brings
         * the corner's turn to points matched farther from it, and may leave
         * the corner itself between two matches */
        int from = -2, to = 2;
        for (int k = -oi->back[q]; k <= oi->ahead[q]; k++) {
            int m = match[around(q + k, ni)];
            if (m < 0)
                continue;
            int d = along_rest(m, best, n0);
            if (d < -MATCH_NEAR)
                continue;
            from = d < from ? d : from;
            to = d > to ? d : to;
        }
        double lo = 1e9, hi = -1e9;
        for (int d = from; d <= to; d++) {
            double t = o0->turn[around(best + d, n0)];
            lo = fmin(lo, t);
            hi = fmax(hi, t);
        }
        if (hi > KINK_SMOOTH || lo < -KINK_SMOOTH)
            continue;   /* a corner at rest: it may sharpen as its sides bend */
        double t = oi->turn[q], ex = t > hi ? t - hi : t < lo ? lo - t : 0;
        if (ex > worst) {
            worst = ex;
            *at_x = oi->x[q];
            *at_y = oi->y[q];
        }
    }
    free(match);
    free(mx);
    free(my);
    return worst;
}

/* 6. volume; landing frames: the bottom edge back within 1 px of rest after
 * leaving it (b->touchdown, the first of them); 7. clean */
static void fig_volume_clean(const opts *o, const clip *c, basis *b, figset *fs)
{
    const facts *s0 = b->s0;
    int n = c->n;
    double dev = 0, devl = NAN;
    int left = 0;
    b->touchdown = -1;
    for (int i = 0; i < n; i++) {
        /* at quarter-pixel precision: a bar 20 px wide gains or loses 5 % of
         * its whole-pixel area as its edges cross pixel centres (whole
         * pixels for a stamp whose few opaque pixels none of the finer
         * samples reaches) */
        double a = c->rest_qarea > 0.0 ? fabs(c->st[i].qarea / c->rest_qarea - 1)
                   : s0->qarea > 0.0   ? fabs(c->st[i].qarea / s0->qarea - 1)
                                       : fabs((double)c->st[i].area / s0->area - 1);
        dev = fmax(dev, a);
        int off = abs(c->st[i].y1 - s0->y1) > 1 || !c->st[i].area;
        if (off)
            left = 1;
        else if (left) {
            if (b->touchdown < 0)
                b->touchdown = i;
            devl = isnan(devl) ? a : fmax(devl, a);
        }
    }
    fig_add(fs, "area_dev", dev, 0);
    fig_add(fs, "area_dev_landing", b->jumpy || o->landing ? devl : NAN, 0);
    int pc = 0, hn = 0;
    double kmax = 0;
    for (int i = 0; i < n; i++) {
        /* torn: more parts across a gap seen through than at rest even at
         * full opacity; merged: fewer at full opacity than at rest even
         * across a gap. Each must pass what the two counts leave open: the
         * popper's confetti a pixel apart, one part across the gap at rest,
         * two when they move apart (torn, counted against the parts apart,
         * in 4 of 14 rows); pixel art split at full opacity at rest hides a
         * tear as far as the split. */
        pc += c->st[i].parts_apart > s0->parts || c->st[i].parts < s0->parts_apart;
        hn += c->st[i].holes && holes_opened(c, i) > 0;
        kmax = fmax(kmax, c->st[i].kink);
    }
    fig_add(fs, "parts_changed", pc, 1);
    fig_add(fs, "holes_new", hn, 1);
    fig_add(fs, "kink_rest", s0->kink, 0);
    fig_add(fs, "kink_max", kmax, 0);
    long *idx = malloc((size_t)c->w * c->h * sizeof *idx);
    opaque_index(c, idx);
    /* F from the render grid carries the rest outline to within the antialiasing of the
     * frames; registered from the frames alone it may miss a corner by a few pixels */
    double knew = 0, reach = o->exact ? 2.5 : fmax(2.5, 0.1 * (s0->y1 - s0->y0));
    for (int i = 1; i < n; i++) {
        c->st[i].kink_new = kink_new_of(c, i, idx, reach, &c->st[i].kink_x, &c->st[i].kink_y);
        knew = fmax(knew, c->st[i].kink_new);
    }
    free(idx);
    fig_add(fs, "kink_new", knew, 0);
}

/* 8. physical loops: each step (the seam from the last frame to the first
 * included) against the median one */
static void fig_steps(const opts *o, clip *c, figset *fs)
{
    int n = c->n;
    double *step = malloc((size_t)n * sizeof *step), *tmp = malloc((size_t)(n + c->npix) * sizeof *tmp);
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        const facts *a = &c->st[i], *b = &c->st[j];
        double cs = a->area && b->area ? hypot(b->cx - a->cx, b->cy - a->cy) : 0;
        const float *Fa = c->F + (size_t)i * c->npix * 2, *Fb = c->F + (size_t)j * c->npix * 2;
        for (long k = 0; k < c->npix; k++)
            tmp[k] = hypot(Fb[2 * k] - Fa[2 * k], Fb[2 * k + 1] - Fa[2 * k + 1]);
        double p = quantile(tmp, c->npix, 0.95);
        step[i] = cs > p ? cs : p;
        c->st[i].step = step[i];
    }
    double med = NAN, smax = NAN, seam = n > 1 ? step[n - 1] : 0;
    if (n > 1) {
        memcpy(tmp, step, (size_t)(n - 1) * sizeof *tmp);
        med = quantile(tmp, n - 1, 0.5);
        smax = tmp[n - 2];
    }
    fig_add(fs, "step_median", med, 0);
    fig_add(fs, "step_max", smax, 0);
    fig_add(fs, "step_ratio", med > 0 ? smax / med : NAN, 0);
    fig_add(fs, "seam", seam, 0);
    double side = o->periodic && n > 2 ? 0.5 * (step[n - 2] + step[0]) : med;
    fig_add(fs, "seam_ratio", side > 0 ? seam / side : NAN, 0);
    free(step);
    free(tmp);
}

/* 9. shape-aware: how far a long shape turns from touchdown on, and the
 * stamp in the canvas and back at rest by the last frame. A long shape turns
 * as its body does (the rotation of the affine map that fits F best) and, when
 * it stands or lies (its principal axis within 30 degrees of upright or level),
 * as its principal axis does. A squash that does not turn the body turns a
 * slanting principal axis: pressed 15 % down, a 2:1 shape at 45 degrees has
 * its axis turned 13 degrees (the banana's turned 21 while the body turned 2). */
static void fig_shape(const clip *c, const basis *b, figset *fs)
{
    int n = c->n;
    double ratio, a0 = principal_axis(b->s0, &ratio), axis = NAN;
    double tilt = fmod(fabs(a0) * 180 / PI, 90), off = fmin(tilt, 90 - tilt); /* degrees from upright or level */
    if (ratio >= 2) {
        axis = 0;
        for (int i = b->jumpy && b->touchdown > 0 ? b->touchdown : 0; i < n; i++) {
            if (!c->st[i].area)
                continue;
            double rr, rt, d = fabs(affine_fit(c->px, c->py, c->F + (size_t)i * c->npix * 2, c->npix, &rr, &rt));
            d *= 180 / PI;
            if (off <= 30) {
                double t = fabs(principal_axis(&c->st[i], NULL) - a0) * 180 / PI;
                t = fmod(t, 180);
                d = fmax(d, t > 90 ? 180 - t : t);
            }
            axis = fmax(axis, d);
        }
    }
    fig_add(fs, "axis_dev_max", axis, 0);
    int inside = c->st[n - 1].d < 1;
    for (int i = 0; i < n; i++)
        inside &= c->st[i].area > 0;
    fig_add(fs, "in_canvas", inside, 1);
}

/* 10. crisp: the sharpness of moving frames against rest, and frames near rest
 * that differ from frame 0 */
static void fig_crisp(const clip *c, const basis *b, figset *fs)
{
    const facts *s0 = b->s0;
    double smin = NAN;
    int tw = 0;
    for (int i = 1; i < c->n; i++) {
        if (c->st[i].d >= 1 && s0->sharp > 0)
            smin = isnan(smin) ? c->st[i].sharp / s0->sharp : fmin(smin, c->st[i].sharp / s0->sharp);
        tw += c->st[i].d < 0.5 && !c->st[i].ident;
    }
    fig_add(fs, "sharp_min", smin, 0);
    fig_add(fs, "twinkle", tw, 1);
}

/* The figures, as "key value" lines or one JSON object, then with
 * --per-frame each frame's facts. */
static void print_figures(const opts *o, const clip *c, const figset *fs)
{
    if (o->json) {
        printf("{\"canvas\": \"%dx%d\"", c->w, c->h);
        for (int i = 0; i < fs->n; i++) {
            if (!isfinite(fs->fig[i].v))
                printf(", \"%s\": null", fs->fig[i].key);
            else if (fs->fig[i].is_int)
                printf(", \"%s\": %.0f", fs->fig[i].key, fs->fig[i].v);
            else
                printf(", \"%s\": %.4f", fs->fig[i].key, fs->fig[i].v);
        }
        printf("}\n");
    } else {
        printf("canvas %dx%d\n", c->w, c->h);
        for (int i = 0; i < fs->n; i++) {
            if (fs->fig[i].is_int)
                printf("%s %.0f\n", fs->fig[i].key, fs->fig[i].v);
            else
                printf("%s %.4f\n", fs->fig[i].key, fs->fig[i].v);
        }
    }
    if (o->per_frame)
        for (int i = 0; i < c->n; i++) {
            const facts *s = &c->st[i];
            fprintf(o->json ? stderr : stdout,
                    "frame %d d %.3f haus %.3f p95 %.3f area %.2f height %.2f bottom %.2f parts %d apart %d holes %d "
                    "kink %.1f new %.1f at %.1f,%.1f sharp %.2f step %.3f\n",
                    i, s->d, s->haus, s->p95, s->qarea, s->ey1 - s->ey0, s->ey1, s->parts, s->parts_apart, s->holes,
                    s->kink, s->kink_new, s->kink_x, s->kink_y, s->sharp, s->step);
        }
}

static int analyse(const opts *o, clip *c)
{
    double flow_error;
    if (measure_frames(o, c, &flow_error) != 0)
        return 1;
    distances(c);
    int n = c->n;
    basis b = { &c->st[0], 0, 0, impulse_is(o, "jump", "drop"), 0, 0, 0, -1 };
    b.h0 = b.s0->ey1 - b.s0->ey0, b.w0 = b.s0->x1 - b.s0->x0;
    double fps = fps_from_sidecar(o->dir, n, o->fps);
    figset fs;
    fs.n = 0;
    fig_add(&fs, "frames", n, 1);
    fig_add(&fs, "fps", fps, 0);
    if (o->exact)
        fig_add(&fs, "flow_error", flow_error, 0); /* RMS of (frame-only F - render-grid F) over RMS of the latter */
    fig_add(&fs, "duration", n / fps, 0);
    fig_add(&fs, "w0", b.w0, 1);
    fig_add(&fs, "h0", b.h0, 1);
    /* 1. full size */
    input_picture in_pic = { 0 }; /* the input at rest, for the kick point */
    if (fig_size(o, c, &b, &fs, &in_pic) != 0)
        return 1;
    /* 2. lively, 3. visible */
    int moving = 0, peak = 0;
    for (int i = 0; i < n; i++) {
        moving += c->st[i].d >= 1;
        if (c->st[i].d > c->st[peak].d)
            peak = i;
    }
    fig_add(&fs, "moving_fraction", (double)moving / n, 0);
    fig_add(&fs, "peak_d", c->st[peak].d, 0);
    fig_add(&fs, "peak_d_rel", c->st[peak].d / b.h0, 0);
    kick_point(o, c, &b, &in_pic);
    if (in_pic.w > 0)
        lattice_free(&in_pic.lat);
    fig_add(&fs, "strength", strength_of(o, c, &b), 0);
    fig_add(&fs, "jelly", jelly_of(c), 0);
    double ratio, spread;
    dent_of(c, &b, &ratio, &spread);
    fig_add(&fs, "dent_ratio", ratio, 0);
    fig_add(&fs, "dent_spread", spread, 0);
    fig_volume_clean(o, c, &b, &fs);
    fig_steps(o, c, &fs);
    fig_shape(c, &b, &fs);
    fig_crisp(c, &b, &fs);
    fig_add(&fs, "reg_ms", c->reg_ms, 0);
    print_figures(o, c, &fs);
    return 0;
}

/* ---- self-test: recover known warps ------------------------------------------------ */

typedef struct warp {
    const char *name;
    int kind;              /* 0 translate, 1 rotate, 2 squash, 3 dent */
    double a, b, cx, cy, s;
} warp;

/* The true displacement of rest point (x, y). */
static void warp_fwd(const warp *wp, double x, double y, double *dx, double *dy)
{
    switch (wp->kind) {
    case 0:
        *dx = wp->a;
        *dy = wp->b;
        break;
    case 1: {
        double c = cos(wp->a), s = sin(wp->a), rx = x - wp->cx, ry = y - wp->cy;
        *dx = c * rx - s * ry - rx;
        *dy = s * rx + c * ry - ry;
        break;
    }
    case 2:
        *dx = (x - wp->cx) * (wp->b - 1);
        *dy = (y - wp->cy) * (wp->a - 1);
        break;
    default: {
        double r2 = (x - wp->cx) * (x - wp->cx) + (y - wp->cy) * (y - wp->cy);
        *dx = 0;
        *dy = wp->a * exp(-r2 / (2 * wp->s * wp->s));
        break;
    }
    }
}

/* The opaque pixels' centres of a w x h frame into px, py, and their bounding box
 * (x0, y0 inclusive, x1, y1 exclusive in box[0..3]); their number. */
static long opaque_points(const uint8_t *rgba, int W, int H, double *px, double *py, int box[4])
{
    long cnt = 0;
    int x0 = W, y0 = H, x1 = 0, y1 = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (rgba[4 * ((long)y * W + x) + 3] >= OPAQUE) {
                px[cnt] = x + 0.5;
                py[cnt++] = y + 0.5;
                x0 = x < x0 ? x : x0;
                y0 = y < y0 ? y : y0;
                x1 = x + 1 > x1 ? x + 1 : x1;
                y1 = y + 1 > y1 ? y + 1 : y1;
            }
    box[0] = x0;
    box[1] = y0;
    box[2] = x1;
    box[3] = y1;
    return cnt;
}

/* rgba as the premultiplied frame pm0 warped by wp: each output pixel pulls from the
 * rest point that lands on it, found by fixed-point iteration on q = p + F(p). */
static void warp_frame(const warp *wp, const float *pm0, int W, int H, uint8_t *rgba)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double qx = x + 0.5, qy = y + 0.5, ppx = qx, ppy = qy, dx, dy, v[4];
            for (int it = 0; it < 50; it++) {
                warp_fwd(wp, ppx, ppy, &dx, &dy);
                ppx = qx - dx;
                ppy = qy - dy;
            }
            sample4(pm0, W, H, ppx - 0.5, ppy - 0.5, v);
            long k = (long)y * W + x;
            for (int c = 0; c < 4; c++)
                rgba[4 * k + c] = 0;
            if (v[3] > 0) {
                for (int c = 0; c < 3; c++)
                    rgba[4 * k + c] = (uint8_t)lround(fmin(v[c] / v[3], 1) * 255);
                rgba[4 * k + 3] = (uint8_t)lround(v[3] * 255);
            }
        }
}

/* How far the alpha-weighted centre of pm1 lies from that of pm0 (px, in sx, sy). */
static void centroid_shift(const float *pm0, const float *pm1, int W, int H, double *shx, double *shy)
{
    double sa = 0, sx = 0, sy = 0, ta = 0, tx = 0, ty = 0;
    for (long k = 0; k < (long)W * H; k++) {
        double xx = k % W + 0.5, yy = (double)(k / W) + 0.5;
        sa += pm1[4 * k + 3];
        sx += pm1[4 * k + 3] * xx;
        sy += pm1[4 * k + 3] * yy;
        ta += pm0[4 * k + 3];
        tx += pm0[4 * k + 3] * xx;
        ty += pm0[4 * k + 3] * yy;
    }
    *shx = sx / sa - tx / ta;
    *shy = sy / sa - ty / ta;
}

/* The registered grid g of r against the true warp wp over the cnt points (px, py): the
 * largest true displacement, and the RMS and largest error (px). */
static void warp_error(const warp *wp, const reg *r, const double *g, const double *px, const double *py, long cnt,
                       double *truth, double *rms, double *emax)
{
    double se = 0, em = 0, tr = 0;
    for (long k = 0; k < cnt; k++) {
        double dx, dy, ex, ey;
        grid_eval(g, r->nx[0], r->ny[0], r->cell, px[k], py[k], &dx, &dy);
        warp_fwd(wp, px[k], py[k], &ex, &ey);
        double e2 = (dx - ex) * (dx - ex) + (dy - ey) * (dy - ey);
        se += e2;
        em = fmax(em, sqrt(e2));
        tr = fmax(tr, hypot(ex, ey));
    }
    *truth = tr;
    *rms = sqrt(se / cnt);
    *emax = em;
}

/* Four known warps of a stamp (a translation, a rotation, a squash and a dent) registered
 * from the rest frame; each passes when the RMS error over its opaque pixels is under
 * 0.35 px. 0 when all pass. */
static int selftest(const opts *o)
{
    const char *src = o->input ? o->input : "tests/data/1f600.png";
    image in = { 0 }, canvas = { 0 };
    poyo_error err;
    int W = 128, H = 128, side = 96, ox = 16, oy = 24;
    if (image_load(src, IMAGE_DEFAULT_MAX_PIXELS, &in, &err) != POYO_OK ||
        image_place(&in, W, H, side, side, ox, oy, &canvas, &err) != POYO_OK) {
        image_free(&in);
        return fail(src, err.msg);
    }
    image_free(&in);
    frame f0 = { canvas.rgba, malloc((size_t)W * H * 4 * sizeof(float)) }, f1;
    frame_premultiply(&f0, W, H);
    f1.rgba = malloc((size_t)W * H * 4);
    f1.pm = malloc((size_t)W * H * 4 * sizeof(float));
    double *px = malloc((size_t)W * H * sizeof *px), *py = malloc((size_t)W * H * sizeof *py);
    int box[4];
    long cnt = opaque_points(f0.rgba, W, H, px, py, box);
    int x0 = box[0], y0 = box[1], x1 = box[2], y1 = box[3];
    double h0 = y1 - y0, mx = 0.5 * (x0 + x1), my = 0.5 * (y0 + y1);
    warp cases[4] = {
        { "translate", 0, 3.3, 0, 0, 0, 0 },
        { "rotate", 1, 0.15, 0, mx, my, 0 },
        { "squash", 2, 0.8, 1.0, mx, y1, 0 },
        { "dent", 3, 6.0, 0, mx, y0, 0.15 * h0 },
    };
    reg r;
    if (!reg_init(&r, f0.pm, W, H))
        return fail(src, "out of memory");
    int np = 2 * r.nx[0] * r.ny[0], bad = 0;
    double *g = malloc((size_t)np * sizeof *g);
    pyramid P = { 0, { { 0 } } };
    for (int t = 0; t < 4; t++) {
        const warp *wp = &cases[t];
        warp_frame(wp, f0.pm, W, H, f1.rgba);
        frame_premultiply(&f1, W, H);
        double t0 = now_ms();
        pyramid_build(&P, f1.pm, W, H, r.nlev, r.blur);
        double shx, shy;
        centroid_shift(f0.pm, f1.pm, W, H, &shx, &shy);
        reg_run(&r, &P, NULL, shx, shy, g);
        double ms = now_ms() - t0, tr, rms, emax;
        warp_error(wp, &r, g, px, py, cnt, &tr, &rms, &emax);
        int ok = rms < 0.35;
        bad += !ok;
        printf("selftest %-9s truth_max %.2f px  rms_error %.3f px  max_error %.3f px  %.1f ms  %s\n", wp->name, tr,
               rms, emax, ms, ok ? "ok" : "FAILED");
    }
    printf("selftest %s\n", bad ? "FAILED" : "passed");
    pyramid_free(&P);
    reg_free(&r);
    free(g);
    free(px);
    free(py);
    free(f0.rgba);
    free(f0.pm);
    free(f1.rgba);
    free(f1.pm);
    return bad ? 1 : 0;
}

/* ---- main -------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr,
            "usage: motionstats [--impulse NAME] [--at X,Y] [--input FILE.png] [--fps F] [--periodic]\n"
            "                   [--landing] [--exact \"POYO OPTIONS\"] [--json] [--per-frame] DIR\n"
            "       motionstats --selftest [--input FILE.png]\n");
    return 2;
}

int main(int argc, char **argv)
{
    opts o = { NULL, NULL, NULL, 0.5, 0.5, 25, 0, 0, 0, 0, 0, 0, NULL };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--impulse") && i + 1 < argc) {
            static const char *const names[] = { "squash", "stretch", "poke", "shake", "twist",
                                                 "jump", "drop", "wave", "pat" };
            int known = 0;
            o.impulse = argv[++i];
            for (size_t k = 0; k < sizeof names / sizeof *names; k++)
                known |= !strcmp(o.impulse, names[k]);
            if (!known)
                return fail(o.impulse, "is not an impulse (squash, stretch, poke, shake, twist, jump, drop, wave, pat)"), 2;
        }
        else if (!strcmp(a, "--input") && i + 1 < argc)
            o.input = argv[++i];
        else if (!strcmp(a, "--fps") && i + 1 < argc) {
            o.fps = atof(argv[++i]);
            if (!(o.fps > 0))
                return fail("--fps", "needs a positive number"), 2;
        } else if (!strcmp(a, "--at") && i + 1 < argc) {
            if (sscanf(argv[++i], "%lf,%lf", &o.atx, &o.aty) != 2)
                return fail("--at", "needs X,Y (fractions of frame 0's opaque bounding box)"), 2;
            o.have_at = 1;
        } else if (!strcmp(a, "--periodic"))
            o.periodic = 1;
        else if (!strcmp(a, "--landing"))
            o.landing = 1;
        else if (!strcmp(a, "--json"))
            o.json = 1;
        else if (!strcmp(a, "--per-frame"))
            o.per_frame = 1;
        else if (!strcmp(a, "--selftest"))
            o.selftest = 1;
        else if (!strcmp(a, "--exact") && i + 1 < argc)
            o.exact = argv[++i];
        else if (a[0] == '-' && a[1])
            return usage();
        else if (!o.dir)
            o.dir = a;
        else
            return usage();
    }
    if (o.selftest)
        return selftest(&o);
    if (!o.dir)
        return usage();
    clip c;
    memset(&c, 0, sizeof c);
    int rc = clipset_load(&c, o.dir) ? analyse(&o, &c) : 1;
    clipset_free(&c);
    return rc;
}
