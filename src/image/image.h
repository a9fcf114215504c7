/* image.h - RGBA images: decode PNG, JPEG, WebP, SVG and the first frame of a
 * GIF or an animated WebP (each recognised by its content, whatever the file's
 * name; only PNG and JPEG reach stb_image, only SVG reaches librsvg) with a
 * pixel limit checked before decoding, resample, premultiply. The only caller
 * of stb_image, stb_image_resize, librsvg and libxml2 (those two through
 * svglib.h, loaded on the first SVG). */
#ifndef POYO_IMAGE_H
#define POYO_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct image_vector; /* a drawing (a parsed SVG, laid-out text), private to image.c */

/* How an image made from a drawing draws it again at any size. */
typedef struct image_drawer {
    /* Draws the whole drawing fitted into the rectangle (x, y, dw, dh) of rgba,
     * a w x h canvas (straight RGBA, rows packed) that it first clears. */
    poyo_status (*draw)(void *obj, int w, int h, double x, double y, double dw, double dh, uint8_t *rgba,
                        poyo_error *err);
    void (*ref)(void *obj);   /* one more owner of obj */
    void (*unref)(void *obj); /* one owner fewer; the last frees it */
} image_drawer;

/* 8-bit RGBA, straight alpha, rows packed (stride = 4 * w). */
typedef struct image {
    int w, h;
    uint8_t *rgba;   /* owned */
    struct image_vector *vec; /* owned (a copy by assignment shares it; image_crop makes one that owns its
                                 own); a drawing (SVG, text) that image_place draws again at the size asked for */
} image;

/* Decodes an image held in memory: PNG, JPEG, WebP (an animated one's first
 * frame), GIF (its first frame on the logical screen, transparency kept) or
 * SVG (XML whose root element is svg: drawn at its intrinsic size, from width
 * and height or else the viewBox, in CSS pixels; nothing outside the data is
 * ever read, neither files nor URLs; the drawing is kept in out->vec).
 * Of an animation nothing after the first frame is parsed. Fails with
 * POYO_ERR_INPUT for data that is empty, not one of these, truncated or
 * larger than max_pixels (checked from the header before any
 * pixel is decoded). */
poyo_status image_decode(const uint8_t *data, size_t len, long long max_pixels, image *out, poyo_error *err);
/* The pixel limit checked before decoding unless the user sets another. */
#define IMAGE_DEFAULT_MAX_PIXELS 16777216LL

/* Reads path ("-" = standard input; at most FILE_MAX_BYTES) and decodes it as image_decode does. */
poyo_status image_load(const char *path, long long max_pixels, image *out, poyo_error *err);
/* The window [x0, x1) x [y0, y1) of src as an image of its own; an SVG's
 * drawing comes along, so the window too is drawn again at any size. */
poyo_status image_crop(const image *src, int x0, int y0, int x1, int y1, image *out, poyo_error *err);
/* A w x h image drawn from obj by d; out keeps a reference of its own to obj
 * (taken on success), so that image_place draws it again at any size. */
poyo_status image_from_drawing(const image_drawer *d, void *obj, int w, int h, image *out, poyo_error *err);
/* Whether im, an image with a drawing (an SVG, not a crop of it), is smaller
 * than the largest size that fits in w x h with its aspect kept and at most
 * max_pixels (0: no limit); that size in *fw x *fh. The soft body and the
 * warp are laid over a drawing drawn that large (image_redraw), as over a
 * raster of the size the stamp is shown at (a Twemoji SVG is 36 units). */
int image_fit_size(const image *im, int w, int h, long long max_pixels, int *fw, int *fh);
/* Draws im's whole drawing again at w x h, in place; the drawing is kept. */
poyo_status image_redraw(image *im, int w, int h, poyo_error *err);
/* The drawing obj of an image made by image_from_drawing with drawer d (not a
 * crop of it), else NULL. */
void *image_drawing(const image *im, const image_drawer *d);
/* Allocates a zeroed (fully transparent) w x h image. */
poyo_status image_alloc(image *out, int w, int h, poyo_error *err);
/* Frees the pixels and the drawing; safe on a zeroed image. */
void image_free(image *im);
/* Sets the colour of fully transparent pixels to 0 so equal-looking images compare equal. */
void image_clear_invisible(image *im);
/* Visible bounding box (alpha > 0) as [x0, x1) x [y0, y1); returns 0 when nothing is visible. */
int image_visible_bbox(const image *im, int *x0, int *y0, int *x1, int *y1);
/* Resamples src to pw x ph (sRGB-aware, alpha-weighted) and puts its top-left
 * corner at (ox, oy) on a transparent w x h canvas; the rest is clipped. An
 * drawing (src->vec: an SVG, text) is not resampled but drawn again at pw x ph,
 * so it stays sharp at any size. */
poyo_status image_place(const image *src, int w, int h, int pw, int ph, int ox, int oy, image *out, poyo_error *err);
/* Encodes as PNG into *out (malloc'ed, *len bytes); the caller frees it. */
poyo_status image_encode_png(const uint8_t *rgba, int w, int h, uint8_t **out, size_t *len, poyo_error *err);

struct GifFileType;     /* giflib's (gif_lib.h) */
struct ColorMapObject;

/* Bytes in memory for giflib to read: DGifOpen(&src, image_gif_read, &err). */
typedef struct image_gif_src {
    const uint8_t *p;
    size_t len, pos;
} image_gif_src;
/* giflib's read callback over the image_gif_src in g->UserData: up to n bytes into buf. */
int image_gif_read(struct GifFileType *g, unsigned char *buf, int n);
/* Paints one decoded GIF row, width colour indices from canvas column left,
 * onto dst, a row of an RGBA canvas w pixels wide: every index but transparent
 * that cm holds becomes an opaque pixel; the rest of dst is left as it is. */
void image_gif_paint_row(uint8_t *dst, int w, int left, const unsigned char *line, int width,
                         const struct ColorMapObject *cm, int transparent);

#endif
