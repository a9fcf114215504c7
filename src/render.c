/* render.c - warps the stamp over the deformed lattice. Node displacements
 * are refined with Catmull-Rom splines onto a finer grid; each refined quad
 * is filled by inverting its bilinear map at every pixel centre and sampling
 * the placed source bilinearly in premultiplied alpha. Quads are drawn in
 * lattice order and the first one to cover a pixel keeps it. */
#include "render.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void fill_displacements(renderer *r, const double *x, const double *y)
{
    const lattice *lat = r->lat;
    int nx = lat->nx, ny = lat->ny;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            size_t g = (size_t)j * nx + i;
            int k = lat->index[g];
            if (k >= 0) {
                r->dx[g] = x[k] - (lat->ox + i * lat->h);
                r->dy[g] = y[k] - (lat->oy + j * lat->h);
                r->filled[g] = 2;
            } else {
                r->dx[g] = r->dy[g] = 0.0;
                r->filled[g] = 0;
            }
        }
    /* inactive nodes take the mean of their filled neighbours, layer by layer */
    for (int pass = 0; pass < nx + ny; pass++) {
        int changed = 0;
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                size_t g = (size_t)j * nx + i;
                if (r->filled[g])
                    continue;
                double sx = 0, sy = 0;
                int c = 0;
                for (int dj = -1; dj <= 1; dj++)
                    for (int di = -1; di <= 1; di++) {
                        int i2 = i + di, j2 = j + dj;
                        if ((di | dj) == 0 || i2 < 0 || j2 < 0 || i2 >= nx || j2 >= ny)
                            continue;
                        size_t g2 = (size_t)j2 * nx + i2;
                        if (r->filled[g2] >= 2) {
                            sx += r->dx[g2];
                            sy += r->dy[g2];
                            c++;
                        }
                    }
                if (c) {
                    r->dx[g] = sx / c;
                    r->dy[g] = sy / c;
                    r->filled[g] = 1;
                    changed = 1;
                }
            }
        if (!changed)
            break;
        for (size_t g = 0; g < (size_t)nx * ny; g++)
            if (r->filled[g] == 1)
                r->filled[g] = 2;
    }
}

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

/* Refined positions in image pixels into r->gx, r->gy. */
static void refine(renderer *r, const double *x, const double *y)
{
    const lattice *lat = r->lat;
    int nx = lat->nx, ny = lat->ny, sub = r->sub, rx = r->rx, ry = r->ry;
    fill_displacements(r, x, y);
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

/* Premultiplied float copy of im with a transparent border of 2 pixels. */
static poyo_status premultiply_padded(const image *im, float **out, poyo_error *err)
{
    size_t pw = (size_t)im->w + 4, ph = (size_t)im->h + 4;
    float *f = calloc(pw * ph * 4, sizeof *f);
    if (!f)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d image", im->w, im->h);
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            const uint8_t *p = im->rgba + ((size_t)y * im->w + x) * 4;
            float *d = f + (((size_t)y + 2) * pw + (size_t)x + 2) * 4;
            float a = p[3];
            d[0] = p[0] * a / 255.0f;
            d[1] = p[1] * a / 255.0f;
            d[2] = p[2] * a / 255.0f;
            d[3] = a;
        }
    *out = f;
    return POYO_OK;
}

poyo_status renderer_init(renderer *r, const image *src, const lattice *lat, int w, int h, placement place,
                          poyo_error *err)
{
    memset(r, 0, sizeof *r);
    r->lat = lat;
    r->w = w;
    r->h = h;
    r->place = place;
    int sub = (int)ceil(lat->h * fmax(place.sx, place.sy) / 4.0);
    r->sub = clampi(sub, 1, 16);
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
    r->src_max_x = (float)(w + 2);
    r->src_max_y = (float)(h + 2);
    r->src_stride = ((size_t)w + 4) * 4;
    r->inv_alpha[0] = 0.0f;
    for (int a = 1; a < 256; a++)
        r->inv_alpha[a] = 255.0f / (float)a;
    if (!r->dx || !r->dy || !r->filled || !r->tx || !r->ty || !r->gx || !r->gy || !r->mask) {
        renderer_free(r);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d canvas", w, h);
    }
    if (src) {
        image placed;
        poyo_status st = image_place(src, w, h, place.pw, place.ph, place.ox, place.oy, &placed, err);
        if (st == POYO_OK) {
            st = premultiply_padded(&placed, &r->src, err);
            image_free(&placed);
        }
        if (st != POYO_OK) {
            renderer_free(r);
            return st;
        }
    }
    return POYO_OK;
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
    r->src = NULL;
    r->dx = r->dy = r->tx = r->ty = r->gx = r->gy = NULL;
    r->filled = NULL;
    r->mask = NULL;
}

void render_bounds(const lattice *lat, const double *x, const double *y, double box[4])
{
    /* each drawn cell's content is the part of the visible box inside it,
     * moved by the displacements of the cell's corners */
    int cx = lat->nx - 1, cy = lat->ny - 1;
    for (int cj = 0; cj < cy; cj++)
        for (int ci = 0; ci < cx; ci++) {
            if (!cell_drawn(lat, ci, cj))
                continue;
            double rx0 = lat->ox + ci * lat->h, ry0 = lat->oy + cj * lat->h;
            double cx0 = fmax(rx0, lat->bx0), cx1 = fmin(rx0 + lat->h, lat->bx1);
            double cy0 = fmax(ry0, lat->by0), cy1 = fmin(ry0 + lat->h, lat->by1);
            if (cx0 >= cx1 || cy0 >= cy1)
                continue;
            double dmin_x = 1e300, dmax_x = -1e300, dmin_y = 1e300, dmax_y = -1e300, dmax = 0;
            for (int c = 0; c < 4; c++) {
                int i = ci + (c & 1), j = cj + (c >> 1);
                int k = lat->index[(size_t)j * lat->nx + i];
                double ddx = x[k] - (lat->ox + i * lat->h), ddy = y[k] - (lat->oy + j * lat->h);
                dmin_x = fmin(dmin_x, ddx);
                dmax_x = fmax(dmax_x, ddx);
                dmin_y = fmin(dmin_y, ddy);
                dmax_y = fmax(dmax_y, ddy);
                dmax = fmax(dmax, fmax(fabs(ddx), fabs(ddy)));
            }
            /* spline overshoot between nodes stays within a fraction of the motion */
            double pad = 0.15 * dmax;
            box[0] = fmin(box[0], cx0 + dmin_x - pad);
            box[1] = fmin(box[1], cy0 + dmin_y - pad);
            box[2] = fmax(box[2], cx1 + dmax_x + pad);
            box[3] = fmax(box[3], cy1 + dmax_y + pad);
        }
}

placement render_fit(int iw, int ih, int w, int h, fit_mode fit, const double box[4])
{
    placement p;
    double bx0 = 0, by0 = 0, bx1 = iw, by1 = ih;
    if (fit == FIT_AUTO) {
        bx0 = fmin(bx0, box[0]);
        by0 = fmin(by0, box[1]);
        bx1 = fmax(bx1, box[2]);
        by1 = fmax(by1, box[3]);
    }
    double bw = bx1 - bx0, bh = by1 - by0;
    double s = fmin((double)w / bw, (double)h / bh);
    /* whole pixels for the resampled image; rounding down keeps the motion inside */
    p.pw = (int)floor(s * iw + 1e-9);
    p.ph = (int)floor(s * ih + 1e-9);
    if (p.pw < 1) p.pw = 1;
    if (p.ph < 1) p.ph = 1;
    p.sx = (double)p.pw / iw;
    p.sy = (double)p.ph / ih;
    double ox = (w - p.sx * bw) * 0.5 - p.sx * bx0, oy = (h - p.sy * bh) * 0.5 - p.sy * by0;
    p.ox = (int)floor(ox + 0.5);
    p.oy = (int)floor(oy + 0.5);
    if (fit == FIT_AUTO) {
        if (p.ox + p.sx * bx0 < 0) p.ox = (int)ceil(-p.sx * bx0);
        if (p.oy + p.sy * by0 < 0) p.oy = (int)ceil(-p.sy * by0);
        if (p.ox + p.sx * bx1 > w) p.ox = (int)floor(w - p.sx * bx1);
        if (p.oy + p.sy * by1 > h) p.oy = (int)floor(h - p.sy * by1);
    }
    return p;
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

/* Four floats handled as one value (GCC and Clang vector extension). */
typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));

static inline v4f load4(const float *p)
{
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Bilinear sample of the placed source at canvas point (sx, sy), premultiplied.
 * The source has a transparent border of 2 pixels and points are clamped into
 * it, so no sample needs a bounds check. */
static inline v4f sample(const renderer *r, float sx, float sy)
{
    float fx = sx + 1.5f, fy = sy + 1.5f; /* pixel centres at x + 0.5, border of 2 */
    fx = fx < 0.0f ? 0.0f : fx > r->src_max_x ? r->src_max_x : fx;
    fy = fy < 0.0f ? 0.0f : fy > r->src_max_y ? r->src_max_y : fy;
    int x0 = (int)fx, y0 = (int)fy;
    float tx = fx - (float)x0, ty = fy - (float)y0;
    const float *p = r->src + (size_t)y0 * r->src_stride + (size_t)x0 * 4, *p2 = p + r->src_stride;
    v4f top = load4(p) + (load4(p + 4) - load4(p)) * tx;
    v4f bottom = load4(p2) + (load4(p2 + 4) - load4(p2)) * tx;
    return top + (bottom - top) * ty;
}

/* Writes a premultiplied sample as straight-alpha bytes over a cleared pixel. */
static inline void store(const renderer *r, uint8_t *d, v4f px)
{
    int a8 = (int)(px[3] + 0.5f);
    if (a8 <= 0)
        return; /* the frame starts cleared */
    if (a8 > 255)
        a8 = 255;
    v4i c = __builtin_convertvector(px * r->inv_alpha[a8] + 0.5f, v4i); /* premultiplied colours are >= 0 */
    d[0] = (uint8_t)(c[0] > 255 ? 255 : c[0]);
    d[1] = (uint8_t)(c[1] > 255 ? 255 : c[1]);
    d[2] = (uint8_t)(c[2] > 255 ? 255 : c[2]);
    d[3] = (uint8_t)a8;
}

/* Fills the pixels whose centres lie in quad q (canvas pixels: p00, p10, p11,
 * p01) that no earlier quad took, sampling the source rectangle whose corner
 * is (s0x, s0y) and whose sides are cw x ch. The bilinear map is inverted per
 * pixel; a quad that is a parallelogram has an affine inverse, stepped along rows. */
static void fill_quad(renderer *r, const double q[8], double s0x, double s0y, double cw, double ch, uint8_t *rgba)
{
    int W = r->w, H = r->h;
    double mnx = q[0], mxx = q[0], mny = q[1], mxy = q[1];
    for (int c = 2; c < 8; c += 2) {
        if (q[c] < mnx) mnx = q[c];
        if (q[c] > mxx) mxx = q[c];
        if (q[c + 1] < mny) mny = q[c + 1];
        if (q[c + 1] > mxy) mxy = q[c + 1];
    }
    int px0 = (int)ceil(mnx - 0.5), px1 = (int)floor(mxx - 0.5);
    int py0 = (int)ceil(mny - 0.5), py1 = (int)floor(mxy - 0.5);
    if (px0 < 0) px0 = 0;
    if (py0 < 0) py0 = 0;
    if (px1 > W - 1) px1 = W - 1;
    if (py1 > H - 1) py1 = H - 1;
    if (px0 > px1 || py0 > py1)
        return;
    /* p = a + u e + v f + u v g, in coordinates relative to a */
    double ax = q[0], ay = q[1];
    double ex = q[2] - ax, ey = q[3] - ay, fx = q[6] - ax, fy = q[7] - ay;
    double gx = ax - q[2] + q[4] - q[6], gy = ay - q[3] + q[5] - q[7];
    const double eps = 1e-4;
    double cef = ex * fy - ey * fx;
    if (fabs(gx) + fabs(gy) <= 0.02 && fabs(cef) > 1e-9) {
        /* a parallelogram to within 0.02 px: the u v g term moves no point by
         * more than 0.005 px, and the inverse is affine, stepped along each row */
        double du = fy / cef, dv = -ey / cef;
        for (int py = py0; py <= py1; py++) {
            uint8_t *mrow = r->mask + (size_t)py * W;
            double hy = py + 0.5 - ay, hx = px0 + 0.5 - ax;
            double u = (hx * fy - hy * fx) / cef, v = (ex * hy - ey * hx) / cef;
            /* a row spans a few pixels: single precision steps stay within 1e-5 px;
             * the tolerance covers the dropped u v g term (at most 0.005 px) so the
             * neighbours' edges meet without a gap (the first quad keeps a pixel) */
            float fu = (float)u, fv = (float)v, fdu = (float)du, fdv = (float)dv;
            float sx = (float)(s0x + u * cw), sy = (float)(s0y + v * ch), dsx = (float)(du * cw), dsy = (float)(dv * ch);
            float tol = (float)(0.01 / fmin(fmax(fabs(ex), fabs(ey)), fmax(fabs(fx), fabs(fy))));
            const float lo = -tol, hi = 1.0f + tol;
            uint8_t *out = rgba + ((size_t)py * W + px0) * 4;
            for (int px = px0; px <= px1; px++, fu += fdu, fv += fdv, sx += dsx, sy += dsy, out += 4) {
                if (mrow[px] || fu < lo || fu > hi || fv < lo || fv > hi)
                    continue;
                store(r, out, sample(r, sx, sy));
                mrow[px] = 1;
            }
        }
        return;
    }
    for (int py = py0; py <= py1; py++) {
        uint8_t *mrow = r->mask + (size_t)py * W;
        for (int px = px0; px <= px1; px++) {
            double u, v;
            if (mrow[px] || !render_inverse_bilinear(px + 0.5, py + 0.5, q, eps, &u, &v))
                continue;
            store(r, rgba + ((size_t)py * W + px) * 4, sample(r, (float)(s0x + u * cw), (float)(s0y + v * ch)));
            mrow[px] = 1;
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
                    fill_quad(r, q, s0x, s0y, cw, chh, rgba);
                }
        }
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

static void *draw_some(void *arg)
{
    draw_task *t = arg;
    size_t fb = (size_t)t->r->w * t->r->h * 4;
    for (int f = t->first; f < t->count; f += t->step)
        renderer_draw(t->r, t->x + (size_t)f * t->n, t->y + (size_t)f * t->n, t->frames + fb * (size_t)f);
    return NULL;
}

poyo_status renderer_draw_frames(renderer *r, const double *x, const double *y, int n, int count, uint8_t *frames,
                                 int threads, poyo_error *err)
{
    if (threads > 8)
        threads = 8;
    if (threads > count / 4)
        threads = count / 4;
    if (threads < 1)
        threads = 1;
    renderer extra[8];
    pthread_t th[8];
    draw_task tasks[8];
    int made = 1;
    poyo_status st = POYO_OK;
    for (int t = 1; t < threads; t++) {
        if (renderer_clone(&extra[t], r, err) != POYO_OK)
            break;
        made = t + 1;
    }
    int started = 1;
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
    for (int t = 1; t < made; t++) {
        if (pthread_create(&th[t], NULL, draw_some, &tasks[t]) != 0)
            break;
        started = t + 1;
    }
    /* frames of threads that did not start are drawn here */
    for (int t = started; t < made; t++)
        tasks[t].r = r;
    draw_some(&tasks[0]);
    for (int t = started; t < made; t++)
        draw_some(&tasks[t]);
    for (int t = 1; t < started; t++)
        pthread_join(th[t], NULL);
    for (int t = 1; t < made; t++)
        renderer_free(&extra[t]);
    return st;
}
