/* stagger.h - a stamp made of parts (the glyphs of a word), each a soft body
 * of its own kicked by the same impulse, one after another, drawn together:
 * letters that land one after another, a wave that runs along a word. */
#ifndef POYO_STAGGER_H
#define POYO_STAGGER_H

#include "animate.h"

/* The most parts a stamp may have. */
#define STAGGER_MAX_PARTS 32

typedef struct stagger {
    int n;                          /* parts */
    const image *parts;             /* n images of the whole's size, each showing one part (not owned) */
    motion m[STAGGER_MAX_PARTS];    /* each part's clip, placed as the whole is */
    int delay;                      /* frames between one part's start and the next's */
    int periodic;                   /* 1: the parts' clips are periods, shown with a phase lag */
    int count;                      /* frames of the whole clip */
} stagger;

/* Simulates each of the n parts (1 to STAGGER_MAX_PARTS; each the size of
 * whole) as a body of its own with def, on the canvas where the whole would
 * be placed. A one-shot impulse starts each part a little after the one
 * before (0.1 s, less when there are many parts: all start within 0.6 s) and
 * the clip runs until the last has settled; a periodic drive gives each part
 * the same period with its phase lagging the one before, so a wave runs
 * along the parts within one period. def must have passed animate_check_def(). */
poyo_status stagger_simulate(const image *whole, const image *parts, int n, const animate_def *def, stagger *out,
                             poyo_error *err);
/* Draws the clip on the canvas def asks for (as animate_render does): each
 * frame every part at its own moment, later parts over earlier ones. */
poyo_status stagger_render(const stagger *s, const animate_def *def, anim *out, poyo_error *err);
/* Frees the motions; safe on a zeroed stagger. */
void stagger_free(stagger *s);

#endif
