/* test_image.c - placing an image on a canvas: a large emoji drawn small keeps
 * the weight of its dark outlines (it matches a plain area average of the
 * gamma-encoded, premultiplied pixels), and an image at its own size is copied. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "image.h"

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

const struct test_case test_cases[] = {
    { "big_emoji_drawn_small_keeps_its_outline", big_emoji_drawn_small_keeps_its_outline },
    { "own_size_is_a_copy", own_size_is_a_copy },
    { NULL, NULL },
};
