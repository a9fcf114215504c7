/* test_apng.c - APNG and animated WebP writers: encode animations built here,
 * read them back with anim_read and stb_image, and compare frames, delays, loops. */
#include "test.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <stb_image.h>

#include "image/animread.h"
#include "image/apng.h"
#include "image/webp.h"

/* Moving opaque square and a semi-transparent disc over a translucent gradient;
 * frame 3 repeats frame 2 and holds vary. */
static int make_scene(anim *a, int w, int h, int n, double fps)
{
    poyo_error err;
    if (anim_init(a, w, h, n, fps, &err) != POYO_OK)
        return 0;
    for (int i = 0; i < n; i++) {
        int f = i == 3 ? 2 : i;
        uint8_t *px = anim_frame(a, i);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                uint8_t *p = px + ((size_t)y * (size_t)w + (size_t)x) * 4u;
                p[0] = (uint8_t)(x * 255 / w);
                p[1] = (uint8_t)(y * 255 / h);
                p[2] = 90;
                p[3] = (uint8_t)(y * 200 / h);   /* row 0 fully transparent */
                if (x >= 2 + 3 * f && x < 8 + 3 * f && y >= 4 && y < 10) {
                    p[0] = 250; p[1] = 20; p[2] = 20; p[3] = 255;
                }
                double dx = x - (w - 8 - 2 * f), dy = y - h / 2.0;
                if (dx * dx + dy * dy < 25.0) {
                    p[0] = 10; p[1] = 40; p[2] = 240; p[3] = (uint8_t)(120 + 10 * f);
                }
            }
        }
        a->hold[i] = 1 + i % 3;
    }
    return 1;
}

/* Same visible picture: alpha equal everywhere, colour equal where alpha > 0. */
static int same_visible(const uint8_t *a, const uint8_t *b, size_t pixels)
{
    for (size_t i = 0; i < pixels; i++) {
        const uint8_t *p = a + i * 4, *q = b + i * 4;
        if (p[3] != q[3] || (p[3] && memcmp(p, q, 3) != 0))
            return 0;
    }
    return 1;
}

static long sum_ints(const int *v, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

static void test_apng_roundtrip_exact(void)
{
    anim a, r;
    anim_meta m;
    bytebuf out = { 0 };
    poyo_error err;
    ENSURE(make_scene(&a, 40, 30, 8, 25.0));
    a.loop = 0;
    ENSURE_MSG(apng_encode(&a, NULL, &out, &err) == POYO_OK, "%s", err.msg);
    ENSURE_MSG(anim_read(out.data, out.len, &r, &m, &err) == POYO_OK, "%s", err.msg);
    ENSURE(strcmp(m.format, "apng") == 0);
    ENSURE(m.width == 40 && m.height == 30);
    ENSURE(m.frames == a.count && r.count == a.count);
    ENSURE(m.loop == 0 && r.loop == 0);
    ENSURE(m.semi_transparent == 1);
    ENSURE(m.file_bytes == out.len);
    for (int i = 0; i < a.count; i++) {
        ENSURE_MSG(m.delay_ms[i] == a.hold[i] * 40, "frame %d: %d ms for %d ticks at 25 fps", i, m.delay_ms[i],
                   a.hold[i]);
        ENSURE_MSG(memcmp(anim_frame(&a, i), anim_frame(&r, i), anim_frame_bytes(&a)) == 0, "frame %d differs", i);
    }
    ENSURE_NEAR(sum_ints(m.delay_ms, m.frames), anim_duration(&a) * 1000.0, 0.5);
    anim_free(&a);
    anim_free(&r);
    anim_meta_free(&m);
    bytebuf_free(&out);
}

/* The bytes do not depend on how many threads compress the frames: a clip,
 * a single row (one filter tried) and a single frame, on 1 to 8 threads. */
static void test_apng_threads_agree(void)
{
    static const struct { int w, h, n; } clip[] = { { 40, 30, 9 }, { 57, 1, 6 }, { 20, 20, 1 } };
    for (int c = 0; c < 3; c++) {
        anim a, r;
        bytebuf one = { 0 };
        poyo_error err;
        ENSURE(make_scene(&a, clip[c].w, clip[c].h, clip[c].n, 10.0));
        apng_options o = apng_default_def();
        ENSURE_MSG(apng_encode(&a, &o, &one, &err) == POYO_OK, "%s", err.msg);
        ENSURE_MSG(anim_read(one.data, one.len, &r, NULL, &err) == POYO_OK, "%s", err.msg);
        for (int i = 0; i < a.count; i++)
            ENSURE_MSG(memcmp(anim_frame(&a, i), anim_frame(&r, i), anim_frame_bytes(&a)) == 0, "clip %d frame %d", c,
                       i);
        for (int t = 2; t <= 8; t += 3) {
            bytebuf many = { 0 };
            o.threads = t;
            ENSURE_MSG(apng_encode(&a, &o, &many, &err) == POYO_OK, "%s", err.msg);
            ENSURE_MSG(many.len == one.len && memcmp(many.data, one.data, one.len) == 0, "clip %d, %d threads", c, t);
            bytebuf_free(&many);
        }
        anim_free(&a);
        anim_free(&r);
        bytebuf_free(&one);
    }
}

static void test_apng_first_frame_is_still(void)
{
    anim a;
    bytebuf out = { 0 };
    poyo_error err;
    ENSURE(make_scene(&a, 33, 21, 5, 12.0));
    ENSURE(apng_encode(&a, NULL, &out, &err) == POYO_OK);
    int w = 0, h = 0, c = 0;
    uint8_t *still = stbi_load_from_memory(out.data, (int)out.len, &w, &h, &c, 4);
    ENSURE_MSG(still != NULL, "stb_image cannot read the APNG: %s", stbi_failure_reason());
    int same = w == 33 && h == 21 && memcmp(still, anim_frame(&a, 0), anim_frame_bytes(&a)) == 0;
    stbi_image_free(still);
    ENSURE(same);
    anim_free(&a);
    bytebuf_free(&out);
}

static void test_apng_ms_delays_and_loop(void)
{
    anim a, r;
    anim_meta m;
    bytebuf out = { 0 };
    poyo_error err;
    ENSURE(make_scene(&a, 16, 16, 7, 29.97));
    a.loop = 3;
    ENSURE(apng_encode(&a, NULL, &out, &err) == POYO_OK);
    ENSURE_MSG(anim_read(out.data, out.len, &r, &m, &err) == POYO_OK, "%s", err.msg);
    int want[7];
    anim_delays(&a, 1000, 1, want);
    ENSURE(m.loop == 3 && r.loop == 3);
    for (int i = 0; i < 7; i++)
        ENSURE_MSG(m.delay_ms[i] == want[i] && r.hold[i] == want[i], "frame %d: %d ms, want %d", i, m.delay_ms[i],
                   want[i]);
    ENSURE_NEAR(sum_ints(m.delay_ms, 7), anim_duration(&a) * 1000.0, 0.5);
    anim_free(&a);
    anim_free(&r);
    anim_meta_free(&m);
    bytebuf_free(&out);
}

/* A small dot moving over a large still picture costs little per frame. */
static void test_apng_stores_changed_rect(void)
{
    anim a, one, r;
    bytebuf big = { 0 }, small = { 0 };
    poyo_error err;
    int n = 12;
    ENSURE(anim_init(&a, 160, 120, n, 10.0, &err) == POYO_OK);
    for (int i = 0; i < n; i++) {
        uint8_t *px = anim_frame(&a, i);
        for (int k = 0; k < 160 * 120; k++) {
            uint32_t v = (uint32_t)k * 2654435761u;   /* incompressible noise */
            px[4 * k] = (uint8_t)(v >> 24);
            px[4 * k + 1] = (uint8_t)(v >> 16);
            px[4 * k + 2] = (uint8_t)(v >> 8);
            px[4 * k + 3] = 255;
        }
        for (int y = 50; y < 54; y++)
            for (int x = 10 + 10 * i; x < 14 + 10 * i; x++)
                memset(px + ((size_t)y * 160 + (size_t)x) * 4, 0, 3);
    }
    ENSURE(anim_init(&one, 160, 120, 1, 10.0, &err) == POYO_OK);
    memcpy(one.rgba, a.rgba, anim_frame_bytes(&a));
    ENSURE(apng_encode(&a, NULL, &big, &err) == POYO_OK);
    ENSURE(apng_encode(&one, NULL, &small, &err) == POYO_OK);
    ENSURE_MSG(big.len < small.len + (size_t)n * 400u, "%zu bytes for %d frames, one frame %zu", big.len, n,
               small.len);
    ENSURE(anim_read(big.data, big.len, &r, NULL, &err) == POYO_OK);
    ENSURE(r.count == n && memcmp(r.rgba, a.rgba, anim_frame_bytes(&a) * (size_t)n) == 0);
    anim_free(&a);
    anim_free(&one);
    anim_free(&r);
    bytebuf_free(&big);
    bytebuf_free(&small);
}

static void test_apng_levels_agree(void)
{
    anim a, r0, r9;
    bytebuf b0 = { 0 }, b9 = { 0 };
    poyo_error err;
    ENSURE(make_scene(&a, 24, 24, 4, 20.0));
    apng_options o = apng_default_def();
    o.level = 0;
    ENSURE(apng_encode(&a, &o, &b0, &err) == POYO_OK);
    o.level = 12;
    ENSURE(apng_encode(&a, &o, &b9, &err) == POYO_OK);
    ENSURE(b9.len < b0.len);
    ENSURE(anim_read(b0.data, b0.len, &r0, NULL, &err) == POYO_OK);
    ENSURE(anim_read(b9.data, b9.len, &r9, NULL, &err) == POYO_OK);
    ENSURE(memcmp(r0.rgba, r9.rgba, anim_frame_bytes(&a) * 4u) == 0);
    anim_free(&a);
    anim_free(&r0);
    anim_free(&r9);
    bytebuf_free(&b0);
    bytebuf_free(&b9);
}

static void test_apng_rejects_bad_arguments(void)
{
    anim a;
    bytebuf out = { 0 };
    poyo_error err;
    ENSURE(make_scene(&a, 8, 8, 2, 10.0));
    apng_options o = apng_default_def();
    o.level = 13;
    ENSURE(apng_encode(&a, &o, &out, &err) == POYO_ERR_USAGE);
    o = apng_default_def();
    o.threads = 0;
    ENSURE(apng_encode(&a, &o, &out, &err) == POYO_ERR_USAGE);
    o.threads = 9;
    ENSURE(apng_encode(&a, &o, &out, &err) == POYO_ERR_USAGE);
    a.hold[1] = 0;
    ENSURE(apng_encode(&a, NULL, &out, &err) == POYO_ERR_USAGE);
    a.hold[1] = 1;
    a.fps = NAN;
    ENSURE(apng_encode(&a, NULL, &out, &err) == POYO_ERR_USAGE);
    a.fps = 10.0;
    a.loop = -1;
    ENSURE(apng_encode(&a, NULL, &out, &err) == POYO_ERR_USAGE);
    anim empty = { 0 };
    ENSURE(apng_encode(&empty, NULL, &out, &err) == POYO_ERR_USAGE);
    ENSURE(strlen(err.msg) > 0);
    anim_free(&a);
    bytebuf_free(&out);
}

/* The expected WebP frames: identical neighbours merged, their delays summed. */
static int merged_reference(const anim *a, anim *ref, int *ms)
{
    poyo_error err;
    int *orig = malloc((size_t)a->count * sizeof *orig);
    if (!orig || anim_init(ref, a->width, a->height, a->count, a->fps, &err) != POYO_OK) {
        free(orig);
        return 0;
    }
    anim_delays(a, 1000, 1, orig);
    size_t fb = anim_frame_bytes(a);
    int n = 0;
    for (int i = 0; i < a->count; i++) {
        if (n > 0 && memcmp(anim_frame(ref, n - 1), anim_frame(a, i), fb) == 0) {
            ms[n - 1] += orig[i];
            continue;
        }
        memcpy(anim_frame(ref, n), anim_frame(a, i), fb);
        ms[n++] = orig[i];
    }
    ref->count = n;
    free(orig);
    return 1;
}

static void test_webp_lossless_roundtrip(void)
{
    anim a, ref, r;
    anim_meta m;
    bytebuf out = { 0 };
    poyo_error err;
    int ms[8];
    ENSURE(make_scene(&a, 40, 30, 8, 25.0));
    a.loop = 0;
    ENSURE(merged_reference(&a, &ref, ms));
    ENSURE_MSG(webp_encode(&a, NULL, &out, &err) == POYO_OK, "%s", err.msg);
    ENSURE_MSG(anim_read(out.data, out.len, &r, &m, &err) == POYO_OK, "%s", err.msg);
    ENSURE(strcmp(m.format, "webp") == 0);
    ENSURE(m.width == 40 && m.height == 30);
    ENSURE_MSG(m.frames == ref.count, "%d frames, want %d", m.frames, ref.count);
    ENSURE(m.loop == 0 && m.semi_transparent);
    for (int i = 0; i < ref.count; i++) {
        ENSURE_MSG(m.delay_ms[i] == ms[i], "frame %d: %d ms, want %d", i, m.delay_ms[i], ms[i]);
        ENSURE_MSG(same_visible(anim_frame(&ref, i), anim_frame(&r, i), 40u * 30u), "frame %d differs", i);
    }
    ENSURE_NEAR(sum_ints(m.delay_ms, m.frames), anim_duration(&a) * 1000.0, 0.5);
    anim_free(&a);
    anim_free(&ref);
    anim_free(&r);
    anim_meta_free(&m);
    bytebuf_free(&out);
}

/* Alpha of pattern k at x, y (w x h): what a lossy WebP's alpha coder meets -
 * constant planes longer than its longest copy, soft diagonal ramps, stripes two
 * and three pixels apart, a hard-edged disc, noise. */
static uint8_t alpha_pattern(int k, int x, int y, int w, int h)
{
    unsigned r = (unsigned)(x * 7919 + y * 104729 + k * 31) * 2654435761u;
    double dx = x - w / 2.0, dy = y - h / 2.0;
    switch (k) {
    case 0: return 200;
    case 1: return (uint8_t)((x + y) * 255 / (w + h));
    case 2: return x % 2 ? 0 : 255;
    case 3: return (uint8_t)(y % 3 * 100);
    case 4: return dx * dx + dy * dy < w * h / 8.0 ? 255 : 0;
    case 5: {
        double d = 20.0 - (dx * dx + dy * dy) / 40.0;
        return (uint8_t)(d < 0 ? 0 : d > 8 ? 255 : d * 31.9);
    }
    default: return (uint8_t)(r >> 24);
    }
}

/* Lossy WebP keeps the alpha exact, on every kind of plane and size (one
 * pixel, one row, one column, wider than a copy can reach), the second frame
 * a shifted copy so that it is a changed rectangle. */
static void test_webp_lossy_alpha_exact(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 37, 1 }, { 1, 23 }, { 70, 90 }, { 130, 64 } };
    for (int si = 0; si < 5; si++)
        for (int k = 0; k < 7; k++) {
            int w = sizes[si][0], h = sizes[si][1];
            anim a, r;
            anim_meta m;
            bytebuf out = { 0 };
            poyo_error err;
            ENSURE(anim_init(&a, w, h, 2, 10.0, &err) == POYO_OK);
            for (int f = 0; f < 2; f++)
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        uint8_t *p = anim_frame(&a, f) + ((size_t)y * w + x) * 4;
                        p[0] = (uint8_t)(x * 3);
                        p[1] = (uint8_t)(y * 5);
                        p[2] = 90;
                        p[3] = alpha_pattern(k, x + 2 * f, y + f, w, h);
                    }
            webp_options o = webp_default_def();
            o.lossy = 1;
            o.quality = 50;
            ENSURE_MSG(webp_encode(&a, &o, &out, &err) == POYO_OK, "%dx%d pattern %d: %s", w, h, k, err.msg);
            ENSURE_MSG(anim_read(out.data, out.len, &r, &m, &err) == POYO_OK, "%dx%d pattern %d: %s", w, h, k,
                       err.msg);
            int bad = -1;
            for (int f = 0; f < r.count && bad < 0; f++)
                for (size_t i = 0; i < (size_t)w * h; i++)
                    if (anim_frame(&r, f)[4 * i + 3] != anim_frame(&a, r.count == 2 ? f : 1)[4 * i + 3]) {
                        bad = (int)i;
                        break;
                    }
            ENSURE_MSG(bad < 0 && r.count >= 1, "%dx%d pattern %d: alpha differs at pixel %d", w, h, k, bad);
            anim_free(&a);
            anim_free(&r);
            anim_meta_free(&m);
            bytebuf_free(&out);
        }
}

/* An opaque bar growing 3 px a frame (changed rectangles at odd offsets) over
 * a still, partly transparent background: every changed pixel is opaque, so
 * later frames are drawn OVER the last; on the threads given, the frames read
 * back exact (lossy: their alpha). */
/* How many of a WebP file's ANMF frames are blended over the canvas. */
static int blended_frames(const bytebuf *b)
{
    int n = 0;
    for (size_t pos = 12; pos + 8 <= b->len;) {
        uint32_t len = b->data[pos + 4] | b->data[pos + 5] << 8 | b->data[pos + 6] << 16 | (uint32_t)b->data[pos + 7] << 24;
        if (memcmp(b->data + pos, "ANMF", 4) == 0 && len >= 16)
            n += !(b->data[pos + 8 + 15] & 2);   /* bit 1 set: do not blend */
        pos += 8 + len + (len & 1);
    }
    return n;
}

static void webp_over_roundtrip(int threads, int lossy, bytebuf *out)
{
    anim a, r;
    anim_meta m;
    poyo_error err;
    ENSURE(make_scene(&a, 37, 23, 6, 10.0));
    for (int i = 0; i < a.count; i++) {
        memcpy(anim_frame(&a, i), anim_frame(&a, 0), anim_frame_bytes(&a));
        for (int y = 5; y < 12; y++)
            for (int x = 3; x < 9 + 3 * i; x++)
                memcpy(anim_frame(&a, i) + ((size_t)y * 37 + (size_t)x) * 4, (const uint8_t[]){ 30, 200, 40, 255 }, 4);
    }
    webp_options o = webp_default_def();
    o.threads = threads;
    o.lossy = lossy;
    ENSURE_MSG(webp_encode(&a, &o, out, &err) == POYO_OK, "%s", err.msg);
    ENSURE_MSG(blended_frames(out) == a.count - 1, "%d of %d later frames blended", blended_frames(out), a.count - 1);
    ENSURE_MSG(anim_read(out->data, out->len, &r, &m, &err) == POYO_OK, "%s", err.msg);
    ENSURE(m.frames == a.count);
    for (int i = 0; i < a.count; i++) {
        if (!lossy)
            ENSURE_MSG(same_visible(anim_frame(&a, i), anim_frame(&r, i), 37u * 23u), "frame %d differs", i);
        for (size_t k = 0; k < 37u * 23u; k++)   /* lossy too: the alpha exact */
            ENSURE_MSG(anim_frame(&a, i)[4 * k + 3] == anim_frame(&r, i)[4 * k + 3], "frame %d alpha differs", i);
    }
    anim_free(&a);
    anim_free(&r);
    anim_meta_free(&m);
}

/* Later frames are blended OVER, lossless and lossy alike (the alpha exact),
 * and the bytes do not depend on how many threads encode the frames. */
static void test_webp_over_and_threads(void)
{
    bytebuf one = { 0 }, three = { 0 }, lossy = { 0 };
    webp_over_roundtrip(1, 0, &one);
    webp_over_roundtrip(3, 0, &three);
    ENSURE(one.len > 0 && one.len == three.len && memcmp(one.data, three.data, one.len) == 0);
    webp_over_roundtrip(2, 1, &lossy);
    bytebuf_free(&one);
    bytebuf_free(&three);
    bytebuf_free(&lossy);
}

/* PSNR in dB of the pictures composited over mid-gray, alpha included as a fourth channel. */
static double psnr_over_gray(const uint8_t *a, const uint8_t *b, size_t pixels)
{
    double se = 0.0;
    for (size_t i = 0; i < pixels; i++) {
        const uint8_t *p = a + 4 * i, *q = b + 4 * i;
        for (int k = 0; k < 3; k++) {
            double u = (p[k] * p[3] + 128.0 * (255 - p[3])) / 255.0;
            double v = (q[k] * q[3] + 128.0 * (255 - q[3])) / 255.0;
            se += (u - v) * (u - v);
        }
        se += (double)(p[3] - q[3]) * (p[3] - q[3]);
    }
    double mse = se / (4.0 * (double)pixels);
    return mse > 0.0 ? 10.0 * log10(255.0 * 255.0 / mse) : 99.0;
}

static void test_webp_lossy_psnr(void)
{
    anim a, ref, r;
    anim_meta m;
    bytebuf lossy = { 0 }, lossless = { 0 };
    poyo_error err;
    int ms[6];
    ENSURE(make_scene(&a, 48, 48, 6, 15.0));
    a.loop = 2;
    ENSURE(merged_reference(&a, &ref, ms));
    webp_options o = webp_default_def();
    o.lossy = 1;
    o.quality = 90;
    ENSURE_MSG(webp_encode(&a, &o, &lossy, &err) == POYO_OK, "%s", err.msg);
    ENSURE(webp_encode(&a, NULL, &lossless, &err) == POYO_OK);
    ENSURE_MSG(anim_read(lossy.data, lossy.len, &r, &m, &err) == POYO_OK, "%s", err.msg);
    ENSURE(m.loop == 2 && r.loop == 2);
    ENSURE(r.count == ref.count);
    for (int i = 0; i < r.count; i++) {
        double db = psnr_over_gray(anim_frame(&ref, i), anim_frame(&r, i), 48u * 48u);
        ENSURE_MSG(db > 30.0, "frame %d: PSNR %.2f dB", i, db);
        /* alpha quality 100: the alpha plane is exact */
        for (size_t k = 0; k < 48u * 48u; k++)
            ENSURE_MSG(anim_frame(&ref, i)[4 * k + 3] == anim_frame(&r, i)[4 * k + 3], "frame %d pixel %zu", i, k);
    }
    ENSURE_NEAR(sum_ints(m.delay_ms, m.frames), anim_duration(&a) * 1000.0, 0.5);
    anim_free(&a);
    anim_free(&ref);
    anim_free(&r);
    anim_meta_free(&m);
    bytebuf_free(&lossy);
    bytebuf_free(&lossless);
}

static void test_webp_single_frame_and_fractional_fps(void)
{
    anim a, r;
    anim_meta m;
    bytebuf out = { 0 };
    poyo_error err;
    ENSURE(make_scene(&a, 20, 20, 1, 7.0));
    ENSURE(webp_encode(&a, NULL, &out, &err) == POYO_OK);
    ENSURE(anim_read(out.data, out.len, &r, &m, &err) == POYO_OK);
    ENSURE(m.frames == 1 && same_visible(a.rgba, r.rgba, 400));
    anim_free(&r);
    anim_meta_free(&m);
    anim_free(&a);
    bytebuf_free(&out);

    ENSURE(make_scene(&a, 20, 20, 5, 23.976));
    a.hold[3] = 5;
    ENSURE(webp_encode(&a, NULL, &out, &err) == POYO_OK);
    ENSURE(anim_read(out.data, out.len, &r, &m, &err) == POYO_OK);
    ENSURE_NEAR(sum_ints(m.delay_ms, m.frames), anim_duration(&a) * 1000.0, 0.5);
    anim_free(&r);
    anim_meta_free(&m);
    anim_free(&a);
    bytebuf_free(&out);
}

static void test_webp_rejects_bad_arguments(void)
{
    anim a;
    bytebuf out = { 0 };
    poyo_error err;
    ENSURE(anim_init(&a, 16384, 1, 1, 10.0, &err) == POYO_OK);
    ENSURE(webp_encode(&a, NULL, &out, &err) == POYO_ERR_USAGE);
    anim_free(&a);
    ENSURE(make_scene(&a, 8, 8, 2, 10.0));
    webp_options o = webp_default_def();
    o.quality = 101;
    ENSURE(webp_encode(&a, &o, &out, &err) == POYO_ERR_USAGE);
    o = webp_default_def();
    o.method = -1;
    ENSURE(webp_encode(&a, &o, &out, &err) == POYO_ERR_USAGE);
    o = webp_default_def();
    o.lossless_method = 7;
    ENSURE(webp_encode(&a, &o, &out, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "WebP lossless method 7 is outside 0-6") == 0, "%s", err.msg);
    o = webp_default_def();
    o.lossy = 1;
    o.alpha_quality = 101;
    ENSURE(webp_encode(&a, &o, &out, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "WebP alpha quality 101 is outside 0-100") == 0, "%s", err.msg);
    a.loop = 65536;
    ENSURE(webp_encode(&a, NULL, &out, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "WebP loop count 65536 is outside 0-65535") == 0, "%s", err.msg);
    a.loop = 0;
    a.fps = INFINITY;
    ENSURE(webp_encode(&a, NULL, &out, &err) == POYO_ERR_USAGE);
    ENSURE(out.len == 0);
    anim_free(&a);
    /* frame times are milliseconds in a 31-bit count: 140 different frames of
     * 16000 s each (a WebP frame holds at most 2^24 ms) pass it, and nothing is
     * written; two of them fit and read back with their delays */
    ENSURE(anim_init(&a, 8, 8, 140, 1.0, &err) == POYO_OK);
    for (int i = 0; i < a.count; i++) {
        uint8_t *p = anim_frame(&a, i);
        p[0] = (uint8_t)i;
        p[1] = (uint8_t)(i >> 8);
        p[3] = 255;
        a.hold[i] = 16000;
    }
    poyo_status st = webp_encode(&a, NULL, &out, &err);
    ENSURE_MSG(st == POYO_ERR_USAGE, "%d %s", (int)st, st ? err.msg : "");
    ENSURE_MSG(strcmp(err.msg, "animation is too long for WebP timestamps") == 0, "%s", err.msg);
    ENSURE(out.len == 0);
    a.count = 2;
    ENSURE_MSG(webp_encode(&a, NULL, &out, &err) == POYO_OK, "%s", err.msg);
    anim r;
    anim_meta m;
    ENSURE_MSG(anim_read(out.data, out.len, &r, &m, &err) == POYO_OK, "%s", err.msg);
    ENSURE_MSG(m.frames == 2 && m.delay_ms[0] == 16000000 && m.delay_ms[1] == 16000000, "%d frames, %d ms",
               m.frames, m.delay_ms[0]);
    anim_free(&r);
    anim_meta_free(&m);
    /* a frame held longer than a WebP frame can say (2^24 ms) is refused, first or
     * last, nothing written */
    bytebuf_free(&out);
    a.hold[0] = 20000;
    ENSURE(webp_encode(&a, NULL, &out, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "WebP frame 1 is held 20000000 ms, more than the format's 16777215 ms") == 0, "%s",
               err.msg);
    ENSURE(out.len == 0);
    a.hold[0] = 1;
    a.hold[1] = 20000;
    ENSURE(webp_encode(&a, NULL, &out, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strncmp(err.msg, "WebP frame 2 is held", 20) == 0, "%s", err.msg);
    ENSURE(out.len == 0);
    a.count = 140;
    anim_free(&a);
    bytebuf_free(&out);
}

/* AddressSanitizer reserves terabytes of address space, so a limit on it cannot be tested there. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#endif

#ifndef UNDER_ASAN
/* The process's address space now, in bytes (0 when /proc cannot say). */
static long address_space(void)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return pages * sysconf(_SC_PAGESIZE);
}
#endif

/* Under an address space that grows a MiB at a time past what the process holds, a
 * 1024x1024 clip fails with POYO_ERR_NOMEM and a sentence, writing nothing (a frame
 * cannot be imported or encoded, the file cannot be assembled), until it is written
 * whole and reads back. */
static void test_webp_out_of_memory(void)
{
#ifndef UNDER_ASAN
    anim a, r;
    anim_meta m;
    bytebuf out = { 0 };
    poyo_error err;
    ENSURE(make_scene(&a, 1024, 1024, 2, 10.0));
    struct rlimit old;
    ENSURE(getrlimit(RLIMIT_AS, &old) == 0);
    malloc_trim(0);   /* the heap's free top, left by earlier tests, would hide the first failures */
    long base = address_space();
    ENSURE(base > 0);
    int failed = 0, written = 0;
    for (long extra = 0; extra <= 64 && !written; extra++) {
        struct rlimit lim = old;
        lim.rlim_cur = (rlim_t)(base + extra * 1024 * 1024);
        if (old.rlim_cur != RLIM_INFINITY && lim.rlim_cur > old.rlim_cur)
            lim.rlim_cur = old.rlim_cur;
        ENSURE(setrlimit(RLIMIT_AS, &lim) == 0);
        poyo_status st = webp_encode(&a, NULL, &out, &err);
        setrlimit(RLIMIT_AS, &old);
        if (st == POYO_OK) {
            written = 1;
            break;
        }
        ENSURE_MSG(st == POYO_ERR_NOMEM, "%ld MiB: status %d: %s", extra, (int)st, err.msg);
        ENSURE_MSG(out.len == 0 && err.msg[0] != '\0', "%ld MiB: %zu bytes", extra, out.len);
        failed++;
    }
    ENSURE_MSG(failed > 0 && written, "%d failures, written %d", failed, written);
    ENSURE_MSG(anim_read(out.data, out.len, &r, &m, &err) == POYO_OK, "%s", err.msg);
    ENSURE(m.frames == 2 && same_visible(anim_frame(&a, 0), anim_frame(&r, 0), 1024u * 1024u));
    anim_free(&r);
    anim_meta_free(&m);
    anim_free(&a);
    bytebuf_free(&out);
#endif
}

const struct test_case test_cases[] = {
    { "apng_roundtrip_exact", test_apng_roundtrip_exact },
    { "apng_threads_agree", test_apng_threads_agree },
    { "apng_first_frame_is_still", test_apng_first_frame_is_still },
    { "apng_ms_delays_and_loop", test_apng_ms_delays_and_loop },
    { "apng_stores_changed_rect", test_apng_stores_changed_rect },
    { "apng_levels_agree", test_apng_levels_agree },
    { "apng_rejects_bad_arguments", test_apng_rejects_bad_arguments },
    { "webp_lossless_roundtrip", test_webp_lossless_roundtrip },
    { "webp_lossy_psnr", test_webp_lossy_psnr },
    { "webp_lossy_alpha_exact", test_webp_lossy_alpha_exact },
    { "webp_single_frame_and_fractional_fps", test_webp_single_frame_and_fractional_fps },
    { "webp_rejects_bad_arguments", test_webp_rejects_bad_arguments },
    { "webp_out_of_memory", test_webp_out_of_memory },
    /* after the memory test: its threads' arenas stay mapped and would hide its failures */
    { "webp_over_and_threads", test_webp_over_and_threads },
    { NULL, NULL },
};
