/* budget.c - the --max-bytes search. The file the options make is tried
 * first and returned as it is when it fits. Otherwise groups of (frame stride,
 * canvas scale) are visited from the gentlest; in each group every ladder of
 * settings (colours; for a GIF also lossy LZW, and both together when neither
 * alone fits; WebP quality; WebM crf) is tried at its harshest step and, when
 * that fits, binary-searched for its richest step that fits. Every candidate
 * that fits is decoded (an APNG's own frames serve: it is lossless) and its
 * PSNR measured against the unbounded clip; the group after the first one
 * that fits is searched too, and the fitting candidate with the highest PSNR
 * is kept. */
#include "budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/animread.h"
#include "image/quantize.h"

/* One setting: what the encoder is told beyond the options (0 / -1 = as the options say). */
typedef struct setting {
    int colors;   /* GIF/APNG palette at most, 0 = the options' */
    int lossy;    /* GIF lossy LZW distance at least, 0 = the options' */
    int quality;  /* WebP lossy quality, -1 = the options' */
    int crf;      /* WebM crf at least, -1 = the options' */
} setting;

#define LADDER_MAX 12
typedef struct ladder {
    int n;                   /* steps, from the richest (index 0, the gentlest change) to the harshest */
    setting s[LADDER_MAX];
} ladder;

static const int gif_colors[] = { 128, 96, 64, 48, 32, 24, 16, 8 };
static const int gif_lossy[] = { 3, 5, 8, 12, 16, 20, 30, 45, 60, 80, 110, 150 };
/* lossy LZW beside fewer colours, when neither alone fits */
#define GIF_COMBO_LOSSY 60
static const int webp_quality[] = { 90, 80, 70, 60, 50, 40, 30, 20, 10 };
static const int webm_crf[] = { 36, 40, 44, 48, 52, 56, 63 };
#define NLEVELS(a) ((int)(sizeof a / sizeof a[0]))

static setting untouched_setting(void)
{
    setting s = { 0, 0, -1, -1 };
    return s;
}

static void ladder_add(ladder *l, setting s)
{
    if (l->n < LADDER_MAX)
        l->s[l->n++] = s;
}

/* The colour ladder of an APNG or GIF (lossy at `lossy`, 0: the options'):
 * only palettes smaller than the options' own. */
static ladder colour_ladder(const output_def *def, int lossy)
{
    ladder l = { 0 };
    for (int i = 0; i < NLEVELS(gif_colors); i++)
        if (gif_colors[i] < def->quant.colors) {
            setting s = untouched_setting();
            s.colors = gif_colors[i];
            s.lossy = lossy;
            ladder_add(&l, s);
        }
    return l;
}

/* The ladders of format f, searched in order (the last, for a GIF, only when
 * no other fits). */
static int ladders_for(out_format f, const output_def *def, ladder *out)
{
    int n = 0;
    if (f == FORMAT_WEBM) {
        ladder l = { 0 };
        for (int i = 0; i < NLEVELS(webm_crf); i++)
            if (webm_crf[i] > def->webm.crf) {
                setting s = untouched_setting();
                s.crf = webm_crf[i];
                ladder_add(&l, s);
            }
        out[n++] = l;
    } else if (f == FORMAT_WEBP) {
        ladder l = { 0 };
        for (int i = 0; i < NLEVELS(webp_quality); i++)
            if (!def->webp.lossy || webp_quality[i] < def->webp.quality) {
                setting s = untouched_setting();
                s.quality = webp_quality[i];
                ladder_add(&l, s);
            }
        out[n++] = l;
    } else if (f == FORMAT_GIF) {
        out[n++] = colour_ladder(def, 0);
        ladder l = { 0 };
        for (int i = 0; i < NLEVELS(gif_lossy); i++)
            if (gif_lossy[i] > def->quant.lossy) {
                setting s = untouched_setting();
                s.lossy = gif_lossy[i];
                ladder_add(&l, s);
            }
        out[n++] = l;
        ladder c = { 0 };
        if (def->quant.lossy < GIF_COMBO_LOSSY)
            c = colour_ladder(def, GIF_COMBO_LOSSY);
        out[n++] = c;
    } else {
        out[n++] = colour_ladder(def, 0);
    }
    return n;
}

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

/* Encodes a with setting s into out (cleared first). The frames of an APNG cut
 * to fewer colours go to *kept when kept is not NULL (the caller frees them);
 * otherwise *kept is left empty. */
static poyo_status encode_setting(const anim *a, out_format f, const output_def *def, const setting *s, bytebuf *out,
                                  anim *kept, poyo_error *err)
{
    out->len = 0;
    if (kept)
        memset(kept, 0, sizeof *kept);
    output_def d = *def;
    if (f == FORMAT_WEBM) {
        if (s->crf > d.webm.crf)
            d.webm.crf = s->crf;
        return output_encode(a, f, &d, out, err);
    }
    if (f == FORMAT_WEBP) {
        if (s->quality >= 0) {
            d.webp.lossy = 1;
            d.webp.quality = s->quality;
            /* below quality 50 the alpha plane, kept lossless above, is most of
             * a large sticker's bytes: it follows the colour's quality down */
            d.webp.alpha_quality = s->quality >= 50 ? 100 : 2 * s->quality;
        }
        return output_encode(a, f, &d, out, err);
    }
    if (f == FORMAT_GIF) {
        if (s->colors > 0 && s->colors < d.quant.colors)
            d.quant.colors = s->colors;
        if (s->lossy > d.quant.lossy)
            d.quant.lossy = s->lossy;
        return output_encode(a, f, &d, out, err);
    }
    /* APNG: a palette of fewer colours (alpha kept) compresses far better */
    if (s->colors <= 0)
        return output_encode(a, f, &d, out, err);
    anim r;
    poyo_status st = anim_init(&r, a->width, a->height, a->count, a->fps, err);
    if (st != POYO_OK)
        return st;
    memcpy(r.rgba, a->rgba, anim_frame_bytes(a) * (size_t)a->count);
    memcpy(r.hold, a->hold, (size_t)a->count * sizeof *r.hold);
    r.loop = a->loop;
    st = quantize_reduce(&r, s->colors, def->quant.dither, err);
    if (st == POYO_OK)
        st = output_encode(&r, f, &d, out, err);
    if (st == POYO_OK && kept)
        *kept = r;
    else
        anim_free(&r);
    return st;
}

/* Premultiplied RGBA of one pixel, 0..255 each. */
static void premul(const uint8_t *p, float *o)
{
    float k = p[3] / 255.0f;
    o[0] = p[0] * k;
    o[1] = p[1] * k;
    o[2] = p[2] * k;
    o[3] = p[3];
}

/* Bilinear taps for n pixels read from sn, pixel centres aligned: each
 * pixel's two source indices into idx and the weight of the second into frac. */
static void bilinear_taps(int n, int sn, int *idx, float *frac)
{
    for (int x = 0; x < n; x++) {
        double s = (x + 0.5) * sn / n - 0.5;
        s = s < 0 ? 0 : s > sn - 1 ? sn - 1 : s;
        int x0 = (int)s;
        idx[2 * x] = x0;
        idx[2 * x + 1] = x0 + 1 < sn ? x0 + 1 : x0;
        frac[x] = (float)(s - x0);
    }
}

/* A frame of the shown clip scaled up to the reference's size: the taps of
 * bilinear_taps and the premultiplied pixels they make. */
typedef struct upscale {
    int W, H, sw;
    int *xi, *yi;
    float *xf, *yf;
    float *up;
} upscale;

/* Scales frame s (u->sw pixels wide) up into u->up, premultiplied. */
static void scale_frame(const upscale *u, const uint8_t *s)
{
    int W = u->W, H = u->H, sw = u->sw;
    const int *xi = u->xi, *yi = u->yi;
    const float *xf = u->xf, *yf = u->yf;
    float *up = u->up;
    for (int y = 0; y < H; y++) {
        const uint8_t *r0 = s + (size_t)yi[2 * y] * sw * 4, *r1 = s + (size_t)yi[2 * y + 1] * sw * 4;
        float fy = yf[y];
        for (int x = 0; x < W; x++) {
            float a[4], b[4], c[4], d[4], fx = xf[x];
            premul(r0 + xi[2 * x] * 4, a);
            premul(r0 + xi[2 * x + 1] * 4, b);
            premul(r1 + xi[2 * x] * 4, c);
            premul(r1 + xi[2 * x + 1] * 4, d);
            float *o = up + ((size_t)y * W + x) * 4;
            for (int k = 0; k < 4; k++)
                o[k] = (a[k] + (b[k] - a[k]) * fx) * (1 - fy) + (c[k] + (d[k] - c[k]) * fx) * fy;
        }
    }
}

/* The squared error, premultiplied, of px pixels of s against r; equal pixels add nothing. */
static double frame_error(const uint8_t *r, const uint8_t *s, size_t px)
{
    double fse = 0.0;
    for (size_t p = 0; p < px; p++) {
        if (memcmp(r + p * 4, s + p * 4, 4) == 0)
            continue;
        float q[4], o[4];
        premul(r + p * 4, q);
        premul(s + p * 4, o);
        for (int k = 0; k < 4; k++) {
            double e = q[k] - o[k];
            fse += e * e;
        }
    }
    return fse;
}

/* The squared error of px pixels of r, premultiplied, against the scaled-up frame up. */
static double scaled_error(const uint8_t *r, const float *up, size_t px)
{
    double fse = 0.0;
    for (size_t p = 0; p < px; p++) {
        float q[4];
        premul(r + p * 4, q);
        for (int k = 0; k < 4; k++) {
            double e = q[k] - up[p * 4 + k];
            fse += e * e;
        }
    }
    return fse;
}

poyo_status budget_psnr(const anim *ref, const anim *shown, double *psnr, poyo_error *err)
{
    int W = ref->width, H = ref->height, sw = shown->width, sh = shown->height;
    if (ref->count < 1 || shown->count < 1 || W < 1 || H < 1 || sw < 1 || sh < 1)
        return poyo_fail(err, POYO_ERR_USAGE, "cannot measure an empty animation");
    size_t px = (size_t)W * H;
    int scaled = sw != W || sh != H;
    upscale u = { W, H, sw, NULL, NULL, NULL, NULL, NULL };
    u.up = scaled ? malloc(px * 4 * sizeof *u.up) : NULL; /* a frame of shown scaled up, premultiplied */
    u.xi = malloc((size_t)W * 2 * sizeof *u.xi), u.yi = malloc((size_t)H * 2 * sizeof *u.yi);
    u.xf = malloc((size_t)W * sizeof *u.xf), u.yf = malloc((size_t)H * sizeof *u.yf);
    if ((scaled && !u.up) || !u.xi || !u.yi || !u.xf || !u.yf) {
        free(u.up), free(u.xi), free(u.yi), free(u.xf), free(u.yf);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory measuring PSNR");
    }
    bilinear_taps(W, sw, u.xi, u.xf);
    bilinear_taps(H, sh, u.yi, u.yf);
    double se = 0.0, weight = 0.0, t0 = 0.0, sacc = 0.0;
    int j = 0, have = -1;
    for (int i = 0; i < ref->count; i++) {
        double dt = ref->hold[i] / ref->fps, tm = t0 + dt / 2;
        t0 += dt;
        while (j < shown->count - 1 && sacc + shown->hold[j] / shown->fps <= tm)
            sacc += shown->hold[j++] / shown->fps;
        const uint8_t *r = anim_frame(ref, i);
        double fse;
        if (!scaled) { /* frame j as it is */
            fse = frame_error(r, anim_frame(shown, j), px);
        } else {
            if (have != j) { /* frame j scaled to ref's size */
                scale_frame(&u, anim_frame(shown, j));
                have = j;
            }
            fse = scaled_error(r, u.up, px);
        }
        se += fse * ref->hold[i];
        weight += (double)ref->hold[i] * px * 4;
    }
    free(u.up), free(u.xi), free(u.yi), free(u.xf), free(u.yf);
    double mse = se / weight, cap = 255.0 * 255.0 * pow(10.0, -BUDGET_PSNR_MAX / 10.0);
    *psnr = mse <= cap ? BUDGET_PSNR_MAX : 10.0 * log10(255.0 * 255.0 / mse);
    return POYO_OK;
}

double budget_psnr_lost(double full, double got)
{
    double f = full < BUDGET_PSNR_SEEN ? full : BUDGET_PSNR_SEEN, g = got < BUDGET_PSNR_SEEN ? got : BUDGET_PSNR_SEEN;
    return f > g ? f - g : 0.0;
}

/* Decodes an encoded file and measures it against ref. */
static poyo_status measure(const anim *ref, const bytebuf *file, double *psnr, poyo_error *err)
{
    anim back;
    poyo_status st = anim_read(file->data, file->len, &back, NULL, err);
    if (st != POYO_OK)
        return st;
    st = budget_psnr(ref, &back, psnr, err);
    anim_free(&back);
    return st;
}

/* Measures against ref the file made from the frames `made`: an APNG holds
 * its frames losslessly, so they are measured as they are, not decoded again;
 * any other file is decoded. */
static poyo_status measure_made(const anim *ref, out_format f, const bytebuf *file, const anim *made, double *psnr,
                                poyo_error *err)
{
    if (f == FORMAT_APNG)
        return budget_psnr(ref, made, psnr, err);
    return measure(ref, file, psnr, err);
}

/* The search's plan and its state across groups. */
typedef struct search {
    const anim *ref;
    out_format f;
    const output_def *def;
    long long max_bytes;
    ladder lad[4];           /* the format's ladders, nlad of them */
    int nlad;
    int min_stride;          /* the first stride a platform's frame limit allows */
    setting none;            /* the untouched setting */
    bytebuf trial, best;     /* the latest encode; the best fitting one so far */
    int have_best;
    budget_try best_try;     /* its setting and PSNR */
    setting best_set;
    int best_group;          /* the group it came from */
    size_t smallest;
    budget_report *rep;
} search;

/* Encodes setting s of group (stride, scale) from cur; a fit is measured and
 * kept when its PSNR beats the best so far. *fits tells whether it fit. */
static poyo_status try_setting(search *S, const anim *cur, const setting *s, int stride, double scale, int group,
                               int *fits, poyo_error *err)
{
    anim kept;
    poyo_status st = encode_setting(cur, S->f, S->def, s, &S->trial, &kept, err);
    S->rep->tries++;
    if (st != POYO_OK)
        return st;
    budget_try t = { s->colors, s->lossy, s->quality, s->crf, stride, scale, S->trial.len, 0, 0.0 };
    if (S->trial.len < S->smallest)
        S->smallest = S->trial.len;
    *fits = (long long)S->trial.len <= S->max_bytes;
    if (*fits) {
        t.fits = 1;
        st = measure_made(S->ref, S->f, &S->trial, kept.count ? &kept : cur, &t.psnr, err);
        anim_free(&kept);
        if (st != POYO_OK)
            return st;
        if (!S->have_best || t.psnr > S->best_try.psnr) {
            bytebuf x = S->best;
            S->best = S->trial;
            S->trial = x;
            S->have_best = 1;
            S->best_try = t;
            S->best_set = *s;
            S->best_group = group;
        }
    }
    anim_free(&kept);
    if (S->rep->ntried < BUDGET_TRIES_MAX)
        S->rep->tried[S->rep->ntried++] = t;
    return POYO_OK;
}

/* Searches one ladder in cur: its harshest step, then (when that fits) a
 * binary search for the richest step that fits. *any becomes 1 on a fit. */
static poyo_status search_ladder(search *S, const anim *cur, const ladder *l, int stride, double scale, int group,
                                 int *any, poyo_error *err)
{
    if (l->n == 0)
        return POYO_OK;
    int fits = 0;
    poyo_status st = try_setting(S, cur, &l->s[l->n - 1], stride, scale, group, &fits, err);
    if (st != POYO_OK || !fits)
        return st;
    *any = 1;
    int lo = 0, hi = l->n - 1; /* hi fits; find the richest step that fits */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        st = try_setting(S, cur, &l->s[mid], stride, scale, group, &fits, err);
        if (st != POYO_OK)
            return st;
        if (fits)
            hi = mid;
        else
            lo = mid + 1;
    }
    return POYO_OK;
}

/* Tries the file the options make, as it is (when no frames must go): when it
 * fits it goes to out and *fit is set; else its PSNR is the baseline and it is
 * the first candidate tried. */
static poyo_status try_untouched(search *S, bytebuf *out, int *fit, poyo_error *err)
{
    const anim *a = S->ref;
    out_format f = S->f;
    const output_def *def = S->def;
    budget_report *rep = S->rep;
    poyo_status st = encode_setting(a, f, def, &S->none, &S->trial, NULL, err);
    rep->tries++;
    if (st != POYO_OK)
        return st;
    S->smallest = S->trial.len;
    double full = 0.0;
    if ((long long)S->trial.len <= S->max_bytes) {
        *fit = 1;
        bytebuf_free(out);
        *out = S->trial;
        memset(&S->trial, 0, sizeof S->trial);
        rep->colors = f == FORMAT_GIF || f == FORMAT_APNG ? def->quant.colors : 0;
        rep->lossy = f == FORMAT_GIF ? def->quant.lossy : 0;
        rep->stride = 1;
        rep->scale = 1.0;
        rep->width = a->width;
        rep->height = a->height;
        rep->frames = a->count;
        rep->bytes = out->len;
        rep->untouched = 1;
        st = measure_made(a, f, out, a, &full, err);
        rep->psnr = rep->psnr_full = full;
        rep->psnr_lost = 0.0;
        return st;
    }
    st = measure_made(a, f, &S->trial, a, &full, err);
    if (st != POYO_OK)
        return st;
    rep->psnr_full = full;
    budget_try t = { 0, 0, -1, -1, 1, 1.0, S->trial.len, 0, 0.0 };
    rep->tried[rep->ntried++] = t;
    return POYO_OK;
}

/* Searches one group, the frames cur (stride, scale): its untouched setting
 * (but in the first group when the file as made was tried), then, unless that
 * fit, its ladders; *any becomes 1 on a fit. After a fit elsewhere, a group
 * whose frames as they are score no better than it sets *stop and is not
 * searched. */
static poyo_status search_group(search *S, const anim *cur, int stride, double scale, int group, int *any,
                                int *stop, poyo_error *err)
{
    budget_report *rep = S->rep;
    poyo_status st = POYO_OK;
    int fits = 0;
    if (S->have_best) {
        /* after a fit: this group's frames as they are, before any encoding, bound
         * what any of its candidates can score; a bound no better than the best
         * fit so far ends the search */
        double ceiling = 0.0;
        st = budget_psnr(S->ref, cur, &ceiling, err);
        if (st != POYO_OK || ceiling <= S->best_try.psnr) {
            *stop = 1;
            return st;
        }
    }
    if (group > 0 || S->min_stride > 1) { /* the group's own untouched setting */
        st = try_setting(S, cur, &S->none, stride, scale, group, &fits, err);
        if (st == POYO_OK && isnan(rep->psnr_full)) {
            /* frames the platform's own limit drops: the untouched setting at the
             * first stride allowed is the baseline (S->trial holds it unless it fit) */
            if (fits)
                rep->psnr_full = S->best_try.psnr;
            else
                st = measure_made(S->ref, S->f, &S->trial, cur, &rep->psnr_full, err);
        }
        *any = fits;
    }
    /* the ladders, unless the untouched setting fit (nothing here beats it) */
    for (int li = 0; li < S->nlad && st == POYO_OK && !fits; li++) {
        if (S->f == FORMAT_GIF && li == S->nlad - 1 && *any)
            break; /* lossy and fewer colours together only when neither alone fits */
        st = search_ladder(S, cur, &S->lad[li], stride, scale, group, any, err);
    }
    if (st == POYO_OK && S->best_group == group) {
        rep->width = cur->width;
        rep->height = cur->height;
        rep->frames = cur->count;
    }
    return st;
}

/* Visits the groups from the gentlest: each scale of the canvas (drawn again
 * by render), each with strides of fewer frames; the first group that fits
 * and at most two after it. */
static poyo_status search_groups(search *S, const budget_def *b, budget_render_fn render, void *user,
                                 const double *scales, int nscale, poyo_error *err)
{
    const anim *a = S->ref;
    int min_stride = S->min_stride;
    poyo_status st = POYO_OK;
    int group = 0, fitted_groups = 0, done = 0;
    for (int si = 0; si < nscale && !done; si++) {
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
        for (int stride = si == 0 ? min_stride : min_stride + 2; stride <= last_stride && !done; stride++) {
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
            int any = 0, stop = 0;
            st = search_group(S, cur, stride, scales[si], group, &any, &stop, err);
            anim_free(&sub);
            if (stop) {
                done = 1;
                break;
            }
            group++;
            /* the first group that fits and at most two after it */
            if (any || fitted_groups)
                if (++fitted_groups >= 3)
                    done = 1;
            if (st != POYO_OK)
                break;
        }
        anim_free(&scaled);
        if (st != POYO_OK)
            break;
    }
    return st;
}

/* Hands the best fit to out and says in rep what it took. */
static void report_best(search *S, bytebuf *out)
{
    const output_def *def = S->def;
    out_format f = S->f;
    budget_report *rep = S->rep;
    bytebuf_free(out);
    *out = S->best;
    memset(&S->best, 0, sizeof S->best);
    const budget_try *t = &S->best_try;
    rep->colors = f == FORMAT_GIF || f == FORMAT_APNG ? (t->colors > 0 ? t->colors : def->quant.colors) : 0;
    rep->lossy = f == FORMAT_GIF ? (t->lossy > def->quant.lossy ? t->lossy : def->quant.lossy) : 0;
    rep->quality = t->quality;
    rep->crf = f == FORMAT_WEBM ? (t->crf > def->webm.crf ? t->crf : def->webm.crf) : -1;
    rep->stride = t->stride;
    rep->scale = t->scale;
    rep->bytes = out->len;
    rep->psnr = t->psnr;
    rep->psnr_lost = budget_psnr_lost(rep->psnr_full, rep->psnr);
}

poyo_status budget_encode(const anim *a, out_format f, const output_def *def, const budget_def *b,
                          budget_render_fn render, void *user, bytebuf *out, budget_report *rep, poyo_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->quality = rep->crf = -1;
    if (b->max_bytes <= 0)
        return poyo_fail(err, POYO_ERR_USAGE, "the byte budget must be positive");
    search S;
    memset(&S, 0, sizeof S);
    S.ref = a;
    S.f = f;
    S.def = def;
    S.max_bytes = b->max_bytes;
    S.smallest = (size_t)-1;
    S.rep = rep;
    S.best_group = -1;
    S.nlad = ladders_for(f, def, S.lad);
    S.min_stride = 1;
    if (b->max_frames > 0 && a->count > b->max_frames)
        S.min_stride = (a->count + b->max_frames - 1) / b->max_frames;
    S.none = untouched_setting();
    static const double scales[] = { 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4 };
    int nscale = 1;
    while (nscale < (int)(sizeof scales / sizeof scales[0]) && scales[nscale] >= b->min_scale - 1e-9)
        nscale++;
    poyo_status st = POYO_OK;

    /* the file the options make, as it is, when it fits */
    if (S.min_stride == 1) {
        int fit = 0;
        st = try_untouched(&S, out, &fit, err);
        if (st != POYO_OK || fit)
            goto out;
    } else {
        rep->psnr_full = NAN; /* set below from the first group's untouched setting */
    }
    st = search_groups(&S, b, render, user, scales, nscale, err);
    if (st == POYO_OK && S.have_best)
        report_best(&S, out);
    else if (st == POYO_OK)
        st = poyo_fail(err, POYO_ERR_INPUT, "cannot fit %lld bytes: the smallest setting tried gives %zu bytes",
                       b->max_bytes, S.smallest);
out:
    bytebuf_free(&S.trial);
    bytebuf_free(&S.best);
    return st;
}
