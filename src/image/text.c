/* text.c - text laid out as a stamp: a font per cluster (the one asked for,
 * a colour emoji font for emoji, fontconfig's fallback for the rest), runs
 * shaped by HarfBuzz, each line's ink box fitted to the canvas, and outlines
 * filled (FreeType's anti-aliased rasteriser) and stroked at the size asked. */
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "anim.h"
#include "textlib.h"
#include "geom/vec2.h"
#include "util/fileio.h"

text_def text_default_def(void)
{
    text_def d;
    memset(&d, 0, sizeof d);
    d.font = "sans-serif:bold";
    d.color = 0xe8303a;
    d.color2 = 0xffa000;
    d.angle = 90.0;
    d.outline_color = 0xffffff;
    d.align = TEXT_ALIGN_CENTER;
    d.fit = TEXT_FIT_FILL;
    d.width = d.height = 128;
    return d;
}

poyo_status text_check_def(const text_def *def, poyo_error *err)
{
    if (!def->font || !*def->font)
        return poyo_fail(err, POYO_ERR_USAGE, "--font: needs a font name or file");
    if (!(def->outline_width >= 0.0 && def->outline_width <= TEXT_OUTLINE_MAX))
        return poyo_fail(err, POYO_ERR_USAGE, "--outline: width must be 0 to %d pixels, not %g", TEXT_OUTLINE_MAX,
                         def->outline_width);
    if (!isfinite(def->angle))
        return poyo_fail(err, POYO_ERR_USAGE, "--gradient: the angle must be a number");
    if (def->width < 1 || def->width > ANIM_SIDE_MAX || def->height < 1 || def->height > ANIM_SIDE_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "canvas %dx%d is not 1 to %d pixels a side", def->width, def->height,
                         ANIM_SIDE_MAX);
    return POYO_OK;
}

/* The code point at s (n bytes left) and its length, or length 0 when the
 * bytes there are not UTF-8 (overlong forms, surrogates and values past
 * U+10FFFF included). */
static uint32_t utf8_next(const unsigned char *s, size_t n, int *len)
{
    *len = 0;
    if (n == 0)
        return 0;
    uint32_t c = s[0];
    int k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (k == 0 || (size_t)k > n)
        return 0;
    if (k > 1)
        c &= 0x3fu >> (k - 1);
    for (int i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3fu);
    }
    static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (c < least[k] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *len = k;
    return c;
}

/* 1 when the text breaks a line at s: a newline or the two characters \n. */
static int line_break_at(const char *s, int *len)
{
    if (s[0] == '\n') {
        *len = 1;
        return 1;
    }
    if (s[0] == '\\' && s[1] == 'n') {
        *len = 2;
        return 1;
    }
    return 0;
}

poyo_status text_check(const char *utf8, poyo_error *err)
{
    size_t n = strlen(utf8);
    int chars = 0, lines = 1, visible = 0;
    for (size_t i = 0; i < n;) {
        int k;
        if (line_break_at(utf8 + i, &k)) {
            if (++lines > TEXT_MAX_LINES)
                return poyo_fail(err, POYO_ERR_USAGE, "text has more than %d lines", TEXT_MAX_LINES);
            i += (size_t)k;
            continue;
        }
        uint32_t c = utf8_next((const unsigned char *)utf8 + i, n - i, &k);
        if (k == 0)
            return poyo_fail(err, POYO_ERR_USAGE, "text is not valid UTF-8 (byte %zu)", i + 1);
        if (c < 0x20 || c == 0x7f)
            return poyo_fail(err, POYO_ERR_USAGE, "text holds a control character (U+%04X)", (unsigned)c);
        if (++chars > TEXT_MAX_CHARS)
            return poyo_fail(err, POYO_ERR_USAGE, "text has more than %d characters", TEXT_MAX_CHARS);
        visible |= c != ' ' && c != 0x3000 && c != 0xa0;
        i += (size_t)k;
    }
    if (!visible)
        return poyo_fail(err, POYO_ERR_USAGE, "no text to draw");
    return POYO_OK;
}

/* ---- fonts ---------------------------------------------------------------- */

#define MAX_FONTS 8

typedef struct tfont {
    char *path;
    int index;
    FT_Face face;
    hb_blob_t *blob;
    hb_face_t *hb_face;
    hb_font_t *hb;
    double upem;
    int bitmap;      /* 1: colour bitmaps (CBDT, sbix) at one strike, not outlines */
    double strike;   /* that strike's pixels per em */
    int embolden;    /* 1: fontconfig asks for synthetic bold */
} tfont;

/* One glyph: its font and where its origin is, in ems of the line (y down). */
typedef struct tglyph {
    int font;
    unsigned gid;
    double x, y;
    int ink;   /* 1 when it draws anything */
} tglyph;

/* One line (a column when vertical): its glyphs, its ink box in ems and the
 * map from its ems to the image's pixels: X = ax * x + bx, Y = ay * y + by. */
typedef struct tline {
    int first, count;
    int ink;
    double x0, y0, x1, y1;
    double ax, bx, ay, by;
} tline;

typedef struct text_drawing {
    atomic_int refs;
    const textlib *lib;
    FT_Library ft;
    tfont fonts[MAX_FONTS];
    int nfonts;
    tglyph *g;
    int ng, gcap;
    tline lines[TEXT_MAX_LINES];
    int nlines;
    text_def def;
    double outline_px;  /* outline width, image pixels */
    int w, h;           /* the image's size */
    int inked;          /* glyphs with ink */
} text_drawing;

static void font_close(const textlib *lib, tfont *f)
{
    if (f->hb)
        lib->hb_font_destroy(f->hb);
    if (f->hb_face)
        lib->hb_face_destroy(f->hb_face);
    if (f->blob)
        lib->hb_blob_destroy(f->blob);
    if (f->face)
        lib->FT_Done_Face(f->face);
    free(f->path);
    memset(f, 0, sizeof *f);
}

static void drawing_free(text_drawing *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nfonts; i++)
        font_close(t->lib, &t->fonts[i]);
    if (t->ft)
        t->lib->FT_Done_FreeType(t->ft);
    free(t->g);
    free(t);
}

/* Opens path (face index) once per drawing; *out is its slot in t->fonts. */
static poyo_status font_open(text_drawing *t, const char *path, int index, int embolden, int *out, poyo_error *err)
{
    for (int i = 0; i < t->nfonts; i++)
        if (t->fonts[i].index == index && strcmp(t->fonts[i].path, path) == 0) {
            *out = i;
            return POYO_OK;
        }
    if (t->nfonts == MAX_FONTS)
        return poyo_fail(err, POYO_ERR_INPUT, "text needs more than %d fonts", MAX_FONTS);
    const textlib *lib = t->lib;
    tfont *f = &t->fonts[t->nfonts];
    memset(f, 0, sizeof *f);
    f->index = index;
    f->embolden = embolden;
    if (!(f->path = strdup(path)))
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a font");
    if (lib->FT_New_Face(t->ft, path, index, &f->face) != 0 ||
        !(f->blob = lib->hb_blob_create_from_file_or_fail(path))) {
        font_close(lib, f);
        return poyo_fail(err, POYO_ERR_INPUT, "cannot read the font %s (not a font FreeType and HarfBuzz can open)",
                         path);
    }
    f->hb_face = lib->hb_face_create(f->blob, (unsigned)index);
    f->hb = lib->hb_font_create(f->hb_face); /* scaled in font units */
    f->upem = lib->hb_face_get_upem(f->hb_face);
    if (!FT_IS_SCALABLE(f->face)) {
        /* bitmaps only: the largest strike, scaled to the size asked */
        int best = -1;
        for (int i = 0; i < f->face->num_fixed_sizes; i++)
            if (best < 0 || f->face->available_sizes[i].y_ppem > f->face->available_sizes[best].y_ppem)
                best = i;
        if (best < 0 || !FT_HAS_COLOR(f->face) || lib->FT_Select_Size(f->face, best) != 0) {
            font_close(lib, f);
            return poyo_fail(err, POYO_ERR_INPUT, "cannot use the font %s (neither outlines nor colour bitmaps)",
                             path);
        }
        f->bitmap = 1;
        f->strike = f->face->available_sizes[best].y_ppem / 64.0;
    }
    if (!(f->upem >= 16.0) || (f->bitmap && !(f->strike >= 1.0))) {
        font_close(lib, f);
        return poyo_fail(err, POYO_ERR_INPUT, "cannot use the font %s (broken metrics)", path);
    }
    *out = t->nfonts++;
    return POYO_OK;
}

/* Names fontconfig resolves to whatever font it likes best: any match is one. */
static int generic_family(const char *s)
{
    static const char *const names[] = { "sans-serif", "sans", "serif", "monospace", "mono", "emoji", "cursive",
                                         "fantasy", "system-ui" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i]) == 0)
            return 1;
    return 0;
}

/* The file, face index and synthetic bold of a (prepared) fontconfig match. */
static poyo_status font_from_pattern(text_drawing *t, FcPattern *p, int *out, poyo_error *err)
{
    const textlib *lib = t->lib;
    FcChar8 *file = NULL;
    int index = 0;
    FcBool bold = FcFalse;
    if (lib->FcPatternGetString(p, FC_FILE, 0, &file) != FcResultMatch)
        return poyo_fail(err, POYO_ERR_INPUT, "fontconfig found a font without a file");
    lib->FcPatternGetInteger(p, FC_INDEX, 0, &index);
    lib->FcPatternGetBool(p, FC_EMBOLDEN, 0, &bold);
    return font_open(t, (const char *)file, index, bold == FcTrue, out, err);
}

/* The font def->font names: a file, or fontconfig's match for the pattern,
 * which must be of the family asked for (fontconfig always answers with some
 * font). *pattern is the configured pattern for fallbacks (the caller destroys it). */
static poyo_status font_primary(text_drawing *t, FcConfig *cfg, const char *font, FcPattern **pattern, int *out,
                                poyo_error *err)
{
    const textlib *lib = t->lib;
    size_t n = strlen(font);
    static const char *const exts[] = { ".ttf", ".otf", ".ttc", ".otc" };
    int is_file = strchr(font, '/') != NULL;
    for (size_t i = 0; i < 4 && !is_file; i++)
        is_file = n > 4 && strcasecmp(font + n - 4, exts[i]) == 0;
    FcPattern *p = lib->FcNameParse((const FcChar8 *)(is_file ? "sans-serif" : font));
    if (!p)
        return poyo_fail(err, POYO_ERR_USAGE, "--font: '%s' is not a fontconfig pattern", font);
    FcChar8 *asked = NULL;
    char family[128] = "";
    if (lib->FcPatternGetString(p, FC_FAMILY, 0, &asked) == FcResultMatch)
        snprintf(family, sizeof family, "%s", (const char *)asked);
    lib->FcConfigSubstitute(cfg, p, FcMatchPattern);
    lib->FcDefaultSubstitute(p);
    *pattern = p;
    if (is_file) {
        /* a file that is not there is a mistake in the command, as a pattern
         * no font matches is */
        if (access(font, R_OK) != 0)
            return poyo_fail(err, POYO_ERR_USAGE, "--font: cannot open the font file %s (%s)", font, strerror(errno));
        if (file_is_dir(font) || file_is_special(font))
            return poyo_fail(err, POYO_ERR_USAGE, "--font: %s is not a regular file", font);
        return font_open(t, font, 0, 0, out, err);
    }
    FcResult res;
    FcPattern *m = lib->FcFontMatch(cfg, p, &res);
    if (!m)
        return poyo_fail(err, POYO_ERR_USAGE, "--font: no installed font matches '%s'", font);
    int same = !*family || generic_family(family);
    FcChar8 *got = NULL, *first = NULL;
    for (int i = 0; !same && lib->FcPatternGetString(m, FC_FAMILY, i, &got) == FcResultMatch; i++) {
        if (i == 0)
            first = got;
        same = lib->FcStrCmpIgnoreCase(got, (const FcChar8 *)family) == 0;
    }
    poyo_status st;
    if (!same)
        st = poyo_fail(err, POYO_ERR_USAGE, "--font: no installed font matches '%s' (the nearest is %s)", font,
                       first ? (const char *)first : "another family");
    else
        st = font_from_pattern(t, m, out, err);
    lib->FcPatternDestroy(m);
    return st;
}

/* Extends the cluster that starts at i to the marks, selectors, joined
 * characters, skin tones and flag halves that go with it; returns its end
 * and sets *emoji when it asks for emoji presentation. */
static size_t cluster_end(const char *s, size_t n, size_t i, int *emoji)
{
    int k;
    uint32_t base = utf8_next((const unsigned char *)s + i, n - i, &k);
    size_t j = i + (size_t)k;
    int ri = base >= 0x1f1e6 && base <= 0x1f1ff, text_style = 0;
    *emoji = (base >= 0x1f000 && base <= 0x1faff);
    while (j < n) {
        uint32_t c = utf8_next((const unsigned char *)s + j, n - j, &k);
        if (c == 0x200d && j + (size_t)k < n) {
            int k2;
            utf8_next((const unsigned char *)s + j + k, n - j - (size_t)k, &k2);
            j += (size_t)(k + k2);
            continue;
        }
        int joins = (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0x1f3fb && c <= 0x1f3ff) || c == 0x20e3 ||
                    (c >= 0x300 && c <= 0x36f) || c == 0x3099 || c == 0x309a || (c >= 0xe0020 && c <= 0xe007f) ||
                    (ri && c >= 0x1f1e6 && c <= 0x1f1ff);
        if (!joins)
            break;
        if (c == 0xfe0f || c == 0x20e3)
            *emoji = 1;
        if (c == 0xfe0e)
            text_style = 1;
        ri = 0;
        j += (size_t)k;
    }
    if (text_style)
        *emoji = 0;
    return j;
}

/* A font for code point c: an open one that has it (a colour one for emoji),
 * else fontconfig's first font that has it, in the order of pattern (or of
 * "emoji" for emoji); the primary font (0, showing a missing glyph) when
 * none has it. */
static poyo_status font_for(text_drawing *t, FcConfig *cfg, FcPattern *pattern, uint32_t c, int emoji, int *out,
                            poyo_error *err)
{
    const textlib *lib = t->lib;
    for (int pass = emoji ? 0 : 1; pass < 2; pass++) {
        for (int i = 0; i < t->nfonts; i++)
            if ((pass || t->fonts[i].bitmap) && lib->FT_Get_Char_Index(t->fonts[i].face, c)) {
                if (pass && i != 0 && t->fonts[i].bitmap && !emoji)
                    continue;
                *out = i;
                return POYO_OK;
            }
        FcPattern *p = pass ? lib->FcPatternDuplicate(pattern) : lib->FcNameParse((const FcChar8 *)"emoji");
        FcCharSet *cs = lib->FcCharSetCreate();
        if (!p || !cs || !lib->FcCharSetAddChar(cs, c) || !lib->FcPatternAddCharSet(p, FC_CHARSET, cs)) {
            if (p)
                lib->FcPatternDestroy(p);
            if (cs)
                lib->FcCharSetDestroy(cs);
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory looking for a font");
        }
        lib->FcCharSetDestroy(cs);
        if (!pass) {
            lib->FcPatternAddBool(p, FC_COLOR, FcTrue);
            lib->FcConfigSubstitute(cfg, p, FcMatchPattern);
            lib->FcDefaultSubstitute(p);
        }
        FcResult res;
        FcFontSet *set = lib->FcFontSort(cfg, p, FcFalse, NULL, &res);
        poyo_status st = POYO_OK;
        int found = 0;
        for (int i = 0; set && i < set->nfont && i < 64 && !found; i++) {
            FcCharSet *fcs = NULL;
            FcBool color = FcFalse;
            lib->FcPatternGetBool(set->fonts[i], FC_COLOR, 0, &color);
            if (lib->FcPatternGetCharSet(set->fonts[i], FC_CHARSET, 0, &fcs) != FcResultMatch ||
                !lib->FcCharSetHasChar(fcs, c) || (!pass && color != FcTrue))
                continue;
            FcPattern *ready = lib->FcFontRenderPrepare(cfg, p, set->fonts[i]);
            if (!ready)
                continue;
            st = font_from_pattern(t, ready, out, err);
            lib->FcPatternDestroy(ready);
            found = st == POYO_OK && lib->FT_Get_Char_Index(t->fonts[*out].face, c);
            if (st != POYO_OK)
                break;
        }
        if (set)
            lib->FcFontSetDestroy(set);
        lib->FcPatternDestroy(p);
        if (st != POYO_OK)
            return st;
        if (found)
            return POYO_OK;
    }
    *out = 0;
    return POYO_OK;
}

/* ---- layout --------------------------------------------------------------- */

/* The ink box of glyph gid of f, in ems (y down, from the glyph's origin);
 * 0 when it has no ink. */
static int glyph_box(const text_drawing *t, const tfont *f, unsigned gid, double b[4])
{
    const textlib *lib = t->lib;
    if (f->bitmap) {
        if (lib->FT_Load_Glyph(f->face, gid, FT_LOAD_COLOR) != 0)
            return 0;
        const FT_GlyphSlot s = f->face->glyph;
        if (s->bitmap.width == 0 || s->bitmap.rows == 0)
            return 0;
        b[0] = s->bitmap_left / f->strike;
        b[1] = -s->bitmap_top / f->strike;
        b[2] = b[0] + s->bitmap.width / f->strike;
        b[3] = b[1] + s->bitmap.rows / f->strike;
        return 1;
    }
    if (lib->FT_Load_Glyph(f->face, gid, FT_LOAD_NO_SCALE | FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP) != 0)
        return 0;
    FT_Outline *o = &f->face->glyph->outline;
    if (o->n_points == 0)
        return 0;
    if (f->embolden)
        lib->FT_Outline_EmboldenXY(o, (FT_Pos)(f->upem / 24), (FT_Pos)(f->upem / 24));
    FT_BBox bb;
    lib->FT_Outline_Get_BBox(o, &bb);
    b[0] = bb.xMin / f->upem;
    b[1] = -bb.yMax / f->upem;
    b[2] = bb.xMax / f->upem;
    b[3] = -bb.yMin / f->upem;
    return 1;
}

static poyo_status glyph_push(text_drawing *t, tglyph g, poyo_error *err)
{
    if (t->ng == t->gcap) {
        int cap = t->gcap ? 2 * t->gcap : 64;
        tglyph *p = realloc(t->g, (size_t)cap * sizeof *p);
        if (!p)
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory laying out text");
        t->g = p;
        t->gcap = cap;
    }
    t->g[t->ng++] = g;
    return POYO_OK;
}

/* Shapes one line (s, n bytes) run by run, each run a stretch of clusters in
 * one font, appending its glyphs with their origins in ems from the line's
 * start (y down); sets the line's ink box. */
static poyo_status shape_line(text_drawing *t, FcConfig *cfg, FcPattern *pattern, const char *s, size_t n,
                              tline *line, poyo_error *err)
{
    const textlib *lib = t->lib;
    line->first = t->ng;
    line->ink = 0;
    double pen = 0;
    hb_buffer_t *buf = lib->hb_buffer_create();
    poyo_status st = POYO_OK;
    for (size_t i = 0; i < n && st == POYO_OK;) {
        int emoji, font, k;
        size_t end = cluster_end(s, n, i, &emoji);
        uint32_t c = utf8_next((const unsigned char *)s + i, n - i, &k);
        st = font_for(t, cfg, pattern, c, emoji, &font, err);
        /* the run: the clusters after it that the same font takes */
        while (st == POYO_OK && end < n) {
            int e2, f2;
            size_t next = cluster_end(s, n, end, &e2);
            uint32_t c2 = utf8_next((const unsigned char *)s + end, n - end, &k);
            st = font_for(t, cfg, pattern, c2, e2, &f2, err);
            if (f2 != font)
                break;
            end = next;
        }
        if (st != POYO_OK)
            break;
        const tfont *f = &t->fonts[font];
        lib->hb_buffer_clear_contents(buf);
        lib->hb_buffer_add_utf8(buf, s, (int)n, (unsigned)i, (int)(end - i));
        lib->hb_buffer_set_direction(buf, t->def.vertical ? HB_DIRECTION_TTB : HB_DIRECTION_LTR);
        lib->hb_buffer_guess_segment_properties(buf);
        lib->hb_shape(f->hb, buf, NULL, 0);
        if (!lib->hb_buffer_allocation_successful(buf)) {
            st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory shaping text");
            break;
        }
        unsigned count;
        const hb_glyph_info_t *info = lib->hb_buffer_get_glyph_infos(buf, &count);
        const hb_glyph_position_t *pos = lib->hb_buffer_get_glyph_positions(buf, NULL);
        for (unsigned g = 0; g < count && st == POYO_OK; g++) {
            tglyph gl = { font, info[g].codepoint, 0, 0, 0 };
            if (t->def.vertical) {
                gl.x = pos[g].x_offset / f->upem;
                gl.y = pen - pos[g].y_offset / f->upem;
                pen -= pos[g].y_advance / f->upem;
            } else {
                gl.x = pen + pos[g].x_offset / f->upem;
                gl.y = -pos[g].y_offset / f->upem;
                pen += pos[g].x_advance / f->upem;
            }
            double b[4];
            if ((gl.ink = glyph_box(t, f, gl.gid, b))) {
                t->inked++;
                b[0] += gl.x, b[2] += gl.x, b[1] += gl.y, b[3] += gl.y;
                if (!line->ink) {
                    line->x0 = b[0], line->y0 = b[1], line->x1 = b[2], line->y1 = b[3];
                    line->ink = 1;
                } else {
                    line->x0 = fmin(line->x0, b[0]), line->y0 = fmin(line->y0, b[1]);
                    line->x1 = fmax(line->x1, b[2]), line->y1 = fmax(line->y1, b[3]);
                }
            }
            st = glyph_push(t, gl, err);
        }
        i = end;
    }
    lib->hb_buffer_destroy(buf);
    line->count = t->ng - line->first;
    return st;
}

/* Maps each line's ems onto the image: fill stretches each line's ink over
 * its share of the canvas; keep sets the lines at a fixed spacing, aligned,
 * and scales the whole block to fit the canvas. Sets the image's size. */
static poyo_status place_lines(text_drawing *t, poyo_error *err)
{
    const text_def *d = &t->def;
    int n = t->nlines, vert = d->vertical;
    double m = t->outline_px + 1.0; /* outline and anti-aliasing outside the ink */
    double W = d->width, H = d->height;
    if (d->fit == TEXT_FIT_FILL) {
        double slot = (vert ? W : H) / n, across = vert ? H : W;
        if (slot - 2 * m < 2.0 || across - 2 * m < 2.0)
            return poyo_fail(err, POYO_ERR_USAGE, "a %dx%d canvas is too small for %d %s of text%s", d->width,
                             d->height, n, vert ? (n > 1 ? "columns" : "column") : (n > 1 ? "lines" : "line"),
                             t->outline_px > 0 ? " and its outline" : "");
        for (int i = 0; i < n; i++) {
            tline *l = &t->lines[i];
            if (!l->ink)
                continue;
            double lw = fmax(l->x1 - l->x0, 1e-3), lh = fmax(l->y1 - l->y0, 1e-3);
            double sx0, sx1, sy0, sy1; /* the line's box on the image */
            if (vert) {
                sx0 = W - (i + 1) * slot + m, sx1 = W - i * slot - m, sy0 = m, sy1 = H - m;
            } else {
                sx0 = m, sx1 = W - m, sy0 = i * slot + m, sy1 = (i + 1) * slot - m;
            }
            l->ax = (sx1 - sx0) / lw, l->bx = sx0 - l->ax * l->x0;
            l->ay = (sy1 - sy0) / lh, l->by = sy0 - l->ay * l->y0;
        }
        t->w = d->width;
        t->h = d->height;
        return POYO_OK;
    }
    /* keep: lines 1.2 em apart (columns right to left), aligned by their ink */
    double span = 0;
    for (int i = 0; i < n; i++)
        if (t->lines[i].ink)
            span = fmax(span, vert ? t->lines[i].y1 - t->lines[i].y0 : t->lines[i].x1 - t->lines[i].x0);
    double bx0 = INFINITY, by0 = INFINITY, bx1 = -INFINITY, by1 = -INFINITY;
    double shift[TEXT_MAX_LINES][2];
    for (int i = 0; i < n; i++) {
        tline *l = &t->lines[i];
        double len = vert ? l->y1 - l->y0 : l->x1 - l->x0;
        double lead = d->align == TEXT_ALIGN_LEFT ? 0 : d->align == TEXT_ALIGN_RIGHT ? span - len : (span - len) / 2;
        if (vert) {
            shift[i][0] = -1.2 * i;
            shift[i][1] = lead - l->y0;
        } else {
            shift[i][0] = lead - l->x0;
            shift[i][1] = 1.2 * i;
        }
        if (!l->ink)
            continue;
        bx0 = fmin(bx0, l->x0 + shift[i][0]), bx1 = fmax(bx1, l->x1 + shift[i][0]);
        by0 = fmin(by0, l->y0 + shift[i][1]), by1 = fmax(by1, l->y1 + shift[i][1]);
    }
    double bw = fmax(bx1 - bx0, 1e-3), bh = fmax(by1 - by0, 1e-3);
    if (W - 2 * m < 2.0 || H - 2 * m < 2.0)
        return poyo_fail(err, POYO_ERR_USAGE, "a %dx%d canvas is too small for the text%s", d->width, d->height,
                         t->outline_px > 0 ? " and its outline" : "");
    double s = fmin((W - 2 * m) / bw, (H - 2 * m) / bh);
    t->w = (int)ceil(bw * s + 2 * m);
    t->h = (int)ceil(bh * s + 2 * m);
    if (t->w > d->width) t->w = d->width;
    if (t->h > d->height) t->h = d->height;
    for (int i = 0; i < n; i++) {
        tline *l = &t->lines[i];
        l->ax = l->ay = s;
        l->bx = (shift[i][0] - bx0) * s + m;
        l->by = (shift[i][1] - by0) * s + m;
    }
    return POYO_OK;
}

/* ---- drawing -------------------------------------------------------------- */

/* A coverage mask the rasteriser writes its spans into (union of shapes). */
typedef struct mask {
    uint8_t *a;
    int w, h;
} mask;

static void mask_spans(int y, int count, const FT_Span *spans, void *user)
{
    mask *m = user;
    int row = m->h - 1 - y; /* the rasteriser's y grows upwards */
    if (row < 0 || row >= m->h)
        return;
    uint8_t *p = m->a + (size_t)row * m->w;
    for (int i = 0; i < count; i++) {
        int x0 = spans[i].x, x1 = x0 + spans[i].len;
        if (x0 < 0) x0 = 0;
        if (x1 > m->w) x1 = m->w;
        unsigned c = spans[i].coverage;
        for (int x = x0; x < x1; x++)
            p[x] = (uint8_t)(p[x] + c - (p[x] * c + 127) / 255);
    }
}

static void outline_render(const textlib *lib, FT_Library ft, FT_Outline *o, mask *m)
{
    FT_Raster_Params rp;
    memset(&rp, 0, sizeof rp);
    rp.source = o;
    rp.flags = FT_RASTER_FLAG_AA | FT_RASTER_FLAG_DIRECT | FT_RASTER_FLAG_CLIP;
    rp.gray_spans = mask_spans;
    rp.user = m;
    rp.clip_box.xMin = 0;
    rp.clip_box.yMin = 0;
    rp.clip_box.xMax = m->w;
    rp.clip_box.yMax = m->h;
    lib->FT_Outline_Render(ft, o, &rp);
}

/* Where the drawing goes on the canvas: image pixel (u, v) lands at
 * (x + kx u, y + ky v). */
typedef struct frame {
    double x, y, kx, ky;
    int w, h;
} frame;

/* Fills glyph g's outline into fill and, with a stroke radius, its stroke into ring. */
static void draw_outline_glyph(const text_drawing *t, const tline *l, const tglyph *g, const frame *fr,
                               FT_Stroker stroker, mask *fill, mask *ring)
{
    const textlib *lib = t->lib;
    const tfont *f = &t->fonts[g->font];
    if (lib->FT_Load_Glyph(f->face, g->gid, FT_LOAD_NO_SCALE | FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP) != 0)
        return;
    FT_Outline *src = &f->face->glyph->outline;
    if (src->n_points == 0)
        return;
    if (f->embolden)
        lib->FT_Outline_EmboldenXY(src, (FT_Pos)(f->upem / 24), (FT_Pos)(f->upem / 24));
    /* font units (y up) -> canvas pixels in 26.6 with y up from the bottom edge */
    double a = fr->kx * l->ax / f->upem, c = fr->ky * l->ay / f->upem;
    double tx = fr->x + fr->kx * (l->ax * g->x + l->bx);
    double ty = fr->h - fr->y - fr->ky * (l->ay * g->y + l->by);
    FT_Matrix mt = { (FT_Fixed)lround(a * 64 * 65536), 0, 0, (FT_Fixed)lround(c * 64 * 65536) };
    lib->FT_Outline_Transform(src, &mt);
    lib->FT_Outline_Translate(src, (FT_Pos)lround(tx * 64), (FT_Pos)lround(ty * 64));
    outline_render(lib, t->ft, src, fill);
    if (!stroker)
        return;
    FT_UInt np, nc;
    FT_Outline o;
    if (lib->FT_Stroker_ParseOutline(stroker, src, 0) != 0 || lib->FT_Stroker_GetCounts(stroker, &np, &nc) != 0 ||
        np == 0 || lib->FT_Outline_New(t->ft, np, (FT_Int)nc, &o) != 0)
        return;
    o.n_points = 0;
    o.n_contours = 0;
    lib->FT_Stroker_Export(stroker, &o);
    outline_render(lib, t->ft, &o, ring);
    lib->FT_Outline_Done(t->ft, &o);
}

/* Straight RGBA over premultiplied (r, g, b, a) in [0, 1]. */
static void blend_over(uint8_t *px, double r, double g, double b, double a)
{
    double da = px[3] / 255.0, out = a + da * (1 - a);
    if (out <= 0)
        return;
    double c[3] = { r, g, b };
    for (int k = 0; k < 3; k++)
        px[k] = (uint8_t)lround(fmin(255.0, (c[k] * 255.0 + px[k] * da * (1 - a)) / out));
    px[3] = (uint8_t)lround(out * 255.0);
}

/* Draws a colour bitmap glyph (premultiplied BGRA at the font's strike) over
 * its box on the canvas, each pixel the mean of bilinear samples over it. */
static void draw_bitmap_glyph(const text_drawing *t, const tline *l, const tglyph *g, const frame *fr, uint8_t *rgba)
{
    const textlib *lib = t->lib;
    const tfont *f = &t->fonts[g->font];
    if (lib->FT_Load_Glyph(f->face, g->gid, FT_LOAD_COLOR) != 0)
        return;
    const FT_Bitmap *bm = &f->face->glyph->bitmap;
    if (bm->pixel_mode != FT_PIXEL_MODE_BGRA || bm->width == 0 || bm->rows == 0)
        return;
    double ex0 = g->x + f->face->glyph->bitmap_left / f->strike, ey0 = g->y - f->face->glyph->bitmap_top / f->strike;
    double ex1 = ex0 + bm->width / f->strike, ey1 = ey0 + bm->rows / f->strike;
    double X0 = fr->x + fr->kx * (l->ax * ex0 + l->bx), X1 = fr->x + fr->kx * (l->ax * ex1 + l->bx);
    double Y0 = fr->y + fr->ky * (l->ay * ey0 + l->by), Y1 = fr->y + fr->ky * (l->ay * ey1 + l->by);
    double sx = bm->width / (X1 - X0), sy = bm->rows / (Y1 - Y0); /* bitmap pixels per canvas pixel */
    int nx = (int)ceil(sx), ny = (int)ceil(sy);
    nx = nx < 1 ? 1 : nx > 8 ? 8 : nx;
    ny = ny < 1 ? 1 : ny > 8 ? 8 : ny;
    int cx0 = (int)floor(X0), cx1 = (int)ceil(X1), cy0 = (int)floor(Y0), cy1 = (int)ceil(Y1);
    for (int y = cy0 < 0 ? 0 : cy0; y < cy1 && y < fr->h; y++)
        for (int x = cx0 < 0 ? 0 : cx0; x < cx1 && x < fr->w; x++) {
            double acc[4] = { 0, 0, 0, 0 };
            for (int j = 0; j < ny; j++)
                for (int i = 0; i < nx; i++) {
                    double u = (x + (i + 0.5) / nx - X0) * sx - 0.5, v = (y + (j + 0.5) / ny - Y0) * sy - 0.5;
                    int u0 = (int)floor(u), v0 = (int)floor(v);
                    double fu = u - u0, fv = v - v0;
                    for (int q = 0; q < 4; q++) {
                        int uu = u0 + (q & 1), vv = v0 + (q >> 1);
                        double wq = ((q & 1) ? fu : 1 - fu) * ((q >> 1) ? fv : 1 - fv);
                        if (uu < 0 || vv < 0 || uu >= (int)bm->width || vv >= (int)bm->rows || wq == 0)
                            continue;
                        const unsigned char *p = bm->buffer + (size_t)vv * (size_t)bm->pitch + 4 * (size_t)uu;
                        acc[0] += wq * p[2], acc[1] += wq * p[1], acc[2] += wq * p[0], acc[3] += wq * p[3];
                    }
                }
            double k = 1.0 / (255.0 * nx * ny);
            if (acc[3] > 0)
                blend_over(rgba + 4 * ((size_t)y * fr->w + x), acc[0] * k, acc[1] * k, acc[2] * k, acc[3] * k);
        }
}

/* Draws every glyph (only < 0) or only the inked glyph number only. */
static poyo_status draw_glyphs(const text_drawing *t, int only, int w, int h, double x, double y, double dw,
                               double dh, uint8_t *rgba, poyo_error *err)
{
    const textlib *lib = t->lib;
    const text_def *d = &t->def;
    size_t n = (size_t)w * (size_t)h;
    memset(rgba, 0, n * 4);
    frame fr = { x, y, dw / t->w, dh / t->h, w, h };
    mask fill = { calloc(n, 1), w, h }, ring = { d->outline ? calloc(n, 1) : NULL, w, h };
    if (!fill.a || (d->outline && !ring.a)) {
        free(fill.a);
        free(ring.a);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory drawing text at %dx%d", w, h);
    }
    FT_Stroker stroker = NULL;
    double radius = t->outline_px * sqrt(fr.kx * fr.ky);
    if (d->outline && radius > 0 && lib->FT_Stroker_New(t->ft, &stroker) == 0)
        lib->FT_Stroker_Set(stroker, (FT_Fixed)lround(radius * 64), FT_STROKER_LINECAP_ROUND,
                            FT_STROKER_LINEJOIN_ROUND, 0);
    for (int i = 0, inked = 0; i < t->nlines; i++)
        for (int k = 0; k < t->lines[i].count; k++) {
            const tglyph *g = &t->g[t->lines[i].first + k];
            int shown = only < 0 || (g->ink && inked == only);
            inked += g->ink;
            if (shown && !t->fonts[g->font].bitmap)
                draw_outline_glyph(t, &t->lines[i], g, &fr, stroker, &fill, &ring);
        }
    if (stroker)
        lib->FT_Stroker_Done(stroker);
    /* the outline under the fill, the fill's colour along the gradient */
    double rad = d->angle * PI / 180.0, ca = cos(rad), sa = sin(rad);
    double reach = t->w * fabs(ca) + t->h * fabs(sa);
    double c1[3] = { (d->color >> 16 & 255) / 255.0, (d->color >> 8 & 255) / 255.0, (d->color & 255) / 255.0 };
    double c2[3] = { (d->color2 >> 16 & 255) / 255.0, (d->color2 >> 8 & 255) / 255.0, (d->color2 & 255) / 255.0 };
    double co[3] = { (d->outline_color >> 16 & 255) / 255.0, (d->outline_color >> 8 & 255) / 255.0,
                     (d->outline_color & 255) / 255.0 };
    for (int py = 0; py < h; py++)
        for (int px = 0; px < w; px++) {
            size_t i = (size_t)py * w + px;
            double af = fill.a[i] / 255.0, ao = ring.a ? fmax(ring.a[i], fill.a[i]) / 255.0 : 0;
            if (af <= 0 && ao <= 0)
                continue;
            double col[3] = { c1[0], c1[1], c1[2] };
            if (d->gradient) {
                double u = (px + 0.5 - x) / fr.kx - t->w / 2.0, v = (py + 0.5 - y) / fr.ky - t->h / 2.0;
                double s = reach > 0 ? 0.5 + (u * ca + v * sa) / reach : 0.5;
                s = s < 0 ? 0 : s > 1 ? 1 : s;
                for (int k = 0; k < 3; k++)
                    col[k] = c1[k] + (c2[k] - c1[k]) * s;
            }
            double a = af + ao * (1 - af);
            for (int k = 0; k < 3; k++)
                rgba[4 * i + k] = (uint8_t)lround(255.0 * (col[k] * af + co[k] * ao * (1 - af)) / a);
            rgba[4 * i + 3] = (uint8_t)lround(255.0 * a);
        }
    free(fill.a);
    free(ring.a);
    /* colour emoji over the letters */
    for (int i = 0, inked = 0; i < t->nlines; i++)
        for (int k = 0; k < t->lines[i].count; k++) {
            const tglyph *g = &t->g[t->lines[i].first + k];
            int shown = only < 0 || (g->ink && inked == only);
            inked += g->ink;
            if (shown && t->fonts[g->font].bitmap)
                draw_bitmap_glyph(t, &t->lines[i], g, &fr, rgba);
        }
    return POYO_OK;
}

static poyo_status text_draw(void *obj, int w, int h, double x, double y, double dw, double dh, uint8_t *rgba,
                             poyo_error *err)
{
    return draw_glyphs(obj, -1, w, h, x, y, dw, dh, rgba, err);
}

static void text_ref(void *obj)
{
    text_drawing *t = obj;
    atomic_fetch_add(&t->refs, 1);
}

static void text_unref(void *obj)
{
    text_drawing *t = obj;
    if (atomic_fetch_sub(&t->refs, 1) == 1)
        drawing_free(t);
}

static const image_drawer text_drawer = { text_draw, text_ref, text_unref };

/* One glyph of a text drawing, for text_glyph_image. */
typedef struct text_part {
    atomic_int refs;
    text_drawing *t; /* a reference of its own */
    int glyph;
} text_part;

static poyo_status part_draw(void *obj, int w, int h, double x, double y, double dw, double dh, uint8_t *rgba,
                             poyo_error *err)
{
    const text_part *p = obj;
    return draw_glyphs(p->t, p->glyph, w, h, x, y, dw, dh, rgba, err);
}

static void part_ref(void *obj)
{
    text_part *p = obj;
    atomic_fetch_add(&p->refs, 1);
}

static void part_unref(void *obj)
{
    text_part *p = obj;
    if (atomic_fetch_sub(&p->refs, 1) == 1) {
        text_unref(p->t);
        free(p);
    }
}

static const image_drawer part_drawer = { part_draw, part_ref, part_unref };

int text_glyph_count(const image *im)
{
    const text_drawing *t = image_drawing(im, &text_drawer);
    return t ? t->inked : 0;
}

poyo_status text_glyph_image(const image *im, int k, image *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    text_drawing *t = image_drawing(im, &text_drawer);
    if (!t || k < 0 || k >= t->inked)
        return poyo_fail(err, POYO_ERR_USAGE, "no glyph %d in this image", k);
    text_part *p = malloc(sizeof *p);
    if (!p)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a glyph");
    atomic_init(&p->refs, 1);
    text_ref(t);
    p->t = t;
    p->glyph = k;
    poyo_status st = image_from_drawing(&part_drawer, p, im->w, im->h, out, err);
    part_unref(p);
    return st;
}

/* Splits utf8 into lines and shapes each; the fonts stay open in t. */
static poyo_status layout(text_drawing *t, const char *utf8, poyo_error *err)
{
    const textlib *lib = t->lib;
    FcConfig *cfg = lib->FcInitLoadConfigAndFonts();
    if (!cfg)
        return poyo_fail(err, POYO_ERR_INPUT, "fontconfig found no configuration");
    FcPattern *pattern = NULL;
    int primary;
    poyo_status st = font_primary(t, cfg, t->def.font, &pattern, &primary, err);
    for (const char *s = utf8; st == POYO_OK;) {
        size_t n = 0;
        int k = 0;
        while (s[n] && !line_break_at(s + n, &k))
            n++;
        if (t->nlines == TEXT_MAX_LINES) {
            st = poyo_fail(err, POYO_ERR_USAGE, "text has more than %d lines", TEXT_MAX_LINES);
            break;
        }
        tline *l = &t->lines[t->nlines++];
        memset(l, 0, sizeof *l);
        st = shape_line(t, cfg, pattern, s, n, l, err);
        if (!s[n])
            break;
        s += n + (size_t)k;
    }
    if (pattern)
        lib->FcPatternDestroy(pattern);
    lib->FcConfigDestroy(cfg);
    if (st == POYO_OK)
        st = place_lines(t, err);
    return st;
}

poyo_status text_image(const char *utf8, const text_def *def, image *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    poyo_status st = text_check_def(def, err);
    if (st == POYO_OK)
        st = text_check(utf8, err);
    const textlib *lib = NULL;
    if (st == POYO_OK)
        st = textlib_load(&lib, err);
    if (st != POYO_OK)
        return st;
    text_drawing *t = calloc(1, sizeof *t);
    if (!t)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for text");
    atomic_init(&t->refs, 1);
    t->lib = lib;
    t->def = *def;
    t->def.font = NULL; /* the caller's string is not kept */
    t->outline_px = !def->outline ? 0 : def->outline_width > 0 ? def->outline_width
                                                                 : fmax(1.0, round(fmin(def->width, def->height) / 40.0));
    if (lib->FT_Init_FreeType(&t->ft) != 0) {
        free(t);
        return poyo_fail(err, POYO_ERR_NOMEM, "cannot start FreeType");
    }
    t->def.font = def->font;
    st = layout(t, utf8, err);
    t->def.font = NULL;
    if (st == POYO_OK) {
        int ink = 0;
        for (int i = 0; i < t->nlines; i++)
            ink |= t->lines[i].ink;
        if (!ink)
            st = poyo_fail(err, POYO_ERR_USAGE, "no text to draw (the fonts have no ink for it)");
    }
    if (st == POYO_OK)
        st = image_from_drawing(&text_drawer, t, t->w, t->h, out, err);
    text_unref(t);
    return st;
}
