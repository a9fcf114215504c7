/* test_text.c - text drawn as an image, judged by its pixels: kana and kanji
 * are real glyphs (no two cells of a word alike, as missing-glyph boxes
 * would be), an emoji comes in colour from the colour font, an outline
 * separates the fill from the transparent outside everywhere, a gradient's
 * ends have the colours asked for, vertical text is tall, right-aligned lines
 * end together, --fit fill covers the canvas's width on every line, the
 * drawing placed 4x larger is drawn again (as sharp as the small one) rather
 * than scaled, and bad text is refused before any library is loaded. Needs the
 * fonts make deps installs (IPAex Gothic, Noto Color Emoji). */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "image/image.h"
#include "image/text.h"

static const uint8_t *px(const image *im, int x, int y)
{
    return im->rgba + 4 * ((size_t)y * im->w + x);
}

/* Visible pixels (alpha > 0) in the window [x0, x1) x [y0, y1). */
static long ink(const image *im, int x0, int y0, int x1, int y1)
{
    long n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            n += px(im, x, y)[3] > 0;
    return n;
}

/* Pixels whose alpha differs by more than 64 between two equal windows of im. */
static long differ(const image *im, int ax, int bx, int y0, int w, int h)
{
    long n = 0;
    for (int y = y0; y < y0 + h; y++)
        for (int x = 0; x < w; x++)
            n += abs((int)px(im, ax + x, y)[3] - (int)px(im, bx + x, y)[3]) > 64;
    return n;
}

static text_def keep_def(void)
{
    text_def d = text_default_def();
    d.fit = TEXT_FIT_KEEP;
    d.font = "IPAexGothic";
    return d;
}

static void test_latin_fills_the_canvas(void)
{
    text_def d = text_default_def();
    image im;
    poyo_error err;
    ENSURE_MSG(text_image("LGTM", &d, &im, &err) == POYO_OK, "%s", err.msg);
    int x0, y0, x1, y1;
    ENSURE(im.w == 128 && im.h == 128 && im.vec != NULL);
    ENSURE(image_visible_bbox(&im, &x0, &y0, &x1, &y1));
    /* stretched over the canvas: ink reaches within 3 px of every edge */
    ENSURE_MSG(x0 <= 3 && y0 <= 3 && x1 >= 125 && y1 >= 125, "ink box %d,%d-%d,%d", x0, y0, x1, y1);
    image_free(&im);
    /* two lines: each stretched to the full width, the first in the top half */
    ENSURE_MSG(text_image("LGTM\\nOK", &d, &im, &err) == POYO_OK, "%s", err.msg);
    ENSURE(image_visible_bbox(&im, &x0, &y0, &x1, &y1));
    ENSURE(ink(&im, 0, 0, 6, 64) > 0 && ink(&im, 122, 0, 128, 64) > 0);
    ENSURE(ink(&im, 0, 64, 6, 128) > 0 && ink(&im, 122, 64, 128, 128) > 0);
    image_free(&im);
}

static void test_japanese_glyphs_are_real(void)
{
    /* kana and kanji: missing glyphs would be identical boxes, so no two of
     * the three cells (one glyph each in a fixed-pitch font) may be alike */
    static const char *const words[] = { "すごい", "了解です" };
    for (int k = 0; k < 2; k++) {
        text_def d = keep_def();
        image im;
        poyo_error err;
        ENSURE_MSG(text_image(words[k], &d, &im, &err) == POYO_OK, "%s", err.msg);
        int n = k == 0 ? 3 : 4, cw = im.w / n;
        ENSURE_MSG(im.w > 2 * im.h, "%s is %dx%d", words[k], im.w, im.h);
        for (int i = 0; i < n; i++) {
            ENSURE_MSG(ink(&im, i * cw, 0, (i + 1) * cw, im.h) > cw * im.h / 20, "%s: glyph %d has no ink", words[k], i);
            for (int j = 0; j < i; j++)
                ENSURE_MSG(differ(&im, i * cw, j * cw, 0, cw, im.h) > cw * im.h / 20, "%s: glyphs %d and %d alike",
                           words[k], j, i);
        }
        image_free(&im);
    }
}

static void test_emoji_in_colour(void)
{
    /* black letters and a thumbs-up: the yellow comes only from the emoji font */
    text_def d = keep_def();
    d.color = 0x000000;
    image im;
    poyo_error err;
    ENSURE_MSG(text_image("OK👍", &d, &im, &err) == POYO_OK, "%s", err.msg);
    long yellow = 0, right_yellow = 0;
    for (int y = 0; y < im.h; y++)
        for (int x = 0; x < im.w; x++) {
            const uint8_t *p = px(&im, x, y);
            int is = p[3] > 200 && p[0] > 200 && p[1] > 120 && p[2] < 100;
            yellow += is;
            right_yellow += is && x > im.w / 2;
        }
    ENSURE_MSG(yellow > im.w * im.h / 20, "%ld yellow pixels in %dx%d", yellow, im.w, im.h);
    ENSURE(right_yellow == yellow); /* where the emoji is: after OK */
    image_free(&im);
}

static void test_outline_surrounds_the_fill(void)
{
    text_def d = keep_def();
    d.color = 0x000000;
    d.outline = 1;
    d.outline_color = 0xffffff;
    d.outline_width = 3;
    image im;
    poyo_error err;
    ENSURE_MSG(text_image("すごい", &d, &im, &err) == POYO_OK, "%s", err.msg);
    long white = 0, black = 0;
    for (int y = 0; y < im.h; y++)
        for (int x = 0; x < im.w; x++) {
            const uint8_t *p = px(&im, x, y);
            if (p[3] == 255 && p[0] > 240 && p[1] > 240 && p[2] > 240)
                white++;
            if (!(p[3] == 255 && p[0] < 16 && p[1] < 16 && p[2] < 16))
                continue;
            black++;
            /* a black pixel is at least 2 px from anything transparent */
            for (int dy = -2; dy <= 2; dy++)
                for (int dx = -2; dx <= 2; dx++) {
                    int xx = x + dx, yy = y + dy;
                    ENSURE_MSG(xx >= 0 && yy >= 0 && xx < im.w && yy < im.h && px(&im, xx, yy)[3] > 0,
                               "black pixel %d,%d touches the outside", x, y);
                }
        }
    ENSURE_MSG(white > black / 4 && black > 200, "white %ld, black %ld", white, black);
    image_free(&im);
}

/* Mean red minus blue of the opaque pixels in rows [y0, y1) or columns [x0, x1). */
static double red_minus_blue(const image *im, int x0, int y0, int x1, int y1)
{
    double s = 0;
    long n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = px(im, x, y);
            if (p[3] == 255) {
                s += p[0] - p[2];
                n++;
            }
        }
    return n ? s / n : 0;
}

static void test_gradient_ends(void)
{
    text_def d = text_default_def();
    d.gradient = 1;
    d.color = 0xff0000;
    d.color2 = 0x0000ff;
    image im;
    poyo_error err;
    ENSURE_MSG(text_image("HI", &d, &im, &err) == POYO_OK, "%s", err.msg);
    /* 90 degrees: red at the top, blue at the bottom */
    ENSURE(red_minus_blue(&im, 0, 0, im.w, im.h / 6) > 150);
    ENSURE(red_minus_blue(&im, 0, im.h - im.h / 6, im.w, im.h) < -150);
    image_free(&im);
    d.angle = 0; /* left to right */
    ENSURE_MSG(text_image("HI", &d, &im, &err) == POYO_OK, "%s", err.msg);
    ENSURE(red_minus_blue(&im, 0, 0, im.w / 6, im.h) > 150);
    ENSURE(red_minus_blue(&im, im.w - im.w / 6, 0, im.w, im.h) < -150);
    image_free(&im);
}

static void test_vertical_is_tall(void)
{
    text_def d = keep_def();
    d.vertical = 1;
    image im;
    poyo_error err;
    ENSURE_MSG(text_image("すごい", &d, &im, &err) == POYO_OK, "%s", err.msg);
    int x0, y0, x1, y1;
    ENSURE(image_visible_bbox(&im, &x0, &y0, &x1, &y1));
    ENSURE_MSG(y1 - y0 > 2 * (x1 - x0), "ink %dx%d", x1 - x0, y1 - y0);
    image_free(&im);
    /* the long vowel mark of a vertical line is its vertical form: taller than wide */
    ENSURE_MSG(text_image("ー", &d, &im, &err) == POYO_OK, "%s", err.msg);
    ENSURE(image_visible_bbox(&im, &x0, &y0, &x1, &y1));
    ENSURE_MSG(y1 - y0 > 2 * (x1 - x0), "vertical ー is %dx%d", x1 - x0, y1 - y0);
    image_free(&im);
    d.vertical = 0;
    ENSURE_MSG(text_image("ー", &d, &im, &err) == POYO_OK, "%s", err.msg);
    ENSURE(image_visible_bbox(&im, &x0, &y0, &x1, &y1));
    ENSURE_MSG(x1 - x0 > 2 * (y1 - y0), "horizontal ー is %dx%d", x1 - x0, y1 - y0);
    image_free(&im);
}

static void test_right_aligned_lines_end_together(void)
{
    static const text_align aligns[] = { TEXT_ALIGN_RIGHT, TEXT_ALIGN_LEFT };
    for (int a = 0; a < 2; a++) {
        text_def d = keep_def();
        d.align = aligns[a];
        image im;
        poyo_error err;
        ENSURE_MSG(text_image("LGTM\\nOK\\nWOW", &d, &im, &err) == POYO_OK, "%s", err.msg);
        /* the lines: bands of rows with ink, split by empty rows */
        int ends[3], starts[3], nb = 0, in = 0;
        for (int y = 0; y <= im.h && nb <= 3; y++) {
            int lo = im.w, hi = -1;
            for (int x = 0; y < im.h && x < im.w; x++)
                if (px(&im, x, y)[3] > 0) {
                    lo = x < lo ? x : lo;
                    hi = x;
                }
            if (hi >= 0 && !in) {
                ENSURE(nb < 3);
                starts[nb] = lo, ends[nb] = hi, in = 1, nb++;
            } else if (hi >= 0) {
                starts[nb - 1] = lo < starts[nb - 1] ? lo : starts[nb - 1];
                ends[nb - 1] = hi > ends[nb - 1] ? hi : ends[nb - 1];
            } else {
                in = 0;
            }
        }
        ENSURE_MSG(nb == 3, "%d bands of ink", nb);
        const int *edge = a == 0 ? ends : starts, *other = a == 0 ? starts : ends;
        for (int i = 1; i < 3; i++)
            ENSURE_MSG(abs(edge[i] - edge[0]) <= 1, "line %d edge %d, line 0 %d", i, edge[i], edge[0]);
        ENSURE(abs(other[1] - other[0]) > 5); /* OK is shorter than LGTM: the other edges differ */
        image_free(&im);
    }
}

static void test_drawn_again_when_placed_larger(void)
{
    text_def d = keep_def();
    image im, big, flat, scaled;
    poyo_error err;
    ENSURE_MSG(text_image("あ", &d, &im, &err) == POYO_OK, "%s", err.msg);
    ENSURE(image_place(&im, 4 * im.w, 4 * im.h, 4 * im.w, 4 * im.h, 0, 0, &big, &err) == POYO_OK);
    /* the same pixels without the drawing: image_place can only resample them */
    flat = im;
    flat.vec = NULL;
    ENSURE(image_place(&flat, 4 * im.w, 4 * im.h, 4 * im.w, 4 * im.h, 0, 0, &scaled, &err) == POYO_OK);
    long soft_big = 0, soft_scaled = 0;
    for (size_t i = 0; i < (size_t)big.w * big.h; i++) {
        soft_big += big.rgba[4 * i + 3] > 0 && big.rgba[4 * i + 3] < 255;
        soft_scaled += scaled.rgba[4 * i + 3] > 0 && scaled.rgba[4 * i + 3] < 255;
    }
    /* edges one pixel wide at the larger size against edges four pixels wide */
    ENSURE_MSG(soft_big * 2 < soft_scaled, "partly covered pixels: drawn %ld, scaled %ld", soft_big, soft_scaled);
    image_free(&big);
    image_free(&scaled);
    image_free(&im);
}

static void test_bad_text_and_fonts(void)
{
    poyo_error err;
    ENSURE(text_check("", &err) == POYO_ERR_USAGE && strcmp(err.msg, "no text to draw") == 0);
    ENSURE(text_check(" \\n ", &err) == POYO_ERR_USAGE && strcmp(err.msg, "no text to draw") == 0);
    ENSURE(text_check("a\xff", &err) == POYO_ERR_USAGE && strcmp(err.msg, "text is not valid UTF-8 (byte 2)") == 0);
    ENSURE(text_check("\xc0\xaf", &err) == POYO_ERR_USAGE); /* an overlong slash */
    ENSURE(text_check("\xed\xa0\x80", &err) == POYO_ERR_USAGE); /* a surrogate */
    ENSURE(text_check("a\tb", &err) == POYO_ERR_USAGE);
    char many[TEXT_MAX_CHARS + 2];
    memset(many, 'a', sizeof many - 1);
    many[sizeof many - 1] = '\0';
    ENSURE(text_check(many, &err) == POYO_ERR_USAGE && strstr(err.msg, "more than 256 characters"));
    many[TEXT_MAX_CHARS] = '\0';
    ENSURE(text_check(many, &err) == POYO_OK);
    text_def d = text_default_def();
    d.font = "NoSuchFont";
    image im;
    ENSURE(text_image("x", &d, &im, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strstr(err.msg, "no installed font matches 'NoSuchFont'") != NULL, "%s", err.msg);
    ENSURE(im.rgba == NULL);
    d.font = "/nonexistent/font.ttf"; /* a font file that is not there is a mistake in the command */
    ENSURE(text_image("x", &d, &im, &err) == POYO_ERR_USAGE && strstr(err.msg, "/nonexistent/font.ttf"));
    ENSURE(im.rgba == NULL);
    d = text_default_def();
    d.width = d.height = 4;
    d.outline = 1;
    d.outline_width = 3;
    ENSURE(text_image("x", &d, &im, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "a 4x4 canvas is too small for 1 line of text and its outline") == 0, "%s", err.msg);
}

const struct test_case test_cases[] = {
    { "latin_fills_the_canvas", test_latin_fills_the_canvas },
    { "japanese_glyphs_are_real", test_japanese_glyphs_are_real },
    { "emoji_in_colour", test_emoji_in_colour },
    { "outline_surrounds_the_fill", test_outline_surrounds_the_fill },
    { "gradient_ends", test_gradient_ends },
    { "vertical_is_tall", test_vertical_is_tall },
    { "right_aligned_lines_end_together", test_right_aligned_lines_end_together },
    { "drawn_again_when_placed_larger", test_drawn_again_when_placed_larger },
    { "bad_text_and_fonts", test_bad_text_and_fonts },
    { NULL, NULL },
};
