/* test_image.c - placing an image on a canvas: a large emoji drawn small keeps
 * the weight of its dark outlines (it matches a plain area average of the
 * gamma-encoded, premultiplied pixels), and an image at its own size is copied;
 * a two-frame clip written as WebP and as GIF decodes to its first frame.
 * SVG input: drawn at the placed size it matches a disc and a ring computed
 * here analytically (16 x 16 samples a pixel) far better than the same SVG
 * resampled from its intrinsic size, and so do a crop of it and a frame the
 * renderer draws of it at rest; it is recognised by its root element after any prolog, sized
 * from width and height or the viewBox; bad, hostile and non-SVG XML is
 * refused with one sentence. The lattice's opaque box leaves out the faint
 * fringe of antialiased edges, and its opaque samples reach the bottom rows
 * and a narrow image's only columns. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include <stb_image.h>
#include <zlib.h>

#include "image/anim.h"
#include "image/animread.h"
#include "image/gif.h"
#include "image/image.h"
#include "image/lattice.h"
#include "image/quantize.h"
#include "image/render.h"
#include "image/webp.h"
#include "util/bytebuf.h"

/* PSNR in dB of a against b over every RGBA byte, colours premultiplied (so the
 * colour of a nearly transparent pixel weighs nearly nothing). */
static double psnr_premultiplied(const image *a, const image *b)
{
    double se = 0;
    size_t n = (size_t)a->w * a->h;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = a->rgba + 4 * i, *q = b->rgba + 4 * i;
        for (int c = 0; c < 3; c++) {
            double d = p[c] * p[3] / 255.0 - q[c] * q[3] / 255.0;
            se += d * d;
        }
        se += (double)(p[3] - q[3]) * (p[3] - q[3]);
    }
    return se > 0 ? 10 * log10(255.0 * 255.0 * 4.0 * n / se) : 99.0;
}

static void big_emoji_drawn_small_keeps_its_outline(void)
{
    image big, small, ref;
    poyo_error err;
    ENSURE(image_load("tests/data/openmoji-1F600-512.png", IMAGE_DEFAULT_MAX_PIXELS, &big, &err) == POYO_OK);
    ENSURE(big.w == 512 && big.h == 512);
    ENSURE(image_place(&big, 64, 64, 64, 64, 0, 0, &small, &err) == POYO_OK);
    /* the reference: every 8 x 8 block averaged as stored (sRGB), premultiplied */
    ENSURE(image_alloc(&ref, 64, 64, &err) == POYO_OK);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            double s[4] = { 0, 0, 0, 0 };
            for (int j = 0; j < 8; j++)
                for (int i = 0; i < 8; i++) {
                    const uint8_t *p = big.rgba + 4 * ((size_t)(8 * y + j) * 512 + 8 * x + i);
                    for (int c = 0; c < 3; c++)
                        s[c] += p[c] * p[3];
                    s[3] += p[3];
                }
            uint8_t *o = ref.rgba + 4 * ((size_t)y * 64 + x);
            o[3] = (uint8_t)lround(s[3] / 64.0);
            for (int c = 0; c < 3; c++)
                o[c] = s[3] > 0 ? (uint8_t)lround(s[c] / s[3]) : 0;
        }
    double db = psnr_premultiplied(&small, &ref);
    image_free(&big);
    image_free(&small);
    image_free(&ref);
    ENSURE_MSG(db >= 32.0, "512 -> 64 px is %.1f dB from an area average", db);
}

static void own_size_is_a_copy(void)
{
    image im, out;
    poyo_error err;
    ENSURE(image_load("tests/data/1f600.png", IMAGE_DEFAULT_MAX_PIXELS, &im, &err) == POYO_OK);
    ENSURE(image_place(&im, im.w, im.h, im.w, im.h, 0, 0, &out, &err) == POYO_OK);
    ENSURE(memcmp(im.rgba, out.rgba, (size_t)im.w * im.h * 4) == 0);
    image_free(&im);
    image_free(&out);
}

/* Two 24x16 frames of four flat colours with a transparent corner; the second
 * differs everywhere it is opaque. */
static void two_frames(anim *a)
{
    poyo_error err;
    ENSURE(anim_init(a, 24, 16, 2, 10.0, &err) == POYO_OK);
    for (int f = 0; f < 2; f++)
        for (int y = 0; y < 16; y++)
            for (int x = 0; x < 24; x++) {
                uint8_t *p = anim_frame(a, f) + ((size_t)y * 24 + x) * 4;
                int k = (x / 6 + y / 8 + f) % 4;
                static const uint8_t col[4][3] = { { 255, 0, 0 }, { 0, 128, 255 }, { 250, 200, 0 }, { 20, 20, 20 } };
                int clear = x < 5 && y < 4;
                p[0] = clear ? 0 : col[k][0];
                p[1] = clear ? 0 : col[k][1];
                p[2] = clear ? 0 : col[k][2];
                p[3] = clear ? 0 : 255;
            }
}

/* Decodes buf and compares it with a's first frame: alpha exact, colour within tol. */
static void decodes_to_first_frame(const anim *a, const bytebuf *buf, int tol)
{
    image im;
    poyo_error err;
    ENSURE_MSG(image_decode(buf->data, buf->len, IMAGE_DEFAULT_MAX_PIXELS, &im, &err) == POYO_OK, "%s", err.msg);
    ENSURE(im.w == a->width && im.h == a->height);
    int worst = 0;
    for (size_t i = 0; i < (size_t)im.w * im.h; i++) {
        const uint8_t *p = im.rgba + 4 * i, *q = anim_frame(a, 0) + 4 * i;
        ENSURE(p[3] == q[3]);
        for (int c = 0; c < 3 && q[3]; c++) {
            int d = abs(p[c] - q[c]);
            worst = d > worst ? d : worst;
        }
    }
    ENSURE_MSG(worst <= tol, "a colour is off by %d", worst);
    image_free(&im);
    /* a smaller limit is checked before decoding */
    ENSURE(image_decode(buf->data, buf->len, (long long)a->width * a->height - 1, &im, &err) == POYO_ERR_INPUT);
    ENSURE(strstr(err.msg, "pixel limit") != NULL);
    /* cut short, it fails without decoding garbage */
    ENSURE(image_decode(buf->data, buf->len / 3, IMAGE_DEFAULT_MAX_PIXELS, &im, &err) == POYO_ERR_INPUT);
    ENSURE(im.rgba == NULL);
}

static void webp_and_gif_give_their_first_frame(void)
{
    anim a;
    two_frames(&a);
    poyo_error err;
    bytebuf w = { NULL, 0, 0 }, g = { NULL, 0, 0 };
    webp_options wo = webp_default_def();
    ENSURE(webp_encode(&a, &wo, &w, &err) == POYO_OK);
    decodes_to_first_frame(&a, &w, 0); /* lossless */
    quantize_def q = quantize_default_def();
    q.dither = 0;
    gif_stats gs;
    ENSURE(gif_encode(&a, &q, &g, &gs, &err) == POYO_OK);
    decodes_to_first_frame(&a, &g, 2); /* four colours fit the palette */
    bytebuf_free(&w);
    bytebuf_free(&g);
    anim_free(&a);
}

/* A lossy animated WebP (ALPH and VP8 in each frame): the first frame decoded
 * alone equals the first frame libwebp's animation decoder composites. */
static void animated_webp_first_frame_matches_the_animation_decoder(void)
{
    anim a;
    two_frames(&a);
    poyo_error err;
    bytebuf w = { NULL, 0, 0 };
    webp_options wo = webp_default_def();
    wo.lossy = 1;
    ENSURE(webp_encode(&a, &wo, &w, &err) == POYO_OK);
    anim back;
    ENSURE(anim_read(w.data, w.len, &back, NULL, &err) == POYO_OK);
    ENSURE(back.count == 2);
    image im;
    ENSURE_MSG(image_decode(w.data, w.len, IMAGE_DEFAULT_MAX_PIXELS, &im, &err) == POYO_OK, "%s", err.msg);
    ENSURE(im.w == back.width && im.h == back.height);
    ENSURE(memcmp(im.rgba, anim_frame(&back, 0), anim_frame_bytes(&back)) == 0);
    image_free(&im);
    anim_free(&back);
    bytebuf_free(&w);
    anim_free(&a);
}

/* A 36-unit stamp as emoji sets draw them: an orange disc of radius 15 with a
 * dark ring of radius 9 and width 1.5 on it. */
static const char stamp_svg[] =
    "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 36 36\">"
    "<circle cx=\"18\" cy=\"18\" r=\"15\" fill=\"#e06020\"/>"
    "<circle cx=\"18\" cy=\"18\" r=\"9\" fill=\"none\" stroke=\"#202040\" stroke-width=\"1.5\"/>"
    "</svg>";

static poyo_status decode_str(const char *svg, image *out, poyo_error *err)
{
    return image_decode((const uint8_t *)svg, strlen(svg), IMAGE_DEFAULT_MAX_PIXELS, out, err);
}

/* The stamp drawn at side px with its corner at (ox, oy) on a w x h canvas,
 * each pixel the average of 16 x 16 point samples of the exact shapes. */
static void reference(int w, int h, double side, double ox, double oy, image *out)
{
    ENSURE(image_alloc(out, w, h, NULL) == POYO_OK);
    const double k = side / 36.0, cx = ox + 18 * k, cy = oy + 18 * k;
    const double disc = 15 * k, ring_in = 8.25 * k, ring_out = 9.75 * k;
    static const double fill[3] = { 0xe0, 0x60, 0x20 }, ring[3] = { 0x20, 0x20, 0x40 };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s[4] = { 0, 0, 0, 0 };
            for (int j = 0; j < 16; j++)
                for (int i = 0; i < 16; i++) {
                    double dx = x + (i + 0.5) / 16 - cx, dy = y + (j + 0.5) / 16 - cy;
                    double r = sqrt(dx * dx + dy * dy);
                    const double *c = r >= ring_in && r <= ring_out ? ring : r <= disc ? fill : NULL;
                    if (!c)
                        continue;
                    for (int q = 0; q < 3; q++)
                        s[q] += c[q];
                    s[3] += 1;
                }
            uint8_t *o = out->rgba + 4 * ((size_t)y * w + x);
            o[3] = (uint8_t)lround(s[3] * 255.0 / 256.0);
            for (int q = 0; q < 3; q++)
                o[q] = s[3] > 0 ? (uint8_t)lround(s[q] / s[3]) : 0;
        }
}

static void svg_drawn_at_size_matches_the_exact_shapes(void)
{
    image im, drawn, ref, raster, scaled;
    poyo_error err;
    ENSURE_MSG(decode_str(stamp_svg, &im, &err) == POYO_OK, "%s", err.msg);
    ENSURE(im.w == 36 && im.h == 36 && im.vec != NULL);
    /* the intrinsic raster is the same drawing at 36 px */
    reference(36, 36, 36, 0, 0, &ref);
    double db36 = psnr_premultiplied(&im, &ref);
    image_free(&ref);
    ENSURE_MSG(db36 >= 36.0, "36 px: %.1f dB", db36);
    /* at 64 px, on a larger canvas and moved */
    ENSURE(image_place(&im, 80, 72, 64, 64, 9, 5, &drawn, &err) == POYO_OK);
    reference(80, 72, 64, 9, 5, &ref);
    double db = psnr_premultiplied(&drawn, &ref);
    /* the same pixels without the drawing: resampled from 36 px as a PNG would be */
    raster = im;
    raster.vec = NULL;
    ENSURE(image_place(&raster, 80, 72, 64, 64, 9, 5, &scaled, &err) == POYO_OK);
    double db_raster = psnr_premultiplied(&scaled, &ref);
    image_free(&drawn);
    image_free(&scaled);
    image_free(&ref);
    image_free(&im);
    ENSURE_MSG(db >= 40.0, "drawn at 64 px: %.1f dB", db);
    ENSURE_MSG(db >= db_raster + 10.0, "drawn %.1f dB, resampled %.1f dB", db, db_raster);
}

static void svg_is_clipped_to_the_canvas(void)
{
    image im, drawn, ref;
    poyo_error err;
    ENSURE(decode_str(stamp_svg, &im, &err) == POYO_OK);
    /* 96 px with its corner above and left of a 60 x 50 canvas */
    ENSURE(image_place(&im, 60, 50, 96, 96, -20, -30, &drawn, &err) == POYO_OK);
    reference(60, 50, 96, -20, -30, &ref);
    double db = psnr_premultiplied(&drawn, &ref);
    image_free(&drawn);
    image_free(&ref);
    image_free(&im);
    ENSURE_MSG(db >= 40.0, "clipped: %.1f dB", db);
}

static void svg_crop_is_drawn_again_at_any_size(void)
{
    image im, crop, drawn, ref;
    poyo_error err;
    ENSURE(decode_str(stamp_svg, &im, &err) == POYO_OK);
    ENSURE(image_crop(&im, 4, 6, 32, 30, &crop, &err) == POYO_OK);
    ENSURE(crop.w == 28 && crop.h == 24 && crop.vec != NULL);
    for (int y = 0; y < 24; y++)
        ENSURE(memcmp(crop.rgba + (size_t)y * 28 * 4, im.rgba + ((size_t)(y + 6) * 36 + 4) * 4, 28 * 4) == 0);
    image_free(&im); /* the crop keeps the drawing alive */
    ENSURE(image_place(&crop, 84, 72, 84, 72, 0, 0, &drawn, &err) == POYO_OK);
    reference(84, 72, 108, -12, -18, &ref);
    double db = psnr_premultiplied(&drawn, &ref);
    image_free(&drawn);
    image_free(&ref);
    image_free(&crop);
    ENSURE_MSG(db >= 40.0, "a crop drawn 3 times larger: %.1f dB", db);
}

static void renderer_draws_the_svg_at_the_canvas_size(void)
{
    image im, ref;
    poyo_error err;
    lattice lat;
    renderer r;
    ENSURE(decode_str(stamp_svg, &im, &err) == POYO_OK);
    ENSURE(lattice_build(&im, 12, &lat, &err) == POYO_OK);
    double *x = malloc((size_t)lat.count * sizeof *x), *y = malloc((size_t)lat.count * sizeof *y);
    uint8_t *out = malloc((size_t)160 * 144 * 4);
    ENSURE(x && y && out);
    for (int k = 0; k < lat.count; k++) {
        x[k] = lat.ox + lat.ni[k] * lat.h;
        y[k] = lat.oy + lat.nj[k] * lat.h;
    }
    placement pl = { 128, 128, 16, 8, 128.0 / 36.0, 128.0 / 36.0 };
    ENSURE(renderer_init(&r, &im, &lat, 160, 144, pl, &err) == POYO_OK);
    renderer_draw(&r, x, y, out);
    reference(160, 144, 128, 16, 8, &ref);
    image drawn = { 160, 144, out, NULL };
    double db = psnr_premultiplied(&drawn, &ref);
    renderer_free(&r);
    lattice_free(&lat);
    image_free(&ref);
    image_free(&im);
    free(x);
    free(y);
    free(out);
    ENSURE_MSG(db >= 40.0, "a frame at rest, 128 px: %.1f dB", db);
}

static void svg_is_known_by_its_root_and_sized_by_its_header(void)
{
    static const struct {
        const char *svg;
        int w, h;
    } ok[] = {
        /* a byte order mark, a declaration, a comment, a DOCTYPE whose quoted text holds "]>", a prefix */
        { "\xef\xbb\xbf<?xml version=\"1.0\"?><!-- <svg> --><!DOCTYPE svg:svg [ <!ENTITY e \"]>\"> ]>"
          "<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"30\"><svg:rect width=\"9\" "
          "height=\"9\"/></svg:svg>",
          40, 30 },
        /* absolute units at 96 per inch */
        { "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1in\" height=\"0.5in\"><rect width=\"9\" height=\"9\"/></svg>",
          96, 48 },
        /* percentages: the viewBox gives the size */
        { "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100%\" height=\"100%\" viewBox=\"0 0 72 18\">"
          "<rect width=\"9\" height=\"9\"/></svg>",
          72, 18 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        image im;
        poyo_error err;
        ENSURE_MSG(decode_str(ok[i].svg, &im, &err) == POYO_OK, "case %zu: %s", i, err.msg);
        ENSURE_MSG(im.w == ok[i].w && im.h == ok[i].h, "case %zu: %dx%d", i, im.w, im.h);
        /* the rectangle is drawn: the corner pixel is opaque black */
        ENSURE(im.rgba[3] == 255 && im.rgba[0] == 0);
        image_free(&im);
    }
}

static void bad_and_hostile_svg_is_refused(void)
{
    static const char hdr[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\">";
    static const struct {
        const char *head, *body, *msg;
    } bad[] = {
        { "<?xml version=\"1.0\"?>\n<html>", "</html>", "XML whose root element is <html>, not an SVG image" },
        { "<?xml version=\"1.0\"?>\n<!-- no root", "", "corrupt or truncated XML (no root element), not an SVG image" },
        { hdr, "<circle r=\"9\"", "corrupt or truncated SVG (line 1: " },
        { "<svg xmlns=\"http://www.w3.org/2000/svg\">", "</svg>",
          "SVG has no size (neither width and height in absolute units nor a viewBox)" },
        { "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100000000\" height=\"10\">", "</svg>",
          "image is 100000000x10, more than the 16777216-pixel limit (see --max-pixels)" },
        { "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"10\">", "</svg>", "SVG has an empty size (0x10)" },
        /* data: URLs however they are spelt: entities, character references, CSS escapes, split by a comment */
        { hdr, "<image href=\"data:image/png;base64,AAAA\"/></svg>",
          "SVG embeds an image or document (a data: URL), which poyo does not read" },
        { "<!DOCTYPE svg [<!ENTITY d \"DA\">]>", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"9\" height=\"9\">"
          "<use href=\"&d;&#x54;&#10;a:image/svg+xml,x#a\"/></svg>",
          "SVG embeds an image or document (a data: URL), which poyo does not read" },
        { hdr, "<style>rect { fill: url(\"\\64 a<!-- -->ta:image/svg+xml,x#p\") }</style></svg>",
          "SVG embeds an image or document (a data: URL), which poyo does not read" },
        { "<?xml-stylesheet href=\"data:text/css,x\"?>", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
          "SVG embeds an image or document (a data: URL), which poyo does not read" },
        /* an external entity is never looked up */
        { "<!DOCTYPE svg [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>", "<svg xmlns=\"http://www.w3.org/2000/svg\">&x;</svg>",
          "corrupt or truncated SVG (line 1: Entity 'x' not defined)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char svg[512];
        snprintf(svg, sizeof svg, "%s%s", bad[i].head, bad[i].body);
        image im;
        poyo_error err;
        ENSURE_MSG(decode_str(svg, &im, &err) == POYO_ERR_INPUT, "case %zu was accepted", i);
        ENSURE_MSG(strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)) == 0, "case %zu: %s", i, err.msg);
        ENSURE(im.rgba == NULL && im.vec == NULL);
    }
    /* text that merely ends in "data:" is not a URL */
    char svg[256];
    snprintf(svg, sizeof svg, "%s<rect id=\"metadata:x\" width=\"9\" height=\"9\"/></svg>", hdr);
    image im;
    poyo_error err;
    ENSURE_MSG(decode_str(svg, &im, &err) == POYO_OK, "%s", err.msg);
    image_free(&im);
}

/* Builds the lattice of grid nodes over w x h RGBA pixels, which it frees. */
static poyo_status lattice_of(uint8_t *px, int w, int h, int grid, lattice *lat, poyo_error *err)
{
    image im = { w, h, px, NULL };
    poyo_status st = lattice_build(&im, grid, lat, err);
    free(px);
    return st;
}

/* A bar of 30 x 10 opaque pixels with a faint fringe (alpha 64) one pixel
 * wide around it: the lattice's visible box holds the fringe, its opaque box
 * has the edges where alpha crosses one half between pixel centres, a sixth
 * of a pixel outside the bar's own (the fringe is a quarter opaque). */
static void lattice_opaque_box_leaves_out_the_fringe(void)
{
    int w = 48, h = 32;
    uint8_t *px = calloc((size_t)w * h * 4, 1);
    ENSURE(px);
    for (int y = 9; y <= 20; y++)
        for (int x = 5; x <= 36; x++) {
            uint8_t *p = px + 4 * ((size_t)y * w + x);
            p[0] = 200;
            p[3] = (y == 9 || y == 20 || x == 5 || x == 36) ? 64 : 255;
        }
    lattice lat;
    poyo_error err;
    ENSURE_MSG(lattice_of(px, w, h, 12, &lat, &err) == POYO_OK, "%s", err.msg);
    double edge = (0.5 - 64 / 255.0) / (1.0 - 64 / 255.0);
    int ok = fabs(lat.by1 - lat.by0 - 12.0) < 1e-9 && fabs(lat.bx1 - lat.bx0 - 32.0) < 1e-9 &&
             fabs(lat.sy0 - (9.5 + edge)) < 1e-6 && fabs(lat.sy1 - (20.5 - edge)) < 1e-6 &&
             fabs(lat.sx0 - (5.5 + edge)) < 1e-6 && fabs(lat.sx1 - (36.5 - edge)) < 1e-6;
    double sx0 = lat.sx0, sy0 = lat.sy0, sx1 = lat.sx1, sy1 = lat.sy1;
    lattice_free(&lat);
    ENSURE_MSG(ok, "opaque box %.3f,%.3f to %.3f,%.3f", sx0, sy0, sx1, sy1);
}

/* A 100 x 100 image opaque at every pixel of odd row and column (2500):
 * the stride the count suggests (2, 625 samples) lands on all 2500, more
 * than LATTICE_OPAQUE_SAMPLES, so the samples are taken on a wider stride
 * and still reach the bottom rows (cut off at the cap, they stopped near
 * row 81). */
static void lattice_samples_reach_the_bottom_rows(void)
{
    int w = 100, h = 100;
    uint8_t *px = calloc((size_t)w * h * 4, 1);
    ENSURE(px);
    for (int y = 1; y < h; y += 2)
        for (int x = 1; x < w; x += 2)
            px[4 * ((size_t)y * w + x) + 3] = 255;
    lattice lat;
    poyo_error err;
    ENSURE_MSG(lattice_of(px, w, h, 12, &lat, &err) == POYO_OK, "%s", err.msg);
    float low = 0.0f;
    for (int k = 0; k < lat.op_n; k++)
        low = fmaxf(low, lat.op_y[k]);
    int n = lat.op_n, stride = lat.op_stride;
    lattice_free(&lat);
    ENSURE_MSG(n >= 200 && n <= LATTICE_OPAQUE_SAMPLES && low >= 99.5f - stride,
               "%d samples on a stride of %d, the lowest at %.1f", n, stride, low);
}

/* An opaque bar 2 pixels wide and 9000 tall: the stride the count suggests
 * (3) takes 3000 samples down column 1, so it is widened to 4, whose grid
 * began at column 2, past the image, and sampled nothing. */
static void lattice_samples_a_narrow_image(void)
{
    int w = 2, h = 9000;
    uint8_t *px = malloc((size_t)w * h * 4);
    ENSURE(px);
    memset(px, 255, (size_t)w * h * 4);
    lattice lat;
    poyo_error err;
    ENSURE_MSG(lattice_of(px, w, h, 8, &lat, &err) == POYO_OK, "%s", err.msg);
    int n = lat.op_n, stride = lat.op_stride;
    lattice_free(&lat);
    ENSURE_MSG(n >= 1000 && n <= LATTICE_OPAQUE_SAMPLES, "%d samples on a stride of %d", n, stride);
}

/* Appends a PNG chunk (length, type, body, CRC) to b. */
static void png_chunk(bytebuf *b, const char *type, const uint8_t *body, uint32_t n)
{
    poyo_error err;
    uint8_t be[4] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };
    uLong crc = crc32(crc32(0, (const Bytef *)type, 4), body, n);
    uint8_t c[4] = { (uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc };
    bytebuf_append(b, be, 4, &err);
    bytebuf_append(b, type, 4, &err);
    bytebuf_append(b, body, n, &err);
    bytebuf_append(b, c, 4, &err);
}

/* A w x h PNG of colour type ctype (8 bits a sample), row y filtered with
 * filter (y + shift) % 5 from samples that vary with x, y and the channel; a palette of
 * npal entries for type 3, and the tRNS body given (NULL: none). */
static void make_png(bytebuf *b, int w, int h, int ctype, int npal, const uint8_t *trns, uint32_t ntrns, int shift)
{
    int ch = ctype == 0 ? 1 : ctype == 2 ? 3 : ctype == 3 ? 1 : ctype == 4 ? 2 : 4;
    size_t rb = (size_t)w * ch;
    uint8_t *img = malloc(rb * h), *raw = malloc((rb + 1) * h);
    for (int y = 0; y < h; y++)
        for (size_t i = 0; i < rb; i++)
            img[y * rb + i] = ctype == 3 ? (uint8_t)((i * 7 + y * 3) % npal)
                              : y % 3 ? (uint8_t)((i / ch / 3 + y / 2) * 40 + (i % ch) * 50)   /* blocks: ties */
                                      : (uint8_t)(i * 37 + y * 91 + (i % ch) * 50);
    for (int y = 0; y < h; y++) {
        int f = (y + shift) % 5;   /* shift: the first row's filter too */
        uint8_t *o = raw + y * (rb + 1);
        const uint8_t *r = img + y * rb, *up = y ? r - rb : NULL;
        o[0] = (uint8_t)f;
        for (size_t i = 0; i < rb; i++) {
            int a = i >= (size_t)ch ? r[i - ch] : 0, u = up ? up[i] : 0, c = up && i >= (size_t)ch ? up[i - ch] : 0;
            int pa = abs(u - c), pb = abs(a - c), pc = abs(a + u - 2 * c);
            int pred = f == 1 ? a : f == 2 ? u : f == 3 ? (a + u) / 2 : f == 4 ? (pa <= pb && pa <= pc ? a : pb <= pc ? u : c) : 0;
            o[1 + i] = (uint8_t)(r[i] - pred);
        }
    }
    uLongf zn = compressBound((uLong)((rb + 1) * h));
    uint8_t *z = malloc(zn);
    compress(z, &zn, raw, (uLong)((rb + 1) * h));
    poyo_error err;
    bytebuf_append(b, "\x89PNG\r\n\x1a\n", 8, &err);
    uint8_t ihdr[13] = { 0, 0, (uint8_t)(w >> 8), (uint8_t)w, 0, 0, (uint8_t)(h >> 8), (uint8_t)h, 8, (uint8_t)ctype, 0, 0, 0 };
    png_chunk(b, "IHDR", ihdr, 13);
    if (ctype == 3) {
        uint8_t pal[768];
        for (int k = 0; k < 3 * npal; k++)
            pal[k] = (uint8_t)(k * 29 + 7);
        png_chunk(b, "PLTE", pal, (uint32_t)(3 * npal));
    }
    if (trns)
        png_chunk(b, "tRNS", trns, ntrns);
    png_chunk(b, "IDAT", z, (uint32_t)zn);
    png_chunk(b, "IEND", NULL, 0);
    free(img);
    free(raw);
    free(z);
}

/* A 13 x 9 palette PNG of depth bits a pixel (Adam7 interlaced or not) with
 * a palette of npal entries and indices 0 to top, unfiltered. */
static void make_palette_png(bytebuf *b, int depth, int interlace, int npal, int top)
{
    static const int x0[7] = { 0, 4, 0, 2, 0, 1, 0 }, y0[7] = { 0, 0, 4, 0, 2, 0, 1 };
    static const int dx[7] = { 8, 8, 4, 4, 2, 2, 1 }, dy[7] = { 8, 8, 8, 4, 4, 2, 2 };
    int w = 13, h = 9, k = 0;
    uint8_t raw[512] = { 0 }, pal[768];
    size_t n = 0;
    for (int p = 0; p < (interlace ? 7 : 1); p++) {
        int pw = interlace ? (w - x0[p] + dx[p] - 1) / dx[p] : w, ph = interlace ? (h - y0[p] + dy[p] - 1) / dy[p] : h;
        for (int y = 0; y < ph && pw > 0; y++) {
            raw[n++] = 0;
            for (int x = 0; x < pw; x++, k++)
                raw[n + x * depth / 8] |= (uint8_t)((k * 37 % (top + 1)) << (8 - depth - x * depth % 8));
            n += (size_t)(pw * depth + 7) / 8;
        }
    }
    for (int i = 0; i < 3 * npal; i++)
        pal[i] = (uint8_t)(i * 41);
    uLongf zn = compressBound((uLong)n);
    uint8_t z[1024];
    compress(z, &zn, raw, (uLong)n);
    poyo_error err;
    bytebuf_append(b, "\x89PNG\r\n\x1a\n", 8, &err);
    uint8_t ihdr[13] = { 0, 0, 0, (uint8_t)w, 0, 0, 0, (uint8_t)h, (uint8_t)depth, 3, 0, 0, (uint8_t)interlace };
    png_chunk(b, "IHDR", ihdr, 13);
    png_chunk(b, "PLTE", pal, (uint32_t)(3 * npal));
    png_chunk(b, "IDAT", z, (uint32_t)zn);
    png_chunk(b, "IEND", NULL, 0);
}

/* PNGs of every colour type at 8 bits, with every row filter, palettes with
 * tRNS and grey and RGB colour keys decode exactly as stb_image decodes
 * them; a pixel that indexes past the palette is refused. */
static void png_decodes_as_stb_image_does(void)
{
    static const uint8_t key_grey[2] = { 0, 91 }, key_rgb[6] = { 0, 91, 0, 141, 0, 191 }, alphas[5] = { 0, 60, 255, 9, 128 };
    struct { int ctype, npal; const uint8_t *trns; uint32_t ntrns; } kinds[] = {
        { 0, 0, NULL, 0 }, { 0, 0, key_grey, 2 }, { 2, 0, NULL, 0 }, { 2, 0, key_rgb, 6 }, { 3, 7, NULL, 0 },
        { 3, 200, alphas, 5 }, { 4, 0, NULL, 0 }, { 6, 0, NULL, 0 },
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int w = 1; w <= 37; w += 12) {
            bytebuf b = { 0 };
            make_png(&b, w, 16, kinds[k].ctype, kinds[k].npal, kinds[k].trns, kinds[k].ntrns, w % 5);
            image im;
            poyo_error err;
            int sw, sh, c;
            uint8_t *px = stbi_load_from_memory(b.data, (int)b.len, &sw, &sh, &c, 4);
            ENSURE_MSG(px && image_decode(b.data, b.len, 1 << 20, &im, &err) == POYO_OK, "type %d width %d",
                       kinds[k].ctype, w);
            ENSURE_MSG(im.w == sw && im.h == sh && memcmp(im.rgba, px, (size_t)sw * sh * 4) == 0,
                       "type %d width %d: pixels differ", kinds[k].ctype, w);
            image_free(&im);
            stbi_image_free(px);
            bytebuf_free(&b);
        }
    /* indices 0 to 6 against a palette of 5 */
    bytebuf b = { 0 };
    make_png(&b, 20, 4, 3, 7, NULL, 0, 0);
    uint8_t *plte = b.data + 8 + 25 + 4;   /* after the signature and IHDR, past the PLTE's length */
    ENSURE(memcmp(plte, "PLTE", 4) == 0);
    plte[-1] = 15;   /* the chunk's length: 5 entries (its CRC goes unchecked) */
    memmove(plte + 4 + 15, plte + 4 + 21, b.len - (size_t)(plte + 4 + 21 - b.data));
    b.len -= 6;
    image im;
    poyo_error err;
    ENSURE(image_decode(b.data, b.len, 1 << 20, &im, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strcmp(err.msg, "corrupt PNG: a pixel indexes past the end of its palette") == 0, "%s", err.msg);
    bytebuf_free(&b);
    /* files png_plain leaves to stb_image get stb_image's answer: an unknown
     * critical chunk, a palette after the image data, bytes after the zlib stream */
    for (int kind = 0; kind < 3; kind++) {
        make_png(&b, 9, 5, kind == 1 ? 2 : 6, 0, NULL, 0, 1);
        size_t iend = b.len - 12;
        bytebuf t = { 0 };
        bytebuf_append(&t, b.data, kind == 2 ? 33 : iend, &err);
        if (kind == 0)
            png_chunk(&t, "ABCD", (const uint8_t *)"x", 1);
        if (kind == 1)
            png_chunk(&t, "PLTE", (const uint8_t *)"abcdef", 6);
        if (kind == 2) {   /* the IDAT again with four bytes after its stream */
            uint32_t n = (uint32_t)(b.data[33] << 24 | b.data[34] << 16 | b.data[35] << 8 | b.data[36]);
            uint8_t body[4096];
            memcpy(body, b.data + 41, n);
            memset(body + n, 0, 4);
            png_chunk(&t, "IDAT", body, n + 4);
        }
        png_chunk(&t, "IEND", NULL, 0);
        int sw, sh, c;
        uint8_t *px = stbi_load_from_memory(t.data, (int)t.len, &sw, &sh, &c, 4);
        poyo_status st = image_decode(t.data, t.len, 1 << 20, &im, &err);
        ENSURE_MSG((st == POYO_OK) == (px != NULL), "case %d: poyo %d, stb_image %s", kind, (int)st, px ? "ok" : "refuses");
        if (st == POYO_OK && px)
            ENSURE_MSG(memcmp(im.rgba, px, (size_t)sw * sh * 4) == 0, "case %d: pixels differ", kind);
        if (st == POYO_OK)
            image_free(&im);
        stbi_image_free(px);
        bytebuf_free(&t);
        bytebuf_free(&b);
    }
    /* palettes of 1 to 8 bits a pixel, interlaced or not: the same as stb_image
     * while every index is in the palette, refused when one is past it */
    for (int depth = 1; depth <= 8; depth *= 2)
        for (int il = 0; il < 2; il++)
            for (int past = 0; past < 2; past++) {
                int n = 1 << depth;
                make_palette_png(&b, depth, il, past ? (n > 2 ? n / 2 : 1) : n, n - 1);
                int sw, sh, c;
                uint8_t *px = stbi_load_from_memory(b.data, (int)b.len, &sw, &sh, &c, 4);
                poyo_status st = image_decode(b.data, b.len, 1 << 20, &im, &err);
                ENSURE_MSG(px != NULL, "depth %d interlace %d", depth, il);
                if (past)
                    ENSURE_MSG(st == POYO_ERR_INPUT, "depth %d interlace %d: an index past the palette passed", depth, il);
                else
                    ENSURE_MSG(st == POYO_OK && memcmp(im.rgba, px, (size_t)sw * sh * 4) == 0,
                               "depth %d interlace %d: pixels differ", depth, il);
                if (st == POYO_OK)
                    image_free(&im);
                stbi_image_free(px);
                bytebuf_free(&b);
            }
}

const struct test_case test_cases[] = {
    { "lattice_opaque_box_leaves_out_the_fringe", lattice_opaque_box_leaves_out_the_fringe },
    { "lattice_samples_reach_the_bottom_rows", lattice_samples_reach_the_bottom_rows },
    { "lattice_samples_a_narrow_image", lattice_samples_a_narrow_image },
    { "big_emoji_drawn_small_keeps_its_outline", big_emoji_drawn_small_keeps_its_outline },
    { "own_size_is_a_copy", own_size_is_a_copy },
    { "webp_and_gif_give_their_first_frame", webp_and_gif_give_their_first_frame },
    { "png_decodes_as_stb_image_does", png_decodes_as_stb_image_does },
    { "animated_webp_first_frame_matches_the_animation_decoder", animated_webp_first_frame_matches_the_animation_decoder },
    { "svg_drawn_at_size_matches_the_exact_shapes", svg_drawn_at_size_matches_the_exact_shapes },
    { "svg_is_clipped_to_the_canvas", svg_is_clipped_to_the_canvas },
    { "svg_crop_is_drawn_again_at_any_size", svg_crop_is_drawn_again_at_any_size },
    { "renderer_draws_the_svg_at_the_canvas_size", renderer_draws_the_svg_at_the_canvas_size },
    { "svg_is_known_by_its_root_and_sized_by_its_header", svg_is_known_by_its_root_and_sized_by_its_header },
    { "bad_and_hostile_svg_is_refused", bad_and_hostile_svg_is_refused },
    { NULL, NULL },
};
