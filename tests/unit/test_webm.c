/* test_webm.c - the WebM writer and reader: an animation built here is encoded
 * as VP9 with alpha, read back through anim_read, and compared: size, frames,
 * delays, codec, the alpha plane where the picture is clear and where it is
 * solid, and colours within a lossy codec's error. Broken files are refused. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "image/animread.h"
#include "image/webm.h"

/* A disc of solid colour moving over a clear canvas; holds of 1 to 3 ticks. */
static int make_disc(anim *a, int w, int h, int n, double fps)
{
    if (anim_init(a, w, h, n, fps, NULL) != POYO_OK)
        return 0;
    for (int i = 0; i < n; i++) {
        uint8_t *px = anim_frame(a, i);
        double cx = w / 2.0 + (i - n / 2) * 1.5, cy = h / 2.0, r = w / 4.0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint8_t *p = px + ((size_t)y * w + x) * 4;
                double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
                if (dx * dx + dy * dy < r * r) {
                    p[0] = 230;
                    p[1] = (uint8_t)(60 + 4 * i);
                    p[2] = 40;
                    p[3] = 255;
                }
            }
        a->hold[i] = 1 + i % 3;
    }
    return 1;
}

/* Encodes a with the default options into a fresh buffer. */
static int encode(const anim *a, bytebuf *out)
{
    poyo_error err;
    memset(out, 0, sizeof *out);
    if (webm_encode(a, NULL, out, &err) != POYO_OK) {
        fprintf(stderr, "webm_encode: %s\n", err.msg);
        return 0;
    }
    return 1;
}

/* A disc animation and its WebM (default options). */
static int disc_webm(anim *a, bytebuf *buf, int w, int h, int n, double fps)
{
    return make_disc(a, w, h, n, fps) && encode(a, buf);
}

static void test_round_trip(void)
{
    anim a, b;
    anim_meta m;
    bytebuf buf;
    poyo_error err;
    ENSURE(disc_webm(&a, &buf, 64, 48, 12, 25.0));
    ENSURE(webm_sniff(buf.data, buf.len));
    ENSURE(anim_read(buf.data, buf.len, &b, &m, &err) == POYO_OK);
    ENSURE(strcmp(m.format, "webm") == 0 && strcmp(m.codec, "vp9") == 0);
    ENSURE(m.alpha == 1 && m.audio_tracks == 0);
    ENSURE(m.width == 64 && m.height == 48 && b.width == 64 && b.height == 48);
    ENSURE_MSG(m.frames == a.count && b.count == a.count, "%d frames read, %d written", m.frames, a.count);
    ENSURE_NEAR(m.fps, 25.0, 1e-9);
    /* each frame lasts its holds at 25 fps, in whole milliseconds */
    int want[12];
    anim_delays(&a, 1000, 1, want);
    for (int i = 0; i < a.count; i++)
        ENSURE_MSG(m.delay_ms[i] == want[i] && m.delay_ms[i] == 40 * a.hold[i], "frame %d: %d ms, want %d", i,
                   m.delay_ms[i], want[i]);
    /* clear where the source is clear (the corners), solid inside the disc, and
     * colours near the source's where it is solid */
    int worst_clear = 0, worst_solid = 255, worst_colour = 0;
    long colour_sum = 0, colour_n = 0;
    for (int i = 0; i < a.count; i++) {
        const uint8_t *s = anim_frame(&a, i), *d = anim_frame(&b, i);
        for (size_t k = 0; k < (size_t)a.width * a.height; k++) {
            const uint8_t *p = s + 4 * k, *q = d + 4 * k;
            if (p[3] == 0 && q[3] > worst_clear)
                worst_clear = q[3];
            int x = (int)(k % (size_t)a.width), y = (int)(k / (size_t)a.width);
            if (p[3] == 255 && x > 0 && y > 0 && x + 1 < a.width && y + 1 < a.height &&
                s[4 * (k - 1) + 3] == 255 && s[4 * (k + 1) + 3] == 255 && s[4 * (k - (size_t)a.width) + 3] == 255 &&
                s[4 * (k + (size_t)a.width) + 3] == 255) {
                if (q[3] < worst_solid)
                    worst_solid = q[3];
                for (int c = 0; c < 3; c++) {
                    colour_sum += abs(p[c] - q[c]);
                    colour_n++;
                    if (abs(p[c] - q[c]) > worst_colour)
                        worst_colour = abs(p[c] - q[c]);
                }
            }
        }
        ENSURE_MSG(d[3] < 8 && d[4 * (a.width - 1) + 3] < 8, "frame %d: corner alpha %d, %d", i, d[3],
                   d[4 * (a.width - 1) + 3]);
    }
    ENSURE_MSG(worst_clear < 32, "a clear pixel reads back with alpha %d", worst_clear);
    ENSURE_MSG(worst_solid > 224, "a solid pixel reads back with alpha %d", worst_solid);
    /* VP9 at the default crf smears the colour of a sharp edge by a few levels on
     * average; an error of one whole channel (a swapped or lost plane) is far above */
    ENSURE_MSG(colour_n > 0 && colour_sum < 6 * colour_n, "solid pixels' colours are off by %.2f on average",
               colour_n ? (double)colour_sum / colour_n : 0.0);
    ENSURE_MSG(worst_colour < 64, "a solid pixel's colour is off by %d", worst_colour);
    anim_free(&a);
    anim_free(&b);
    anim_meta_free(&m);
    bytebuf_free(&buf);
}

static void test_same_bytes_twice_and_appended(void)
{
    anim a;
    bytebuf one, two;
    poyo_error err;
    ENSURE(disc_webm(&a, &one, 32, 32, 6, 10.0));
    /* a buffer that already holds bytes keeps them; the file follows */
    memset(&two, 0, sizeof two);
    ENSURE(bytebuf_append(&two, "head", 4, &err) == POYO_OK);
    ENSURE(webm_encode(&a, NULL, &two, &err) == POYO_OK);
    ENSURE(two.len == one.len + 4 && memcmp(two.data, "head", 4) == 0);
    ENSURE_MSG(memcmp(two.data + 4, one.data, one.len) == 0, "two encodes of one animation differ");
    anim_free(&a);
    bytebuf_free(&one);
    bytebuf_free(&two);
}

static void test_crf_trades_size(void)
{
    anim a;
    bytebuf fine, coarse;
    poyo_error err;
    ENSURE(make_disc(&a, 96, 96, 8, 20.0));
    webm_options o = webm_default_def();
    memset(&fine, 0, sizeof fine);
    memset(&coarse, 0, sizeof coarse);
    o.crf = 10;
    ENSURE(webm_encode(&a, &o, &fine, &err) == POYO_OK);
    o.crf = 60;
    ENSURE(webm_encode(&a, &o, &coarse, &err) == POYO_OK);
    ENSURE_MSG(coarse.len < fine.len, "crf 60 gives %zu bytes, crf 10 %zu", coarse.len, fine.len);
    o.crf = 64;
    ENSURE(webm_encode(&a, &o, &coarse, &err) == POYO_ERR_USAGE);
    o = webm_default_def();
    o.speed = 9;
    ENSURE(webm_encode(&a, &o, &coarse, &err) == POYO_ERR_USAGE);
    anim_free(&a);
    bytebuf_free(&fine);
    bytebuf_free(&coarse);
}

static void test_broken_files_refused(void)
{
    anim a, b;
    anim_meta m;
    bytebuf buf;
    poyo_error err;
    ENSURE(disc_webm(&a, &buf, 40, 40, 5, 10.0));
    /* every cut of the file is refused: the segment declares where it ends */
    for (size_t cut = 0; cut < buf.len; cut += buf.len / 40 + 1) {
        poyo_status st = anim_read(buf.data, cut, &b, &m, &err);
        ENSURE_MSG(st == POYO_ERR_INPUT, "cut at %zu of %zu: status %d", cut, buf.len, st);
        ENSURE(b.rgba == NULL && m.delay_ms == NULL && err.msg[0]);
    }
    ENSURE(anim_read(buf.data, buf.len - 1, &b, &m, &err) == POYO_ERR_INPUT);
    ENSURE(strstr(err.msg, "truncated") != NULL);
    /* the header alone, then noise after it */
    uint8_t junk[256];
    memcpy(junk, buf.data, 4);
    for (size_t i = 4; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 37u + 11u);
    ENSURE(anim_read(junk, 4, &b, &m, &err) == POYO_ERR_INPUT);
    ENSURE(anim_read(junk, sizeof junk, &b, &m, &err) == POYO_ERR_INPUT);
    /* limits: pixels and total frame bytes, checked before the frames are held */
    ENSURE(webm_read(buf.data, buf.len, 40 * 40 - 1, (size_t)1 << 30, &b, NULL, &err) == POYO_ERR_INPUT);
    ENSURE(strstr(err.msg, "pixels") != NULL);
    ENSURE(webm_read(buf.data, buf.len, 40 * 40, 40 * 40 * 4 * 3, &b, NULL, &err) == POYO_ERR_INPUT);
    ENSURE(b.rgba == NULL);
    ENSURE(webm_read(buf.data, buf.len, 40 * 40, 40 * 40 * 4 * 5, &b, NULL, &err) == POYO_OK && b.count == 5);
    anim_free(&b);
    anim_free(&a);
    bytebuf_free(&buf);
}

/* Rewrites the size in the nth VP9 key frame header of buf (profile 0: after
 * the sync code, 4 bits of colour config, then width - 1 and height - 1 in 16
 * bits each); returns 0 when there is no such header. */
static int patch_key_frame_size(bytebuf *buf, int nth, int w, int h)
{
    for (size_t i = 1; i + 9 < buf->len; i++) {
        if (buf->data[i] != 0x49 || buf->data[i + 1] != 0x83 || buf->data[i + 2] != 0x42 || (buf->data[i - 1] & 0xc0) != 0x80)
            continue;
        if (nth-- > 0)
            continue;
        uint8_t *q = buf->data + i + 3;
        uint64_t v = 0;
        for (int k = 0; k < 5; k++)
            v = v << 8 | q[k];
        /* 40 bits: 4 colour, 16 width - 1, 16 height - 1, 4 more kept */
        v = (v & ((uint64_t)0xf << 36)) | (uint64_t)(w - 1) << 20 | (uint64_t)(h - 1) << 4 | (v & 0xf);
        for (int k = 4; k >= 0; k--, v >>= 8)
            q[k] = (uint8_t)v;
        return 1;
    }
    return 0;
}

static void test_frame_size_checked_before_decoding(void)
{
    /* libvpx would allocate for a 16384x16384 frame; the header is read first,
     * in the colour stream and in the alpha stream (BlockAdditional) alike */
    anim a, b;
    bytebuf buf;
    poyo_error err;
    ENSURE(make_disc(&a, 40, 40, 3, 10.0));
    for (int nth = 0; nth < 2; nth++) {
        ENSURE(encode(&a, &buf));
        ENSURE(patch_key_frame_size(&buf, nth, 40, 40)); /* the same size: still read whole */
        ENSURE(anim_read(buf.data, buf.len, &b, NULL, &err) == POYO_OK && b.count == 3);
        anim_free(&b);
        ENSURE(patch_key_frame_size(&buf, nth, 16384, 16384));
        ENSURE(anim_read(buf.data, buf.len, &b, NULL, &err) == POYO_ERR_INPUT);
        ENSURE_MSG(strstr(err.msg, "not 40x40 as its track declares") != NULL, "key frame %d: %s", nth, err.msg);
        ENSURE(b.rgba == NULL);
        bytebuf_free(&buf);
    }
    anim_free(&a);
}

const struct test_case test_cases[] = {
    { "round_trip", test_round_trip },
    { "same_bytes_twice_and_appended", test_same_bytes_twice_and_appended },
    { "crf_trades_size", test_crf_trades_size },
    { "broken_files_refused", test_broken_files_refused },
    { "frame_size_checked_before_decoding", test_frame_size_checked_before_decoding },
    { NULL, NULL },
};
