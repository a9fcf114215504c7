/* clip.h - the clip engine: the one frame loop every animation runs on. A
 * driver (an impulse, a periodic drive, a path, a rope, a scene) says what acts
 * on the body from one frame to the next; the engine records the frames,
 * decides when the body has settled, closes the loop, bounds the memory and
 * draws the frames on the canvas on several threads. */
#ifndef POYO_CLIP_H
#define POYO_CLIP_H

#include <stdint.h>

#include "image/anim.h"
#include "image/image.h"
#include "image/lattice.h"
#include "image/render.h"
#include "util/error.h"

/* Seconds a periodic drive may run before its steady state is filmed. */
#define CLIP_MAX_WARMUP 12.0

struct clip_frames;
/* What moves the body. Positions are image pixels of the driver's stamp. */
typedef struct clip_driver {
    void *user;
    int n;      /* body nodes recorded per frame (0: none) */
    int extra;  /* further numbers recorded per frame, canvas pixels (a rope's points) */
    /* Advances everything by one frame, from frame f to f + 1 (f counts from 0
     * within a period for periodic clips). */
    void (*step)(void *user, long f);
    /* Copies the state now: n node positions into x, y and extra numbers into e. */
    void (*capture)(void *user, double *x, double *y, double *e);
    /* Optional: 1 when the body has left the canvas for good (ends a one-shot clip). */
    int (*gone)(void *user);
    /* Measured clips: a signal whose rise through zero (from below) marks the
     * start of each period, e.g. a swing's angle. */
    double (*phase)(void *user);
    /* Optional: 1 while a one-shot clip may not end yet (a body in the air);
     * once it has been, still frames count toward settling before min_frames. */
    int (*busy)(void *user);
    /* Optional (one-shot clips of a body that does not fly): puts everything
     * back where it was before frame 0 and runs it about `lead` of a frame
     * (0 to 1) ahead, so the motion can be filmed again at other moments;
     * returns 0, changing nothing, when it cannot run a part of a frame. */
    int (*restart)(void *user, double lead);
    /* Optional: how far the picture moves from one recorded pose to another
     * (nodes a to b), in any one unit: the larger of its centre's shift and
     * the 95th percentile of its points' steps. With restart, a one-shot clip
     * that jumps in one frame is filmed again too. */
    double (*moved)(void *user, const double *ax, const double *ay, const double *bx, const double *by);
    /* Optional (one-shot clips): measures a film's frames (c->count poses of
     * c->n nodes), *off how far they are from what the driver was asked for
     * (0: as asked; larger: further). Returns 1 when the driver has changed
     * itself and started again from before frame 0 to be filmed anew; the
     * engine keeps the film with the smallest *off. */
    int (*retune)(void *user, const struct clip_frames *c, double *off);
} clip_driver;

typedef enum clip_kind {
    CLIP_ONESHOT = 0, /* from a start until the body settles (or a fixed length), eased back to rest */
    CLIP_PERIODIC,    /* one steady-state period of a drive that repeats */
    CLIP_MEASURED     /* whole periods of a motion whose period is found by watching it (a swing) */
} clip_kind;

/* How the engine films a driver. */
typedef struct clip_def {
    clip_kind kind;
    int width, height;   /* canvas, pixels: for the memory bound */
    double sx, sy;       /* canvas pixels per image pixel: tolerances are in canvas pixels */
    double fps;          /* frames per second */
    /* periodic */
    int period;          /* frames in one period (>= 2) */
    int warm_periods;    /* > 0: exactly this many whole periods before the one filmed (where the drive
                          * was measured); 0: until one ends within 0.025 px of where the one before did */
    int start;           /* the frame of the period shown first (0: where the drive's period starts) */
    const double *taken; /* NULL, or the period already filmed as the engine would film it (the driver's
                          * nodes only, no extras): period + 1 poses from frame `start` on, the last the
                          * one after the period; x of every pose, then y of every pose */
    /* one-shot */
    int fixed;           /* exactly this many frames (0: until settled) */
    int min_frames;      /* frames before the body may count as settled */
    int max_frames;      /* frames at most while waiting to settle (>= 2) */
    double still;        /* canvas pixels a node may move in a frame and count as still */
    double near;         /* > 0: a settled body is also within this of the rest pose, canvas pixels */
    double fade;         /* > 0: or within this share of the largest distance from rest since busy last */
    int quiet;           /* still frames in a row that mean settled (>= 1) */
    const double *rest_x, *rest_y; /* rest pose (n nodes); NULL: frame 0 */
    const double *rest_e;          /* rest extras; NULL: frame 0's */
    int frame0_rest;     /* 1: frame 0 shows the rest pose, not the state after the kick */
    int ease;            /* frames at the end eased back into the rest pose (0: none) */
    int ease_from;       /* > 0: easing starts no earlier than this frame; 0: in the last third */
    int ease_to_end;     /* 1: the last frame is the rest pose itself; 0: the frame after it would be */
    double snap;         /* > 0: frames this close to frame 0 (canvas pixels) become frame 0, so near-still frames do not shimmer */
    /* measured */
    double warmup;       /* seconds before a period may start (the transients fade) */
    double min_swing;    /* smallest peak of the phase signal that counts as a steady motion */
    double duration;     /* > 0: the whole number of periods nearest this many seconds; 0: one period */
} clip_def;

/* The recorded frames of a clip. */
typedef struct clip_frames {
    int n, extra;        /* per frame, as the driver's */
    int count;           /* frames */
    double *x, *y;       /* count * n node positions; frame f starts at f * n; owned */
    double *e;           /* count * extra numbers; owned */
    int periodic;        /* 1: one period of a steady state, the last frame leading into the first */
    int settled;         /* 1: a one-shot clip ended because the body came to rest */
    int left;            /* 1: a one-shot clip ended because the body left the canvas */
    double period;       /* seconds of one period (measured clips) */
    int cap;             /* frames allocated */
    double frame_bytes;  /* bytes one frame takes, RGBA and state */
} clip_frames;

/* A one-shot clip of `duration` seconds (0: until the body settles, within
 * max_duration seconds) at def->fps: sets def->fixed and def->max_frames. */
void clip_set_length(clip_def *def, double duration, double max_duration);
/* Refuses, before any work, a clip of `frames` frames of w x h whose frames
 * alone would take more than the memory bound (memlimit.h); `shorter` names the
 * options that make it smaller. Filming stops at the bound too, and drawing
 * checks the frames with the renderer's copy of the stamp. */
poyo_status clip_check_memory(int frames, int w, int h, const char *shorter, poyo_error *err);
/* Where a stamp of iw x ih pixels sits at rest on a w x h canvas when its
 * visible box (x0, y0, x1, y1, image pixels) is scaled to `side` canvas pixels
 * along its longer side and centred (drivers that carry, drop or hang a stamp). */
placement clip_place(int iw, int ih, const double box[4], double side, int w, int h);
/* Films driver as def says into *out (clip_free). A measured clip whose motion
 * never settles into a steady period comes back with count 0. */
poyo_status clip_film(const clip_def *def, const clip_driver *driver, clip_frames *out, poyo_error *err);
/* Frees the frames; safe on a zeroed clip. */
void clip_free(clip_frames *c);

/* Called for every frame after the stamp is drawn: adds what the driver shows
 * besides the stamp (a scene under it, a rope). */
typedef void (*clip_layer_fn)(void *user, int f, uint8_t *rgba, int w, int h);

/* How the frames are drawn. */
typedef struct clip_view {
    const image *src;      /* the stamp; NULL: nothing but the layer */
    const lattice *lat;    /* its lattice */
    placement place;       /* where the stamp's rest image sits on the canvas */
    int width, height;     /* canvas, pixels */
    double fps;
    int loop;              /* plays (0 = forever), passed to the encoders */
    int threads;           /* threads drawing frames side by side (1 to 8) */
    clip_layer_fn layer;   /* may be NULL */
    void *user;            /* for layer */
    const render_source *made; /* the stamp's source made ahead for this canvas and place, or NULL */
} clip_view;

/* Draws count frames of node positions x, y (n per frame, image pixels) into
 * *out (anim_free), within the memory bound. */
poyo_status clip_render(const clip_view *v, const double *x, const double *y, int n, int count, anim *out,
                        poyo_error *err);

#endif
