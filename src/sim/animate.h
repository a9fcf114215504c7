/* animate.h - the main job: image -> lattice -> soft body kicked by an impulse
 * -> node positions per frame -> warped RGBA frames that loop seamlessly. */
#ifndef POYO_ANIMATE_H
#define POYO_ANIMATE_H

#include "clip.h"
#include "impulse.h"
#include "softbody.h"
#include "image/anim.h"
#include "image/image.h"
#include "image/lattice.h"
#include "image/render.h"
#include "util/error.h"

typedef struct animate_def {
    int grid;              /* lattice nodes along the longer side (LATTICE_GRID_MIN to _MAX) */
    softbody_def body;     /* physics */
    int anchor_auto;       /* 1: the impulse's own anchor instead of body.anchor */
    impulse_def impulse;   /* the kick */
    double fps;            /* frames per second (ANIM_FPS_MIN to _MAX) */
    double duration;       /* seconds of a one-shot clip (ANIM_DURATION_MIN to _MAX); 0 = until the body settles */
    double max_duration;   /* seconds a one-shot clip may run while settling */
    int max_grows;         /* 1: a slower body's may run as many times longer (impulse_slowness); 0: a
                              platform's rule, fixed */
    int width, height;     /* canvas, pixels (1 to ANIM_SIDE_MAX); 0 = the input's size */
    fit_mode fit;          /* auto: never clip the motion; none: scale to the canvas and clip */
    int loop;              /* plays (0 = forever), passed to the encoders */
    int threads;           /* threads drawing frames (1 to 8) */
} animate_def;

/* The defaults, the only place they live. */
animate_def animate_default_def(void);
/* Checks every field of def (and its body and impulse); names the first bad one. */
poyo_status animate_check_def(const animate_def *def, poyo_error *err);

/* Node positions of every frame of the clip. */
typedef struct motion {
    lattice lat;           /* owned */
    int n;                 /* nodes */
    int count;             /* frames */
    double *x, *y;         /* count * n, image pixels; frame f starts at f * n */
    double *qx, *qy;       /* rest positions, n */
    int periodic;          /* 1 when the clip is one period of a drive */
    int settled;           /* 1 when a one-shot clip ended because the body came to rest */
    int steps;             /* solver steps per frame */
    double lambda;         /* stiffness eigenvalue of the main wobble */
    double strength;       /* the impulse's strength (asked, or its default for the stamp) */
    placement place;       /* where the rest image sits on the canvas it was simulated for */
    int canvas_w, canvas_h;/* that canvas */
    int walled;            /* 1: the motion was kept inside the canvas's edges by walls */
    double wall[4];        /* walled: those walls (image pixels, as animate_set_walls takes them) */
    render_source made;    /* the source drawn from, made for place while the walled run filmed (or empty) */
} motion;

/* The body the impulse acts on: its anchor the impulse's own unless given; a
 * body that lands is calibrated standing (*land set) and let go after. */
softbody_def animate_body_for(const animate_def *def, const impulse_info *info, int *land);
/* Walls for the nodes of sb: the canvas's inner box wall (image pixels, drawn
 * scale canvas pixels each) less a margin for the curves drawn between nodes,
 * each node passing it by its own reach past the visible pixels at rest. */
void animate_set_walls(impulse_run *run, softbody *sb, const double wall[4], double scale);
/* Frames in one period of a drive repeating rate times a second at fps (at least 2). */
int animate_period_frames(double fps, double rate);
/* Frames in one period of run's periodic drive at def's frame rate (at least 2). */
int animate_drive_period(const impulse_run *run, const animate_def *def);
/* The settling rules of a one-shot clip at def's length and frame rate, for
 * a body wobbling at hz; the caller sets min_frames and the rest pose. */
void animate_plan_oneshot(const animate_def *def, double hz, clip_def *cd);
/* 1 when a body let go by a one-shot impulse may not gain energy after the
 * release (softbody_cap_energy): with no floor, and undamped (damping below
 * 0.05) or with more than 0.5 of the area-preserving linear mode (volume). */
int animate_caps_energy(const impulse_info *info, const softbody_def *body);
/* The frames a one-shot clip lasts at least: 0.8 s (a body that flies lands
 * first, impulse_in_flight). */
int animate_min_frames(const animate_def *def);

/* Simulates the clip for src; def must have passed animate_check_def(). */
poyo_status animate_simulate(const image *src, const animate_def *def, motion *out, poyo_error *err);
/* Moves a filmed clip's node positions into m (which keeps its lattice and rest pose). */
void motion_take(motion *m, clip_frames *c);
/* Frees a motion; safe on a zeroed one. */
void motion_free(motion *m);
/* Frees the source made ahead for its frames (m->made), once they are drawn:
 * the encoders need the room. */
void motion_drop_source(motion *m);
/* Draws the frames of m on the canvas def asks for. */
poyo_status animate_render(const image *src, const motion *m, const animate_def *def, anim *out, poyo_error *err);

#endif
