/* softbody.h - lattice shape matching (softbody.c names the paper): overlapping 3x3
 * clusters, closed-form 2-D polar rotation, area-preserving linear mode,
 * stiffness and damping given as a wobble frequency and a damping ratio. */
#ifndef POYO_SOFTBODY_H
#define POYO_SOFTBODY_H

#include "image/lattice.h"
#include "util/error.h"

/* Solver steps per simulated second at most: a shape whose main wobble is
 * nearly free (a blob on a thread-thin neck) wobbles slower than asked rather
 * than taking tens of thousands of steps a second. */
#define SOFTBODY_MAX_STEPS_PER_SECOND 6400

typedef enum anchor_kind { ANCHOR_NONE = 0, ANCHOR_BOTTOM, ANCHOR_TOP } anchor_kind;

/* How the body behaves. Ranges are checked by softbody_check_def(). */
/* The largest --volume: above it the body forgets its shape (area-preserving
 * shears meet no resistance). */
#define SOFTBODY_VOLUME_MAX 0.8
/* The other ranges of softbody_def (each from 0 unless a _MIN says otherwise). */
#define SOFTBODY_HZ_MIN 0.1
#define SOFTBODY_HZ_MAX 20.0
#define SOFTBODY_HZ_DEFAULT 3.0 /* the main wobble the impulses are timed for */
#define SOFTBODY_DAMPING_MAX 1.0
#define SOFTBODY_DRAG_MAX 100.0
#define SOFTBODY_OUTLINE_MAX 1.0
#define SOFTBODY_SUBSTEPS_MAX 64    /* from 1 */

typedef struct softbody_def {
    double hz;        /* frequency of the main wobble, Hz (SOFTBODY_HZ_MIN to SOFTBODY_HZ_MAX) */
    double damping;   /* damping ratio of the main wobble: 0 rings forever, 1 no overshoot (0 to SOFTBODY_DAMPING_MAX) */
    double volume;    /* blend of the area-preserving linear mode into the rotation, beta (0 to SOFTBODY_VOLUME_MAX) */
    double drag;      /* plain velocity drag, 1/s (0 to SOFTBODY_DRAG_MAX) */
    double outline;   /* stiffness of the springs along the outline, 0 = off (0 to SOFTBODY_OUTLINE_MAX) */
    double pressure;  /* share of the body's lost or gained area given back per step, 0 = off (0 to 1) */
    int substeps;     /* solver steps per frame at least (1 to SOFTBODY_SUBSTEPS_MAX); raised when --hz needs more */
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

/* A body; its state is private to softbody.c. */
typedef struct softbody softbody;

/* A view of the nodes, valid while the body lives. The driver that owns the
 * body may move nodes, change their velocities and move pin targets between
 * steps; rest positions and pins are read-only here. */
typedef struct softbody_nodes {
    int n;                       /* active nodes */
    double *x, *y;               /* positions, image pixels */
    double *vx, *vy;             /* velocities, pixels/s */
    const double *qx, *qy;       /* rest positions */
    double *pinx, *piny;         /* where each pinned node is held */
    const unsigned char *pinned; /* 1 when the node follows pinx/piny */
} softbody_nodes;

/* Builds the body on an active lattice, at rest, pinned per def->anchor. */
poyo_status softbody_create(const lattice *lat, const softbody_def *def, softbody **out, poyo_error *err);
/* Frees everything; NULL is a no-op. */
void softbody_destroy(softbody *sb);
/* The nodes' arrays. */
softbody_nodes softbody_view(softbody *sb);
/* Active nodes. */
int softbody_count(const softbody *sb);
/* Copies the node positions (image pixels) into x and y (n each). */
void softbody_positions(const softbody *sb, double *x, double *y);
/* The definition the body was made with (anchor, hz, damping, ...). */
const softbody_def *softbody_get_def(const softbody *sb);
/* Solver steps per frame, seconds per step, goal stiffness per step and the
 * share of non-rigid velocity removed per step, as softbody_calibrate set them. */
int softbody_steps(const softbody *sb);
double softbody_dt(const softbody *sb);
double softbody_stiffness(const softbody *sb);
double softbody_step_damping(const softbody *sb);
/* Stiffness eigenvalue of the main wobble (from softbody_calibrate). */
double softbody_lambda(const softbody *sb);
/* Pins node k (on = 1) or frees it (on = 0); its pin target is where it is now. */
void softbody_set_pinned(softbody *sb, int k, int on);
/* Moves the pins of the pinned nodes among nodes[0 .. count) so that, with
 * every other node where it is, the picture's area keeps within the band the
 * body keeps after each step (a hand whose pose would swell or shrink the
 * picture is corrected along the area's gradient). */
void softbody_band_pins(softbody *sb, const int *nodes, int count);
/* Nodes pinned. */
int softbody_pinned_count(const softbody *sb);
/* Uniform acceleration, pixels/s^2. */
void softbody_set_gravity(softbody *sb, double gx, double gy);
/* Callbacks run every step (NULL: none), both given the same user pointer. */
void softbody_set_force(softbody *sb, softbody_force_fn fn, void *user);
void softbody_set_collide(softbody *sb, softbody_collide_fn fn, void *user);
/* From now on the body's energy may not exceed what it has now (see softbody_step). */
void softbody_cap_energy(softbody *sb);
/* At most max_steps solver steps per frame: a stiff wobble on a fine lattice
 * comes out slower rather than costing more (call after softbody_calibrate). */
void softbody_limit_steps(softbody *sb, int max_steps);
/* Goal positions of all nodes for positions (x, y): the average over the clusters
 * holding each node of T q + p_cm. */
void softbody_goals(const softbody *sb, const double *x, const double *y, double *gx, double *gy);
/* The same goals found by walking every member of every cluster, as the energy
 * does (softbody_goals sums over the lattice grid instead). */
void softbody_goals_by_members(const softbody *sb, const double *x, const double *y, double *gx, double *gy);
/* Stiffness eigenvalue of the wobble that the velocity pattern (px, py) excites most,
 * found by Lanczos iteration on the linearised goal operator; 0 if none. */
double softbody_main_lambda(softbody *sb, const double *px, const double *py);
/* Sets the step size, stiffness and damping so that the wobble excited by the
 * pattern has frequency def->hz and damping ratio def->damping at fps frames/s. */
poyo_status softbody_calibrate(softbody *sb, const double *px, const double *py, double fps, poyo_error *err);
/* The same with the main wobble's eigenvalue already known (softbody_lambda
 * of a body built and pressed the same way), so it is not found again. */
poyo_status softbody_calibrate_lambda(softbody *sb, double lambda, double fps, poyo_error *err);
/* Energy of the body, in the body's own units: sum over nodes of count/2 |v|^2
 * plus alpha / (2 dt^2) times the squared distances of every cluster member from
 * its cluster's goal. Conserved by an undamped run up to the integrator's
 * bounded error; damping only lowers it. */
double softbody_energy(const softbody *sb);
/* Frees every pinned node (a body calibrated as if standing, then let go). */
void softbody_unpin_all(softbody *sb);
/* Puts every node back at rest with no velocity (pins kept, held at rest) and
 * the clock at 0, keeping the calibration and the callbacks; the pressure's
 * gain back to 1 and no cap on the energy. */
void softbody_reset(softbody *sb);
/* The largest gain of the pressure. The area's pull per step is the gain
 * times the pressure times the goals' stiffness (those two at most 1 each);
 * past 4 it overshoots more than it corrects, and a squash at the default
 * --hz with a gain of 6 tore 45 of 65 stamps apart. */
#define SOFTBODY_PRESSURE_GAIN_MAX 2.0
/* Multiplies the pressure by gain (1 to SOFTBODY_PRESSURE_GAIN_MAX) from the
 * next step on: a body pressed by a hand keeps its area more firmly while the
 * calibrated wobble, measured with a gain of 1, is left as it is. */
void softbody_set_pressure_gain(softbody *sb, double gain);
/* With floor above 0, the pressure keeps the area the picture covers, each
 * lattice cell weighed by the share of it the picture fills at rest but at
 * least floor (up to 1), rather than the cells' plain area (floor 0, the
 * default), which a press kept by swelling the nearly empty cells of the
 * antialiased rim. Call before softbody_calibrate, which measures the wobble
 * with the same area. */
void softbody_keep_picture_area(softbody *sb, double floor);
/* Simulated seconds since the body was made or reset. */
double softbody_time(const softbody *sb);
/* One solver step of sb->dt seconds. With energy_cap set, velocities are scaled
 * down first whenever the energy exceeds it: the area-normalised linear mode is
 * not derived from a potential, and over long undamped runs it can feed energy in. */
void softbody_step(softbody *sb);
/* sb->steps steps: one frame. */
void softbody_step_frame(softbody *sb);
/* Removes fraction k of the velocity that is not rigid motion (momentum is kept). */
void softbody_damp_nonrigid(const double *x, const double *y, double *vx, double *vy, int n, double k);

#endif
