/* test_links.c - soft links between neighbouring bodies: two blocks side by
 * side get LINKS_PER_PAIR links, at rest none is stretched and none pulls;
 * one block moved rigidly stretches every link by the move and pulls the two
 * towards each other with equal and opposite momentum, pinned nodes left
 * alone; blocks far apart get none; blocks one above the other are linked
 * across their gap. */
#include "test.h"

#include <string.h>

#include "sim/links.h"

/* Two bodies on 64x64 images, each an opaque rectangle [x0, x1) x [y0, y1). */
typedef struct pair {
    image im[2];
    lattice lat[2];
    softbody *sb[2];
    softbody_nodes nd[2];
} pair;

static void rect(image *im, int x0, int y0, int x1, int y1)
{
    image_alloc(im, 64, 64, NULL);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            memcpy(im->rgba + 4 * ((size_t)y * 64 + x), "\x40\x80\xc0\xff", 4);
}

static int pair_make(pair *p, const int a[4], const int b[4])
{
    memset(p, 0, sizeof *p);
    softbody_def d = softbody_default_def();
    d.anchor = ANCHOR_NONE;
    rect(&p->im[0], a[0], a[1], a[2], a[3]);
    rect(&p->im[1], b[0], b[1], b[2], b[3]);
    for (int i = 0; i < 2; i++) {
        if (lattice_build(&p->im[i], 10, &p->lat[i], NULL) != POYO_OK ||
            softbody_create(&p->lat[i], &d, &p->sb[i], NULL) != POYO_OK)
            return 0;
        p->nd[i] = softbody_view(p->sb[i]);
    }
    return 1;
}

static void pair_free(pair *p)
{
    for (int i = 0; i < 2; i++) {
        softbody_destroy(p->sb[i]);
        lattice_free(&p->lat[i]);
        image_free(&p->im[i]);
    }
}

static poyo_status pair_links(pair *p, double zeta, links *lk)
{
    const lattice *lat[2] = { &p->lat[0], &p->lat[1] };
    return links_build(lat, p->nd, 2, 1.0, zeta, lk, NULL);
}

/* Sums of body i's velocities. */
static void momentum(const pair *p, int i, double *mx, double *my)
{
    *mx = *my = 0.0;
    for (int k = 0; k < p->nd[i].n; k++) {
        *mx += p->nd[i].vx[k];
        *my += p->nd[i].vy[k];
    }
}

static void test_side_by_side(void)
{
    static const int a[4] = { 4, 16, 28, 60 }, b[4] = { 36, 16, 60, 60 };
    pair p;
    links lk;
    ENSURE(pair_make(&p, a, b));
    /* undamped: a damped link's pull on the second body sees the first's new velocities */
    ENSURE(pair_links(&p, 0.0, &lk) == POYO_OK);
    ENSURE(lk.n == LINKS_PER_PAIR);
    for (int j = 0; j < lk.n; j++) {
        ENSURE(lk.l[j].a.body == 0 && lk.l[j].b.body == 1 && lk.l[j].a.n > 0 && lk.l[j].b.n > 0);
        /* across the gap, from the right side of one to the left side of the other */
        ENSURE(lk.l[j].rx > 4.0 && lk.l[j].rx < 24.0 && fabs(lk.l[j].ry) < 1e-9);
        ENSURE_SMALL(links_stretch(&lk, j, p.nd), 1e-9);
    }
    /* at rest nothing pulls */
    links_pull(&lk, 0, p.nd, 0.01);
    links_pull(&lk, 1, p.nd, 0.01);
    double mx, my;
    momentum(&p, 0, &mx, &my);
    ENSURE_SMALL(hypot(mx, my), 1e-12);
    /* the right block 5 px further right: each link 5 px long, the two pulled together */
    for (int k = 0; k < p.nd[1].n; k++)
        p.nd[1].x[k] += 5.0;
    for (int j = 0; j < lk.n; j++)
        ENSURE_NEAR(links_stretch(&lk, j, p.nd), 5.0, 1e-9);
    softbody_set_pinned(p.sb[0], 0, 1);
    links_pull(&lk, 0, p.nd, 0.01);
    links_pull(&lk, 1, p.nd, 0.01);
    double ax, ay, bx, by;
    momentum(&p, 0, &ax, &ay);
    momentum(&p, 1, &bx, &by);
    ENSURE(ax > 0.0 && bx < 0.0);
    ENSURE_SMALL(ay, 1e-9);
    ENSURE_SMALL(by, 1e-9);
    /* node 0 of the left block is pinned and left alone */
    ENSURE(p.nd[0].vx[0] == 0.0 && p.nd[0].vy[0] == 0.0);
    softbody_set_pinned(p.sb[0], 0, 0);
    for (int k = 0; k < p.nd[0].n; k++)
        p.nd[0].vx[k] = p.nd[0].vy[k] = 0.0;
    for (int k = 0; k < p.nd[1].n; k++)
        p.nd[1].vx[k] = p.nd[1].vy[k] = 0.0;
    links_pull(&lk, 0, p.nd, 0.01);
    links_pull(&lk, 1, p.nd, 0.01);
    momentum(&p, 0, &ax, &ay);
    momentum(&p, 1, &bx, &by);
    ENSURE(ax > 0.0);
    ENSURE_NEAR(ax, -bx, 1e-9 * fabs(ax));
    links_free(&lk);
    links_free(&lk);
    pair_free(&p);
}

static void test_far_apart_or_stacked(void)
{
    static const int a[4] = { 2, 20, 12, 40 }, far[4] = { 40, 20, 50, 40 };
    static const int top[4] = { 10, 2, 50, 20 }, below[4] = { 10, 26, 50, 44 };
    pair p;
    links lk;
    ENSURE(pair_make(&p, a, far));
    ENSURE(pair_links(&p, 0.3, &lk) == POYO_OK);
    ENSURE(lk.n == 0);
    links_free(&lk);
    pair_free(&p);
    /* one above the other: linked across the gap, vertically */
    ENSURE(pair_make(&p, top, below));
    ENSURE(pair_links(&p, 0.3, &lk) == POYO_OK);
    ENSURE(lk.n == LINKS_PER_PAIR);
    for (int j = 0; j < lk.n; j++)
        ENSURE(lk.l[j].ry > 6.0 && fabs(lk.l[j].rx) < 4.0);
    ENSURE(lk.l[1].a.n > 0 && lk.l[0].b.n > 0);
    links_free(&lk);
    pair_free(&p);
}

const struct test_case test_cases[] = {
    { "side_by_side", test_side_by_side },
    { "far_apart_or_stacked", test_far_apart_or_stacked },
    { NULL, NULL },
};
