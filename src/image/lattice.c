/* lattice.c - lays the node grid over the visible pixels of an image. A cell
 * is drawn when a visible pixel's bilinear footprint touches it; a node is
 * active when one of its four cells is drawn (after the shape-matching
 * stamp in Müller et al. 2005 as applied to chat stamps). */
#include "lattice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Marks the cells of out (cx x cy, laid over the visible box x0..x1, y0..y1)
 * that a visible pixel's bilinear footprint reaches; 0 when out of memory. */
static int mark_cells(const image *im, lattice *out, int x0, int y0, int x1, int y1)
{
    int cx = out->nx - 1, cy = out->ny - 1;
    double h = out->h;
    /* the cells a visible pixel's footprint reaches: a range of columns that
     * depends on x alone and a range of rows that depends on y alone, so each
     * row of pixels marks the union of its columns' ranges in its rows' cells */
    int *col = malloc(2 * (size_t)(x1 - x0) * sizeof *col);
    unsigned char *mark = malloc((size_t)cx);
    if (!col || !mark) {
        free(col);
        free(mark);
        return 0;
    }
    for (int x = x0; x < x1; x++) {
        /* the pixel [x, x+1] sampled bilinearly reaches [x - 0.5, x + 1.5] */
        int i0 = (int)floor((x - 0.5 - out->ox) / h), i1 = (int)floor((x + 1.5 - out->ox) / h);
        col[2 * (x - x0)] = i0 < 0 ? 0 : i0;
        col[2 * (x - x0) + 1] = i1 > cx - 1 ? cx - 1 : i1;
    }
    for (int y = y0; y < y1; y++) {
        const uint8_t *row = im->rgba + (size_t)y * (size_t)im->w * 4u;
        int any = 0;
        memset(mark, 0, (size_t)cx);
        for (int x = x0; x < x1; x++) {
            if (row[4 * x + 3] == 0)
                continue;
            any = 1;
            for (int i = col[2 * (x - x0)]; i <= col[2 * (x - x0) + 1]; i++)
                mark[i] = 1;
        }
        if (!any)
            continue;
        int j0 = (int)floor((y - 0.5 - out->oy) / h), j1 = (int)floor((y + 1.5 - out->oy) / h);
        if (j0 < 0) j0 = 0;
        if (j1 > cy - 1) j1 = cy - 1;
        for (int j = j0; j <= j1; j++)
            for (int i = 0; i < cx; i++)
                out->cell[(size_t)j * cx + i] |= mark[i];
    }
    free(col);
    free(mark);
    return 1;
}

/* Numbers the nodes that are a corner of a drawn cell, row by row; returns
 * how many. */
static int number_nodes(lattice *out)
{
    int cx = out->nx - 1, cy = out->ny - 1;
    int count = 0;
    for (int j = 0; j < out->ny; j++) {
        for (int i = 0; i < out->nx; i++) {
            int active = 0;
            for (int dj = -1; dj <= 0 && !active; dj++)
                for (int di = -1; di <= 0 && !active; di++) {
                    int ci = i + di, cj = j + dj;
                    if (ci >= 0 && cj >= 0 && ci < cx && cj < cy && out->cell[(size_t)cj * cx + ci])
                        active = 1;
                }
            out->index[(size_t)j * out->nx + i] = active ? count : -1;
            if (active) {
                out->ni[count] = i;
                out->nj[count] = j;
                count++;
            }
        }
    }
    return count;
}

/* The extent of the opaque part (alpha at least one half) along one axis,
 * from the largest alpha of each of its n lines (rows or columns): its edges
 * where that alpha crosses one half between pixel centres, what a viewer
 * sees as the stamp's box without the faint fringe of its antialiased edges.
 * 0 when no line reaches one half. */
static int solid_extent(const uint8_t *most, int n, double *lo, double *hi)
{
    int first = -1, last = -1;
    for (int k = 0; k < n; k++)
        if (most[k] >= 128) {
            if (first < 0)
                first = k;
            last = k;
        }
    if (first < 0)
        return 0;
    double a0 = first > 0 ? most[first - 1] / 255.0 : 0.0, a1 = most[first] / 255.0;
    *lo = first - 0.5 + (a1 > a0 ? (0.5 - a0) / (a1 - a0) : 0.0);
    a0 = most[last] / 255.0;
    a1 = last + 1 < n ? most[last + 1] / 255.0 : 0.0;
    *hi = last + 0.5 + (a0 > a1 ? (a0 - 0.5) / (a0 - a1) : 0.0);
    return 1;
}

/* One pass over the alpha: the largest alpha of every row (rmax) and column
 * (cmax), how many pixels are opaque (alpha at least one half), and the
 * opaque pixel centres in each cell of out (into out->cell_opaque) and their
 * box (out->cell_box, empty boxes given). */
static void scan_alpha(const image *im, lattice *out, uint8_t *rmax, uint8_t *cmax, int *cix, long *opaque)
{
    int cx = out->nx - 1, cy = out->ny - 1;
    for (int x = 0; x < im->w; x++) {
        int ci = (int)floor((x + 0.5 - out->ox) / out->h);
        cix[x] = ci >= 0 && ci < cx ? ci : -1;
    }
    long count = 0;
    for (int y = 0; y < im->h; y++) {
        int cj = (int)floor((y + 0.5 - out->oy) / out->h);
        float *cells = cj >= 0 && cj < cy ? out->cell_opaque + (size_t)cj * cx : NULL;
        const uint8_t *p = im->rgba + (size_t)y * (size_t)im->w * 4u + 3;
        uint8_t most = 0;
        for (int x = 0; x < im->w; x++, p += 4) {
            uint8_t a = *p;
            if (a > most)
                most = a;
            if (a > cmax[x])
                cmax[x] = a;
            if (a >= 128) {
                count++;
                if (cells && cix[x] >= 0) {
                    cells[cix[x]] += 1.0f;
                    float *b = out->cell_box + 4 * ((size_t)cj * cx + (size_t)cix[x]);
                    b[0] = fminf(b[0], (float)x);
                    b[1] = fminf(b[1], (float)y);
                    b[2] = fmaxf(b[2], (float)x + 1.0f);
                    b[3] = fmaxf(b[3], (float)y + 1.0f);
                }
            }
        }
        rmax[y] = most;
    }
    *opaque = count;
}

/* The centres of the opaque pixels (alpha at least one half; count of them
 * in all), every stride-th across and down so that at most
 * LATTICE_OPAQUE_SAMPLES are kept: a stride whose grid holds more (count
 * divided by its square only estimates how many) is widened, so no rows at
 * the bottom are left out. The grid starts half a stride in, or in the
 * middle of an image narrower than that, which would hold no sample. */
static int sample_opaque(const image *im, long count, lattice *out)
{
    int stride = 1;
    while (count / ((long)stride * stride) > LATTICE_OPAQUE_SAMPLES)
        stride++;
    out->op_x = malloc(LATTICE_OPAQUE_SAMPLES * sizeof *out->op_x);
    out->op_y = malloc(LATTICE_OPAQUE_SAMPLES * sizeof *out->op_y);
    if (!out->op_x || !out->op_y)
        return 0;
    for (;; stride++) {
        int full = 0;
        out->op_n = 0;
        int x0 = stride / 2 < im->w ? stride / 2 : im->w / 2, y0 = stride / 2 < im->h ? stride / 2 : im->h / 2;
        for (int y = y0; y < im->h && !full; y += stride)
            for (int x = x0; x < im->w; x += stride)
                if (im->rgba[4 * ((size_t)y * im->w + x) + 3] >= 128) {
                    if (out->op_n == LATTICE_OPAQUE_SAMPLES) {
                        full = 1;
                        break;
                    }
                    out->op_x[out->op_n] = (float)(x + 0.5);
                    out->op_y[out->op_n] = (float)(y + 0.5);
                    out->op_n++;
                }
        if (!full)
            break;
    }
    out->op_stride = stride;
    return 1;
}

/* The pixel centres (k + 1/2) in [lo, hi): how many there are. */
static int centres_in(double lo, double hi)
{
    return (int)(ceil(hi - 0.5) - ceil(lo - 0.5));
}

/* From one pass over the alpha: the opaque box (where the largest alpha of
 * the rows and of the columns crosses one half), the opaque pixel samples,
 * and the share of each cell's pixel centres that are opaque, centres outside
 * the image counted as transparent (a cell the picture fills is 1 however
 * the lattice's spacing falls on the pixels); 0 when out of memory. */
static int alpha_facts(const image *im, lattice *out)
{
    int cx = out->nx - 1, cy = out->ny - 1;
    uint8_t *rmax = calloc((size_t)im->h, 1), *cmax = calloc((size_t)im->w, 1);
    int *cix = malloc((size_t)im->w * sizeof *cix);
    out->cell_opaque = calloc((size_t)cx * (size_t)cy, sizeof *out->cell_opaque);
    out->cell_box = malloc(4 * (size_t)cx * (size_t)cy * sizeof *out->cell_box);
    int ok = rmax && cmax && cix && out->cell_opaque && out->cell_box;
    for (size_t c = 0; ok && c < (size_t)cx * (size_t)cy; c++) {
        float *b = out->cell_box + 4 * c;
        b[0] = b[1] = 1e30f;
        b[2] = b[3] = -1e30f;
    }
    long count = 0;
    if (ok) {
        scan_alpha(im, out, rmax, cmax, cix, &count);
        if (!solid_extent(cmax, im->w, &out->sx0, &out->sx1) || !solid_extent(rmax, im->h, &out->sy0, &out->sy1))
            out->sx0 = out->sy0 = out->sx1 = out->sy1 = 0.0;
        for (int cj = 0; cj < cy; cj++)
            for (int ci = 0; ci < cx; ci++) {
                double x0 = out->ox + ci * out->h, y0 = out->oy + cj * out->h;
                int all = centres_in(x0, x0 + out->h) * centres_in(y0, y0 + out->h);
                float *c = &out->cell_opaque[(size_t)cj * cx + ci];
                *c = all > 0 ? fminf(1.0f, *c / (float)all) : 0.0f;
            }
        ok = sample_opaque(im, count, out);
    }
    free(rmax);
    free(cmax);
    free(cix);
    return ok;
}

poyo_status lattice_build(const image *im, int grid, lattice *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    if (grid < LATTICE_GRID_MIN || grid > LATTICE_GRID_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "grid must be %d to %d nodes, not %d", LATTICE_GRID_MIN, LATTICE_GRID_MAX, grid);
    int x0, y0, x1, y1;
    if (!image_visible_bbox(im, &x0, &y0, &x1, &y1))
        return poyo_fail(err, POYO_ERR_INPUT, "image is fully transparent: nothing to animate");
    /* one pixel of margin so the bilinear footprint of edge pixels is inside */
    double bw = (double)(x1 - x0) + 2.0, bh = (double)(y1 - y0) + 2.0;
    double longer = bw > bh ? bw : bh;
    double h = longer / (grid - 1);
    int cx = (int)ceil(bw / h - 1e-9), cy = (int)ceil(bh / h - 1e-9);
    if (cx < 1) cx = 1;
    if (cy < 1) cy = 1;
    out->nx = cx + 1;
    out->ny = cy + 1;
    out->h = h;
    out->ox = (x0 + x1) * 0.5 - cx * h * 0.5;
    out->oy = (y0 + y1) * 0.5 - cy * h * 0.5;
    out->bx0 = x0;
    out->by0 = y0;
    out->bx1 = x1;
    out->by1 = y1;
    size_t ncell = (size_t)cx * (size_t)cy, nnode = (size_t)out->nx * (size_t)out->ny;
    out->cell = calloc(ncell, 1);
    out->index = malloc(nnode * sizeof *out->index);
    out->ni = malloc(nnode * sizeof *out->ni);
    out->nj = malloc(nnode * sizeof *out->nj);
    if (!out->cell || !out->index || !out->ni || !out->nj) {
        lattice_free(out);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the lattice");
    }
    if (!mark_cells(im, out, x0, y0, x1, y1) || !alpha_facts(im, out)) {
        lattice_free(out);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the lattice");
    }
    out->count = number_nodes(out);
    return POYO_OK;
}

/* The active node at position k of a line (a column, or a row with rows), or -1. */
static int node_on(const lattice *l, int rows, int line, int k)
{
    return rows ? l->index[(size_t)line * l->nx + k] : l->index[(size_t)k * l->nx + line];
}

/* The first position along the lines, counted from the end sign points to,
 * where line `only` (every line when -1) has an active node; -1 when none. */
static int first_along(const lattice *l, int rows, int sign, int only)
{
    int len = rows ? l->nx : l->ny, lines = rows ? l->ny : l->nx;
    for (int s = 0; s < len; s++) {
        int k = sign > 0 ? len - 1 - s : s;
        for (int m = only < 0 ? 0 : only; m < (only < 0 ? lines : only + 1); m++)
            if (node_on(l, rows, m, k) >= 0)
                return k;
    }
    return -1;
}

int lattice_far_node(const lattice *l, int rows, int sign, int line)
{
    int far = first_along(l, rows, sign, -1), near = first_along(l, rows, -sign, -1);
    int at = first_along(l, rows, sign, line);
    if (at < 0 || abs(far - at) > 0.25 * abs(far - near) + 1e-9)
        return -1;
    return node_on(l, rows, line, at);
}

void lattice_free(lattice *l)
{
    if (!l)
        return;
    free(l->cell);
    free(l->index);
    free(l->ni);
    free(l->nj);
    free(l->op_x);
    free(l->op_y);
    free(l->cell_opaque);
    free(l->cell_box);
    memset(l, 0, sizeof *l);
}
