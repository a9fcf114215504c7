/* follow.h - a soft stamp carried along a path at constant speed: a core of
 * lattice nodes around the body's centre is pinned to the path's moving,
 * turning frame and the rest follows by shape matching, so starts, stops and
 * turns show as lag and sway. */
#ifndef POYO_FOLLOW_H
#define POYO_FOLLOW_H

#include "animate.h"
#include "softbody.h"
#include "geom/path.h"
#include "image/anim.h"
#include "image/image.h"
#include "image/render.h"
#include "util/error.h"

/* How the clip uses the path. */
typedef enum follow_mode {
    FOLLOW_ONCE = 0, /* start to end, settle at the end; the clip then starts over */
    FOLLOW_LOOP,     /* lap after lap (for closed paths); one lap loops seamlessly */
    FOLLOW_BOUNCE    /* there and back; one round trip loops seamlessly */
} follow_mode;

/* The ranges of follow_def's own options. */
#define FOLLOW_STAMP_SIZE_MIN 0.05  /* to 1 */
#define FOLLOW_CORE_MIN 0.05
#define FOLLOW_CORE_MAX 0.9

/* What the clip looks like. Ranges are checked by follow_check_def(). */
typedef struct follow_def {
    int width, height;  /* canvas, pixels (1 to ANIM_SIDE_MAX) */
    double stamp_size;  /* longer side of the stamp's visible part over the canvas's shorter side (FOLLOW_STAMP_SIZE_MIN to 1) */
    double duration;    /* seconds for one trip along the path, start to end (ANIM_DURATION_MIN to _MAX) */
    double fps;         /* frames per second (ANIM_FPS_MIN to _MAX) */
    follow_mode mode;   /* once, loop or bounce */
    int turn;           /* 1: the stamp turns with the tangent; 0: it stays as drawn */
    double facing;      /* path angle (radians, path.h convention) at which the stamp is drawn unturned;
                           NaN = the tangent at the start of the path */
    double core;        /* diameter of the pinned core, fraction of the body's longer side (FOLLOW_CORE_MIN to _MAX) */
    int grid;           /* lattice nodes along the longer side (LATTICE_GRID_MIN to _MAX) */
    softbody_def body;  /* physics of the free part; body.anchor is ignored */
    double max_hold;    /* seconds a once clip may run after arriving while the body settles (0 to 10) */
    int loop;           /* plays (0 = forever), passed to the encoders */
    int threads;        /* threads drawing frames (1 to 8) */
} follow_def;

/* The defaults, the only place they live. */
follow_def follow_default_def(void);
/* Checks every field (and the frame memory the clip may need); names the first bad one. */
poyo_status follow_check_def(const follow_def *def, poyo_error *err);
/* Frames in one trip (duration * fps rounded, at least 2); the clip has this many
 * (loop), twice as many (bounce) or this many plus the settling frames (once). */
int follow_trip_frames(const follow_def *def);
/* Where the stamp's rest image sits on the canvas: its visible part centred and
 * scaled to def->stamp_size; iw x ih is the image, lat its lattice. */
placement follow_placement(int iw, int ih, const lattice *lat, const follow_def *def);

/* Simulates the stamp src carried along p (canvas pixels, y down) into out
 * (node positions in image pixels, drawn by the placement above); def must have
 * passed follow_check_def(). out is owned by the caller (motion_free). */
poyo_status follow_simulate(const image *src, const path *p, const follow_def *def, motion *out, poyo_error *err);
/* Draws the frames of m (from follow_simulate with the same def) into out (anim_free). */
poyo_status follow_render(const image *src, const motion *m, const follow_def *def, anim *out, poyo_error *err);

#endif
