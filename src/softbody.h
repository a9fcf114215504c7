/* softbody.h - lattice shape matching (Müller et al. 2005): overlapping 3x3
 * clusters, closed-form 2-D polar rotation, area-preserving linear mode,
 * stiffness and damping given as a wobble frequency and a damping ratio. */
#ifndef POYO_SOFTBODY_H
#define POYO_SOFTBODY_H

#include "error.h"
#include "lattice.h"

/* Solver steps per simulated second at most: a shape whose main wobble is
 * nearly free (a blob on a thread-thin neck) wobbles slower than asked rather
 * than taking tens of thousands of steps a second. */
#define SOFTBODY_MAX_STEPS_PER_SECOND 6400

typedef enum anchor_kind { ANCHOR_NONE = 0, ANCHOR_BOTTOM, ANCHOR_TOP } anchor_kind;

/* How the body behaves. Ranges are checked by softbody_check_def(). */
typedef struct softbody_def {
    double hz;        /* frequency of the main wobble, Hz (0.1 to 20) */
    double damping;   /* damping ratio of the main wobble: 0 rings forever, 1 no overshoot (0 to 1) */
    double volume;    /* blend of the area-preserving linear mode into the rotation, beta (0 to 0.8) */
    double drag;      /* plain velocity drag, 1/s (0 to 100) */
    double outline;   /* stiffness of the springs along the outline, 0 = off (0 to 1) */
    int substeps;     /* solver steps per frame at least (1 to 64); raised when --hz needs more */
    anchor_kind anchor; /* which edge rows are pinned */
} softbody_def;

/* The defaults, the only place they live. */
softbody_def softbody_default_def(void);
/* Checks every field; names the first one out of range. */
poyo_status softbody_check_def(const softbody_def *def, poyo_error *err);

/* Called after every step to keep nodes out of obstacles (may be NULL). */
typedef void (*softbody_collide_fn)(void *user, double *x, double *y, double *vx, double *vy, int n);
/* Adds external accelerations (pixels/s^2) for time t (may be NULL). */
typedef void (*softbody_force_fn)(void *user, double t, const double *x, const double *y, double *ax, double *ay, int n);

typedef struct softbody {
    int n;                       /* active nodes */
    double *x, *y, *vx, *vy;     /* positions (image pixels) and velocities (pixels/s) */
    double *qx, *qy;             /* rest positions */
    double *pinx, *piny;         /* target of each pinned node */
    unsigned char *pinned;       /* 1 when the node follows pinx/piny */
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
    double *out_len;
    softbody_def def;
    /* solver state set by softbody_calibrate */
    double frame_dt, dt;         /* seconds per frame and per step */
    int steps;                   /* steps per frame */
    double alpha;                /* goal stiffness per step */
    double cdamp;                /* fraction of (non-rigid) velocity removed per step */
    double lambda;               /* stiffness eigenvalue of the main wobble */
    double time;                 /* simulated seconds */
    int contact;                 /* 1 when the last step's collisions moved a node */
    double energy_cap;           /* > 0: the energy a body left alone may not exceed */
    double gravity_x, gravity_y; /* uniform acceleration, pixels/s^2 */
    softbody_collide_fn collide;
    softbody_force_fn force;
    void *user;
} softbody;

/* Builds the body on an active lattice, at rest, pinned per def->anchor. */
poyo_status softbody_create(const lattice *lat, const softbody_def *def, softbody **out, poyo_error *err);
/* Frees everything; NULL is a no-op. */
void softbody_destroy(softbody *sb);
/* Goal positions of all nodes for positions (x, y): the average over the clusters
 * holding each node of T q + p_cm. */
void softbody_goals(const softbody *sb, const double *x, const double *y, double *gx, double *gy);
/* Stiffness eigenvalue of the wobble that the velocity pattern (px, py) excites most,
 * found by Lanczos iteration on the linearised goal operator; 0 if none. */
double softbody_main_lambda(softbody *sb, const double *px, const double *py);
/* Sets the step size, stiffness and damping so that the wobble excited by the
 * pattern has frequency def->hz and damping ratio def->damping at fps frames/s. */
poyo_status softbody_calibrate(softbody *sb, const double *px, const double *py, double fps, poyo_error *err);
/* Energy of the body, in the body's own units: sum over nodes of count/2 |v|^2
 * plus alpha / (2 dt^2) times the squared distances of every cluster member from
 * its cluster's goal. Conserved by an undamped run up to the integrator's
 * bounded error; damping only lowers it. */
double softbody_energy(const softbody *sb);
/* Frees every pinned node (a body calibrated as if standing, then let go). */
void softbody_unpin_all(softbody *sb);
/* One solver step of sb->dt seconds. With energy_cap set, velocities are scaled
 * down first whenever the energy exceeds it: the area-normalised linear mode is
 * not derived from a potential, and over long undamped runs it can feed energy in. */
void softbody_step(softbody *sb);
/* sb->steps steps: one frame. */
void softbody_step_frame(softbody *sb);
/* Removes the velocity that is not rigid motion by fraction k (PBD paper, 2-D). */
void softbody_damp_nonrigid(const double *x, const double *y, double *vx, double *vy, int n, double k);

#endif
