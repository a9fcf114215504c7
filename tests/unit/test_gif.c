/* test_gif.c - the GIF writer read back through the reader: frames, delays
 * summing to the duration, the loop block, one transparent index no visible
 * pixel uses, changed rectangles that never ghost, LZW over noise read back
 * exactly, lossy LZW within its loss; and the delay rounding. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "image/animread.h"
#include "image/gif.h"

/* Frames of a ball moving over a dark bar, with soft edges and near-black pixels. */
static anim make_clip(int w, int h, int n, double fps)
{
    anim a;
    anim_init(&a, w, h, n, fps, NULL);
    for (int f = 0; f < n; f++) {
        uint8_t *p = anim_frame(&a, f);
        double cx = w * (0.2 + 0.6 * f / (n > 1 ? n - 1 : 1)), cy = h * 0.5, r = w * 0.18;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint8_t *q = p + 4 * ((size_t)y * w + x);
                double d = r - sqrt((x + 0.5 - cx) * (x + 0.5 - cx) + (y + 0.5 - cy) * (y + 0.5 - cy));
                if (y > h * 0.8) { /* a bar of near-black that must stay visible */
                    q[0] = q[1] = q[2] = 1;
                    q[3] = 255;
                } else if (d > 0) {
                    double a8 = d > 1 ? 255 : d * 255;
                    q[0] = (uint8_t)(200 + 50.0 * x / w);
                    q[1] = (uint8_t)(60 + 100.0 * y / h);
                    q[2] = 30;
                    q[3] = (uint8_t)a8;
                }
            }
    }
    return a;
}

static int read_back(const bytebuf *b, anim *out, anim_meta *meta)
{
    return anim_read(b->data, b->len, out, meta, NULL) == POYO_OK;
}

static void frames_delays_loop_read_back(void)
{
    const double fps[] = { 25, 20, 50, 30, 12.5 };
    const int loops[] = { 0, 1, 3, 0, 65535 };
    for (int t = 0; t < 5; t++) {
        anim a = make_clip(40, 30, 17, fps[t]);
        a.loop = loops[t];
        bytebuf b = { NULL, 0, 0 };
        gif_stats st;
        quantize_def q = quantize_default_def();
        ENSURE(gif_encode(&a, &q, &b, &st, NULL) == POYO_OK);
        anim r;
        anim_meta m;
        ENSURE(read_back(&b, &r, &m));
        ENSURE(strcmp(m.format, "gif") == 0);
        ENSURE(m.frames == 17 && m.width == 40 && m.height == 30);
        ENSURE(r.loop == loops[t]); /* plays: 0 forever, 1 without the loop block */
        ENSURE(loops[t] != 1 || m.loop == -1);
        long total = 0;
        for (int i = 0; i < m.frames; i++) {
            ENSURE(m.delay_ms[i] >= 20);
            total += m.delay_ms[i];
        }
        long want = lround(17 / fps[t] * 100) * 10;
        ENSURE_MSG(total == want, "fps %g: delays add to %ld ms, the clip lasts %ld ms", fps[t], total, want);
        anim_free(&r);
        anim_meta_free(&m);
        bytebuf_free(&b);
        anim_free(&a);
    }
}

static void transparency_is_one_bit_and_exclusive(void)
{
    anim a = make_clip(48, 48, 9, 25);
    bytebuf b = { NULL, 0, 0 };
    quantize_def q = quantize_default_def();
    ENSURE(gif_encode(&a, &q, &b, NULL, NULL) == POYO_OK);
    anim r;
    anim_meta m;
    ENSURE(read_back(&b, &r, &m));
    ENSURE(m.semi_transparent == 0);
    for (int f = 0; f < a.count; f++) {
        const uint8_t *src = anim_frame(&a, f), *got = anim_frame(&r, f);
        for (int i = 0; i < 48 * 48; i++) {
            int visible = src[4 * i + 3] >= 128;
            ENSURE_MSG((got[4 * i + 3] == 255) == visible, "frame %d pixel %d: alpha %d became %d", f, i,
                       src[4 * i + 3], got[4 * i + 3]);
            if (visible) /* colours within quantisation error, near-black included */
                for (int c = 0; c < 3; c++)
                    ENSURE(abs(src[4 * i + c] - got[4 * i + c]) <= 24);
        }
    }
    anim_free(&r);
    anim_meta_free(&m);
    bytebuf_free(&b);
    anim_free(&a);
}

static void changed_rectangles_never_ghost(void)
{
    /* frames where opaque areas turn transparent, stay, come back, and repeat */
    anim a;
    ENSURE(anim_init(&a, 32, 32, 12, 25, NULL) == POYO_OK);
    for (int f = 0; f < 12; f++) {
        uint8_t *p = anim_frame(&a, f);
        int x0 = (f * 5) % 24, y0 = (f * 3) % 20;
        for (int y = y0; y < y0 + 8; y++)
            for (int x = x0; x < x0 + 8; x++) {
                uint8_t *q = p + 4 * (y * 32 + x);
                q[0] = (uint8_t)(f * 20);
                q[1] = 100;
                q[2] = (uint8_t)(255 - f * 20);
                q[3] = 255;
            }
        if (f == 6)
            memcpy(p, anim_frame(&a, 5), 32 * 32 * 4); /* an identical neighbour */
    }
    bytebuf b = { NULL, 0, 0 };
    quantize_def q = quantize_default_def();
    ENSURE(gif_encode(&a, &q, &b, NULL, NULL) == POYO_OK);
    anim r;
    anim_meta m;
    ENSURE(read_back(&b, &r, &m));
    /* the identical neighbour is merged into one frame shown twice as long */
    ENSURE(m.frames == 11);
    ENSURE(m.delay_ms[5] == 80 && m.delay_ms[4] == 40 && m.delay_ms[6] == 40);
    for (int f = 0; f < 11; f++)
        ENSURE_MSG(memcmp(anim_frame(&r, f), anim_frame(&a, f < 6 ? f : f + 1), 32 * 32 * 4) == 0, "frame %d differs", f);
    /* the file stores less than whole frames */
    ENSURE(b.len < 12 * 32 * 32 / 2);
    anim_free(&r);
    anim_meta_free(&m);
    bytebuf_free(&b);
    anim_free(&a);
}

static void delays_carry_rounding(void)
{
    anim a;
    ENSURE(anim_init(&a, 1, 1, 30, 30, NULL) == POYO_OK);
    int d[30];
    anim_delays(&a, 100, 2, d);
    long sum = 0;
    for (int i = 0; i < 30; i++) {
        ENSURE(d[i] == 3 || d[i] == 4);
        sum += d[i];
        /* the running total never strays more than half a unit from the exact time */
        ENSURE(fabs(sum - (i + 1) * 100.0 / 30.0) <= 0.5 + 1e-9);
    }
    ENSURE(sum == 100);
    a.fps = 100; /* 1 cs frames are raised to the 2 cs minimum */
    anim_delays(&a, 100, 2, d);
    for (int i = 0; i < 30; i++)
        ENSURE(d[i] >= 2);
    anim_free(&a);
}

static void merge_identical_frames(void)
{
    anim a;
    ENSURE(anim_init(&a, 2, 2, 6, 25, NULL) == POYO_OK);
    anim_frame(&a, 2)[0] = 9; /* frames: A A B A A A */
    anim_merge_identical(&a);
    ENSURE(a.count == 3);
    ENSURE(a.hold[0] == 2 && a.hold[1] == 1 && a.hold[2] == 3);
    ENSURE(anim_frame(&a, 1)[0] == 9 && anim_frame(&a, 2)[0] == 0);
    ENSURE_NEAR(anim_duration(&a), 6 / 25.0, 1e-12);
    anim_free(&a);
}

/* Noise over a few exact colours, large enough that the LZW table fills and
 * starts afresh many times at every code width: every pixel reads back as
 * the colour it was. */
static void lzw_noise_reads_back_exactly(void)
{
    const int ncol[] = { 2, 3, 17, 200 };
    for (int t = 0; t < 4; t++) {
        anim a;
        ENSURE(anim_init(&a, 257, 190, 3, 25, NULL) == POYO_OK);
        uint32_t seed = 12345u + (uint32_t)t;
        for (int f = 0; f < a.count; f++) {
            uint8_t *p = anim_frame(&a, f);
            for (int i = 0; i < a.width * a.height; i++) {
                seed = seed * 1664525u + 1013904223u;
                /* runs of one colour now and then, so strings grow long too */
                int c = (i / 7) % 5 == 0 ? 1 : (int)((seed >> 16) % (uint32_t)ncol[t]);
                p[4 * i] = (uint8_t)(c * 37);
                p[4 * i + 1] = (uint8_t)(c * 101);
                p[4 * i + 2] = (uint8_t)(255 - c);
                p[4 * i + 3] = 255;
            }
        }
        bytebuf b = { NULL, 0, 0 };
        quantize_def q = quantize_default_def();
        q.quality_max = 100;
        ENSURE(gif_encode(&a, &q, &b, NULL, NULL) == POYO_OK);
        anim r;
        anim_meta m;
        ENSURE(read_back(&b, &r, &m));
        ENSURE(r.count == a.count);
        for (int f = 0; f < a.count && f < r.count; f++)
            ENSURE_MSG(memcmp(anim_frame(&r, f), anim_frame(&a, f), (size_t)a.width * a.height * 4) == 0,
                       "%d colours: frame %d differs", ncol[t], f);
        anim_meta_free(&m);
        anim_free(&r);
        anim_free(&a);
        bytebuf_free(&b);
    }
}

/* A lossy GIF read back: the same frames, the same clear pixels, and every
 * visible pixel within the loss of the exact GIF's, in fewer bytes. */
static void lossy_stays_within_the_loss(void)
{
    anim a = make_clip(64, 48, 9, 25);
    quantize_def q = quantize_default_def();
    bytebuf be = { NULL, 0, 0 }, bl = { NULL, 0, 0 };
    ENSURE(gif_encode(&a, &q, &be, NULL, NULL) == POYO_OK);
    q.lossy = 30;
    ENSURE(gif_encode(&a, &q, &bl, NULL, NULL) == POYO_OK);
    ENSURE(bl.len < be.len);
    anim re, rl;
    anim_meta m;
    ENSURE(read_back(&be, &re, &m));
    anim_meta_free(&m);
    ENSURE(read_back(&bl, &rl, &m));
    anim_meta_free(&m);
    ENSURE(re.count == rl.count);
    long worst = 0, limit = 30 * 30;
    for (int f = 0; f < re.count && f < rl.count; f++) {
        const uint8_t *e = anim_frame(&re, f), *l = anim_frame(&rl, f);
        for (int i = 0; i < a.width * a.height; i++) {
            ENSURE_MSG(e[4 * i + 3] == l[4 * i + 3], "frame %d pixel %d: alpha %d became %d", f, i, e[4 * i + 3],
                       l[4 * i + 3]);
            long d = 0;
            for (int c = 0; c < 3; c++)
                d += (long)(e[4 * i + c] - l[4 * i + c]) * (e[4 * i + c] - l[4 * i + c]);
            if (d > worst)
                worst = d;
        }
    }
    ENSURE_MSG(worst <= limit, "a pixel moved %g, more than the loss of 30", sqrt((double)worst));
    anim_free(&re);
    anim_free(&rl);
    anim_free(&a);
    bytebuf_free(&be);
    bytebuf_free(&bl);
}

/* The bytes do not depend on the threads: the colours counted in parts (a
 * clip of over 30,000 colours, so that each part's table and the clip's grow),
 * copies of frame 0 among them and at the end, a frame that repeats the one
 * before, pixels that turn clear (a disposal to the background), written in
 * parts, exact and lossy. */
static void threads_write_the_same_bytes(void)
{
    anim a;
    ENSURE(anim_init(&a, 96, 80, 23, 25, NULL) == POYO_OK);
    uint32_t seed = 777u;
    for (int f = 0; f < a.count; f++) {
        uint8_t *p = anim_frame(&a, f);
        int copy = f == 6 || f == 13 || f >= 20, again = f == 9;
        if (copy || again) {
            memcpy(p, anim_frame(&a, copy ? 0 : f - 1), anim_frame_bytes(&a));
            continue;
        }
        for (int y = 0; y < a.height; y++)
            for (int x = 0; x < a.width; x++) {
                uint8_t *q = p + 4 * ((size_t)y * a.width + x);
                seed = seed * 1664525u + 1013904223u;
                int inside = (x - 48) * (x - 48) + (y - 40) * (y - 40) < (20 + f) * (20 + f) && x > f;
                q[0] = (uint8_t)(seed >> 24);
                q[1] = (uint8_t)(x * 2 + f * 5);
                q[2] = (uint8_t)(seed >> 16);
                q[3] = inside ? 255 : (uint8_t)((seed >> 8) & 1 ? 0 : 90);
            }
    }
    for (int lossy = 0; lossy <= 40; lossy += 40) {
        quantize_def q = quantize_default_def();
        q.lossy = lossy;
        bytebuf one = { NULL, 0, 0 };
        ENSURE(gif_encode(&a, &q, &one, NULL, NULL) == POYO_OK);
        for (int t = 2; t <= WORKERS_MAX; t++) {
            bytebuf b = { NULL, 0, 0 };
            q.threads = t;
            ENSURE(gif_encode(&a, &q, &b, NULL, NULL) == POYO_OK);
            ENSURE_MSG(b.len == one.len && memcmp(b.data, one.data, b.len) == 0,
                       "loss %d, %d threads: %zu bytes, one thread %zu", lossy, t, b.len, one.len);
            bytebuf_free(&b);
        }
        anim r;
        anim_meta m;
        ENSURE(read_back(&one, &r, &m));
        ENSURE(r.count == a.count - 3); /* 9 shown with 8, 21 and 22 with 20 */
        anim_meta_free(&m);
        anim_free(&r);
        bytebuf_free(&one);
    }
    anim_free(&a);
}

const struct test_case test_cases[] = {
    { "threads_write_the_same_bytes", threads_write_the_same_bytes },
    { "frames_delays_loop_read_back", frames_delays_loop_read_back },
    { "transparency_is_one_bit_and_exclusive", transparency_is_one_bit_and_exclusive },
    { "changed_rectangles_never_ghost", changed_rectangles_never_ghost },
    { "delays_carry_rounding", delays_carry_rounding },
    { "merge_identical_frames", merge_identical_frames },
    { "lzw_noise_reads_back_exactly", lzw_noise_reads_back_exactly },
    { "lossy_stays_within_the_loss", lossy_stays_within_the_loss },
    { NULL, NULL },
};
