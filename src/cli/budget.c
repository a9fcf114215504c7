/* budget.c - the --max-bytes search. Settings are tried from the gentlest to
 * the harshest: for each (frame stride, canvas scale) in that order, the
 * harshest colour setting (WebM: the highest crf) is tried first; when it fits,
 * a binary search finds the richest setting that still fits. The untouched
 * setting is tried once before any search: most files fit as they are. */
#include "budget.h"

#include <stdlib.h>
#include <string.h>

#include "image/quantize.h"

static const int gif_colors[] = { 256, 128, 96, 64, 48, 32, 24, 16, 8 };
static const int webp_quality[] = { -1, 90, 80, 70, 60, 50, 40, 30, 20, 10 };
static const int webm_crf[] = { -1, 36, 40, 44, 48, 52, 56, 63 };
#define NLEVELS(a) ((int)(sizeof a / sizeof a[0]))

/* Every stride-th frame of a, each held for the frames it stands for. */
static poyo_status subsample(const anim *a, int stride, anim *out, poyo_error *err)
{
    int n = (a->count + stride - 1) / stride;
    poyo_status st = anim_init(out, a->width, a->height, n, a->fps, err);
    if (st != POYO_OK)
        return st;
    out->loop = a->loop;
    for (int i = 0; i < n; i++) {
        memcpy(anim_frame(out, i), anim_frame(a, i * stride), anim_frame_bytes(a));
        int h = 0;
        for (int k = i * stride; k < a->count && k < (i + 1) * stride; k++)
            h += a->hold[k];
        out->hold[i] = h;
    }
    return POYO_OK;
}

/* zlib levels of an APNG: the search compares sizes at a quicker level (a
 * little larger), the file chosen gets the best. */
#define APNG_SEARCH_LEVEL 6
#define APNG_FINAL_LEVEL 9

/* Encodes a at colour level lv into out (cleared first); an APNG at zlib level zl. */
static poyo_status encode_level(const anim *a, out_format f, const output_def *def, int lv, int zl, bytebuf *out,
                                poyo_error *err)
{
    out->len = 0;
    output_def d = *def;
    d.apng.level = zl;
    if (f == FORMAT_WEBM) {
        if (webm_crf[lv] > d.webm.crf)
            d.webm.crf = webm_crf[lv];
        return output_encode(a, f, &d, out, err);
    }
    if (f == FORMAT_WEBP) {
        if (webp_quality[lv] >= 0) {
            d.webp.lossy = 1;
            d.webp.quality = webp_quality[lv];
            /* below quality 50 the alpha plane, kept lossless above, is most of
             * a large sticker's bytes: it follows the colour's quality down */
            d.webp.alpha_quality = webp_quality[lv] >= 50 ? 100 : 2 * webp_quality[lv];
        }
        return output_encode(a, f, &d, out, err);
    }
    if (f == FORMAT_GIF) {
        if (gif_colors[lv] < d.quant.colors)
            d.quant.colors = gif_colors[lv];
        return output_encode(a, f, &d, out, err);
    }
    /* APNG: a palette of fewer colours (alpha kept) compresses far better */
    if (lv == 0)
        return output_encode(a, f, &d, out, err);
    anim r;
    poyo_status st = anim_init(&r, a->width, a->height, a->count, a->fps, err);
    if (st != POYO_OK)
        return st;
    memcpy(r.rgba, a->rgba, anim_frame_bytes(a) * (size_t)a->count);
    memcpy(r.hold, a->hold, (size_t)a->count * sizeof *r.hold);
    r.loop = a->loop;
    st = quantize_reduce(&r, gif_colors[lv], def->quant.dither, err);
    if (st == POYO_OK)
        st = output_encode(&r, f, &d, out, err);
    anim_free(&r);
    return st;
}

/* Encodes a at level lv into trial; when it fits max_bytes, trial and best
 * swap and *fit becomes lv. Counts the try and the smallest size seen. */
static poyo_status try_level(const anim *a, out_format f, const output_def *def, int lv, long long max_bytes,
                             bytebuf *trial, bytebuf *best, int *fit, size_t *smallest, budget_report *rep,
                             poyo_error *err)
{
    poyo_status st = encode_level(a, f, def, lv, APNG_SEARCH_LEVEL, trial, err);
    rep->tries++;
    if (st != POYO_OK)
        return st;
    if (trial->len < *smallest)
        *smallest = trial->len;
    if ((long long)trial->len <= max_bytes) {
        bytebuf t = *best;
        *best = *trial;
        *trial = t;
        *fit = lv;
    }
    return POYO_OK;
}

poyo_status budget_encode(const anim *a, out_format f, const output_def *def, const budget_def *b,
                          budget_render_fn render, void *user, bytebuf *out, budget_report *rep, poyo_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->crf = -1;
    if (b->max_bytes <= 0)
        return poyo_fail(err, POYO_ERR_USAGE, "the byte budget must be positive");
    int nlv = f == FORMAT_WEBP ? NLEVELS(webp_quality) : f == FORMAT_WEBM ? NLEVELS(webm_crf) : NLEVELS(gif_colors);
    int min_stride = 1;
    if (b->max_frames > 0 && a->count > b->max_frames)
        min_stride = (a->count + b->max_frames - 1) / b->max_frames;
    static const double scales[] = { 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4 };
    int nscale = 1;
    while (nscale < (int)(sizeof scales / sizeof scales[0]) && scales[nscale] >= b->min_scale - 1e-9)
        nscale++;
    bytebuf trial = { NULL, 0, 0 }, best = { NULL, 0, 0 };
    poyo_status st = POYO_OK;
    size_t smallest = (size_t)-1;
    for (int si = 0; si < nscale; si++) {
        anim scaled;
        memset(&scaled, 0, sizeof scaled);
        const anim *base = a;
        if (si > 0) {
            st = render(user, scales[si], &scaled, err);
            if (st != POYO_OK)
                break;
            base = &scaled;
        }
        /* a canvas that may not shrink leaves only fewer frames: down to a
         * sixth of the frame rate, as long as the clip keeps min_frames */
        int last_stride = nscale == 1 ? min_stride + 5 : min_stride + 2;
        int prev_n = 0;
        for (int stride = si == 0 ? min_stride : min_stride + 2; stride <= last_stride; stride++) {
            int n = (base->count + stride - 1) / stride;
            if (stride > 1 && n < (b->min_frames > 2 ? b->min_frames : 2))
                break;
            if (n == prev_n) /* the same number of frames as the last stride */
                continue;
            prev_n = n;
            anim sub;
            memset(&sub, 0, sizeof sub);
            const anim *cur = base;
            if (stride > 1) {
                st = subsample(base, stride, &sub, err);
                if (st != POYO_OK)
                    break;
                cur = &sub;
            }
            /* best holds the encode at level fit, the richest that fits so far */
            int fit = -1, lo = 1;
            st = try_level(cur, f, def, 0, b->max_bytes, &trial, &best, &fit, &smallest, rep, err);
            /* the harshest colour setting next: if it does not fit, nothing here will */
            if (st == POYO_OK && fit < 0)
                st = try_level(cur, f, def, nlv - 1, b->max_bytes, &trial, &best, &fit, &smallest, rep, err);
            if (st == POYO_OK && fit >= 0) {
                int hi = fit; /* hi fits; find the lowest level that fits */
                while (lo < hi && st == POYO_OK) {
                    int mid = (lo + hi) / 2;
                    st = try_level(cur, f, def, mid, b->max_bytes, &trial, &best, &fit, &smallest, rep, err);
                    if (fit == mid)
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                /* the chosen APNG once more at the best compression, when that is smaller */
                if (st == POYO_OK && f == FORMAT_APNG) {
                    st = encode_level(cur, f, def, hi, APNG_FINAL_LEVEL, &trial, err);
                    rep->tries++;
                    if (st == POYO_OK && trial.len < best.len) {
                        bytebuf t = best;
                        best = trial;
                        trial = t;
                    }
                }
                if (st == POYO_OK) {
                    bytebuf_free(out);
                    *out = best;
                    memset(&best, 0, sizeof best);
                    rep->colors = f == FORMAT_WEBP || f == FORMAT_WEBM ? 0 : gif_colors[hi];
                    rep->quality = f == FORMAT_WEBP ? webp_quality[hi] : -1;
                    rep->crf = f == FORMAT_WEBM ? webm_crf[hi] : -1;
                    rep->stride = stride;
                    rep->scale = scales[si];
                    rep->width = cur->width;
                    rep->height = cur->height;
                    rep->frames = cur->count;
                    rep->bytes = out->len;
                }
                anim_free(&sub);
                anim_free(&scaled);
                bytebuf_free(&trial);
                bytebuf_free(&best);
                return st;
            }
            anim_free(&sub);
            if (st != POYO_OK)
                break;
        }
        anim_free(&scaled);
        if (st != POYO_OK)
            break;
    }
    bytebuf_free(&trial);
    bytebuf_free(&best);
    if (st != POYO_OK)
        return st;
    return poyo_fail(err, POYO_ERR_INPUT, "cannot fit %lld bytes: the smallest setting tried gives %zu bytes",
                     b->max_bytes, smallest);
}
