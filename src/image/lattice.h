/* lattice.h - the node grid laid over an image's visible pixels: which cells
 * hold visible pixels and which nodes are active. */
#ifndef POYO_LATTICE_H
#define POYO_LATTICE_H

#include <stdint.h>

#include "image.h"
#include "util/error.h"

/* Nodes along the longer side of the visible pixels. Outside 8 to 12 the
 * largest strengths tear thin parts apart: on the Twemoji corpus at 128 px,
 * at 48 and 64 nodes a snake 1f40d squashed came apart; at 20 a balloon
 * 1f388 squashed at the largest strength (--volume 0.8) tore off its
 * string; at 13, 14 and 16 it lost its string jumping and dropping at the
 * largest strength, at 14 the wide bar twisted at its largest tore, and at
 * 16 the "!" and the clapping hands 1f44f poked and the flag squashed at
 * their largest closed gaps between their parts. At 4 and 5 the wide bar
 * twisted at its largest thinned into a wedge that came apart and a poked
 * banana tore; at 7 the clapping hands squashed at the largest strength
 * merged their motion lines; at 3 a free body shaken has no part that can
 * wobble. From 8 to 12 every impulse at its largest strength keeps 15
 * stamps whole held and free, alone and with --volume 0.8, and the 65
 * stamps of the corpus held (at 8, 10 and 12). */
#define LATTICE_GRID_MIN 8
#define LATTICE_GRID_MAX 12

/* Lattice geometry. Node (i, j) rests at (ox + i h, oy + j h) in image pixels. */
typedef struct lattice {
    int nx, ny;            /* nodes per row and per column, both >= 2 */
    double ox, oy, h;      /* origin and spacing, image pixels */
    uint8_t *cell;         /* (nx - 1) * (ny - 1): 1 when the cell must be drawn */
    int *index;            /* nx * ny: active node number, or -1 */
    int count;             /* active nodes */
    int *ni, *nj;          /* count entries: grid coordinates of each active node */
    double bx0, by0, bx1, by1; /* bounding box of the visible pixels, image pixels */
    double sx0, sy0, sx1, sy1; /* bounding box of the opaque part (alpha >= 1/2), edges where alpha
                                * crosses one half; all 0 when no pixel reaches it */
    float *cell_opaque;    /* (nx - 1) * (ny - 1): the share of each cell's pixel centres that are opaque
                            * (alpha >= 1/2), 0 to 1 */
    float *cell_box;       /* 4 per cell, (nx - 1) * (ny - 1) cells: x0, y0, x1, y1 of the opaque pixels
                            * whose centres lie in the cell (their whole squares); x0 > x1 when none */
    int op_stride;         /* the samples' spacing across and down, pixels */
    int op_n;              /* opaque pixels sampled on a regular stride, at most LATTICE_OPAQUE_SAMPLES */
    float *op_x, *op_y;    /* op_n: their centres, image pixels (owned) */
} lattice;

/* The most opaque pixels a lattice samples (to measure a deformation where the picture is). */
#define LATTICE_OPAQUE_SAMPLES 2048

/* Lays a lattice with `grid` nodes (LATTICE_GRID_MIN to _MAX) along the longer side of the visible
 * bounding box. Fails with POYO_ERR_INPUT when no pixel is visible. */
poyo_status lattice_build(const image *im, int grid, lattice *out, poyo_error *err);
/* A body's far side, where an anchor or a second hand holds it: the active
 * node of one line of the grid (column `line`, or row `line` with rows) that
 * lies farthest along sign (+1: down or right, -1: up or left), when it is
 * within the farthest quarter of all active nodes' extent that way; -1 when
 * the line has none there. */
int lattice_far_node(const lattice *l, int rows, int sign, int line);
/* Frees the arrays; safe on a zeroed lattice. */
void lattice_free(lattice *l);

#endif
