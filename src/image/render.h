/* render.h - draws the image warped over the deformed lattice: Catmull-Rom
 * refinement of node displacements, then an inverse bilinear map per output
 * pixel with premultiplied bilinear sampling. */
#ifndef POYO_RENDER_H
#define POYO_RENDER_H

#include <stdint.h>

#include "image.h"
#include "lattice.h"
#include "util/error.h"

typedef enum fit_mode { FIT_AUTO = 0, FIT_NONE } fit_mode;

/* Where the image sits on the canvas: it is resampled to pw x ph pixels with its
 * top-left corner at (ox, oy), so image point p is drawn at (sx p.x + ox, sy p.y + oy). */
typedef struct placement {
    int pw, ph, ox, oy;
    double sx, sy;
} placement;

/* A renderer for one source image, lattice and canvas. */
typedef struct renderer {
    const lattice *lat;
    int w, h;                /* canvas, pixels */
    int sub;                 /* render cells per lattice cell along each side */
    int rx, ry;              /* render grid nodes per row and column */
    placement place;
    float *src;              /* premultiplied source placed on the canvas with a 3-pixel border, at up times the
                                canvas resolution: (w + 6) up * (h + 6) up * 4 floats */
    int up;                  /* src is at this many times the canvas's resolution (1, 2 or 4) */
    double *dx, *dy;         /* lattice displacements with inactive nodes filled in */
    double *tx, *ty;         /* rows refined along x: ny * rx */
    double *gx, *gy;         /* render grid positions on the canvas: rx * ry */
    uint8_t *mask;           /* w * h: 0 where no quad drew this frame, else 1 + how much wider
                                than at rest the quad drew edges across x and y (see render.c) */
    int widened;             /* 1 when a quad of the frame drew edges wider than at rest */
    float *ring;             /* three rows of the frame, as floats, for sharpening */
    unsigned char *filled;   /* scratch for the displacement fill */
    float unpremul[256][4];  /* (255 / a, 255 / a, 255 / a, 1): premultiplied samples back to colours */
    float src_max_x, src_max_y; /* largest sample coordinates inside the bordered source */
    size_t src_stride;       /* floats per row of the bordered source */
    int shared_src;          /* 1 when src belongs to the renderer this one was cloned from */
} renderer;

/* Bounding box of what is drawn for each of `frames` sets of node positions
 * (x, y: n per frame, lattice active order, image pixels), the refinement's
 * spline included; expands *box (x0, y0, x1, y1). Fails only with POYO_ERR_NOMEM. */
poyo_status render_bounds(const lattice *lat, const double *x, const double *y, size_t n, int frames, double box[4],
                          poyo_error *err);
/* The warp's displacement of every lattice grid node (dx, dy: nx * ny each, image
 * pixels) when the active nodes are at x, y: an inactive node takes the mean of its
 * neighbours', layer by layer outward (filled: nx * ny bytes of scratch). The field
 * render_warp_at reads, and that the frames are drawn from. */
void render_warp_field(const lattice *lat, const double *x, const double *y, double *dx, double *dy,
                       unsigned char *filled);
/* How far the frames move image point (px, py) under a field of render_warp_field:
 * the Catmull-Rom surface through the nodes' displacements, which the frames draw
 * exactly at the refined grid's points and linearly between them (a point off the
 * lattice: the nearest point of its edge). */
void render_warp_at(const lattice *lat, const double *dx, const double *dy, double px, double py, double *ox,
                    double *oy);
/* The placement for a canvas of w x h. Fit none: the image scaled to fit the
 * canvas, centred, as a still emoji is shown. Fit auto: the same unless box
 * (what is drawn over the whole clip, image pixels, from render_bounds) needs a
 * smaller scale to stay off the canvas's outermost pixels, but never smaller
 * than min_scale of it; centred, then moved to keep box inside where it can
 * (too wide, box is centred; too tall, its bottom kept in view with
 * keep_bottom, else centred). *fits (may be NULL) is 1 when box is inside. */
placement render_fit(int iw, int ih, int w, int h, fit_mode fit, const double box[4], double min_scale,
                     int keep_bottom, int *fits);
/* When box does not fit (*fits 0), moves p so that rest (the visible box at rest,
 * image pixels) is inside the canvas's outermost pixels. */
void render_keep_rest(placement *p, int w, int h, const double rest[4]);
/* The rectangle (x0, y0, x1, y1, image pixels) that place shows inside the
 * canvas's outermost pixels: where a body must stay to be drawn whole. */
void render_inner_box(placement place, int w, int h, double box[4]);
/* Bytes a renderer for a w x h canvas holds at its peak, with its clones on
 * eight threads: the source copy, the placed stamp it is made from, the masks
 * and the rows sharpening reads. */
double renderer_bytes(int w, int h);
/* The source a renderer samples, made ahead of it: src placed on a w x h
 * canvas at place, premultiplied, bordered and upsampled. */
typedef struct render_source {
    const image *from;       /* the image it was made from */
    int w, h;
    placement place;
    float *px;               /* as renderer.src */
} render_source;

/* Prepares drawing src (iw x ih) with its lattice on a w x h canvas. */
poyo_status renderer_init(renderer *r, const image *src, const lattice *lat, int w, int h, placement place,
                          poyo_error *err);
/* Makes the source renderer_init would make for src on a w x h canvas at place. */
poyo_status render_source_make(const image *src, int w, int h, placement place, render_source *out,
                               poyo_error *err);
/* Frees it; safe on a zeroed one and twice. */
void render_source_free(render_source *s);
/* renderer_init that samples the source made ahead (s, which it then uses
 * and leaves to its owner) when s was made from src for this canvas and
 * placement; otherwise makes its own. */
poyo_status renderer_init_from(renderer *r, const image *src, const render_source *s, const lattice *lat, int w,
                               int h, placement place, poyo_error *err);
/* Draws one frame for node positions (x, y) into rgba (w * h * 4, straight alpha). */
void renderer_draw(renderer *r, const double *x, const double *y, uint8_t *rgba);
/* Frees the renderer's buffers; safe twice. */
void renderer_free(renderer *r);
/* A second renderer drawing the same source (shared, read-only) with scratch
 * buffers of its own, for drawing frames on another thread. */
poyo_status renderer_clone(renderer *dst, const renderer *src, poyo_error *err);
/* Draws count frames of n nodes each (frame f at x + f n, y + f n) into
 * frames (count * w * h * 4 bytes), on up to `threads` threads. */
poyo_status renderer_draw_frames(renderer *r, const double *x, const double *y, int n, int count, uint8_t *frames,
                                 int threads, poyo_error *err);

/* Inverse of the bilinear map of quad p00, p10, p11, p01 at point p: returns 1 and
 * (u, v) when p is inside (with tolerance eps), else 0. */
int render_inverse_bilinear(double px, double py, const double q[8], double eps, double *u, double *v);

#endif
