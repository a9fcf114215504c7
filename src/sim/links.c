/* links.c - soft links between neighbouring bodies: each link a damped spring
 * between the weighted centres of two patches of nodes, one on each body,
 * holding them at their rest offset (a spring on the offset vector, so it
 * resists a shear and a squeeze as much as a stretch). The pull is spread
 * over a patch with Gaussian weights, so a body is led by its near side
 * rather than yanked by one node. */
#include "links.h"

#include "geom/vec2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The visible box of a lattice: x0, y0, x1, y1. */
static void box_of(const lattice *l, double b[4])
{
    b[0] = l->bx0;
    b[1] = l->by0;
    b[2] = l->bx1;
    b[3] = l->by1;
}

static double longer_side(const double b[4]) { return fmax(b[2] - b[0], b[3] - b[1]); }

/* The points where boxes a and b are linked: on the middle line of the gap
 * between them, spread over the span where they face each other (or between
 * their centres where they do not). Returns 0 when they are too far apart. */
static int link_points(const double a[4], const double b[4], double px[LINKS_PER_PAIR], double py[LINKS_PER_PAIR])
{
    double gx = fmax(0.0, fmax(b[0] - a[2], a[0] - b[2])), gy = fmax(0.0, fmax(b[1] - a[3], a[1] - b[3]));
    if (hypot(gx, gy) > 0.25 * fmin(longer_side(a), longer_side(b)))
        return 0;
    double cax = 0.5 * (a[0] + a[2]), cay = 0.5 * (a[1] + a[3]), cbx = 0.5 * (b[0] + b[2]), cby = 0.5 * (b[1] + b[3]);
    /* side by side (axis 0) or one above the other (axis 1) */
    int ax = fabs(cbx - cax) >= fabs(cby - cay) ? 0 : 1;
    const double ca[2] = { cax, cay }, cb[2] = { cbx, cby };
    double mid = ca[ax] < cb[ax] ? 0.5 * (a[2 + ax] + b[ax]) : 0.5 * (a[ax] + b[2 + ax]);
    int o = 1 - ax; /* the axis the links are spread along */
    double lo = fmax(a[o], b[o]), hi = fmin(a[2 + o], b[2 + o]);
    if (hi <= lo) {
        lo = fmin(ca[o], cb[o]);
        hi = fmax(ca[o], cb[o]);
    }
    for (int j = 0; j < LINKS_PER_PAIR; j++) {
        double t = LINKS_PER_PAIR > 1 ? 0.2 + 0.6 * j / (LINKS_PER_PAIR - 1) : 0.5;
        double along = lo + t * (hi - lo);
        px[j] = ax == 0 ? mid : along;
        py[j] = ax == 0 ? along : mid;
    }
    return 1;
}

/* The end on body `body` (rest positions q) of a link at (px, py): nodes
 * weighted exp(-(d^2 - dmin^2) / (2 sigma^2)), d their distance at rest,
 * down to a tenth. */
static poyo_status make_end(const softbody_nodes *q, int body, double px, double py, double sigma, link_end *e)
{
    memset(e, 0, sizeof *e);
    e->body = body;
    double dmin2 = INFINITY;
    for (int k = 0; k < q->n; k++)
        dmin2 = fmin(dmin2, (q->qx[k] - px) * (q->qx[k] - px) + (q->qy[k] - py) * (q->qy[k] - py));
    e->k = malloc((size_t)q->n * sizeof *e->k);
    e->w = malloc((size_t)q->n * sizeof *e->w);
    if (!e->k || !e->w)
        return POYO_ERR_NOMEM;
    for (int k = 0; k < q->n; k++) {
        double d2 = (q->qx[k] - px) * (q->qx[k] - px) + (q->qy[k] - py) * (q->qy[k] - py);
        double w = exp(-(d2 - dmin2) / (2.0 * sigma * sigma));
        if (w < 0.1)
            continue;
        e->k[e->n] = k;
        e->w[e->n++] = w;
        e->wsum += w;
    }
    return POYO_OK;
}

/* The weighted mean of an end's nodes' x and y. */
static void end_mean(const link_end *e, const double *x, const double *y, double *cx, double *cy)
{
    double sx = 0.0, sy = 0.0;
    for (int i = 0; i < e->n; i++) {
        sx += e->w[i] * x[e->k[i]];
        sy += e->w[i] * y[e->k[i]];
    }
    *cx = sx / e->wsum;
    *cy = sy / e->wsum;
}

/* Adds the links between bodies i and i + 1 at points (px, py) to lk. */
static poyo_status add_pair(links *lk, const softbody_nodes *q, int i, double sigma, const double *px,
                            const double *py)
{
    for (int j = 0; j < LINKS_PER_PAIR; j++) {
        soft_link *l = &lk->l[lk->n];
        memset(l, 0, sizeof *l);
        lk->n++;
        if (make_end(&q[i], i, px[j], py[j], sigma, &l->a) != POYO_OK ||
            make_end(&q[i + 1], i + 1, px[j], py[j], sigma, &l->b) != POYO_OK)
            return POYO_ERR_NOMEM;
        double ax, ay, bx, by;
        end_mean(&l->a, q[i].qx, q[i].qy, &ax, &ay);
        end_mean(&l->b, q[i + 1].qx, q[i + 1].qy, &bx, &by);
        l->rx = bx - ax;
        l->ry = by - ay;
    }
    return POYO_OK;
}

poyo_status links_build(const lattice *const *lat, const softbody_nodes *q, int nb, double hz, double zeta, links *out,
                        poyo_error *err)
{
    memset(out, 0, sizeof *out);
    out->omega = 2.0 * PI * hz;
    out->zeta = zeta;
    if (nb < 2)
        return POYO_OK;
    out->l = calloc((size_t)(nb - 1) * LINKS_PER_PAIR, sizeof *out->l);
    if (!out->l)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the links");
    for (int i = 0; i + 1 < nb; i++) {
        double a[4], b[4], px[LINKS_PER_PAIR], py[LINKS_PER_PAIR];
        box_of(lat[i], a);
        box_of(lat[i + 1], b);
        if (!link_points(a, b, px, py))
            continue;
        double sigma = 0.15 * fmin(longer_side(a), longer_side(b));
        if (add_pair(out, q, i, fmax(sigma, 0.5 * fmax(lat[i]->h, lat[i + 1]->h)), px, py) != POYO_OK) {
            links_free(out);
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the links");
        }
    }
    return POYO_OK;
}

double links_stretch(const links *lk, int j, const softbody_nodes *nd)
{
    const soft_link *l = &lk->l[j];
    const softbody_nodes *a = &nd[l->a.body], *b = &nd[l->b.body];
    double ax, ay, bx, by;
    end_mean(&l->a, a->x, a->y, &ax, &ay);
    end_mean(&l->b, b->x, b->y, &bx, &by);
    return hypot(bx - ax - l->rx, by - ay - l->ry);
}

/* Adds dv = s * w F / wsum * dt to the unpinned nodes of end e. */
static void push_end(const link_end *e, const softbody_nodes *nd, double fx, double fy, double dt)
{
    const softbody_nodes *b = &nd[e->body];
    for (int i = 0; i < e->n; i++) {
        int k = e->k[i];
        if (b->pinned[k])
            continue;
        b->vx[k] += e->w[i] * fx / e->wsum * dt;
        b->vy[k] += e->w[i] * fy / e->wsum * dt;
    }
}

void links_pull(const links *lk, int body, const softbody_nodes *nd, double dt)
{
    double w2 = lk->omega * lk->omega, c = 2.0 * lk->zeta * lk->omega;
    for (int j = 0; j < lk->n; j++) {
        const soft_link *l = &lk->l[j];
        if (l->a.body != body && l->b.body != body)
            continue;
        const softbody_nodes *a = &nd[l->a.body], *b = &nd[l->b.body];
        double ax, ay, bx, by, avx, avy, bvx, bvy;
        end_mean(&l->a, a->x, a->y, &ax, &ay);
        end_mean(&l->b, b->x, b->y, &bx, &by);
        end_mean(&l->a, a->vx, a->vy, &avx, &avy);
        end_mean(&l->b, b->vx, b->vy, &bvx, &bvy);
        /* the spring acts between the two whole bodies (unit mass per node) */
        double na = a->n, nb = b->n, m = na * nb / (na + nb);
        double fx = m * (w2 * (bx - ax - l->rx) + c * (bvx - avx));
        double fy = m * (w2 * (by - ay - l->ry) + c * (bvy - avy));
        if (l->a.body == body)
            push_end(&l->a, nd, fx, fy, dt);
        else
            push_end(&l->b, nd, -fx, -fy, dt);
    }
}

void links_free(links *lk)
{
    for (int j = 0; j < lk->n; j++) {
        free(lk->l[j].a.k);
        free(lk->l[j].a.w);
        free(lk->l[j].b.k);
        free(lk->l[j].b.w);
    }
    free(lk->l);
    memset(lk, 0, sizeof *lk);
}
