/* impulse.h - the kicks that set a stamp in motion: one-shot impulses at t = 0
 * and periodic drives. */
#ifndef POYO_IMPULSE_H
#define POYO_IMPULSE_H

#include "softbody.h"
#include "geom/vec2.h"
#include "image/lattice.h"
#include "util/error.h"

typedef enum impulse_kind {
    IMPULSE_SQUASH = 0, IMPULSE_STRETCH, IMPULSE_POKE, IMPULSE_SHAKE, IMPULSE_TWIST,
    IMPULSE_JUMP, IMPULSE_DROP, IMPULSE_WAVE, IMPULSE_PAT, IMPULSE_COUNT
} impulse_kind;

/* The ranges of impulse_def's --at, --angle and --rate (a strength's is its impulse's). */
#define IMPULSE_AT_MAX 10.0       /* |x|, |y|, image fractions */
#define IMPULSE_ANGLE_MAX 3600.0  /* |degrees| */
#define IMPULSE_RATE_MIN 0.1      /* Hz */
#define IMPULSE_RATE_MAX 20.0

/* What an impulse is and which parameters it takes, with their defaults. */
typedef struct impulse_info {
    const char *name;       /* as typed on the command line */
    const char *summary;    /* one line for --list-impulses */
    double strength;        /* default strength */
    double strength_max;    /* largest accepted strength (smallest is 0) */
    double wide_grows;      /* on a stamp wider than tall the default grows as (width / height) to this power
                             * (impulse_default_strength); 0: it does not */
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
/* Fills the NAN fields with the kind's defaults and checks ranges, for a
 * body whose main wobble is hz (a periodic drive's default rate slows with a
 * body slower than the default, and no rate may pass hz). */
poyo_status impulse_resolve(impulse_def *def, double hz, poyo_error *err);
/* The rate a periodic impulse repeats at when none is asked, on a body of hz:
 * its own, slowed as the body is below the default --hz. */
double impulse_default_rate(const impulse_info *info, double hz);
/* How many times slower than at SOFTBODY_HZ_DEFAULT a body of hz takes its
 * kicks: at least 1 (a press, a hold and a let-go take as many times as
 * long). */
double impulse_slowness(double hz);
/* The strength an impulse takes on lat's stamp when none is asked: the
 * impulse's default, which for a sway or a travel (wide_grows) on a stamp
 * wider than tall grows with the square root of width over height (of the
 * opaque box), up to the largest accepted. A fraction of a low stamp's height
 * is a small move: so the stamp sways and hops as far as a square stamp of
 * its area would. A pat grows with the fourth root: at the plain default a
 * 5.8:1 bar moved in 71 % of its frames, at the square root it lost 5 % of
 * its area. A poke, a squash, a stretch and a twist keep the plain default:
 * a thin bar is only so deep. */
double impulse_default_strength(const impulse_info *info, const lattice *lat);

/* A running impulse: owns the pattern, drives the body through its callbacks. */
/* A corner of the box of the opaque pixels within a drawn lattice cell, as
 * the bilinear mix of the cell's four nodes that moves it. */
typedef struct impulse_picture_point {
    int k[4];
    double w[4];
} impulse_picture_point;

typedef struct impulse_run {
    impulse_def def;
    const impulse_info *info;
    int n;
    double *px, *py;        /* velocity pattern per unit strength (pixels per radian of the wobble) */
    double size;            /* body height, pixels */
    double floor_y;         /* floor position, pixels (has_floor only) */
    int floor;              /* 1: a floor at floor_y (has_floor only) */
    double picture_floor;   /* the picture's bottom at rest, pixels: with a floor, no point of it goes lower */
    int lands;              /* 1: the body stands on the floor held by nothing (set by the caller
                             * as it lets the calibrated body go) and may fly */
    int touched;            /* 1: a node met the floor since the last impulse_frame_end */
    int air_frames;         /* frames in a row no node met the floor */
    int flight_over;        /* 1: the body has come down on the floor after leaving it, or did not
                             * leave it by 0.25 s after its release */
    double restitution, friction;
    double gravity;         /* pixels/s^2 */
    double omega;           /* drive angular frequency, rad/s */
    int period_frames;      /* periodic: frames in one period of the clip; 0: not known */
    double period_scale;    /* periodic: canvas pixels per image pixel, for the steady state's 0.025 px (0: 1) */
    int warm_cap;           /* periodic: whole periods the trial runs at most before the one it measures (0: 3 s or 4 periods) */
    int warm_periods;       /* periodic: whole periods the last trial ran before the one it measured (set by impulse_kick) */
    int period_start;       /* periodic: the frame of the period the clip starts at, as the last trial measured from (impulse_kick) */
    int may_take;           /* periodic: 1 lets impulse_kick keep its last trial as the clip's period */
    double *taken;          /* periodic: NULL, or that period as clip_def's `taken` (set by impulse_kick) */
    double *drive_x, *drive_y; /* per node drive shape */
    double step_dt;
    /* one-shot impulses are a press: handle nodes are led from rest to a peak
     * pose and held there, then let go, so the body springs back by itself */
    softbody *sb;           /* the body pressed */
    const lattice *lat;     /* its lattice */
    int plane;              /* 1: a palm comes down on the body's top (squash, crouch) */
    double plane_top;       /* the body's top at rest, pixels */
    double plane_depth;     /* how far the palm comes down at the peak, pixels (before gain) */
    double palm_y;          /* where the palm is now, pixels */
    int plane_up;           /* 1: a palm comes up against the body's bottom (squash of a hanging or free body) */
    double plane_bottom;    /* the body's bottom at rest, pixels */
    double plane_up_depth;  /* how far that palm comes up at the peak, pixels (before gain) */
    double palm_up_y;       /* where it is now, pixels */
    int nh;                 /* handle nodes */
    int *hk;                /* their node numbers */
    double *hdx, *hdy;      /* their displacement at the peak, pixels (before gain) */
    int turn;               /* 1: handles turn about pivot instead (twist) */
    v2 pivot;               /* centre of the turn, pixels */
    double angle;           /* turn at the peak, radians (before gain) */
    double turn_grow;       /* the handles' growth about pivot per radian of turn and unit share, which keeps the
                             * picture's area as the share of the turn changes with height */
    double *share;          /* a twist: each node's share of the turn (n; 0 for a node no hand holds) */
    double gain;            /* scale that makes the peak deformation the strength asked */
    double t_press, t_hold; /* seconds to reach the peak, seconds held there */
    int palm_sticky;        /* 1: the palms hold what they touch (no sliding under them) */
    int under_slides;       /* 1: a free body slides on the palm under it all the same (see setup_press) */
    int low_bar;            /* 1: the opaque box is three times wider than tall or more */
    int tall_bar;           /* 1: the opaque box is three times taller than wide or more */
    int foot_slides;        /* 1: the anchored edge's pins slide sideways with the body (see slide_foot) */
    int foot_hold;          /* the one pinned node that does not slide */
    int foot_spreads;       /* 1: the anchored edge's pins spread and gather with the body above them (see spread_foot) */
    int far_spreads;        /* 1 or -1 (the far side down or up): a free body's second hand spreads (see spread_far) */
    int far_from;           /* the second hand's first handle */
    int quick_palm;         /* 1: a palm squashing a standing body, quicker than other presses, whose
                             * pressure eases back after it lets go */
    double t_lift;          /* seconds from the hold's end to letting go: a finger's loosening or roll off, a hand's
                             * draw back or ease back (0: all at once) */
    double back;            /* share of its press a hand draws or eases back by before it lets go */
    double t_draw;          /* > 0: seconds a hand on a free body draws back before it rolls off */
    int loosens;            /* 1: the finger loosens its hold on all its handles at once over t_lift (see loosen) */
    double launch;          /* jump: upward speed given at the release, pixels/s */
    double tilt_sum;        /* the upright pull's integral of the tilt, radian seconds */
    int held;               /* 1 while the handles are held */
    int free;               /* 1: no anchor and no floor: the body is held in place and upright */
    double *place_w;        /* a free body patted: each node's share of the place it keeps (NULL: all alike) */
    double *hold_w;         /* a free body patted: how firmly the hand behind it holds each node, 0 to 1 */
    int cap_energy;         /* 1: the body's energy is capped at the release (animate_caps_energy) */
    double finger;          /* poke: how deep the finger presses at the peak, pixels */
    double film_finger, film_dent; /* poke: the last film's finger and the dent its frames showed (impulse_retune) */
    v2 at_px;               /* kick point, pixels */
    int at_asked;           /* 1: a poke's or pat's finger landed where it was asked (not moved onto the picture) */
    v2 dir;                 /* direction of the press (poke) */
    int walls;              /* 1: nodes stay inside wall (the canvas's edges) */
    double wall[4];         /* x0, y0, x1, y1, pixels */
    double *slack;          /* 4 per node: how far it may pass each wall (x0, y0, x1, y1), pixels */
    impulse_picture_point *wp; /* the picture's points (room for 4 per lattice cell): the walls hold the
                                * first nwall, a stretch is measured by them all */
    int nwp, nwall;
    double *warp_x, *warp_y;  /* n: positions whose displacement from the grid is a measured one's */
    double *field_x, *field_y; /* nx * ny: that displacement as the warp spreads it (render_warp_field) */
    unsigned char *field_filled; /* nx * ny: its scratch */
} impulse_run;

/* Prepares the impulse for a body built on lat from an image of iw x ih pixels:
 * the calibration pattern (run->px, run->py), gravity, floor and drive callbacks. */
poyo_status impulse_begin(impulse_run *run, const impulse_def *def, softbody *sb, const lattice *lat,
                          int iw, int ih, poyo_error *err);
/* The run will be filmed inside the canvas's walls (impulse_set_walls): a
 * squash then keeps the picture's area, its cells each weighed by the share
 * of it the picture fills. Call after impulse_begin, before calibrating the
 * body. */
void impulse_expect_walls(impulse_run *run, softbody *sb);
/* Starts the calibrated body's motion: a periodic drive, or the press of a
 * one-shot impulse (its strength checked on a trial press and the press scaled
 * to it, so the peak deformation is what --strength asks). */
void impulse_kick(impulse_run *run, softbody *sb);
/* How far the picture of lattice l moves from pose a to pose b (its nodes'
 * positions), image pixels: the larger of the shift of its centre and the
 * 95th percentile of its steps, over up to 256 of the lattice's opaque
 * samples spread evenly, as the motion figures measure a step (tmp: room for
 * l->op_n numbers). */
double impulse_pose_step(const lattice *l, const double *ax, const double *ay, const double *bx, const double *by,
                         double *tmp);
/* A one-shot impulse that does not fly (impulse_in_flight never 1) started
 * again from rest, as impulse_kick left it: its clip can be filmed anew. */
void impulse_restart(impulse_run *run, softbody *sb);
/* The frames of a one-shot clip (count poses of the body's nodes, x and y)
 * measured as the strength's figure takes them: *off is how far the strength
 * they show is from the one asked, as the absolute log of their ratio. A poke
 * that shows a dent too far off (the frames fall between the peaks of a dent
 * that rings faster than they are taken) presses its finger anew, deeper or
 * shallower, and starts again from rest (returns 1: film it again); else
 * returns 0, changing nothing. */
int impulse_retune(impulse_run *run, softbody *sb, const double *x, const double *y, int count, double *off);
/* Seconds from the kick until a one-shot impulse lets go of the body (0 for drives). */
double impulse_release_time(const impulse_run *run);

/* Notes, after each frame (t seconds after the kick), whether the body met the
 * floor during it. */
void impulse_frame_end(impulse_run *run, double t);

/* 1 while a body that flies is in the air and its clip may not end yet: from
 * the kick until it leaves the floor (no node on it for two frames in a row,
 * which it must do within 0.25 s of its release, else it is taken not to fly)
 * and then until it meets the floor again (a node within half a pixel of it).
 * 0 for a body that cannot fly (no floor, or an anchor holds it: run->lands 0). */
int impulse_in_flight(const impulse_run *run);
/* Keeps the body's nodes inside box (x0, y0, x1, y1, pixels): the canvas's
 * edges, for a motion that would not fit on it otherwise. */
void impulse_set_walls(impulse_run *run, softbody *sb, const double box[4]);
/* Frees the run's arrays; safe twice. */
void impulse_end(impulse_run *run);

#endif
