/* test_image.c - placing an image on a canvas: a large emoji drawn small keeps
 * the weight of its dark outlines (it matches a plain area average of the
 * gamma-encoded, premultiplied pixels), and an image at its own size is copied;
 * a two-frame clip written as WebP and as GIF decodes to its first frame. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "animread.h"
#include "bytebuf.h"
#include "gif.h"
#include "image.h"
#include "quantize.h"
#include "webp.h"

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

const struct test_case test_cases[] = {
    { "big_emoji_drawn_small_keeps_its_outline", big_emoji_drawn_small_keeps_its_outline },
    { "own_size_is_a_copy", own_size_is_a_copy },
    { "webp_and_gif_give_their_first_frame", webp_and_gif_give_their_first_frame },
    { "animated_webp_first_frame_matches_the_animation_decoder", animated_webp_first_frame_matches_the_animation_decoder },
    { NULL, NULL },
};
