/* links.h - soft links between neighbouring bodies (the glyphs of a word):
 * damped springs that hold a patch of one body at its rest offset from a patch
 * of the next, so the motion of one body pulls on its neighbours. */
#ifndef POYO_LINKS_H
#define POYO_LINKS_H

#include "softbody.h"
#include "image/lattice.h"
#include "util/error.h"

/* Links between one pair of neighbours. */
#define LINKS_PER_PAIR 2

/* One end of a link: the nodes of a body near the link's point, weighted by
 * closeness (1 at the nearest). */
typedef struct link_end {
    int body;         /* which body */
    int n;            /* nodes */
    int *k;           /* their node numbers (owned) */
    double *w;        /* their weights, 0 to 1 (owned) */
    double wsum;      /* sum of the weights */
} link_end;

/* A damped spring between the weighted centres of two ends. */
typedef struct soft_link {
    link_end a, b;
    double rx, ry;    /* b's centre minus a's at rest, pixels */
} soft_link;

typedef struct links {
    int n;            /* links */
    soft_link *l;     /* owned */
    double omega;     /* angular frequency of a link between two free patches, rad/s */
    double zeta;      /* its damping ratio */
} links;

/* Links body i to body i + 1 (of nb, each on its lattice *lat[i] with rest
 * positions q[i]) wherever their visible boxes are closer than a quarter of
 * the smaller one's longer side: LINKS_PER_PAIR links across the gap between
 * them, spread over the span where they face each other. hz and zeta are the
 * links' frequency and damping ratio. *out is freed with links_free. */
poyo_status links_build(const lattice *const *lat, const softbody_nodes *q, int nb, double hz, double zeta, links *out,
                        poyo_error *err);
/* Adds to the velocities of body `body` (view nd[body]; nd holds every body's
 * view) what the links' pull on it gives over dt seconds. Pinned nodes are
 * left alone. */
void links_pull(const links *lk, int body, const softbody_nodes *nd, double dt);
/* How far link j is from its rest offset now, pixels. */
double links_stretch(const links *lk, int j, const softbody_nodes *nd);
/* Frees the links; safe on a zeroed one. */
void links_free(links *lk);

#endif
