/* impulse.h - the kicks that set a stamp in motion: one-shot impulses at t = 0
 * and periodic drives. */
#ifndef POYO_IMPULSE_H
#define POYO_IMPULSE_H

#include "error.h"
#include "lattice.h"
#include "sdf.h"
#include "softbody.h"
#include "vec2.h"

typedef enum impulse_kind {
    IMPULSE_SQUASH = 0, IMPULSE_STRETCH, IMPULSE_POKE, IMPULSE_SHAKE, IMPULSE_TWIST,
    IMPULSE_JUMP, IMPULSE_DROP, IMPULSE_WAVE, IMPULSE_PAT, IMPULSE_COUNT
} impulse_kind;

/* What an impulse is and which parameters it takes, with their defaults. */
typedef struct impulse_info {
    const char *name;       /* as typed on the command line */
    const char *summary;    /* one line for --list-impulses */
    double strength;        /* default strength */
    double strength_max;    /* largest accepted strength (smallest is 0) */
    const char *strength_unit; /* what the strength measures */
    int uses_at;            /* 1 when --at X,Y matters */
    v2 at;                  /* default point, image fractions */
    int uses_angle;         /* 1 when --angle matters */
    double angle;           /* default direction, degrees clockwise from +x (screen, y down); NAN = towards the centre */
    int periodic;           /* 1 for drives that repeat */
    double rate;            /* default repeat rate, Hz (periodic only) */
    anchor_kind anchor;     /* default anchor */
    int has_floor;          /* 1 when the body falls on a floor */
} impulse_info;

/* The table entry of an impulse. */
const impulse_info *impulse_get_info(impulse_kind kind);
/* The impulse called name, or -1. */
int impulse_lookup(const char *name);

/* A chosen impulse; NAN fields take the impulse's default. */
typedef struct impulse_def {
    impulse_kind kind;
    double strength;
    v2 at;          /* image fractions: 0,0 top-left, 1,1 bottom-right */
    double angle;   /* degrees */
    double rate;    /* Hz */
} impulse_def;

/* squash with every parameter at its default. */
impulse_def impulse_default_def(void);
/* Fills the NAN fields with the kind's defaults and checks ranges. */
poyo_status impulse_resolve(impulse_def *def, poyo_error *err);

/* A running impulse: owns the pattern, drives the body through its callbacks. */
typedef struct impulse_run {
    impulse_def def;
    const impulse_info *info;
    int n;
    double *px, *py;        /* velocity pattern per unit strength (pixels per radian of the wobble) */
    double size;            /* body height, pixels */
    double floor_y;         /* floor position, pixels (has_floor only) */
    sdf_scene *floor;       /* the floor as a distance field (has_floor only) */
    double restitution, friction;
    double gravity;         /* pixels/s^2 */
    double omega;           /* drive angular frequency, rad/s */
    double *drive_x, *drive_y; /* per node drive shape */
    double kick_until;      /* pat: time the current kick ends */
    double last_period;     /* pat: start of the last kick */
    double step_dt;
} impulse_run;

/* Prepares the impulse for a body built on lat from an image of iw x ih pixels:
 * the calibration pattern (run->px, run->py), gravity, floor and drive callbacks. */
poyo_status impulse_begin(impulse_run *run, const impulse_def *def, softbody *sb, const lattice *lat,
                          int iw, int ih, poyo_error *err);
/* Gives the calibrated body its initial velocities or positions. */
void impulse_kick(impulse_run *run, softbody *sb);
/* Frees the run's arrays; safe twice. */
void impulse_end(impulse_run *run);

#endif
