/* anim.h - an animation in memory: equally sized RGBA frames, each held for a
 * whole number of ticks of a fixed frame rate. Every encoder takes this. */
#ifndef POYO_ANIM_H
#define POYO_ANIM_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* The ranges every clip shares, as its options state them. */
#define ANIM_SIDE_MAX 4096      /* canvas pixels per side (from 1) */
#define ANIM_FPS_MIN 1.0        /* frames per second */
#define ANIM_FPS_MAX 100.0
#define ANIM_DURATION_MIN 0.1   /* seconds of a clip asked for */
#define ANIM_DURATION_MAX 60.0
#define ANIM_LOOP_MAX 65535     /* plays (0 = forever) */

typedef struct anim {
    int width, height;   /* pixels, both >= 1 */
    int count;           /* number of frames */
    double fps;          /* ticks per second */
    int loop;            /* 0 = forever, else how many times the clip plays */
    uint8_t *rgba;       /* count * width * height * 4 bytes, straight (not premultiplied) alpha */
    int *hold;           /* count entries: ticks each frame is shown, >= 1 */
} anim;

/* Allocates count frames of width x height, zeroed, each held 1 tick. */
poyo_status anim_init(anim *a, int width, int height, int count, double fps, poyo_error *err);
/* As anim_init, but the frames' bytes are left as they come: for a caller
 * that writes every pixel of every frame before anything reads them. */
poyo_status anim_init_undrawn(anim *a, int width, int height, int count, double fps, poyo_error *err);
/* POYO_ERR_USAGE unless a holds at least one frame of at least 1x1, a positive
 * finite frame rate and holds of 1 tick or more; format names the encoder
 * in the message ("cannot write an empty animation as WebM"). */
poyo_status anim_check_encodable(const anim *a, const char *format, poyo_error *err);
/* Frees the buffers; safe on a zeroed or already freed anim. */
void anim_free(anim *a);
/* Pointer to frame i's first byte. */
static inline uint8_t *anim_frame(const anim *a, int i)
{
    return a->rgba + (size_t)i * (size_t)a->width * (size_t)a->height * 4u;
}
/* Bytes in one frame. */
static inline size_t anim_frame_bytes(const anim *a) { return (size_t)a->width * (size_t)a->height * 4u; }
/* A rectangle of the canvas; w = 0 is empty. */
typedef struct anim_rect { int x, y, w, h; } anim_rect;
/* The smallest rectangle holding every pixel where frames i and j differ (empty when none). */
anim_rect anim_diff_rect(const anim *a, int i, int j);
/* Copies rectangle r of frame i (i > 0) to dst (r.w * 4 bytes a row) with the pixels
 * equal to frame i - 1 made transparent (0, 0, 0, 0), so that drawn OVER frame i - 1 it
 * gives frame i. Returns 1 when that is exact (every changed pixel opaque) and at least
 * one pixel is unchanged, else 0 (dst is then partly written). */
int anim_over_rect(const anim *a, int i, anim_rect r, uint8_t *dst);
/* Straight RGBA pixel src drawn over dst (4 bytes each), rounded to nearest. */
void anim_blend_over(uint8_t *dst, const uint8_t *src);
/* Total duration in seconds. */
double anim_duration(const anim *a);
/* Merges runs of identical consecutive frames into one longer-held frame. */
void anim_merge_identical(anim *a);
/* Splits the total time into whole units of 1/unit s (centiseconds: 100, ms: 1000)
 * so that rounding errors are carried and the sum matches the total; every
 * delay is at least min_units. out has a->count entries. */
void anim_delays(const anim *a, int unit, int min_units, int *out);

#endif
