/* text.h - text as a stamp: lines of UTF-8 shaped by HarfBuzz in the fonts
 * fontconfig finds (a colour emoji font for emoji), laid out to fill or fit a
 * canvas, and drawn by FreeType, with an outline and a gradient, at whatever
 * size the image is placed at. The only caller of textlib.h. */
#ifndef POYO_TEXT_H
#define POYO_TEXT_H

#include <stdint.h>

#include "image.h"
#include "util/error.h"

typedef enum text_align { TEXT_ALIGN_CENTER, TEXT_ALIGN_LEFT, TEXT_ALIGN_RIGHT } text_align;
typedef enum text_fit { TEXT_FIT_FILL, TEXT_FIT_KEEP } text_fit;

/* The most a text may hold: characters (code points) and lines. */
#define TEXT_MAX_CHARS 256
#define TEXT_MAX_LINES 16

/* The widest --outline, pixels at the canvas size. */
#define TEXT_OUTLINE_MAX 64

typedef struct text_def {
    const char *font;       /* a fontconfig pattern ("IPAexGothic", "serif:bold") or a font file
                               (a name with a / or ending in .ttf, .otf, .ttc or .otc) */
    unsigned color;         /* fill, 0xRRGGBB */
    int gradient;           /* 1: the fill runs from color to color2 along angle */
    unsigned color2;
    double angle;           /* gradient direction, degrees clockwise from right (90: top to bottom) */
    int outline;            /* 1: the letters are outlined */
    unsigned outline_color; /* 0xRRGGBB */
    double outline_width;   /* pixels at the canvas size (0 to TEXT_OUTLINE_MAX); 0 with outline = 1/40 of the shorter side */
    text_align align;       /* lines against each other (columns, when vertical: left = top) */
    int vertical;           /* 1: top to bottom in columns right to left, with the font's vertical forms */
    text_fit fit;           /* fill: each line stretched over its share of the canvas; keep: proportions kept */
    int width, height;      /* the canvas the text is laid out for (1 to ANIM_SIDE_MAX) */
} text_def;

/* The defaults, the only place they live. */
text_def text_default_def(void);
/* Checks every field of def; names the first bad one. */
poyo_status text_check_def(const text_def *def, poyo_error *err);
/* Checks a text before anything is loaded: valid UTF-8, at most TEXT_MAX_CHARS
 * characters on TEXT_MAX_LINES lines (split at newlines and at the two
 * characters \n), something visible. Fails with POYO_ERR_USAGE. */
poyo_status text_check(const char *utf8, poyo_error *err);
/* Lays out utf8 (checked as text_check does) for def and makes out an image of
 * it, kept as a drawing (image_from_drawing) so that it is drawn again, not
 * scaled, at the size it is placed at. Loads the libraries on first use. Fails
 * with POYO_ERR_USAGE when def->font names no installed font, POYO_ERR_INPUT
 * when a font cannot be read or the libraries are missing. */
poyo_status text_image(const char *utf8, const text_def *def, image *out, poyo_error *err);

/* The glyphs with ink in a text image (made by text_image), in the order the
 * lines are written; 0 for any other image. */
int text_glyph_count(const image *im);
/* An image of the same size as the text image im showing only its glyph k
 * (0 <= k < text_glyph_count(im)) where im shows it, drawn again at any size
 * as im is. */
poyo_status text_glyph_image(const image *im, int k, image *out, poyo_error *err);

#endif
