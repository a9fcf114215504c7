/* stagger.h - a stamp made of parts (the glyphs of a word), each a soft body
 * of its own kicked by the same impulse, one after another, joined to its
 * neighbours by soft links (links.h) and drawn together: letters that land
 * one after another, a wave that runs along a word like a string of jelly. */
#ifndef POYO_STAGGER_H
#define POYO_STAGGER_H

#include "animate.h"

/* The most parts a stamp may have. */
#define STAGGER_MAX_PARTS 32

typedef struct stagger {
    int n;                          /* parts */
    const image *parts;             /* n images of the whole's size, each showing one part (not owned) */
    motion m[STAGGER_MAX_PARTS];    /* each part's frames of the whole clip (count each), placed as the whole is */
    int delay;                      /* frames between one part's start and the next's (its phase lag, periodic) */
    int periodic;                   /* 1: the clip is one period of a drive */
    int count;                      /* frames of the whole clip */
} stagger;

/* Simulates the n parts (1 to STAGGER_MAX_PARTS; each the size of whole) as
 * bodies of their own with def, on the canvas where the whole would be
 * placed, each part linked to the one before and the one after when they
 * are near (links_build), all stepped together. A one-shot impulse starts
 * each part a little after the one before (0.1 s, less when there are many
 * parts: all start within 0.6 s; a part stands still until it starts) and the
 * clip runs until the last has settled; a periodic drive gives each part the
 * same period with its phase lagging the one before, so a wave runs along
 * the parts within one period. def must have passed animate_check_def(). */
poyo_status stagger_simulate(const image *whole, const image *parts, int n, const animate_def *def, stagger *out,
                             poyo_error *err);
/* Draws the clip on the canvas def asks for (as animate_render does), later
 * parts over earlier ones. */
poyo_status stagger_render(const stagger *s, const animate_def *def, anim *out, poyo_error *err);
/* Frees the motions; safe on a zeroed stagger. */
void stagger_free(stagger *s);

#endif
