/* softbody.c - lattice shape matching after Müller et al. 2005, "Meshless
 * deformations based on shape matching": every active node with its 3x3
 * neighbourhood is a cluster; goals are averaged over clusters and pull the
 * nodes with the paper's integration v += alpha (g - x) / dt, x += v dt.
 * Stiffness and damping are solved per step from a wobble frequency and a
 * damping ratio, as Box2D's soft constraints do, so the look does not change
 * with the frame rate or the number of steps. */
#include "softbody.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/vec2.h"

struct softbody {
    int n;                       /* active nodes */
    double *x, *y, *vx, *vy;     /* positions (image pixels) and velocities (pixels/s) */
    double *qx, *qy;             /* rest positions */
    double *pinx, *piny;         /* target of each pinned node */
    unsigned char *pinned;       /* 1 when the node follows pinx/piny */
    unsigned char *touched;      /* 1 when the last step's collisions moved the node */
    int pinned_count;
    /* clusters: members of cluster c are member[start[c] .. start[c + 1]) */
    int ncl;
    int *start, *member;
    double *rbx, *rby;           /* rest offset of each membership from its cluster's rest centre */
    double *aqq;                 /* 4 per cluster: inverse of A_qq, rows */
    double *inv_count;           /* 1 / number of clusters holding the node */
    /* the same clusters on the lattice grid (with a border of one empty cell),
     * where the sums over a cluster are 3 x 3 box sums */
    int gw, gh;                  /* grid cells per row and column, border included */
    int *node_cell;              /* grid cell of each node */
    int *cl_cell;                /* grid cell of each cluster's centre node */
    double *cl_cx, *cl_cy;       /* rest centre of each cluster */
    double *cl_inv;              /* 1 / members of each cluster */
    double *grid;                /* scratch: three planes of gw * gh cells of 6 sums */
    double *gx, *gy, *ax, *ay;   /* scratch: goals, external accelerations */
    int *out_a, *out_b, nout;    /* outline springs: node pairs */
    int ncell;                   /* drawn lattice cells */
    int *edge, nedge;            /* their outline: the sides no other drawn cell shares, as node pairs in the cells' turn */
    double spacing;              /* the lattice's node spacing at rest, image pixels */
    double turn_min;             /* the least turn a cell's corner may keep (a tenth of its rest turn) */
    int *cell;                   /* 4 corner nodes of each, in the order that makes its area positive */
    double *cell_fill;           /* the share of each cell the picture fills at rest (see weigh_cells) */
    double *cell_w;              /* each cell's weight in the picture's area (see softbody_keep_picture_area) */
    int picture_area;            /* 1: the pressure keeps the picture's area, 0: the cells' plain area */
    double area0;                /* the body's area at rest (see body_area) */
    double picture0;             /* the picture's area at rest (see keep_picture_band) */
    double *agx, *agy;           /* scratch: gradient of the area */
    double *bx, *by;             /* scratch: the pinned nodes at their pins (softbody_band_pins) */
    unsigned char *sel;          /* scratch: the nodes softbody_band_pins may move */
    double *out_len;
    softbody_def def;
    /* solver state set by softbody_calibrate */
    double frame_dt, dt;         /* seconds per frame and per step */
    int steps;                   /* steps per frame */
    double alpha;                /* goal stiffness per step */
    double cdamp;                /* fraction of (non-rigid) velocity removed per step */
    double lambda;               /* stiffness eigenvalue of the main wobble */
    double pressure_gain;        /* the pressure's multiple (1, or more while a hand holds the body) */
    double time;                 /* simulated seconds */
    int contact;                 /* 1 when the last step's collisions moved a node */
    double energy_cap;           /* > 0: the energy a body left alone may not exceed */
    double gravity_x, gravity_y; /* uniform acceleration, pixels/s^2 */
    softbody_collide_fn collide;
    softbody_force_fn force;
    void *user;
};

static double cells_area(const softbody *sb, const double *w, const double *x, const double *y, double *gx,
                         double *gy);
static double body_area(const softbody *sb, const double *x, const double *y, double *gx, double *gy);

softbody_def softbody_default_def(void)
{
    softbody_def d;
    d.hz = SOFTBODY_HZ_DEFAULT;
    d.damping = 0.1;
    d.volume = 0.3;
    d.drag = 0.0;
    d.outline = 0.0;
    d.pressure = 1.0;
    d.substeps = 4;
    d.anchor = ANCHOR_BOTTOM;
    return d;
}

static int in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

poyo_status softbody_check_def(const softbody_def *d, poyo_error *err)
{
    poyo_status st = poyo_check_range(err, "--hz", d->hz, SOFTBODY_HZ_MIN, SOFTBODY_HZ_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--damping", d->damping, 0.0, SOFTBODY_DAMPING_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--volume", d->volume, 0.0, SOFTBODY_VOLUME_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--drag", d->drag, 0.0, SOFTBODY_DRAG_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--outline-stiffness", d->outline, 0.0, SOFTBODY_OUTLINE_MAX, "");
    if (st != POYO_OK)
        return st;
    if (!in_range(d->pressure, 0.0, 1.0))
        return poyo_fail(err, POYO_ERR_USAGE, "the pressure must be 0 to 1, not %g", d->pressure);
    if (d->substeps < 1 || d->substeps > SOFTBODY_SUBSTEPS_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--substeps: must be 1 to %d, not %d", SOFTBODY_SUBSTEPS_MAX,
                         d->substeps);
    if (d->anchor != ANCHOR_NONE && d->anchor != ANCHOR_BOTTOM && d->anchor != ANCHOR_TOP)
        return poyo_fail(err, POYO_ERR_USAGE, "unknown anchor");
    return POYO_OK;
}

void softbody_destroy(softbody *sb)
{
    if (!sb)
        return;
    free(sb->cell);
    free(sb->edge);
    free(sb->cell_w);
    free(sb->cell_fill);
    free(sb->agx);
    free(sb->bx);
    free(sb->by);
    free(sb->sel);
    free(sb->agy);
    free(sb->x);
    free(sb->y);
    free(sb->vx);
    free(sb->vy);
    free(sb->qx);
    free(sb->qy);
    free(sb->pinx);
    free(sb->piny);
    free(sb->pinned);
    free(sb->touched);
    free(sb->start);
    free(sb->member);
    free(sb->rbx);
    free(sb->rby);
    free(sb->aqq);
    free(sb->inv_count);
    free(sb->node_cell);
    free(sb->cl_cell);
    free(sb->cl_cx);
    free(sb->cl_cy);
    free(sb->cl_inv);
    free(sb->grid);
    free(sb->gx);
    free(sb->gy);
    free(sb->ax);
    free(sb->ay);
    free(sb->out_a);
    free(sb->out_b);
    free(sb->out_len);
    free(sb);
}

/* 1 when node (i, j) is active and lies on the outline (a neighbouring cell is not drawn). */
static int on_outline(const lattice *lat, int i, int j)
{
    int cx = lat->nx - 1, cy = lat->ny - 1;
    for (int dj = -1; dj <= 0; dj++)
        for (int di = -1; di <= 0; di++) {
            int ci = i + di, cj = j + dj;
            if (ci < 0 || cj < 0 || ci >= cx || cj >= cy || !lat->cell[(size_t)cj * cx + ci])
                return 1;
        }
    return 0;
}

/* Allocates the soft body's arrays for lat's n nodes; 0 when out of memory. */
static int alloc_arrays(softbody *sb, const lattice *lat, int n)
{
    size_t nd = (size_t)n * sizeof(double);
    sb->x = malloc(nd);
    sb->y = malloc(nd);
    sb->vx = calloc((size_t)n, sizeof(double));
    sb->vy = calloc((size_t)n, sizeof(double));
    sb->qx = malloc(nd);
    sb->qy = malloc(nd);
    sb->pinx = malloc(nd);
    sb->piny = malloc(nd);
    sb->pinned = calloc((size_t)n, 1);
    sb->touched = calloc((size_t)n, 1);
    sb->start = malloc(((size_t)n + 1) * sizeof(int));
    sb->member = malloc((size_t)n * 9 * sizeof(int));
    sb->rbx = malloc((size_t)n * 9 * sizeof(double));
    sb->rby = malloc((size_t)n * 9 * sizeof(double));
    sb->aqq = malloc((size_t)n * 4 * sizeof(double));
    sb->inv_count = calloc((size_t)n, sizeof(double));
    sb->gx = malloc(nd);
    sb->gy = malloc(nd);
    sb->ax = malloc(nd);
    sb->ay = malloc(nd);
    sb->out_a = malloc((size_t)n * 2 * sizeof(int));
    sb->out_b = malloc((size_t)n * 2 * sizeof(int));
    sb->out_len = malloc((size_t)n * 2 * sizeof(double));
    sb->cell = malloc(((size_t)(lat->nx - 1) * (size_t)(lat->ny - 1) * 4 + 1) * sizeof(int));
    sb->edge = malloc(((size_t)(lat->nx - 1) * (size_t)(lat->ny - 1) * 8 + 2) * sizeof(int));
    sb->cell_w = malloc(((size_t)(lat->nx - 1) * (size_t)(lat->ny - 1) + 1) * sizeof(double));
    sb->cell_fill = malloc(((size_t)(lat->nx - 1) * (size_t)(lat->ny - 1) + 1) * sizeof(double));
    sb->agx = malloc(nd);
    sb->agy = malloc(nd);
    sb->bx = malloc(nd);
    sb->sel = malloc((size_t)n);
    sb->by = malloc(nd);
    sb->gw = lat->nx + 2;
    sb->gh = lat->ny + 2;
    size_t cells = (size_t)sb->gw * sb->gh;
    sb->node_cell = malloc((size_t)n * sizeof(int));
    sb->cl_cell = malloc((size_t)n * sizeof(int));
    sb->cl_cx = malloc(nd);
    sb->cl_cy = malloc(nd);
    sb->cl_inv = malloc(nd);
    sb->grid = calloc(cells * 3 * 6, sizeof(double));
    if (!sb->node_cell || !sb->cl_cell || !sb->cl_cx || !sb->cl_cy || !sb->cl_inv || !sb->grid || !sb->cell ||
        !sb->edge || !sb->cell_w || !sb->cell_fill || !sb->agx || !sb->agy || !sb->bx || !sb->by || !sb->sel)
        return 0;
    for (int k = 0; k < n; k++)
        sb->node_cell[k] = (lat->nj[k] + 1) * sb->gw + lat->ni[k] + 1;
    return sb->x && sb->y && sb->vx && sb->vy && sb->qx && sb->qy && sb->pinx && sb->piny && sb->pinned &&
           sb->touched && sb->start && sb->member && sb->rbx && sb->rby && sb->aqq && sb->inv_count && sb->gx &&
           sb->gy && sb->ax && sb->ay && sb->out_a && sb->out_b && sb->out_len;
}

/* Whether lattice cell (ci, cj) is drawn with all four of its nodes. */
static int whole_cell(const lattice *lat, int ci, int cj)
{
    if (ci < 0 || cj < 0 || ci + 1 >= lat->nx || cj + 1 >= lat->ny || !lat->cell[(size_t)cj * (lat->nx - 1) + ci])
        return 0;
    return lat->index[(size_t)cj * lat->nx + ci] >= 0 && lat->index[(size_t)cj * lat->nx + ci + 1] >= 0 &&
           lat->index[(size_t)(cj + 1) * lat->nx + ci + 1] >= 0 && lat->index[(size_t)(cj + 1) * lat->nx + ci] >= 0;
}

/* The sides of whole cells that no other whole cell shares, each as the pair
 * of nodes in the order its cell turns: the area of the cells is the area
 * inside these alone (the shared sides cancel). */
static void list_outline_edges(softbody *sb, const lattice *lat)
{
    static const int side[4][2] = { { 0, -1 }, { 1, 0 }, { 0, 1 }, { -1, 0 } }; /* across q0q1, q1q2, q2q3, q3q0 */
    sb->nedge = 0;
    for (int cj = 0; cj + 1 < lat->ny; cj++)
        for (int ci = 0; ci + 1 < lat->nx; ci++) {
            if (!whole_cell(lat, ci, cj))
                continue;
            int q[4] = { lat->index[(size_t)cj * lat->nx + ci], lat->index[(size_t)cj * lat->nx + ci + 1],
                         lat->index[(size_t)(cj + 1) * lat->nx + ci + 1], lat->index[(size_t)(cj + 1) * lat->nx + ci] };
            for (int i = 0; i < 4; i++) {
                if (whole_cell(lat, ci + side[i][0], cj + side[i][1]))
                    continue;
                sb->edge[2 * sb->nedge] = q[i];
                sb->edge[2 * sb->nedge + 1] = q[(i + 1) & 3];
                sb->nedge++;
            }
        }
}

/* The share of each whole cell the picture fills at rest (alpha at least
 * one half); with no opaque pixel at all, every cell counts as full. */
static void weigh_cells(softbody *sb, const lattice *lat)
{
    int cx = lat->nx - 1;
    double total = 0.0;
    for (int c = 0; c < sb->ncell; c++) {
        int k = sb->cell[4 * c];
        double share = lat->cell_opaque ? lat->cell_opaque[(size_t)lat->nj[k] * cx + lat->ni[k]] : 0.0;
        total += share;
        sb->cell_fill[c] = share;
    }
    if (!(total > 0.0))
        for (int c = 0; c < sb->ncell; c++)
            sb->cell_fill[c] = 1.0;
}

/* Places the nodes at rest and lists the lattice's whole cells. */
static void place_nodes(softbody *sb, const lattice *lat, int n)
{
    for (int k = 0; k < n; k++) {
        sb->qx[k] = sb->x[k] = sb->pinx[k] = lat->ox + lat->ni[k] * lat->h;
        sb->qy[k] = sb->y[k] = sb->piny[k] = lat->oy + lat->nj[k] * lat->h;
    }
    for (int cj = 0; cj + 1 < lat->ny; cj++)
        for (int ci = 0; ci + 1 < lat->nx; ci++) {
            if (!lat->cell[(size_t)cj * (lat->nx - 1) + ci])
                continue;
            int q[4] = { lat->index[(size_t)cj * lat->nx + ci], lat->index[(size_t)cj * lat->nx + ci + 1],
                         lat->index[(size_t)(cj + 1) * lat->nx + ci + 1], lat->index[(size_t)(cj + 1) * lat->nx + ci] };
            if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[3] < 0)
                continue;
            memcpy(sb->cell + 4 * (size_t)sb->ncell++, q, sizeof q);
        }
    list_outline_edges(sb, lat);
    weigh_cells(sb, lat);
    sb->area0 = body_area(sb, sb->qx, sb->qy, NULL, NULL);
    sb->picture0 = cells_area(sb, sb->cell_fill, sb->qx, sb->qy, NULL, NULL);
    sb->spacing = lat->h;
    sb->turn_min = 0.1 * lat->h * lat->h;
}

/* Pins the anchors: the lowest (or highest) active node of every column that
 * reaches the body's foot (its lowest quarter): a shape that stands on a
 * corner is held there, not at the underside of whatever overhangs. */
static void pin_anchors(softbody *sb, const lattice *lat, anchor_kind anchor)
{
    if (anchor == ANCHOR_NONE)
        return;
    for (int i = 0; i < lat->nx; i++) {
        int k = lattice_far_node(lat, 0, anchor == ANCHOR_BOTTOM ? 1 : -1, i);
        if (k >= 0) {
            sb->pinned[k] = 1;
            sb->pinned_count++;
        }
    }
}

/* Builds a shape-matching cluster around every node (it and its grid
 * neighbours, when they span an area); 0 when out of memory. */
static int build_clusters(softbody *sb, const lattice *lat, int n)
{
    int m = 0, c = 0;
    int *count = calloc((size_t)n, sizeof(int));
    if (!count)
        return 0;
    for (int k = 0; k < n; k++) {
        int ci = lat->ni[k], cj = lat->nj[k];
        int first = m;
        double sx = 0, sy = 0;
        for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
                int i = ci + di, j = cj + dj;
                if (i < 0 || j < 0 || i >= lat->nx || j >= lat->ny)
                    continue;
                int idx = lat->index[(size_t)j * lat->nx + i];
                if (idx < 0)
                    continue;
                sb->member[m++] = idx;
                sx += sb->qx[idx];
                sy += sb->qy[idx];
            }
        int cnt = m - first;
        if (cnt < 3) { /* a cluster needs points that are not all on one line */
            m = first;
            continue;
        }
        double cxm = sx / cnt, cym = sy / cnt;
        double a00 = 0, a01 = 0, a11 = 0;
        for (int t = first; t < m; t++) {
            double bx = sb->qx[sb->member[t]] - cxm, by = sb->qy[sb->member[t]] - cym;
            sb->rbx[t] = bx;
            sb->rby[t] = by;
            a00 += bx * bx;
            a01 += bx * by;
            a11 += by * by;
        }
        double det = a00 * a11 - a01 * a01;
        double scale = (a00 + a11) * (a00 + a11);
        if (!(det > 1e-9 * scale)) { /* collinear: drop */
            m = first;
            continue;
        }
        sb->aqq[4 * c + 0] = a11 / det;
        sb->aqq[4 * c + 1] = -a01 / det;
        sb->aqq[4 * c + 2] = -a01 / det;
        sb->aqq[4 * c + 3] = a00 / det;
        sb->start[c] = first;
        sb->cl_cell[c] = sb->node_cell[k];
        sb->cl_cx[c] = cxm;
        sb->cl_cy[c] = cym;
        sb->cl_inv[c] = 1.0 / cnt;
        for (int t = first; t < m; t++)
            count[sb->member[t]]++;
        c++;
    }
    sb->start[c] = m;
    sb->ncl = c;
    for (int k = 0; k < n; k++)
        sb->inv_count[k] = count[k] ? 1.0 / count[k] : 0.0;
    free(count);
    return 1;
}

/* Outline springs between grid-adjacent outline nodes. */
static void build_outline(softbody *sb, const lattice *lat, int n)
{
    int no = 0;
    for (int k = 0; k < n; k++) {
        int i = lat->ni[k], j = lat->nj[k];
        if (!on_outline(lat, i, j))
            continue;
        const int nb[2][2] = { { 1, 0 }, { 0, 1 } };
        for (int t = 0; t < 2; t++) {
            int i2 = i + nb[t][0], j2 = j + nb[t][1];
            if (i2 >= lat->nx || j2 >= lat->ny)
                continue;
            int k2 = lat->index[(size_t)j2 * lat->nx + i2];
            if (k2 < 0 || !on_outline(lat, i2, j2))
                continue;
            sb->out_a[no] = k;
            sb->out_b[no] = k2;
            sb->out_len[no] = lat->h;
            no++;
        }
    }
    sb->nout = no;
}

poyo_status softbody_create(const lattice *lat, const softbody_def *def, softbody **out, poyo_error *err)
{
    *out = NULL;
    poyo_status st = softbody_check_def(def, err);
    if (st != POYO_OK)
        return st;
    int n = lat->count;
    if (n < 3)
        return poyo_fail(err, POYO_ERR_INPUT, "the visible shape is too small to animate");
    softbody *sb = calloc(1, sizeof *sb);
    if (!sb)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the soft body");
    sb->n = n;
    sb->def = *def;
    sb->pressure_gain = 1.0;
    if (!alloc_arrays(sb, lat, n)) {
        softbody_destroy(sb);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the soft body");
    }
    place_nodes(sb, lat, n);
    pin_anchors(sb, lat, def->anchor);
    if (!build_clusters(sb, lat, n)) {
        softbody_destroy(sb);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the soft body");
    }
    build_outline(sb, lat, n);
    sb->frame_dt = 1.0 / 25.0;
    sb->steps = 1;
    sb->dt = sb->frame_dt;
    sb->alpha = 0.1;
    *out = sb;
    return POYO_OK;
}

/* The stretch of a cluster (s of its area-preserving map's s and 1/s) beyond
 * which its linear mode gives way to its rotation, wholly past a stretch of
 * about 2.3: a crushed cluster then pushes back no harder than its rotation
 * would, and one sheared far takes its shape back. Fading from a stretch of
 * 2 (wholly past 2.9), at --volume 0.8, shoved at --strength 0.5, 12 of 65
 * Twemoji tore a part off, ran two together or opened a hole, and a balloon
 * lost 24 % of its area; from 1.5, 3 did, and it lost 13 %. Poked at 0.3, 6
 * did before and 2 after. At the defaults the motion bench misses the same
 * goals either way. */
#define LINEAR_FADE_STRETCH 1.5

/* Transform T and current centre (px, py) of cluster c for positions (x, y). */
/* The cluster's transform from its sums a = sum x qbar_x, b = sum x qbar_y,
 * c = sum y qbar_x, d = sum y qbar_y (A_pq by rows): the closed-form rotation
 * of the polar decomposition, blended with the area-preserving linear mode. */
static m22 cluster_transform(const softbody *sb, int c, double a, double b, double cc, double d)
{
    double co = a + d, si = cc - b;
    double len = sqrt(co * co + si * si);
    m22 T = len > 1e-300 ? m22_rot(co / len, si / len) : m22_identity();
    double beta = sb->def.volume;
    if (beta > 0.0) {
        const double *q = sb->aqq + 4 * c;
        m22 A = m22_mul(m22_make(a, b, cc, d), m22_make(q[0], q[1], q[2], q[3]));
        double det = m22_det(A);
        if (det > 1e-12) {
            m22 L = m22_scale(A, 1.0 / sqrt(det));
            /* an area-preserving L stretches by s and 1/s, |L|^2 = s^2 + 1/s^2;
             * beyond LINEAR_FADE_STRETCH the linear mode fades out, to nothing
             * at twice that |L|^2 */
            const double f0 = LINEAR_FADE_STRETCH * LINEAR_FADE_STRETCH +
                              1.0 / (LINEAR_FADE_STRETCH * LINEAR_FADE_STRETCH);
            double f = L.a * L.a + L.b * L.b + L.c * L.c + L.d * L.d;
            double w = beta;
            if (f > f0)
                w *= fmax(0.0, 1.0 - (f - f0) / f0);
            T = m22_add(m22_scale(T, 1.0 - w), m22_scale(L, w));
        }
    }
    return T;
}

static m22 cluster_fit(const softbody *sb, int c, const double *x, const double *y, double *pcx, double *pcy)
{
    int s = sb->start[c], e = sb->start[c + 1];
    double inv = 1.0 / (e - s);
    /* one pass: the rest offsets sum to zero, so A_pq = sum (p - p_cm) qbar^T = sum p qbar^T */
    double px = 0, py = 0, a = 0, b = 0, cc = 0, d = 0;
    for (int t = s; t < e; t++) {
        double xm = x[sb->member[t]], ym = y[sb->member[t]];
        px += xm;
        py += ym;
        a += xm * sb->rbx[t];
        b += xm * sb->rby[t];
        cc += ym * sb->rbx[t];
        d += ym * sb->rby[t];
    }
    *pcx = px * inv;
    *pcy = py * inv;
    return cluster_transform(sb, c, a, b, cc, d);
}

typedef double sums6[6];

/* h[g] = v[g - 1] + v[g] + v[g + 1] over a grid of cells of 6 sums; the first
 * and last cell are border cells and are left alone. */
typedef double v2d __attribute__((vector_size(16))); /* two doubles as one value (GCC and Clang) */

static void row_sums(const sums6 *v, sums6 *h, size_t cells)
{
    const double *restrict a = v[0];
    double *restrict o = h[0];
    /* two at a time (6 sums a cell, so a pair never straddles two cells), the
     * same additions in the same order */
    for (size_t i = 6; i + 6 < 6 * cells; i += 2) {
        v2d x, y, z;
        memcpy(&x, a + i - 6, sizeof x);
        memcpy(&y, a + i, sizeof y);
        memcpy(&z, a + i + 6, sizeof z);
        v2d r = x + y + z;
        memcpy(o + i, &r, sizeof r);
    }
}

/* The goals of softbody_goals from box sums on the lattice grid: a cluster is
 * the 3 x 3 block of active nodes around its centre, so its sums of x, y and
 * of x q and y q are block sums of per-node values (inactive cells hold 0),
 * A_pq follows from them with sum p qbar = sum p q - (sum p) c for rest centre
 * c, and a node's goal, the mean over the clusters holding it of T (q - c) + p_cm,
 * is a block sum of per-cluster T and p_cm - T c. */
static void goals_grid(const softbody *sb, const double *x, const double *y, double *gx, double *gy)
{
    int W = sb->gw;
    size_t cells = (size_t)sb->gw * sb->gh;
    sums6 *node = (sums6 *)sb->grid, *row = node + cells, *cl = row + cells;
    for (int k = 0; k < sb->n; k++) {
        double *v = node[sb->node_cell[k]];
        v[0] = x[k];
        v[1] = y[k];
        v[2] = x[k] * sb->qx[k];
        v[3] = x[k] * sb->qy[k];
        v[4] = y[k] * sb->qx[k];
        v[5] = y[k] * sb->qy[k];
    }
    row_sums((const sums6 *)node, row, cells);
    for (int c = 0; c < sb->ncl; c++) {
        size_t g = (size_t)sb->cl_cell[c];
        double s[6];
        for (int q = 0; q < 6; q++)
            s[q] = row[g - W][q] + row[g][q] + row[g + W][q];
        double cx = sb->cl_cx[c], cy = sb->cl_cy[c];
        m22 T = cluster_transform(sb, c, s[2] - cx * s[0], s[3] - cy * s[0], s[4] - cx * s[1], s[5] - cy * s[1]);
        double px = s[0] * sb->cl_inv[c], py = s[1] * sb->cl_inv[c];
        double *o = cl[g];
        o[0] = T.a;
        o[1] = T.b;
        o[2] = T.c;
        o[3] = T.d;
        o[4] = px - T.a * cx - T.b * cy;
        o[5] = py - T.c * cx - T.d * cy;
    }
    row_sums((const sums6 *)cl, row, cells);
    for (int k = 0; k < sb->n; k++) {
        if (!(sb->inv_count[k] > 0.0)) {
            gx[k] = x[k];
            gy[k] = y[k];
            continue;
        }
        size_t g = (size_t)sb->node_cell[k];
        double s[6];
        for (int q = 0; q < 6; q++)
            s[q] = row[g - W][q] + row[g][q] + row[g + W][q];
        gx[k] = sb->inv_count[k] * (s[0] * sb->qx[k] + s[1] * sb->qy[k] + s[4]);
        gy[k] = sb->inv_count[k] * (s[2] * sb->qx[k] + s[3] * sb->qy[k] + s[5]);
    }
}

/* Goals of all nodes; *pot (when not NULL) gets the summed squared distance of
 * every cluster member from its cluster's goal. */
static void goals_and_residual(const softbody *sb, const double *x, const double *y, double *gx, double *gy,
                               double *pot)
{
    if (!pot) {
        goals_grid(sb, x, y, gx, gy);
        return;
    }
    int n = sb->n;
    double res = 0;
    memset(gx, 0, (size_t)n * sizeof *gx);
    memset(gy, 0, (size_t)n * sizeof *gy);
    for (int c = 0; c < sb->ncl; c++) {
        double px, py;
        m22 T = cluster_fit(sb, c, x, y, &px, &py);
        for (int t = sb->start[c]; t < sb->start[c + 1]; t++) {
            int k = sb->member[t];
            double ggx = T.a * sb->rbx[t] + T.b * sb->rby[t] + px;
            double ggy = T.c * sb->rbx[t] + T.d * sb->rby[t] + py;
            gx[k] += ggx;
            gy[k] += ggy;
            if (pot)
                res += (x[k] - ggx) * (x[k] - ggx) + (y[k] - ggy) * (y[k] - ggy);
        }
    }
    if (pot)
        *pot = res;
    for (int k = 0; k < n; k++) {
        if (sb->inv_count[k] > 0.0) {
            gx[k] *= sb->inv_count[k];
            gy[k] *= sb->inv_count[k];
        } else {
            gx[k] = x[k];
            gy[k] = y[k];
        }
    }
}

void softbody_goals(const softbody *sb, const double *x, const double *y, double *gx, double *gy)
{
    goals_and_residual(sb, x, y, gx, gy, NULL);
}

void softbody_goals_by_members(const softbody *sb, const double *x, const double *y, double *gx, double *gy)
{
    double pot;
    goals_and_residual(sb, x, y, gx, gy, &pot);
}

softbody_nodes softbody_view(softbody *sb)
{
    softbody_nodes v = { sb->n, sb->x, sb->y, sb->vx, sb->vy, sb->qx, sb->qy, sb->pinx, sb->piny, sb->pinned };
    return v;
}

int softbody_count(const softbody *sb) { return sb->n; }

void softbody_positions(const softbody *sb, double *x, double *y)
{
    memcpy(x, sb->x, (size_t)sb->n * sizeof *x);
    memcpy(y, sb->y, (size_t)sb->n * sizeof *y);
}
const softbody_def *softbody_get_def(const softbody *sb) { return &sb->def; }
int softbody_steps(const softbody *sb) { return sb->steps; }
double softbody_dt(const softbody *sb) { return sb->dt; }
double softbody_stiffness(const softbody *sb) { return sb->alpha; }
double softbody_step_damping(const softbody *sb) { return sb->cdamp; }
double softbody_lambda(const softbody *sb) { return sb->lambda; }
int softbody_pinned_count(const softbody *sb) { return sb->pinned_count; }

void softbody_set_pinned(softbody *sb, int k, int on)
{
    on = on != 0;
    if (k < 0 || k >= sb->n || sb->pinned[k] == on)
        return;
    sb->pinned[k] = (unsigned char)on;
    sb->pinned_count += on ? 1 : -1;
    sb->pinx[k] = sb->x[k];
    sb->piny[k] = sb->y[k];
}

void softbody_set_gravity(softbody *sb, double gx, double gy)
{
    sb->gravity_x = gx;
    sb->gravity_y = gy;
}

void softbody_set_force(softbody *sb, softbody_force_fn fn, void *user)
{
    sb->force = fn;
    sb->user = user;
}

void softbody_set_collide(softbody *sb, softbody_collide_fn fn, void *user)
{
    sb->collide = fn;
    sb->user = user;
}

void softbody_cap_energy(softbody *sb) { sb->energy_cap = softbody_energy(sb); }

void softbody_limit_steps(softbody *sb, int max_steps)
{
    if (max_steps < 1 || sb->steps <= max_steps)
        return;
    sb->steps = max_steps;
    sb->dt = sb->frame_dt / sb->steps;
    sb->alpha = 1.0;
    sb->cdamp = 1.0 - exp(-2.0 * sb->def.damping * 2.0 * PI * sb->def.hz * sb->dt);
}

static double kinetic(const softbody *sb)
{
    double kin = 0;
    for (int k = 0; k < sb->n; k++)
        if (sb->inv_count[k] > 0.0)
            kin += 0.5 / sb->inv_count[k] * (sb->vx[k] * sb->vx[k] + sb->vy[k] * sb->vy[k]);
    return kin;
}

/* The pressure's potential: pressure alpha / (2 dt^2 |grad A|^2) (A - A0)^2, whose
 * gradient step is what keep_area applies. */
static double area_potential(const softbody *sb)
{
    if (sb->def.pressure <= 0.0 || sb->ncell == 0)
        return 0.0;
    double area = body_area(sb, sb->x, sb->y, sb->agx, sb->agy), g2 = 0.0;
    for (int k = 0; k < sb->n; k++)
        if (!sb->pinned[k])
            g2 += sb->agx[k] * sb->agx[k] + sb->agy[k] * sb->agy[k];
    if (!(g2 > 1e-12))
        return 0.0;
    return 0.5 * sb->def.pressure * sb->alpha / (sb->dt * sb->dt) * (area - sb->area0) * (area - sb->area0) / g2;
}

double softbody_energy(const softbody *sb)
{
    double pot;
    goals_and_residual(sb, sb->x, sb->y, sb->gx, sb->gy, &pot);
    return kinetic(sb) + 0.5 * sb->alpha / (sb->dt * sb->dt) * pot + area_potential(sb);
}

void softbody_damp_nonrigid(const double *x, const double *y, double *vx, double *vy, int n, double k)
{
    if (n <= 0 || k <= 0.0)
        return;
    double cx = 0, cy = 0, ux = 0, uy = 0;
    for (int i = 0; i < n; i++) {
        cx += x[i];
        cy += y[i];
        ux += vx[i];
        uy += vy[i];
    }
    cx /= n;
    cy /= n;
    ux /= n;
    uy /= n;
    double L = 0, I = 0;
    for (int i = 0; i < n; i++) {
        double rx = x[i] - cx, ry = y[i] - cy;
        L += rx * vy[i] - ry * vx[i];
        I += rx * rx + ry * ry;
    }
    double w = I > 1e-300 ? L / I : 0.0;
    for (int i = 0; i < n; i++) {
        double rx = x[i] - cx, ry = y[i] - cy;
        double rigx = ux - w * ry, rigy = uy + w * rx;
        vx[i] += k * (rigx - vx[i]);
        vy[i] += k * (rigy - vy[i]);
    }
}

static void project_outline(softbody *sb)
{
    double k = sb->def.outline;
    if (k <= 0.0 || sb->nout == 0)
        return;
    double idt = 1.0 / sb->dt;
    for (int s = 0; s < sb->nout; s++) {
        int a = sb->out_a[s], b = sb->out_b[s];
        double wa = sb->pinned[a] ? 0.0 : 1.0, wb = sb->pinned[b] ? 0.0 : 1.0;
        if (wa + wb == 0.0)
            continue;
        double dx = sb->x[b] - sb->x[a], dy = sb->y[b] - sb->y[a];
        double len = sqrt(dx * dx + dy * dy);
        if (len < 1e-12)
            continue;
        double corr = k * (len - sb->out_len[s]) / (len * (wa + wb));
        double cx = dx * corr, cy = dy * corr;
        sb->x[a] += wa * cx;
        sb->y[a] += wa * cy;
        sb->x[b] -= wb * cx;
        sb->y[b] -= wb * cy;
        sb->vx[a] += wa * cx * idt;
        sb->vy[a] += wa * cy * idt;
        sb->vx[b] -= wb * cx * idt;
        sb->vy[b] -= wb * cy * idt;
    }
}

/* Keeps every drawn cell from folding: at each corner (a, b, d) the turn
 * (b - a) x (d - b), h^2 at rest, stays at least turn_min. A corner below it
 * has its three nodes moved along the turn's gradient until it is back (a
 * position-based inequality constraint, pinned nodes held), and their
 * velocities follow the move. Up to 16 sweeps; inactive while no cell comes
 * near folding, so the calibrated wobble is untouched. */
/* 1 when some corner of a drawn cell turns less than turn_min. */
static int any_cell_near_folding(const softbody *sb)
{
    const double *x = sb->x, *y = sb->y;
    for (int c = 0; c < sb->ncell; c++) {
        const int *q = sb->cell + 4 * c;
        double x0 = x[q[0]], y0 = y[q[0]], x1 = x[q[1]], y1 = y[q[1]];
        double x2 = x[q[2]], y2 = y[q[2]], x3 = x[q[3]], y3 = y[q[3]];
        /* the turns at corners 1, 2, 3 and 0 */
        double t1 = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1);
        double t2 = (x2 - x1) * (y3 - y2) - (y2 - y1) * (x3 - x2);
        double t3 = (x3 - x2) * (y0 - y3) - (y3 - y2) * (x0 - x3);
        double t0 = (x0 - x3) * (y1 - y0) - (y0 - y3) * (x1 - x0);
        if (t0 < sb->turn_min || t1 < sb->turn_min || t2 < sb->turn_min || t3 < sb->turn_min)
            return 1;
    }
    return 0;
}

static void keep_cells_turning(softbody *sb)
{
    double idt = 1.0 / sb->dt, *x = sb->x, *y = sb->y;
    /* corrections summed per node and applied together (Jacobi), so the
     * result does not depend on the order of the cells: the scratch of the
     * goals and of the area's gradient holds them, both free here */
    double *mx = sb->gx, *my = sb->gy, *cnt = sb->agx;
    if (!any_cell_near_folding(sb))
        return;
    for (int sweep = 0; sweep < 64; sweep++) {
        int moved = 0;
        memset(mx, 0, (size_t)sb->n * sizeof *mx);
        memset(my, 0, (size_t)sb->n * sizeof *my);
        memset(cnt, 0, (size_t)sb->n * sizeof *cnt);
        for (int c = 0; c < sb->ncell; c++) {
            const int *q = sb->cell + 4 * c;
            for (int i = 0; i < 4; i++) {
                int a = q[i], b = q[(i + 1) & 3], d = q[(i + 2) & 3];
                double ux = x[b] - x[a], uy = y[b] - y[a], vx = x[d] - x[b], vy = y[d] - y[b];
                double turn = ux * vy - uy * vx;
                if (turn >= sb->turn_min)
                    continue;
                double wa = sb->pinned[a] ? 0.0 : 1.0, wb = sb->pinned[b] ? 0.0 : 1.0, wd = sb->pinned[d] ? 0.0 : 1.0;
                double gax = -vy, gay = vx, gdx = -uy, gdy = ux, gbx = vy + uy, gby = -vx - ux;
                double norm = wa * (gax * gax + gay * gay) + wb * (gbx * gbx + gby * gby) + wd * (gdx * gdx + gdy * gdy);
                if (!(norm > 1e-12))
                    continue;
                double lam = (sb->turn_min - turn) / norm;
                mx[a] += wa * lam * gax, my[a] += wa * lam * gay, cnt[a] += wa;
                mx[b] += wb * lam * gbx, my[b] += wb * lam * gby, cnt[b] += wb;
                mx[d] += wd * lam * gdx, my[d] += wd * lam * gdy, cnt[d] += wd;
                moved = 1;
            }
        }
        if (!moved)
            break;
        for (int k = 0; k < sb->n; k++)
            if (cnt[k] > 0.0) {
                double px = mx[k] / cnt[k], py = my[k] / cnt[k];
                x[k] += px;
                y[k] += py;
                sb->vx[k] += px * idt;
                sb->vy[k] += py * idt;
            }
    }
}

/* The area of the cells for positions (x, y), each weighed by w (NULL: the
 * whole cells, the area inside their outline); with gx, gy not NULL also its
 * gradient with respect to every node. */
static double cells_area(const softbody *sb, const double *w, const double *x, const double *y, double *gx,
                         double *gy)
{
    double area = 0.0;
    if (gx) {
        memset(gx, 0, (size_t)sb->n * sizeof *gx);
        memset(gy, 0, (size_t)sb->n * sizeof *gy);
    }
    if (!w) {
        /* the shared sides cancel: the outline alone */
        for (int e = 0; e < sb->nedge; e++) {
            int a = sb->edge[2 * e], b = sb->edge[2 * e + 1];
            area += 0.5 * (x[a] * y[b] - x[b] * y[a]);
            if (gx) {
                gx[a] += 0.5 * y[b];
                gy[a] -= 0.5 * x[b];
                gx[b] -= 0.5 * y[a];
                gy[b] += 0.5 * x[a];
            }
        }
        return area;
    }
    for (int c = 0; c < sb->ncell; c++) {
        double wc = w[c];
        if (!(wc > 0.0))
            continue;
        const int *q = sb->cell + 4 * c;
        double a = 0.0;
        for (int i = 0; i < 4; i++) {
            int p = q[i], r = q[(i + 1) & 3];
            a += x[p] * y[r] - x[r] * y[p];
            if (gx) {
                gx[p] += 0.5 * wc * y[r];
                gy[p] -= 0.5 * wc * x[r];
                gx[r] -= 0.5 * wc * y[p];
                gy[r] += 0.5 * wc * x[p];
            }
        }
        area += 0.5 * wc * a;
    }
    return area;
}

/* The body's area for positions (x, y), the one the pressure keeps: the area
 * of its whole cells (inside their outline), or with picture_area each cell's
 * area weighed by how much of it the picture fills at rest (cell_w), close to
 * what a frame shows as opaque when each cell's picture stretches with it.
 * The cells' plain area was kept while the picture's was not: a finger dented
 * the full cells and the cells of the antialiased rim swelled instead, and a
 * poked balloon showed 11 % less opaque area at the same cell area. With gx,
 * gy not NULL also its gradient with respect to every node. */
static double body_area(const softbody *sb, const double *x, const double *y, double *gx, double *gy)
{
    return cells_area(sb, sb->picture_area ? sb->cell_w : NULL, x, y, gx, gy);
}

/* Gives back a share of the area the body has lost or gained, by pushing the
 * free nodes along the area's gradient (a pressure on the outline; with the
 * picture's area also on the nodes between fuller and emptier cells); the
 * share per step is the pressure's gain times the pressure times the goals'
 * stiffness. */
static void keep_area(softbody *sb)
{
    if (sb->def.pressure <= 0.0 || sb->ncell == 0 || !(sb->area0 > 0.0))
        return;
    double area = body_area(sb, sb->x, sb->y, sb->agx, sb->agy);
    double g2 = 0.0;
    for (int k = 0; k < sb->n; k++)
        if (!sb->pinned[k])
            g2 += sb->agx[k] * sb->agx[k] + sb->agy[k] * sb->agy[k];
    if (!(g2 > 1e-12))
        return;
    /* a pull like the goals' (alpha / dt of the distance, before damping), so
     * calibration and damping treat it as part of the stiffness */
    double lam = sb->pressure_gain * sb->def.pressure * sb->alpha * (sb->area0 - area) / g2 / sb->dt;
    for (int k = 0; k < sb->n; k++)
        if (!sb->pinned[k]) {
            sb->vx[k] += lam * sb->agx[k];
            sb->vy[k] += lam * sb->agy[k];
        }
}

/* The band on the picture's area: each cell weighed by the share the picture
 * fills at rest, what a frame shows as opaque, kept within PICTURE_BAND of
 * rest. Past it, the nodes it may move go along the area's gradient back to
 * the band's edge (a position-based inequality constraint, like
 * keep_cells_turning); inside it nothing moves, so the calibrated wobble is
 * untouched. The pressure is a spring and lets the area swing: at the top of
 * the ranges with --volume 0.8 a squashed handshake 1faf1-... showed 10.6 %
 * less opaque area at the peak, its palms squeezing after the pressure had
 * pushed back, a poked balloon 1f388 6.8 % and a flag 1f6a9 poked on a free
 * body 9.5 %; with the band 4.2 %, 3.8 % and 3.0 %. A band of 3 % instead
 * moved a patted bar's far side with its dent (dent ratio 3.01 to 2.95).
 * It lets be when the nodes it may move carry less than BAND_FREE_SHARE of
 * the gradient, and moves none more than BAND_STEP_MAX of the lattice's
 * spacing per step: a keycap squashed inside the canvas's walls, its few
 * free nodes pushed to make up the whole area, burst. */
#define PICTURE_BAND 0.035
#define BAND_FREE_SHARE 0.1
#define BAND_STEP_MAX 0.25

/* Whether the body keeps the band: it has a pressure and a picture. */
static int has_band(const softbody *sb) { return sb->def.pressure > 0.0 && sb->picture0 > 0.0; }

/* Whether the band may move node k: sel marks it (NULL: it is free and no
 * collision moved it). */
static int band_moves(const softbody *sb, const unsigned char *sel, int k)
{
    return sel ? sel[k] : !sb->pinned[k] && !sb->touched[k];
}

/* The band's work on positions (x, y): moves the nodes sel marks (NULL: the
 * free ones no collision moved) and, when vx is not NULL, their velocities
 * with them; 1 when it moved them. */
static int picture_band(softbody *sb, double *x, double *y, double *vx, double *vy, const unsigned char *sel)
{
    double idt = 1.0 / sb->dt, lo = sb->picture0 * (1.0 - PICTURE_BAND), hi = sb->picture0 * (1.0 + PICTURE_BAND);
    double area = cells_area(sb, sb->cell_fill, x, y, NULL, NULL); /* without the gradient: mostly in the band */
    if (area >= lo && area <= hi)
        return 0;
    for (int pass = 0; pass < 4; pass++) { /* the area is quadratic in the positions */
        area = cells_area(sb, sb->cell_fill, x, y, sb->agx, sb->agy);
        double miss = area < lo ? lo - area : area > hi ? hi - area : 0.0;
        if (miss == 0.0)
            return 1;
        double g2 = 0.0, all = 0.0, most = 0.0;
        for (int k = 0; k < sb->n; k++) {
            double gk = sb->agx[k] * sb->agx[k] + sb->agy[k] * sb->agy[k];
            all += gk;
            if (band_moves(sb, sel, k)) {
                g2 += gk;
                most = fmax(most, gk);
            }
        }
        if (!(g2 > 1e-12) || g2 < BAND_FREE_SHARE * all)
            return pass > 0;
        double lam = miss / g2, step = fabs(lam) * sqrt(most), cap = BAND_STEP_MAX * sb->spacing;
        if (step > cap)
            lam *= cap / step;
        for (int k = 0; k < sb->n; k++)
            if (band_moves(sb, sel, k)) {
                double px = lam * sb->agx[k], py = lam * sb->agy[k];
                x[k] += px;
                y[k] += py;
                if (vx) {
                    vx[k] += px * idt;
                    vy[k] += py * idt;
                }
            }
    }
    return 1;
}

/* The band on the body after a step: the free nodes no collision moved, their
 * velocities following. */
static int keep_picture_band(softbody *sb)
{
    if (!has_band(sb))
        return 0;
    return picture_band(sb, sb->x, sb->y, sb->vx, sb->vy, NULL);
}

void softbody_band_pins(softbody *sb, const int *nodes, int count)
{
    if (!has_band(sb))
        return;
    memset(sb->sel, 0, (size_t)sb->n);
    for (int i = 0; i < count; i++)
        if (nodes[i] >= 0 && nodes[i] < sb->n && sb->pinned[nodes[i]])
            sb->sel[nodes[i]] = 1;
    for (int k = 0; k < sb->n; k++) {
        sb->bx[k] = sb->pinned[k] ? sb->pinx[k] : sb->x[k];
        sb->by[k] = sb->pinned[k] ? sb->piny[k] : sb->y[k];
    }
    picture_band(sb, sb->bx, sb->by, NULL, NULL, sb->sel);
    for (int k = 0; k < sb->n; k++)
        if (sb->sel[k]) {
            sb->pinx[k] = sb->bx[k];
            sb->piny[k] = sb->by[k];
        }
}

void softbody_step(softbody *sb)
{
    int n = sb->n;
    double dt = sb->dt;
    double pot;
    goals_and_residual(sb, sb->x, sb->y, sb->gx, sb->gy, sb->energy_cap > 0.0 ? &pot : NULL);
    if (sb->energy_cap > 0.0) {
        double kin = kinetic(sb), e = kin + 0.5 * sb->alpha / (dt * dt) * pot + area_potential(sb);
        if (e > sb->energy_cap) {
            double keep = kin > 0 ? sqrt(fmax(0.0, kin - (e - sb->energy_cap)) / kin) : 0.0;
            for (int k = 0; k < n; k++) {
                sb->vx[k] *= keep;
                sb->vy[k] *= keep;
            }
        }
    }
    for (int k = 0; k < n; k++) {
        sb->ax[k] = sb->gravity_x;
        sb->ay[k] = sb->gravity_y;
    }
    if (sb->force)
        sb->force(sb->user, sb->time, sb->x, sb->y, sb->ax, sb->ay, n);
    double ks = sb->alpha / dt;
    for (int k = 0; k < n; k++) {
        if (sb->pinned[k])
            continue;
        sb->vx[k] += ks * (sb->gx[k] - sb->x[k]) + sb->ax[k] * dt;
        sb->vy[k] += ks * (sb->gy[k] - sb->y[k]) + sb->ay[k] * dt;
    }
    keep_area(sb);
    if (sb->pinned_count == 0 && !sb->contact) {
        /* in free flight only the wobble is damped, not the flight itself */
        softbody_damp_nonrigid(sb->x, sb->y, sb->vx, sb->vy, n, sb->cdamp);
    } else {
        double keep = 1.0 - sb->cdamp;
        for (int k = 0; k < n; k++) {
            sb->vx[k] *= keep;
            sb->vy[k] *= keep;
        }
    }
    if (sb->def.drag > 0.0) {
        double keep = exp(-sb->def.drag * dt);
        for (int k = 0; k < n; k++) {
            sb->vx[k] *= keep;
            sb->vy[k] *= keep;
        }
    }
    for (int k = 0; k < n; k++) {
        if (sb->pinned[k]) {
            sb->vx[k] = (sb->pinx[k] - sb->x[k]) / dt;
            sb->vy[k] = (sb->piny[k] - sb->y[k]) / dt;
            sb->x[k] = sb->pinx[k];
            sb->y[k] = sb->piny[k];
        } else {
            sb->x[k] += sb->vx[k] * dt;
            sb->y[k] += sb->vy[k] * dt;
        }
    }
    project_outline(sb);
    sb->contact = 0;
    memset(sb->touched, 0, (size_t)n);
    if (sb->collide) {
        memcpy(sb->gx, sb->x, (size_t)n * sizeof *sb->gx);
        memcpy(sb->gy, sb->y, (size_t)n * sizeof *sb->gy);
        sb->collide(sb->user, sb->x, sb->y, sb->vx, sb->vy, n);
        for (int k = 0; k < n; k++)
            if (sb->x[k] != sb->gx[k] || sb->y[k] != sb->gy[k])
                sb->contact = sb->touched[k] = 1;
    }
    keep_cells_turning(sb);
    /* the band after the cells' turns, or they undid it (the handshake's
     * picture 7.9 % off under the palm), and the turns again, as the band can
     * fold a cell (the balloon poked at 0.3 with --volume 0) */
    if (keep_picture_band(sb))
        keep_cells_turning(sb);
    sb->time += dt;
}

void softbody_reset(softbody *sb)
{
    size_t bytes = (size_t)sb->n * sizeof(double);
    memcpy(sb->x, sb->qx, bytes);
    memcpy(sb->y, sb->qy, bytes);
    memcpy(sb->pinx, sb->qx, bytes);
    memcpy(sb->piny, sb->qy, bytes);
    memset(sb->vx, 0, bytes);
    memset(sb->vy, 0, bytes);
    sb->time = 0.0;
    sb->contact = 0;
    sb->pressure_gain = 1.0;
    sb->energy_cap = 0.0;
}

void softbody_keep_picture_area(softbody *sb, double floor)
{
    sb->picture_area = floor > 0.0;
    for (int c = 0; c < sb->ncell; c++)
        sb->cell_w[c] = fmax(fmin(floor, 1.0), sb->cell_fill[c]);
    sb->area0 = body_area(sb, sb->qx, sb->qy, NULL, NULL);
}

void softbody_set_pressure_gain(softbody *sb, double gain)
{
    sb->pressure_gain = gain < 1.0 ? 1.0 : gain > SOFTBODY_PRESSURE_GAIN_MAX ? SOFTBODY_PRESSURE_GAIN_MAX : gain;
}

double softbody_time(const softbody *sb) { return sb->time; }

void softbody_unpin_all(softbody *sb)
{
    memset(sb->pinned, 0, (size_t)sb->n);
    sb->pinned_count = 0;
}

void softbody_step_frame(softbody *sb)
{
    for (int s = 0; s < sb->steps; s++)
        softbody_step(sb);
}

/* ---- calibration: Lanczos on the linearised goal operator K = d(x - g)/dx ---- */

/* Jacobi eigen-decomposition of a symmetric m x m matrix a (destroyed); the
 * eigenvalues go to w, the eigenvectors to the columns of v. */
static void jacobi_eigen(double *a, int m, double *w, double *v)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            v[i * m + j] = i == j;
    double norm = 0;
    for (int i = 0; i < m * m; i++)
        norm += a[i] * a[i];
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0;
        for (int i = 0; i < m; i++)
            for (int j = i + 1; j < m; j++)
                off += a[i * m + j] * a[i * m + j];
        if (off <= 1e-28 * norm)
            break;
        for (int p = 0; p < m; p++)
            for (int q = p + 1; q < m; q++) {
                double apq = a[p * m + q];
                if (fabs(apq) < 1e-300)
                    continue;
                double theta = (a[q * m + q] - a[p * m + p]) / (2 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < m; k++) {
                    double akp = a[k * m + p], akq = a[k * m + q];
                    a[k * m + p] = c * akp - s * akq;
                    a[k * m + q] = s * akp + c * akq;
                }
                for (int k = 0; k < m; k++) {
                    double apk = a[p * m + k], aqk = a[q * m + k];
                    a[p * m + k] = c * apk - s * aqk;
                    a[q * m + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < m; k++) {
                    double vkp = v[k * m + p], vkq = v[k * m + q];
                    v[k * m + p] = c * vkp - s * vkq;
                    v[k * m + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < m; i++)
        w[i] = a[i * m + i];
}

/* out = K d for the free nodes (d holds x parts then y parts). */
static void apply_k(softbody *sb, const double *d, double *out, double *xs, double *ys)
{
    int n = sb->n;
    double mx = 0;
    for (int i = 0; i < 2 * n; i++)
        if (fabs(d[i]) > mx)
            mx = fabs(d[i]);
    if (mx == 0) {
        memset(out, 0, 2 * (size_t)n * sizeof *out);
        return;
    }
    double eps = 1e-5 / mx;
    for (int k = 0; k < n; k++) {
        xs[k] = sb->qx[k] + (sb->pinned[k] ? 0.0 : eps * d[k]);
        ys[k] = sb->qy[k] + (sb->pinned[k] ? 0.0 : eps * d[n + k]);
    }
    softbody_goals(sb, xs, ys, sb->gx, sb->gy);
    for (int k = 0; k < n; k++) {
        out[k] = sb->pinned[k] ? 0.0 : (xs[k] - sb->gx[k]) / eps;
        out[n + k] = sb->pinned[k] ? 0.0 : (ys[k] - sb->gy[k]) / eps;
    }
    if (sb->def.pressure > 0.0 && sb->ncell > 0) {
        /* the pressure's part: the area's gradient at rest times the change of area d makes */
        body_area(sb, sb->qx, sb->qy, sb->agx, sb->agy);
        double g2 = 0.0, dot = 0.0;
        for (int k = 0; k < n; k++)
            if (!sb->pinned[k]) {
                g2 += sb->agx[k] * sb->agx[k] + sb->agy[k] * sb->agy[k];
                dot += sb->agx[k] * d[k] + sb->agy[k] * d[n + k];
            }
        double c = g2 > 1e-12 ? sb->def.pressure * dot / g2 : 0.0;
        for (int k = 0; k < n; k++)
            if (!sb->pinned[k]) {
                out[k] += c * sb->agx[k];
                out[n + k] += c * sb->agy[k];
            }
    }
}

/* Takes out of v (x parts then y parts) its rigid motion in the D inner
 * product (weights wt): the two translations and the turn about the
 * weighted centre, each a zero mode of a body that nothing pins. Their
 * eigenvalues are zero only to the finite difference's precision (a turn
 * made by a straight step also stretches, by the step's share), 1e-6 to
 * 1e-4 of the largest: kept in the Krylov space, such a mode passed for the
 * softest wobble. A keycap twisted on a free body took 2.2e-5 for its
 * wobble's eigenvalue instead of 0.030: 1300 times too stiff, it took 161
 * steps a frame instead of 5 and, let go, sprang back within one frame. */
static void remove_rigid(const softbody *sb, const double *wt, double *v)
{
    int n = sb->n;
    double w = 0.0, cx = 0.0, cy = 0.0;
    for (int k = 0; k < n; k++)
        w += wt[k], cx += wt[k] * sb->qx[k], cy += wt[k] * sb->qy[k];
    if (!(w > 0.0))
        return;
    cx /= w, cy /= w;
    double tx = 0.0, ty = 0.0, turn = 0.0, r2 = 0.0;
    for (int k = 0; k < n; k++) {
        double rx = -(sb->qy[k] - cy), ry = sb->qx[k] - cx;
        tx += wt[k] * v[k], ty += wt[k] * v[n + k];
        turn += wt[k] * (rx * v[k] + ry * v[n + k]);
        r2 += wt[k] * (rx * rx + ry * ry);
    }
    tx /= w, ty /= w, turn = r2 > 0.0 ? turn / r2 : 0.0;
    for (int k = 0; k < n; k++)
        if (wt[k] > 0.0) {
            v[k] -= tx - turn * (sb->qy[k] - cy);
            v[n + k] -= ty + turn * (sb->qx[k] - cx);
        }
}

/* The D inner product of a and b over dof entries (weights wt). */
static double wdot(const double *wt, const double *a, const double *b, int dof)
{
    double s = 0;
    for (int i = 0; i < dof; i++)
        s += wt[i] * a[i] * b[i];
    return s;
}

/* Lanczos on K from the kick's shape (px, py), in the D inner product
 * (weights wt) with full re-orthogonalisation: at most mmax steps, the
 * tridiagonal's diagonal in alpha and off-diagonal in beta; returns the steps
 * taken, 0 when the kick moves no free node. V holds (mmax + 1) vectors of
 * 2n, wv one, xs and ys n each. */
static int lanczos(softbody *sb, const double *px, const double *py, int mmax, double *V, double *wv, const double *wt,
                   double *xs, double *ys, double *alpha, double *beta)
{
    int n = sb->n, dof = 2 * n;
    for (int k = 0; k < n; k++) {
        V[k] = sb->pinned[k] ? 0.0 : px[k];
        V[n + k] = sb->pinned[k] ? 0.0 : py[k];
    }
    double nrm = wdot(wt, V, V, dof);
    /* on a free body, the kick's wobble without its rigid motion; a kick
     * that is nothing but rigid motion has no wobble of its own and is
     * taken whole */
    int free_body = 0;
    if (sb->pinned_count == 0) {
        memcpy(wv, V, (size_t)dof * sizeof *wv);
        remove_rigid(sb, wt, wv);
        double left = wdot(wt, wv, wv, dof);
        if (left > 1e-12 * nrm) {
            memcpy(V, wv, (size_t)dof * sizeof *V);
            nrm = left;
            free_body = 1;
        }
    }
    if (!(nrm > 0))
        return 0;
    nrm = sqrt(nrm);
    for (int i = 0; i < dof; i++)
        V[i] /= nrm;
    int m = 0;
    for (int j = 0; j < mmax; j++) {
        double *vj = V + (size_t)j * dof;
        apply_k(sb, vj, wv, xs, ys);
        alpha[j] = wdot(wt, wv, vj, dof);
        m = j + 1;
        /* full re-orthogonalisation against every earlier vector */
        for (int r = 0; r <= j; r++) {
            double *vr = V + (size_t)r * dof;
            double h = wdot(wt, wv, vr, dof);
            for (int i = 0; i < dof; i++)
                wv[i] -= h * vr[i];
        }
        if (free_body)
            remove_rigid(sb, wt, wv);
        double b = sqrt(wdot(wt, wv, wv, dof));
        if (j + 1 == mmax || b < 1e-10)
            break;
        beta[j] = b;
        double *vn = V + (size_t)(j + 1) * dof;
        for (int i = 0; i < dof; i++)
            vn[i] = wv[i] / b;
    }
    return m;
}

/* Of the Ritz values of the m x m tridiagonal (alpha, beta), the one whose
 * vector the kick excites most per unit of frequency, rigid motions left out.
 * T (zeroed), E: m x m scratch; ev: m. */
static double main_ritz(int m, const double *alpha, const double *beta, double *T, double *E, double *ev)
{
    for (int i = 0; i < m; i++) {
        T[i * m + i] = alpha[i];
        if (i + 1 < m)
            T[i * m + i + 1] = T[(i + 1) * m + i] = beta[i];
    }
    jacobi_eigen(T, m, ev, E);
    double top = 0;
    for (int i = 0; i < m; i++)
        if (ev[i] > top)
            top = ev[i];
    double best = -1, result = 0.0;
    for (int i = 0; i < m; i++) {
        if (!(ev[i] > 1e-6 * top))
            continue; /* rigid motion of a free body: no wobble */
        double w = E[i] * E[i]; /* first component of the Ritz vector */
        double score = w / sqrt(ev[i]);
        if (score > best) {
            best = score;
            result = ev[i];
        }
    }
    return result;
}

double softbody_main_lambda(softbody *sb, const double *px, const double *py)
{
    int n = sb->n, dof = 2 * n;
    int mmax = 24 < dof ? 24 : dof;
    double *V = malloc((size_t)(mmax + 1) * dof * sizeof *V);
    double *wv = malloc((size_t)dof * sizeof *wv);
    double *wt = calloc((size_t)dof, sizeof *wt);
    double *xs = malloc((size_t)n * sizeof *xs), *ys = malloc((size_t)n * sizeof *ys);
    double *T = calloc((size_t)mmax * mmax, sizeof *T), *E = malloc((size_t)mmax * mmax * sizeof *E);
    double *ev = malloc((size_t)mmax * sizeof *ev);
    double alpha_j[64], beta_j[64];
    double result = 0.0;
    if (V && wv && wt && xs && ys && T && E && ev) {
        /* D inner product: weight of a node = the number of clusters holding it */
        for (int k = 0; k < n; k++)
            wt[k] = wt[n + k] = (sb->inv_count[k] > 0 && !sb->pinned[k]) ? 1.0 / sb->inv_count[k] : 0.0;
        int m = lanczos(sb, px, py, mmax, V, wv, wt, xs, ys, alpha_j, beta_j);
        if (m > 0)
            result = main_ritz(m, alpha_j, beta_j, T, E, ev);
    }
    free(V);
    free(wv);
    free(wt);
    free(xs);
    free(ys);
    free(T);
    free(E);
    free(ev);
    return result;
}

poyo_status softbody_calibrate(softbody *sb, const double *px, const double *py, double fps, poyo_error *err)
{
    if (!(fps > 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "frame rate must be positive");
    return softbody_calibrate_lambda(sb, softbody_main_lambda(sb, px, py), fps, err);
}

poyo_status softbody_calibrate_lambda(softbody *sb, double lambda, double fps, poyo_error *err)
{
    if (!(fps > 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "frame rate must be positive");
    if (!(lambda > 0.0))
        return poyo_fail(err, POYO_ERR_INPUT, "the shape has no free part that can wobble");
    sb->lambda = lambda;
    sb->frame_dt = 1.0 / fps;
    double zeta = sb->def.damping, wn = 2.0 * PI * sb->def.hz;
    int max_steps = (int)ceil(SOFTBODY_MAX_STEPS_PER_SECOND * sb->frame_dt);
    if (max_steps < sb->def.substeps)
        max_steps = sb->def.substeps;
    for (int steps = sb->def.substeps; steps <= max_steps; steps++) {
        double dt = sb->frame_dt / steps;
        double r = exp(-zeta * wn * dt);
        double one_minus_r = -expm1(-zeta * wn * dt);
        double c = -expm1(-2.0 * zeta * wn * dt);
        double half = zeta < 1.0 ? 0.5 * wn * sqrt(1.0 - zeta * zeta) * dt : 0.0;
        /* eigenvalues r e^(+-i theta) of one step on a mode of stiffness lambda:
         * det = 1 - c = r^2 and trace = 2 - c - (1 - c) alpha lambda, so
         * alpha lambda = (1 + r^2 - 2 r cos theta) / r^2, written without cancellation */
        double a = (one_minus_r * one_minus_r + 4.0 * r * sin(half) * sin(half)) / (r * r);
        double alpha = a / lambda;
        sb->steps = steps;
        sb->dt = dt;
        sb->cdamp = c;
        sb->alpha = alpha;
        /* at least four steps per period (no aliasing) and the paper's alpha <= 1 */
        if (alpha <= 1.0 && wn * dt <= 0.5 * PI)
            break;
    }
    if (sb->alpha > 1.0)
        sb->alpha = 1.0;
    return POYO_OK;
}
