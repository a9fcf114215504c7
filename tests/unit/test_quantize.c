/* test_quantize.c - the shared palette: few colours come back exactly, alpha
 * is thresholded to one transparent entry no visible pixel uses (also when
 * dithering), partly transparent pixels are blended onto the matte; a real
 * emoji keeps a clear background at every colour count, in a GIF and in an
 * APNG's reduced colours. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "image/animread.h"
#include "image/gif.h"
#include "image/image.h"
#include "image/quantize.h"

static const uint8_t few[5][3] = { { 255, 0, 0 }, { 0, 128, 0 }, { 10, 20, 250 }, { 1, 1, 1 }, { 240, 240, 200 } };

/* Three frames of stripes in five colours, shifted per frame, with a clear
 * border; pixel (x, y) of frame f has colour (x / 3 + f) % 5. */
static anim stripes(void)
{
    anim a;
    anim_init(&a, 40, 24, 3, 25, NULL);
    for (int f = 0; f < 3; f++)
        for (int y = 0; y < 24; y++)
            for (int x = 0; x < 40; x++) {
                uint8_t *p = anim_frame(&a, f) + 4 * (y * 40 + x);
                if (x < 2 || y < 2 || x >= 38 || y >= 22)
                    continue;
                memcpy(p, few[(x / 3 + f) % 5], 3);
                p[3] = 255;
            }
    return a;
}

static void few_colours_come_back_exactly(void)
{
    anim a = stripes();
    quantize_def q = quantize_default_def();
    indexed ix;
    ENSURE(quantize_anim(&a, &q, &ix, NULL) == POYO_OK);
    ENSURE(ix.ncolors >= 6 && ix.ncolors <= 8);
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < 40 * 24; i++) {
            const uint8_t *p = anim_frame(&a, f) + 4 * i;
            int k = ix.index[(size_t)f * 40 * 24 + i];
            if (p[3] == 0) {
                ENSURE_MSG(k == ix.transparent, "frame %d pixel %d: clear pixel on entry %d", f, i, k);
                continue;
            }
            ENSURE_MSG(k != ix.transparent && memcmp(ix.palette[k], p, 3) == 0,
                       "frame %d pixel %d: %d,%d,%d became %d,%d,%d", f, i, p[0], p[1], p[2], ix.palette[k][0],
                       ix.palette[k][1], ix.palette[k][2]);
        }
    indexed_free(&ix);
    anim_free(&a);
}

/* A gradient under a ramp of alpha: column x has alpha 255 * x / 63. */
static anim alpha_ramp(void)
{
    anim a;
    anim_init(&a, 64, 16, 2, 25, NULL);
    for (int f = 0; f < 2; f++)
        for (int y = 0; y < 16; y++)
            for (int x = 0; x < 64; x++) {
                uint8_t *p = anim_frame(&a, f) + 4 * (y * 64 + x);
                p[0] = (uint8_t)(4 * x);
                p[1] = (uint8_t)(16 * y + f);
                p[2] = 90;
                p[3] = (uint8_t)(255 * x / 63);
            }
    return a;
}

static void alpha_is_one_bit_with_or_without_dithering(void)
{
    anim a = alpha_ramp();
    for (int d = 0; d < 2; d++) {
        quantize_def q = quantize_default_def();
        q.dither = d ? 1.0 : 0.0;
        q.colors = 16;
        indexed ix;
        ENSURE(quantize_anim(&a, &q, &ix, NULL) == POYO_OK);
        ENSURE(ix.ncolors <= 16);
        for (int f = 0; f < 2; f++)
            for (int i = 0; i < 64 * 16; i++) {
                int clear = anim_frame(&a, f)[4 * i + 3] < q.alpha_threshold;
                int k = ix.index[(size_t)f * 64 * 16 + i];
                ENSURE_MSG(clear == (k == ix.transparent), "dither %d frame %d pixel %d: alpha %d on entry %d", d, f,
                           i, anim_frame(&a, f)[4 * i + 3], k);
            }
        indexed_free(&ix);
    }
    anim_free(&a);
}

static void partly_clear_pixels_blend_onto_the_matte(void)
{
    /* one colour at alpha 255 and at alpha 160: over an orange matte m the
     * second becomes (c * 160 + m * 95) / 255; without a matte both stay c */
    anim a;
    anim_init(&a, 8, 2, 1, 25, NULL);
    for (int i = 0; i < 16; i++) {
        uint8_t *p = anim_frame(&a, 0) + 4 * i;
        p[0] = 40;
        p[1] = 100;
        p[2] = 200;
        p[3] = i < 8 ? 255 : 160;
    }
    for (int m = 0; m < 2; m++) {
        quantize_def q = quantize_default_def();
        q.matte = m ? 0xff8000 : -1;
        indexed ix;
        ENSURE(quantize_anim(&a, &q, &ix, NULL) == POYO_OK);
        const uint8_t *solid = ix.palette[ix.index[0]], *soft = ix.palette[ix.index[8]];
        ENSURE(solid[0] == 40 && solid[1] == 100 && solid[2] == 200);
        if (m) {
            ENSURE_MSG(soft[0] == (40 * 160 + 255 * 95 + 127) / 255 && soft[1] == (100 * 160 + 128 * 95 + 127) / 255 &&
                           soft[2] == (200 * 160 + 0 * 95 + 127) / 255,
                       "matte: %d,%d,%d", soft[0], soft[1], soft[2]);
        } else {
            ENSURE(ix.index[8] == ix.index[0]);
        }
        indexed_free(&ix);
    }
    anim_free(&a);
}

static void fully_opaque_clip_keeps_a_free_transparent_entry(void)
{
    /* no clear pixel at all: 256 colours asked for, the transparent entry is
     * still one of 256 and no pixel uses it */
    anim a;
    anim_init(&a, 32, 32, 2, 25, NULL);
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 32 * 32; i++) {
            uint8_t *p = anim_frame(&a, f) + 4 * i;
            p[0] = (uint8_t)(i * 7 + f);
            p[1] = (uint8_t)(i / 4);
            p[2] = (uint8_t)(255 - i % 256);
            p[3] = 255;
        }
    quantize_def q = quantize_default_def();
    indexed ix;
    ENSURE(quantize_anim(&a, &q, &ix, NULL) == POYO_OK);
    ENSURE(ix.ncolors <= 256 && ix.transparent >= 0 && ix.transparent < ix.ncolors);
    for (size_t i = 0; i < (size_t)2 * 32 * 32; i++)
        ENSURE_MSG(ix.index[i] != ix.transparent, "pixel %zu on the transparent entry", i);
    indexed_free(&ix);
    anim_free(&a);
}

/* Eight frames of a real emoji (soft edges) moving across a clear 96x80
 * canvas, each frame different from the last. */
static int moving_emoji(anim *a)
{
    image im = { 0 };
    if (image_load("tests/data/1f600.png", IMAGE_DEFAULT_MAX_PIXELS, &im, NULL) != POYO_OK)
        return 0;
    if (anim_init(a, 96, 80, 8, 20, NULL) != POYO_OK) {
        image_free(&im);
        return 0;
    }
    for (int f = 0; f < 8; f++)
        for (int y = 0; y < im.h; y++)
            memcpy(anim_frame(a, f) + 4 * ((size_t)(y + f) * 96 + (size_t)(3 * f)), im.rgba + (size_t)y * im.w * 4,
                   (size_t)im.w * 4);
    image_free(&im);
    return 1;
}

static void clear_background_stays_clear_at_every_colour_count(void)
{
    anim a;
    ENSURE(moving_emoji(&a));
    size_t npx = (size_t)a.width * a.height;
    static const int counts[] = { 2, 3, 4, 8, 12, 16, 32, 256 };
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (int m = 0; m < 2; m++) {
            /* GIF: every pixel under the threshold is transparent in the file, every other one opaque */
            quantize_def q = quantize_default_def();
            q.colors = counts[c];
            q.matte = m ? 0xffffff : -1;
            bytebuf buf = { NULL, 0, 0 };
            anim back;
            anim_meta meta;
            memset(&back, 0, sizeof back);
            memset(&meta, 0, sizeof meta);
            ENSURE(gif_encode(&a, &q, &buf, NULL, NULL) == POYO_OK);
            ENSURE(anim_read(buf.data, buf.len, &back, &meta, NULL) == POYO_OK);
            ENSURE_MSG(back.count == a.count, "%d colours: %d frames back of %d", counts[c], back.count, a.count);
            long wrong = 0;
            for (int f = 0; f < a.count && back.count == a.count; f++)
                for (size_t i = 0; i < npx; i++) {
                    int src = anim_frame(&a, f)[4 * i + 3], got = anim_frame(&back, f)[4 * i + 3];
                    wrong += src < q.alpha_threshold ? got != 0 : got != 255;
                }
            ENSURE_MSG(wrong == 0, "GIF, %d colours, matte %d: %ld pixels with the wrong transparency", counts[c], m,
                       wrong);
            bytebuf_free(&buf);
            anim_free(&back);
            anim_meta_free(&meta);
        }
    /* reduced RGBA (APNG): clear stays clear, visible stays visible */
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        anim r;
        ENSURE(anim_init(&r, a.width, a.height, a.count, a.fps, NULL) == POYO_OK);
        memcpy(r.rgba, a.rgba, anim_frame_bytes(&a) * (size_t)a.count);
        ENSURE(quantize_reduce(&r, counts[c], 1.0, NULL) == POYO_OK);
        long wrong = 0;
        for (size_t i = 0; i < npx * (size_t)a.count; i++)
            wrong += (a.rgba[4 * i + 3] == 0) != (r.rgba[4 * i + 3] == 0);
        ENSURE_MSG(wrong == 0, "reduced to %d colours: %ld pixels with the wrong transparency", counts[c], wrong);
        anim_free(&r);
    }
    anim_free(&a);
}

/* Every field of quantize_def is checked, each with its own message; the defaults pass. */
static void settings_out_of_range_are_named(void)
{
    poyo_error err;
    quantize_def d = quantize_default_def();
    ENSURE_MSG(quantize_check_def(&d, &err) == POYO_OK, "%s", err.msg);
    static const struct { int field; double value; const char *msg; } bad[] = {
        { 0, 1, "--colors: must be 2 to 256, not 1" },
        { 0, 257, "--colors: must be 2 to 256, not 257" },
        { 1, -0.5, "--dither: must be 0 to 1, not -0.5" },
        { 1, NAN, "--dither: must be 0 to 1, not nan" },
        { 2, 0, "--alpha-threshold: must be 1 to 255, not 0" },
        { 3, -1, "quality range must be within 0 to 100, not -1-99" },
        { 4, 101, "quality range must be within 0 to 100, not 0-101" },
        { 5, 11, "speed must be 1 to 10, not 11" },
        { 6, 256, "--lossy-gif: must be 0 to 255, not 256" },
        { 7, 0x1000000, "invalid --matte colour" },
        { 7, -2, "invalid --matte colour" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = quantize_default_def();
        switch (bad[i].field) {
        case 0: d.colors = (int)bad[i].value; break;
        case 1: d.dither = bad[i].value; break;
        case 2: d.alpha_threshold = (int)bad[i].value; break;
        case 3: d.quality_min = (int)bad[i].value; break;
        case 4: d.quality_max = (int)bad[i].value; break;
        case 5: d.speed = (int)bad[i].value; break;
        case 6: d.lossy = (int)bad[i].value; break;
        default: d.matte = (int)bad[i].value; break;
        }
        ENSURE_MSG(quantize_check_def(&d, &err) == POYO_ERR_USAGE, "case %zu passed", i);
        ENSURE_MSG(strcmp(err.msg, bad[i].msg) == 0, "case %zu: %s", i, err.msg);
    }
    /* a floor above the target is no range either */
    d = quantize_default_def();
    d.quality_min = 90;
    d.quality_max = 80;
    ENSURE(quantize_check_def(&d, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "quality range must be within 0 to 100, not 90-80") == 0, "%s", err.msg);
    /* quantize_reduce has the same colour range */
    anim a;
    ENSURE(anim_init(&a, 2, 2, 1, 10.0, &err) == POYO_OK);
    ENSURE(quantize_reduce(&a, 1, 0.0, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "colours must be 2 to 256, not 1") == 0, "%s", err.msg);
    anim_free(&a);
}

const struct test_case test_cases[] = {
    { "few_colours_come_back_exactly", few_colours_come_back_exactly },
    { "alpha_is_one_bit_with_or_without_dithering", alpha_is_one_bit_with_or_without_dithering },
    { "partly_clear_pixels_blend_onto_the_matte", partly_clear_pixels_blend_onto_the_matte },
    { "fully_opaque_clip_keeps_a_free_transparent_entry", fully_opaque_clip_keeps_a_free_transparent_entry },
    { "clear_background_stays_clear_at_every_colour_count", clear_background_stays_clear_at_every_colour_count },
    { "settings_out_of_range_are_named", settings_out_of_range_are_named },
    { NULL, NULL },
};
