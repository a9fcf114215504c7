/* rope.h - a 2-D rope of particles joined by distance constraints, stepped
 * with Position Based Dynamics (rope.c names the paper). Units are the caller's
 * (pixels, seconds); y points down, so the default gravity is +y. */
#ifndef POYO_ROPE_H
#define POYO_ROPE_H

#include "vec2.h"
#include "util/error.h"

/* Which ends of the rope are held in place. */
typedef enum rope_pin_mode {
    ROPE_PIN_START = 0, /* particle 0 pinned, the other end free (a hanging charm) */
    ROPE_PIN_END,       /* particle n-1 pinned, particle 0 free */
    ROPE_PIN_BOTH,      /* both ends pinned */
    ROPE_PIN_NONE       /* nothing pinned */
} rope_pin_mode;

/* Called once per solver iteration after the distance constraints, to add the
 * caller's own constraints (collisions, an attached body). It may move any of
 * the n predicted positions p; inv_mass[i] == 0 marks a pinned particle, which
 * is put back on its pin afterwards. */
typedef void (*rope_project_fn)(void *user, v2 *p, const double *inv_mass, int n);

/* How to build a rope; start from rope_default_def(). */
typedef struct rope_def {
    int count;             /* particles, 2..ROPE_MAX_PARTICLES (count - 1 segments) */
    double length;         /* total rest length, > 0 (caller's length unit) */
    v2 gravity;            /* acceleration, length unit / s^2; y down */
    double mass;           /* total mass of the rope, > 0, spread evenly over the particles */
    double load_mass;      /* extra mass >= 0 on the free end (the stamp); 0 when both ends are pinned */
    double stiffness;      /* [0, 1]: share of the length error removed per rope_step (1 = inextensible) */
    int iterations;        /* Gauss-Seidel passes per substep, 1..ROPE_MAX_ITERATIONS (alternating direction) */
    int substeps;          /* substeps per rope_step, 1..ROPE_MAX_SUBSTEPS */
    double damping;        /* [0, 1]: share of non-rigid velocity removed per rope_step (rope_damp_velocities) */
    double drag;           /* >= 0, 1/s: plain air drag, v *= exp(-drag dt) */
    rope_pin_mode pin;     /* which ends are pinned */
    rope_project_fn project; /* extra constraints per iteration, or NULL */
    void *project_user;    /* passed to project, not owned */
} rope_def;

/* Upper limits checked by rope_create. */
#define ROPE_MAX_PARTICLES 100000
#define ROPE_MAX_ITERATIONS 1000
#define ROPE_MAX_SUBSTEPS 1000
/* Largest dt rope_step accepts, in seconds. */
#define ROPE_MAX_DT 1.0

/* Opaque rope state. */
typedef struct rope rope;

/* The defaults: 24 particles, 200 units long, gravity (0, 980), mass 1, no
 * load, stiffness 1, 20 iterations, 2 substeps, damping 0.03, no drag,
 * start pinned, no extra constraints. */
rope_def rope_default_def(void);

/* Builds a rope at rest; *out owned by the caller (rope_destroy).
 * Particle 0 sits at start. With both ends pinned, the last particle is pinned
 * at end, which must lie within length of start; a slack rope starts as a V of
 * two straight halves sagging along gravity (across the chord). Otherwise the
 * rope is laid straight from start toward end at its full length (end only
 * gives the direction; end == start lays it along gravity, or +y). */
poyo_status rope_create(const rope_def *def, v2 start, v2 end, rope **out, poyo_error *err);

/* Frees the rope; NULL is a no-op. */
void rope_destroy(rope *r);

/* Advances dt seconds (0 <= dt <= ROPE_MAX_DT) in def.substeps substeps.
 * Pinned particles move in equal parts to their pins over the substeps. */
poyo_status rope_step(rope *r, double dt, poyo_error *err);

/* Number of particles. */
int rope_count(const rope *r);
/* Rest length of one segment (length / (count - 1)). */
double rope_segment_length(const rope *r);
/* Positions, count entries, owned by the rope, valid until the next call that changes it. */
const v2 *rope_positions(const rope *r);
/* Velocities in length unit / s, count entries, owned by the rope. */
const v2 *rope_velocities(const rope *r);
/* Masses, count entries, owned by the rope (pinned particles keep theirs). */
const double *rope_masses(const rope *r);
/* Nonzero when particle i is pinned (0 when i is out of range). */
int rope_is_pinned(const rope *r, int i);
/* Kinetic energy of the free particles, mass * length^2 / s^2. */
double rope_kinetic_energy(const rope *r);

/* Pins particle i (pinning it if it was free) and moves its pin to at; the
 * particle reaches at by the end of the next rope_step. */
poyo_status rope_pin(rope *r, int i, v2 at, poyo_error *err);
/* Frees particle i; it keeps the velocity it was driven with. */
poyo_status rope_unpin(rope *r, int i, poyo_error *err);
/* Sets the mass of particle i (> 0). */
poyo_status rope_set_mass(rope *r, int i, double mass, poyo_error *err);
/* Adds the velocity change dv (length unit / s) to particle i; pinned particles ignore it. */
poyo_status rope_apply_impulse(rope *r, int i, v2 dv, poyo_error *err);

/* Position Based Dynamics' velocity damping on n particles with positions
 * x, velocities v (changed in place) and masses m: moves each velocity a share
 * k in [0, 1] toward the rigid motion v_cm + omega x r, keeping the total linear
 * and angular momentum. Particles with m <= 0 take no part and keep their velocity. */
void rope_damp_velocities(const v2 *x, v2 *v, const double *m, int n, double k);

#endif
