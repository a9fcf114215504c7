/* test_budget.c - the --max-bytes search: a file that fits is returned as the
 * options make it, byte for byte, with no PSNR lost; a tight budget gives a
 * file within it whose reported PSNR is what an independent measure of the
 * decoded file gives; a budget nothing fits fails naming the smallest size
 * reached; the file kept has the highest PSNR of every fitting candidate the
 * search tried. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "image/animread.h"
#include "cli/budget.h"

/* A textured disc moving across a clear canvas, with soft edges. */
static int make_clip(anim *a, int size, int frames, double scale)
{
    int w = (int)(size * scale + 0.5);
    if (anim_init(a, w, w, frames, 20.0, NULL) != POYO_OK)
        return 0;
    for (int i = 0; i < frames; i++) {
        uint8_t *p = anim_frame(a, i);
        double cx = (0.3 + 0.4 * i / frames) * w, cy = 0.5 * w, r = 0.28 * w;
        for (int y = 0; y < w; y++)
            for (int x = 0; x < w; x++) {
                double d = sqrt((x + 0.5 - cx) * (x + 0.5 - cx) + (y + 0.5 - cy) * (y + 0.5 - cy));
                double cov = r + 0.5 - d;
                cov = cov < 0 ? 0 : cov > 1 ? 1 : cov;
                uint8_t *q = p + ((size_t)y * w + x) * 4;
                unsigned h = (unsigned)(x / scale) * 2654435761u ^ (unsigned)(y / scale) * 40503u;
                q[0] = (uint8_t)(40 + 200.0 * x / w);
                q[1] = (uint8_t)(40 + 200.0 * y / w);
                q[2] = (uint8_t)(h >> 24);
                q[3] = (uint8_t)(255 * cov);
            }
    }
    return 1;
}

static poyo_status render_clip(void *user, double scale, anim *out, poyo_error *err)
{
    const anim *a = user;
    if (!make_clip(out, a->width, a->count, scale))
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory");
    return POYO_OK;
}

/* PSNR of file against ref written out again here, same canvas only: every
 * reference frame against the frame the file shows at its middle. */
static double independent_psnr(const anim *ref, const bytebuf *file)
{
    anim b;
    anim_meta m;
    poyo_error err;
    if (anim_read(file->data, file->len, &b, &m, &err) != POYO_OK)
        return -1.0;
    double se = 0.0, n = 0.0;
    if (b.width == ref->width && b.height == ref->height)
        for (int i = 0; i < ref->count; i++) {
            double mid_ms = (i + 0.5) * 1000.0 / ref->fps, t = 0.0;
            int f = 0;
            while (f < b.count - 1 && t + m.delay_ms[f] <= mid_ms)
                t += m.delay_ms[f++];
            const uint8_t *p = anim_frame(ref, i), *q = anim_frame(&b, f);
            for (size_t k = 0; k < anim_frame_bytes(ref); k += 4)
                for (int c = 0; c < 4; c++) {
                    double u = c < 3 ? p[k + c] * p[k + 3] / 255.0 : p[k + 3];
                    double v = c < 3 ? q[k + c] * q[k + 3] / 255.0 : q[k + 3];
                    se += (u - v) * (u - v);
                    n += 1.0;
                }
        }
    anim_free(&b);
    anim_meta_free(&m);
    if (n == 0.0)
        return -1.0;
    double mse = se / n;
    return mse <= 0.0 ? BUDGET_PSNR_MAX : fmin(BUDGET_PSNR_MAX, 10.0 * log10(255.0 * 255.0 / mse));
}

static void test_psnr_self(void)
{
    anim a, half;
    ENSURE(make_clip(&a, 40, 6, 1.0));
    ENSURE(make_clip(&half, 40, 6, 0.5));
    double p = 0.0, q = 0.0;
    poyo_error err;
    ENSURE(budget_psnr(&a, &a, &p, &err) == POYO_OK);
    ENSURE(budget_psnr(&a, &half, &q, &err) == POYO_OK);
    anim_free(&a);
    anim_free(&half);
    ENSURE_NEAR(p, BUDGET_PSNR_MAX, 1e-9);
    ENSURE_MSG(q > 10.0 && q < 40.0, "half-size clip scaled up: %.2f dB", q);
}

/* The loss is counted up to the PSNR that shows: from a lossless file's cap it
 * is the same as from BUDGET_PSNR_SEEN, below it a plain difference, and never
 * negative. */
static void test_psnr_lost_counts_what_shows(void)
{
    ENSURE_NEAR(budget_psnr_lost(BUDGET_PSNR_MAX, 35.0), BUDGET_PSNR_SEEN - 35.0, 1e-12);
    ENSURE_NEAR(budget_psnr_lost(40.0, 35.0), 5.0, 1e-12);
    ENSURE(budget_psnr_lost(BUDGET_PSNR_MAX, BUDGET_PSNR_SEEN + 1.0) == 0.0);
    ENSURE(budget_psnr_lost(30.0, 35.0) == 0.0);
    ENSURE(budget_psnr_lost(BUDGET_PSNR_MAX, BUDGET_PSNR_MAX) == 0.0);
}

static void test_fits_untouched(void)
{
    out_format fmts[] = { FORMAT_GIF, FORMAT_APNG };
    for (int k = 0; k < 2; k++) {
        anim a;
        ENSURE(make_clip(&a, 48, 10, 1.0));
        output_def d = output_default_def();
        bytebuf plain = { NULL, 0, 0 }, out = { NULL, 0, 0 };
        poyo_error err;
        ENSURE(output_encode(&a, fmts[k], &d, &plain, &err) == POYO_OK);
        budget_def b = { (long long)plain.len, 0, 0, 1.0 };
        budget_report rep;
        poyo_status st = budget_encode(&a, fmts[k], &d, &b, render_clip, &a, &out, &rep, &err);
        int same = st == POYO_OK && out.len == plain.len && memcmp(out.data, plain.data, out.len) == 0;
        bytebuf_free(&plain);
        bytebuf_free(&out);
        anim_free(&a);
        ENSURE_MSG(same, "format %d: the file that fits is not returned as it is", (int)fmts[k]);
        ENSURE(rep.untouched == 1);
        ENSURE(rep.psnr_lost == 0.0);
        ENSURE(rep.stride == 1 && rep.scale == 1.0);
    }
}

/* Runs the search on format f at a share of the untouched size; checks the
 * file, its PSNR and the choice among the candidates tried. */
static void tight(out_format f, double share, double min_scale)
{
    anim a;
    ENSURE(make_clip(&a, 48, 12, 1.0));
    output_def d = output_default_def();
    bytebuf plain = { NULL, 0, 0 }, out = { NULL, 0, 0 };
    poyo_error err;
    ENSURE(output_encode(&a, f, &d, &plain, &err) == POYO_OK);
    budget_def b = { (long long)(plain.len * share), 0, 0, min_scale };
    bytebuf_free(&plain);
    budget_report rep;
    poyo_status st = budget_encode(&a, f, &d, &b, render_clip, &a, &out, &rep, &err);
    ENSURE_MSG(st == POYO_OK, "share %.2f: %s", share, err.msg);
    ENSURE((long long)out.len <= b.max_bytes);
    ENSURE(rep.bytes == out.len && !rep.untouched);
    ENSURE_NEAR(rep.psnr_lost, budget_psnr_lost(rep.psnr_full, rep.psnr), 1e-9);
    ENSURE(rep.psnr_lost >= 0.0 && rep.psnr_lost <= BUDGET_PSNR_SEEN);
    ENSURE(rep.psnr < fmin(rep.psnr_full, BUDGET_PSNR_SEEN) ? rep.psnr_lost > 0.0 : rep.psnr_lost == 0.0);
    if (rep.scale == 1.0) {
        double p = independent_psnr(&a, &out);
        ENSURE_MSG(fabs(p - rep.psnr) < 0.01, "share %.2f: reported %.3f dB, measured %.3f dB", share, rep.psnr, p);
    }
    /* the file kept scores at least as well as every fitting candidate tried */
    int fitting = 0;
    for (int i = 0; i < rep.ntried; i++)
        if (rep.tried[i].fits) {
            fitting++;
            ENSURE_MSG(rep.tried[i].psnr <= rep.psnr + 1e-9, "share %.2f: a candidate of %.3f dB beat the %.3f dB kept",
                       share, rep.tried[i].psnr, rep.psnr);
            ENSURE((long long)rep.tried[i].bytes <= b.max_bytes);
        }
    ENSURE(fitting >= 1);
    bytebuf_free(&out);
    anim_free(&a);
}

static void test_tight_gif(void)
{
    double shares[] = { 0.8, 0.5, 0.3, 0.15 };
    for (int i = 0; i < 4 && !test_failed(); i++)
        tight(FORMAT_GIF, shares[i], 0.0);
}

static void test_tight_apng(void)
{
    double shares[] = { 0.5, 0.2 };
    for (int i = 0; i < 2 && !test_failed(); i++)
        tight(FORMAT_APNG, shares[i], 1.0);
}

static void test_tight_webp(void)
{
    tight(FORMAT_WEBP, 0.3, 1.0);
}

static void test_nothing_fits(void)
{
    anim a;
    ENSURE(make_clip(&a, 48, 8, 1.0));
    output_def d = output_default_def();
    bytebuf out = { NULL, 0, 0 };
    poyo_error err;
    budget_def b = { 50, 0, 0, 0.0 };
    budget_report rep;
    poyo_status st = budget_encode(&a, FORMAT_GIF, &d, &b, render_clip, &a, &out, &rep, &err);
    anim_free(&a);
    ENSURE(st == POYO_ERR_INPUT);
    ENSURE(out.len == 0);
    size_t least = (size_t)-1;
    for (int i = 0; i < rep.ntried; i++) {
        ENSURE(!rep.tried[i].fits);
        if (rep.tried[i].bytes < least)
            least = rep.tried[i].bytes;
    }
    ENSURE(rep.ntried > 1 && rep.ntried < BUDGET_TRIES_MAX);
    char want[64];
    snprintf(want, sizeof want, "gives %zu bytes", least);
    ENSURE_MSG(strstr(err.msg, want) != NULL, "'%s' does not say '%s'", err.msg, want);
}

const struct test_case test_cases[] = {
    { "psnr_self", test_psnr_self },
    { "psnr_lost_counts_what_shows", test_psnr_lost_counts_what_shows },
    { "fits_untouched", test_fits_untouched },
    { "tight_gif", test_tight_gif },
    { "tight_apng", test_tight_apng },
    { "tight_webp", test_tight_webp },
    { "nothing_fits", test_nothing_fits },
    { NULL, NULL },
};
