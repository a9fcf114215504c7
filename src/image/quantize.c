/* quantize.c - builds one palette for all frames with libimagequant (a
 * histogram over every frame, so colours do not flicker) after alpha is
 * thresholded to 1 bit, and remaps each frame to it; and cuts RGBA frames to
 * fewer colours, alpha kept, each pixel to its nearest entry in premultiplied
 * RGBA (the space the --max-bytes search measures in). */
#include "quantize.h"

#include <stdlib.h>
#include <string.h>

#include <libimagequant.h>
/* libimagequant parallelises with OpenMP; poyo runs files in parallel instead,
 * and idle OpenMP workers spinning at barriers cost more than they save on
 * stamp-sized images, so quantising asks OpenMP for one thread. */
#include <omp.h>

#include "util/hugemem.h"

/* An exact colour histogram of every frame: open addressing on the packed
 * colour, grown as needed; far cheaper than per-image histograms. */
typedef struct colour_count {
    uint32_t *key;   /* 0xRRGGBB | alpha bit << 24, or EMPTY */
    unsigned *count;
    size_t cap, used;
    size_t full;     /* used at which the table grows: 70 % of cap */
} colour_count;

#define EMPTY 0xffffffffu

static int cc_init(colour_count *cc, size_t cap)
{
    cc->key = malloc(cap * sizeof *cc->key);
    cc->count = calloc(cap, sizeof *cc->count);
    cc->cap = cap;
    cc->used = 0;
    cc->full = cap * 7 / 10;
    if (!cc->key || !cc->count)
        return -1;
    memset(cc->key, 0xff, cap * sizeof *cc->key);
    return 0;
}

static void cc_free(colour_count *cc)
{
    free(cc->key);
    free(cc->count);
    cc->key = NULL;
    cc->count = NULL;
}

static inline int cc_add(colour_count *cc, uint32_t k, unsigned n);

/* Doubles the table (rare: kept out of the counting loop). */
static __attribute__((noinline)) int cc_grow(colour_count *cc)
{
    colour_count big;
    if (cc_init(&big, cc->cap * 2) != 0) {
        cc_free(&big);
        return -1;
    }
    for (size_t i = 0; i < cc->cap; i++)
        if (cc->key[i] != EMPTY)
            cc_add(&big, cc->key[i], cc->count[i]);
    cc_free(cc);
    *cc = big;
    return 0;
}

static inline int cc_add(colour_count *cc, uint32_t k, unsigned n)
{
    if (cc->used >= cc->full && cc_grow(cc) != 0)
        return -1;
    size_t h = (size_t)((k * 2654435761u) & (uint32_t)(cc->cap - 1));
    while (cc->key[h] != EMPTY && cc->key[h] != k)
        h = (h + 1) & (cc->cap - 1);
    if (cc->key[h] == EMPTY) {
        cc->key[h] = k;
        cc->used++;
    }
    cc->count[h] += n;
    return 0;
}

/* Nearest palette entry to (r, g, b) among the opaque entries (skip = the transparent one). */
/* The opaque palette entries sorted by green, for nearest-colour searches that
 * stop as soon as the green distance alone exceeds the best match. */
typedef struct sorted_palette {
    int n;
    int idx[256];
    int r[256], g[256], b[256];
} sorted_palette;

static void sort_palette(sorted_palette *sp, const uint8_t *pal, int n, int skip)
{
    sp->n = 0;
    for (int c = 0; c < n; c++) {
        if (c == skip)
            continue;
        int k = sp->n++;
        /* insertion by green */
        while (k > 0 && sp->g[k - 1] > pal[3 * c + 1]) {
            sp->idx[k] = sp->idx[k - 1];
            sp->r[k] = sp->r[k - 1];
            sp->g[k] = sp->g[k - 1];
            sp->b[k] = sp->b[k - 1];
            k--;
        }
        sp->idx[k] = c;
        sp->r[k] = pal[3 * c];
        sp->g[k] = pal[3 * c + 1];
        sp->b[k] = pal[3 * c + 2];
    }
}

/* Nearest entry (squared RGB distance, ties to the lower palette index). */
static int nearest_sorted(const sorted_palette *sp, int r, int g, int b)
{
    int lo = 0, hi = sp->n;
    while (lo < hi) { /* first entry with green >= g */
        int mid = (lo + hi) / 2;
        if (sp->g[mid] < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    long bd = -1;
    int best = sp->n ? sp->idx[0] : 0;
    int up = lo, down = lo - 1;
    while (up < sp->n || down >= 0) {
        int k;
        if (up < sp->n && (down < 0 || sp->g[up] - g <= g - sp->g[down]))
            k = up++;
        else
            k = down--;
        long dg = sp->g[k] - g;
        if (bd >= 0 && dg * dg > bd)
            break; /* every entry left is farther in green alone */
        long dr = sp->r[k] - r, db = sp->b[k] - b;
        long d = dr * dr + dg * dg + db * db;
        if (bd < 0 || d < bd || (d == bd && sp->idx[k] < best)) {
            bd = d;
            best = sp->idx[k];
        }
    }
    return best;
}

quantize_def quantize_default_def(void)
{
    quantize_def d;
    d.colors = 256;
    d.dither = 0.0;
    d.alpha_threshold = 128;
    d.quality_min = 0;
    d.quality_max = 99;
    d.speed = 7;
    d.matte = -1;
    d.lossy = 0;
    d.threads = 1;
    return d;
}

poyo_status quantize_check_def(const quantize_def *d, poyo_error *err)
{
    if (d->colors < QUANTIZE_COLORS_MIN || d->colors > QUANTIZE_COLORS_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--colors: must be %d to %d, not %d", QUANTIZE_COLORS_MIN,
                         QUANTIZE_COLORS_MAX, d->colors);
    if (!(d->dither >= 0.0 && d->dither <= QUANTIZE_DITHER_MAX))
        return poyo_fail(err, POYO_ERR_USAGE, "--dither: must be 0 to %g, not %g", QUANTIZE_DITHER_MAX, d->dither);
    if (d->alpha_threshold < QUANTIZE_ALPHA_MIN || d->alpha_threshold > QUANTIZE_ALPHA_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--alpha-threshold: must be %d to %d, not %d", QUANTIZE_ALPHA_MIN,
                         QUANTIZE_ALPHA_MAX, d->alpha_threshold);
    if (d->quality_min < 0 || d->quality_max > QUANTIZE_QUALITY_MAX || d->quality_min > d->quality_max)
        return poyo_fail(err, POYO_ERR_USAGE, "quality range must be within 0 to %d, not %d-%d",
                         QUANTIZE_QUALITY_MAX, d->quality_min, d->quality_max);
    if (d->speed < 1 || d->speed > 10)
        return poyo_fail(err, POYO_ERR_USAGE, "speed must be 1 to 10, not %d", d->speed);
    if (d->lossy < 0 || d->lossy > QUANTIZE_LOSSY_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--lossy-gif: must be 0 to %d, not %d", QUANTIZE_LOSSY_MAX, d->lossy);
    if (d->matte < -1 || d->matte > 0xffffff)
        return poyo_fail(err, POYO_ERR_USAGE, "invalid --matte colour");
    if (d->threads < 1 || d->threads > WORKERS_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "quantiser threads must be 1 to %d, not %d", WORKERS_MAX, d->threads);
    return POYO_OK;
}

void indexed_free(indexed *ix)
{
    if (!ix)
        return;
    free(ix->index);
    ix->index = NULL;
}

#define CACHE_BITS_MAX 16

/* Each colour's palette entry once it is found: flat stamps repeat their
 * colours, and the nearest entry is the slow part of a remap. The slots, their
 * count and the hash's shift stay with the caller, in locals the remap loop
 * keeps in registers. */
typedef struct cache_slot {
    uint32_t key;
    int val; /* < 0: empty */
} cache_slot;

/* A cache of 2^bits slots: room for three quarters as many colours. */
static cache_slot *cache_new(int bits)
{
    cache_slot *slot = malloc(sizeof *slot << bits);
    if (slot)
        memset(slot, 0xff, sizeof *slot << bits); /* every val -1 */
    return slot;
}

/* The fewest slots (at least 2^10, at most 2^CACHE_BITS_MAX) that hold
 * colours without starting afresh: a cache is only as large as the clip's
 * colours need, so no time goes to clearing and mapping idle slots. */
static int cache_bits(size_t colours)
{
    int bits = 10;
    while (bits < CACHE_BITS_MAX && ((size_t)1 << bits) < colours * 4)
        bits++;
    return bits;
}

/* The value kept for key in a cache of 2^(32 - shift) slots: negative when
 * it is new (then set it). Nearly full (*used counts the keys), the cache
 * starts afresh. */
static inline int *cache_find(cache_slot *slot, int shift, unsigned *used, uint32_t key)
{
    uint32_t mask = 0xffffffffu >> shift, h = (key * 2654435761u) >> shift;
    while (slot[h].val >= 0 && slot[h].key != key)
        h = (h + 1) & mask;
    if (slot[h].val < 0) {
        if (*used * 4 > (mask + 1) * 3) {
            memset(slot, 0xff, sizeof *slot * (mask + 1));
            *used = 0;
            h = (key * 2654435761u) >> shift;
        }
        slot[h].key = key;
        ++*used;
    }
    return &slot[h].val;
}

/* How a pixel is quantised: alpha is thresholded to 1 bit; opaque pixels
 * keep their colour (blended onto the matte when one is given and the pixel
 * was partly transparent), the rest are (0,0,0,0). */
typedef struct binarize {
    int threshold, matte, mr, mg, mb;
} binarize;

/* The pixel's quantised colour as a key: 0xRRGGBB | 1 << 24 when opaque, 0 when clear. */
static inline uint32_t pixel_key(const binarize *bz, const uint8_t *s)
{
    int al = s[3];
    if (al < bz->threshold)
        return 0;
    uint32_t r = s[0], g = s[1], b = s[2];
    if (bz->matte >= 0 && al < 255) {
        r = (uint32_t)((s[0] * al + bz->mr * (255 - al) + 127) / 255);
        g = (uint32_t)((s[1] * al + bz->mg * (255 - al) + 127) / 255);
        b = (uint32_t)((s[2] * al + bz->mb * (255 - al) + 127) / 255);
    }
    return 1u << 24 | r << 16 | g << 8 | b;
}

static inline uint32_t load_px(const uint8_t *s)
{
    uint32_t v;
    memcpy(&v, s, 4);
    return v;
}

/* Whether frame f (> 0) is the same as frame 0: the still frames a clip
 * snaps to its first are copies of it. */
static int same_as_first(const anim *a, int f)
{
    return f > 0 && memcmp(anim_frame(a, f), anim_frame(a, 0), anim_frame_bytes(a)) == 0;
}

/* The frames of a clip split into parts for threads: a copy of frame 0 is
 * drawn from it and costs nothing, so each part gets as many of the other
 * frames as the next. */
typedef struct frame_parts {
    int n;                        /* parts */
    int threads;                  /* threads they run on */
    int first[WORKERS_MAX + 1];   /* part k's frames are first[k] to first[k + 1] - 1 */
    uint8_t *copy;                /* per frame: it is a copy of frame 0 */
    unsigned copies;              /* frame 0 and its copies */
} frame_parts;

static int parts_init(frame_parts *fp, const anim *a, int threads)
{
    fp->copy = malloc((size_t)a->count);
    if (!fp->copy)
        return -1;
    int drawn = 0;
    fp->copies = 1;
    for (int f = 0; f < a->count; f++) {
        fp->copy[f] = (uint8_t)same_as_first(a, f);
        fp->copies += fp->copy[f];
        drawn += !fp->copy[f];
    }
    fp->threads = threads;
    int n = threads < WORKERS_MAX ? threads : WORKERS_MAX;
    if (n > drawn) /* every part holds a drawn frame */
        n = drawn;
    double *weight = malloc((size_t)a->count * sizeof *weight);
    if (!weight)
        return -1;
    for (int f = 0; f < a->count; f++)
        weight[f] = !fp->copy[f];
    fp->n = workers_split(weight, a->count, n, fp->first);
    free(weight);
    return 0;
}

/* One part's count. The first part counts into the clip's table itself; each
 * other one into a table of its own, listing its colours in the order it met
 * them, to be added to the clip's table in that order afterwards: the table
 * then ends as if the frames had all been counted in turn. */
typedef struct count_part {
    colour_count cc;
    uint32_t *order;   /* the part's colours, first met first */
    size_t norder;
    int tail;          /* an add or a skipped copy came after the last colour new to the part */
    int bad;           /* out of memory */
} count_part;

typedef struct count_job {
    const anim *a;
    binarize bz;
    const frame_parts *fp;
    count_part *part;
} count_job;

/* Adds n pixels of colour k to the part's table. */
static inline int part_add(count_part *p, int listed, uint32_t k, unsigned n)
{
    size_t before = p->cc.used;
    if (cc_add(&p->cc, k, n) != 0)
        return -1;
    if (p->cc.used == before) {
        p->tail = 1;
        return 0;
    }
    p->tail = 0;
    if (listed)
        p->order[p->norder++] = k;
    return 0;
}

/* The exact histogram of part i's frames as the GIF will show them (bz):
 * runs of one raw pixel value (flat stamps are mostly runs) are counted once,
 * and frame 0 once for itself and its copies, its runs that many times as
 * long: the copies add no colour, so the table ends as if each had been
 * counted where it is (a growth their first add would have set off is left
 * to the merge). */
static void count_part_frames(void *arg, int i)
{
    count_job *j = arg;
    const anim *a = j->a;
    const binarize b = j->bz, *bz = &b; /* a copy the stores cannot alias */
    count_part part = j->part[i], *p = &part; /* a copy of its own: the parts lie side by side */
    size_t npx = (size_t)a->width * a->height;
    int listed = i > 0;
    if (listed && (cc_init(&p->cc, 1u << 14) != 0 || !(p->order = malloc(npx * sizeof *p->order)))) {
        p->bad = 1;
        j->part[i] = part;
        return;
    }
    size_t order_cap = npx;
    for (int f = j->fp->first[i]; f < j->fp->first[i + 1]; f++) {
        if (j->fp->copy[f]) {
            p->tail = 1;
            continue;
        }
        /* a frame adds at most npx colours */
        if (listed && p->norder + npx > order_cap) {
            uint32_t *o = realloc(p->order, (order_cap * 2 + npx) * sizeof *o);
            if (!o) {
                p->bad = 1;
                break;
            }
            p->order = o;
            order_cap = order_cap * 2 + npx;
        }
        const uint8_t *sp = anim_frame(a, f);
        uint32_t raw = load_px(sp), last = pixel_key(bz, sp);
        unsigned run = 1, times = f == 0 ? j->fp->copies : 1;
        for (size_t k = 1; k < npx; k++) {
            uint32_t v = load_px(sp + 4 * k);
            if (v == raw) {
                run++;
                continue;
            }
            raw = v;
            uint32_t key = pixel_key(bz, sp + 4 * k);
            if (key == last) {
                run++;
                continue;
            }
            if (part_add(p, listed, last, run * times) != 0) {
                p->bad = 1;
                break;
            }
            last = key;
            run = 1;
        }
        if (p->bad || part_add(p, listed, last, run * times) != 0) {
            p->bad = 1;
            break;
        }
    }
    j->part[i] = part;
}

/* The count of colour k in the table (which holds it). */
static unsigned cc_count(const colour_count *cc, uint32_t k)
{
    size_t h = (size_t)((k * 2654435761u) & (uint32_t)(cc->cap - 1));
    while (cc->key[h] != k)
        h = (h + 1) & (cc->cap - 1);
    return cc->count[h];
}

/* The exact histogram of every frame into cc, counted in fp's parts on as
 * many threads. Returns nonzero when out of memory. */
static int count_colours(const anim *a, const binarize *bz, const frame_parts *fp, colour_count *cc)
{
    count_part part[WORKERS_MAX];
    memset(part, 0, sizeof part);
    part[0].cc = *cc;
    count_job j = { a, *bz, fp, part };
    workers_run(fp->n, fp->threads, count_part_frames, &j);
    *cc = part[0].cc;
    int bad = part[0].bad;
    for (int i = 0; i < fp->n && !bad; i++) {
        for (size_t k = 0; i > 0 && k < part[i].norder && !bad; k++)
            bad = part[i].bad || cc_add(cc, part[i].order[k], cc_count(&part[i].cc, part[i].order[k])) != 0;
        bad = bad || part[i].bad || (part[i].tail && cc->used >= cc->full && cc_grow(cc) != 0);
    }
    for (int i = 1; i < fp->n; i++) {
        cc_free(&part[i].cc);
        free(part[i].order);
    }
    return bad;
}

#define HIST_FIRST 512

/* Hands ne counted colours to libimagequant's histogram. Its hash table is
 * sized on the first call for the square of the colours given (the pixels of
 * an image that size could have), a table of up to hundreds of MiB mapped and
 * its buckets cleared for every clip: 80 % of a batch's page faults. Given
 * the first few hundred colours alone, the table is small, from the heap, and
 * grows as the rest come. */
static liq_error hist_add(liq_histogram *hist, liq_attr *attr, liq_histogram_entry *e, size_t ne)
{
    size_t first = ne < HIST_FIRST ? ne : HIST_FIRST;
    liq_error he = liq_histogram_add_colors(hist, attr, e, (int)first, 0.0);
    if (he == LIQ_OK && ne > first)
        he = liq_histogram_add_colors(hist, attr, e + first, (int)(ne - first), 0.0);
    return he;
}

/* The counted colours handed to libimagequant's histogram. */
static poyo_status add_histogram(liq_histogram *hist, liq_attr *attr, const colour_count *cc, poyo_error *err)
{
    liq_histogram_entry *e = malloc((cc->used ? cc->used : 1) * sizeof *e);
    size_t ne = 0;
    if (e) {
        for (size_t i = 0; i < cc->cap; i++) {
            if (cc->key[i] == EMPTY)
                continue;
            uint32_t k = cc->key[i];
            liq_color col = { (unsigned char)(k >> 16), (unsigned char)(k >> 8), (unsigned char)k,
                              (unsigned char)(k >> 24 ? 255 : 0) };
            e[ne].color = col;
            e[ne].count = cc->count[i];
            ne++;
        }
    }
    liq_error he = e ? hist_add(hist, attr, e, ne) : LIQ_OUT_OF_MEMORY;
    free(e);
    return he == LIQ_OK ? POYO_OK : poyo_fail(err, POYO_ERR_NOMEM, "cannot build the colour histogram");
}

/* The palette of res into out, with a transparent entry (the first nearly
 * clear one, else one added); returns the number of entries, *tr the clear one. */
static int take_palette(liq_result *res, indexed *out, int *tr)
{
    const liq_palette *pal = liq_get_palette(res);
    int n = (int)pal->count;
    *tr = -1;
    for (int i = 0; i < n; i++) {
        out->palette[i][0] = pal->entries[i].r;
        out->palette[i][1] = pal->entries[i].g;
        out->palette[i][2] = pal->entries[i].b;
        if (pal->entries[i].a < 128 && *tr < 0)
            *tr = i;
    }
    if (*tr < 0) {
        *tr = n++;
        out->palette[*tr][0] = out->palette[*tr][1] = out->palette[*tr][2] = 0;
    }
    return n;
}

/* Dithered: the frames as shown (bz) remapped by libimagequant; then every
 * clear pixel on the one transparent entry tr and no visible pixel on it. */
static poyo_status remap_dithered(const anim *a, const binarize *bz, liq_attr *attr, liq_result *res, double dither,
                                  const sorted_palette *spal, int tr, indexed *out, poyo_error *err)
{
    size_t npx = (size_t)a->width * a->height, fb = anim_frame_bytes(a);
    uint8_t *bin = malloc(fb * (size_t)a->count);
    if (!bin)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory while quantising");
    for (int f = 0; f < a->count; f++) {
        const uint8_t *sp = anim_frame(a, f);
        uint8_t *d = bin + fb * (size_t)f;
        for (size_t i = 0; i < npx; i++) {
            uint32_t k = pixel_key(bz, sp + 4 * i);
            d[4 * i] = (uint8_t)(k >> 16);
            d[4 * i + 1] = (uint8_t)(k >> 8);
            d[4 * i + 2] = (uint8_t)k;
            d[4 * i + 3] = k ? 255 : 0;
        }
    }
    liq_set_dithering_level(res, (float)dither);
    for (int f = 0; f < a->count; f++) {
        liq_image *img = liq_image_create_rgba(attr, bin + fb * (size_t)f, a->width, a->height, 0);
        if (!img || liq_write_remapped_image(res, img, out->index + npx * (size_t)f, npx) != LIQ_OK) {
            liq_image_destroy(img);
            free(bin);
            return poyo_fail(err, POYO_ERR_NOMEM, "cannot remap a frame to the palette");
        }
        liq_image_destroy(img);
    }
    for (int f = 0; f < a->count; f++) {
        const uint8_t *sp = bin + fb * (size_t)f;
        uint8_t *ix = out->index + npx * (size_t)f;
        for (size_t i = 0; i < npx; i++) {
            if (sp[4 * i + 3] == 0)
                ix[i] = (uint8_t)tr;
            else if (ix[i] == tr)
                ix[i] = (uint8_t)nearest_sorted(spal, sp[4 * i], sp[4 * i + 1], sp[4 * i + 2]);
        }
    }
    free(bin);
    return POYO_OK;
}

typedef struct index_job {
    const anim *a;
    binarize bz;
    const frame_parts *fp;
    const sorted_palette *spal;
    int tr, bits;
    indexed *out;
    int bad[WORKERS_MAX];
} index_job;

/* Part i's frames (but the copies of frame 0), each pixel on its nearest
 * entry, never the transparent one tr, remembered per raw pixel value, as
 * flat stamps repeat their colours. */
static void index_part(void *arg, int i)
{
    index_job *j = arg;
    const anim *a = j->a;
    const binarize b = j->bz, *bz = &b; /* a copy the stores cannot alias */
    int shift = 32 - j->bits, tr = j->tr;
    cache_slot *cache = cache_new(j->bits);
    unsigned used = 0;
    if (!cache) {
        j->bad[i] = 1;
        return;
    }
    size_t npx = (size_t)a->width * a->height;
    for (int f = j->fp->first[i]; f < j->fp->first[i + 1]; f++) {
        if (j->fp->copy[f])
            continue;
        const uint8_t *sp = anim_frame(a, f);
        uint8_t *ip = j->out->index + npx * (size_t)f;
        uint32_t raw = ~load_px(sp);
        uint8_t idx = 0;
        for (size_t k = 0; k < npx; k++) {
            uint32_t v = load_px(sp + 4 * k);
            if (v != raw) { /* a run of one raw value keeps its index */
                raw = v;
                if (sp[4 * k + 3] < bz->threshold) {
                    idx = (uint8_t)tr;
                } else { /* the entry of each raw value, found from its key once */
                    int *e = cache_find(cache, shift, &used, v);
                    if (*e < 0) {
                        uint32_t rgb = pixel_key(bz, sp + 4 * k) & 0xffffffu;
                        *e = nearest_sorted(j->spal, (int)(rgb >> 16), (int)(rgb >> 8 & 255), (int)(rgb & 255));
                    }
                    idx = (uint8_t)*e;
                }
            }
            ip[k] = idx;
        }
    }
    free(cache);
}

/* Undithered: every frame indexed by index_part, in fp's parts on as many
 * threads; the copies of frame 0 copied. */
static poyo_status index_nearest(const anim *a, const binarize *bz, const frame_parts *fp, const sorted_palette *spal,
                                 int tr, size_t colours, indexed *out, poyo_error *err)
{
    index_job j = { a, *bz, fp, spal, tr, cache_bits(colours), out, { 0 } };
    workers_run(fp->n, fp->threads, index_part, &j);
    for (int i = 0; i < fp->n; i++)
        if (j.bad[i])
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory while quantising");
    size_t npx = (size_t)a->width * a->height;
    for (int f = 1; f < a->count; f++)
        if (fp->copy[f])
            memcpy(out->index + npx * (size_t)f, out->index, npx);
    return POYO_OK;
}

poyo_status quantize_anim(const anim *a, const quantize_def *def, indexed *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    colour_count cc = { NULL, NULL, 0, 0, 0 };
    frame_parts fp = { 0 };
    omp_set_num_threads(1);
    poyo_status st = quantize_check_def(def, err);
    if (st != POYO_OK)
        return st;
    size_t npx = (size_t)a->width * a->height;
    out->index = hugemem_alloc(npx, (size_t)a->count); /* every index is written */
    liq_attr *attr = liq_attr_create();
    liq_histogram *hist = NULL;
    liq_result *res = NULL;
    if (!out->index || !attr || cc_init(&cc, 1u << 14) != 0) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while quantising");
        goto done;
    }
    binarize bz = { def->alpha_threshold, def->matte, (def->matte >> 16) & 255, (def->matte >> 8) & 255,
                    def->matte & 255 };
    if (parts_init(&fp, a, def->threads) != 0) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while quantising");
        goto done;
    }
    int bad = count_colours(a, &bz, &fp, &cc);
    int any_clear = 0;
    for (size_t i = 0; i < cc.cap && !bad; i++)
        if (cc.key[i] == 0)
            any_clear = 1;
    /* keep one entry free for the transparent index when no pixel needs it */
    int maxc = any_clear ? def->colors : def->colors - 1;
    if (maxc < 2)
        maxc = 2;
    if (liq_set_max_colors(attr, maxc) != LIQ_OK || liq_set_speed(attr, def->speed) != LIQ_OK ||
        liq_set_quality(attr, def->quality_min, def->quality_max) != LIQ_OK) {
        st = poyo_fail(err, POYO_ERR_USAGE, "invalid quantiser settings");
        goto done;
    }
    hist = liq_histogram_create(attr);
    if (!hist) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while quantising");
        goto done;
    }
    st = bad ? poyo_fail(err, POYO_ERR_NOMEM, "cannot build the colour histogram") : add_histogram(hist, attr, &cc, err);
    if (st != POYO_OK)
        goto done;
    liq_error qe = liq_histogram_quantize(hist, attr, &res);
    if (qe == LIQ_QUALITY_TOO_LOW) {
        st = poyo_fail(err, POYO_ERR_INPUT, "quality floor %d cannot be met with %d colours", def->quality_min, maxc);
        goto done;
    }
    if (qe != LIQ_OK || !res) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "cannot quantise the frames");
        goto done;
    }
    int tr, n = take_palette(res, out, &tr);
    sorted_palette spal;
    sort_palette(&spal, &out->palette[0][0], n, tr);
    st = def->dither > 0.0 ? remap_dithered(a, &bz, attr, res, def->dither, &spal, tr, out, err)
                           : index_nearest(a, &bz, &fp, &spal, tr, cc.used, out, err);
    if (st != POYO_OK)
        goto done;
    out->ncolors = n < 2 ? 2 : n;
    out->transparent = tr;
    out->width = a->width;
    out->height = a->height;
    out->count = a->count;
done:
    cc_free(&cc);
    free(fp.copy);
    if (st != POYO_OK)
        indexed_free(out);
    liq_result_destroy(res);
    liq_histogram_destroy(hist);
    liq_attr_destroy(attr);
    return st;
}

/* The palette entry with some alpha nearest to the RGBA pixel px (alpha
 * counted like a colour); the pixel itself, opaque black, if there is none. */
static liq_color nearest_visible(const liq_palette *pal, const uint8_t *px)
{
    liq_color best = { 0, 0, 0, 255 };
    long best_d = -1;
    for (unsigned k = 0; k < pal->count; k++) {
        liq_color c = pal->entries[k];
        if (c.a == 0)
            continue;
        long dr = c.r - px[0], dg = c.g - px[1], db = c.b - px[2], da = c.a - px[3];
        long d = dr * dr + dg * dg + db * db + da * da;
        if (best_d < 0 || d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

/* The palette in premultiplied RGBA (0..255 each), the space budget_psnr measures in. */
typedef struct premul_palette {
    int n;
    float c[256][4];
    int visible[256];   /* entry k has some alpha */
} premul_palette;

static void premul_palette_init(premul_palette *pp, const liq_palette *pal)
{
    pp->n = (int)pal->count;
    for (int k = 0; k < pp->n; k++) {
        liq_color c = pal->entries[k];
        float a = c.a / 255.0f;
        pp->c[k][0] = c.r * a;
        pp->c[k][1] = c.g * a;
        pp->c[k][2] = c.b * a;
        pp->c[k][3] = c.a;
        pp->visible[k] = c.a > 0;
    }
}

/* The entry with some alpha nearest to the visible pixel v (RGBA packed as in
 * memory) in premultiplied RGBA; -1 when no entry has alpha. */
static int nearest_premul(const premul_palette *pp, uint32_t v)
{
    uint8_t px[4];
    memcpy(px, &v, 4);
    float a = px[3] / 255.0f, q[4] = { px[0] * a, px[1] * a, px[2] * a, px[3] };
    int best = -1;
    float bd = 0.0f;
    for (int k = 0; k < pp->n; k++) {
        if (!pp->visible[k])
            continue;
        float d = 0.0f;
        for (int j = 0; j < 4; j++)
            d += (q[j] - pp->c[k][j]) * (q[j] - pp->c[k][j]);
        if (best < 0 || d < bd) {
            bd = d;
            best = k;
        }
    }
    return best;
}

/* An exact histogram of the RGBA pixels of every frame (every clear pixel
 * counted as one colour), handed to libimagequant. */
static poyo_status reduce_histogram(const anim *a, liq_attr *attr, liq_histogram *hist, int *clear, poyo_error *err)
{
    size_t npx = (size_t)a->width * a->height;
    colour_count cc = { NULL, NULL, 0, 0, 0 };
    unsigned long white = 0; /* opaque white, whose key is cc's EMPTY */
    if (cc_init(&cc, 1u << 14) != 0) {
        cc_free(&cc);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory while reducing colours");
    }
    int bad = 0;
    *clear = 0;
    for (int f = 0; f < a->count && !bad; f++) {
        const uint8_t *sp = anim_frame(a, f);
        uint32_t last = load_px(sp);
        unsigned run = 1;
        for (size_t i = 1; i <= npx && !bad; i++) {
            uint32_t v = i < npx ? load_px(sp + 4 * i) : ~last;
            if (v == last) {
                run++;
                continue;
            }
            uint8_t px[4];
            memcpy(px, &last, 4);
            uint32_t k = px[3] == 0 ? 0u : (uint32_t)px[0] << 24 | (uint32_t)px[1] << 16 | (uint32_t)px[2] << 8 | px[3];
            *clear |= px[3] == 0;
            if (k == EMPTY)
                white += run;
            else
                bad = cc_add(&cc, k, run) != 0;
            last = v;
            run = 1;
        }
    }
    liq_histogram_entry *e = bad ? NULL : malloc((cc.used + 1) * sizeof *e);
    size_t ne = 0;
    if (e) {
        for (size_t i = 0; i < cc.cap; i++) {
            if (cc.key[i] == EMPTY)
                continue;
            uint32_t k = cc.key[i];
            e[ne].color = (liq_color){ (unsigned char)(k >> 24), (unsigned char)(k >> 16), (unsigned char)(k >> 8),
                                       (unsigned char)k };
            e[ne++].count = cc.count[i];
        }
        if (white) {
            e[ne].color = (liq_color){ 255, 255, 255, 255 };
            e[ne++].count = white > 0xffffffffu ? 0xffffffffu : (unsigned)white;
        }
    }
    liq_error he = e ? hist_add(hist, attr, e, ne) : LIQ_OUT_OF_MEMORY;
    free(e);
    cc_free(&cc);
    if (he != LIQ_OK)
        return poyo_fail(err, POYO_ERR_NOMEM, "cannot build the colour histogram");
    return POYO_OK;
}

/* Remaps every frame of a to the nearest entries of pal (premultiplied RGBA, no
 * dithering), each distinct pixel value looked up once. */
static poyo_status remap_nearest(anim *a, const liq_palette *pal, poyo_error *err)
{
    cache_slot *cache = cache_new(CACHE_BITS_MAX);
    unsigned used = 0;
    if (!cache)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory while reducing colours");
    premul_palette pp;
    premul_palette_init(&pp, pal);
    size_t npx = (size_t)a->width * a->height;
    for (int f = 0; f < a->count; f++) {
        uint8_t *p = anim_frame(a, f);
        uint32_t raw = ~load_px(p), out = 0;
        for (size_t i = 0; i < npx; i++) {
            uint32_t v = load_px(p + 4 * i);
            if (v != raw) { /* a run of one value keeps its colour */
                raw = v;
                liq_color c = { 0, 0, 0, 0 };
                if (p[4 * i + 3] != 0) {
                    int *e = cache_find(cache, 32 - CACHE_BITS_MAX, &used, v);
                    if (*e < 0) {
                        int k = nearest_premul(&pp, v);
                        *e = k < 0 ? 256 : k;
                    }
                    c = *e < 256 ? pal->entries[*e] : nearest_visible(pal, p + 4 * i);
                }
                uint8_t q[4] = { c.a ? c.r : 0, c.a ? c.g : 0, c.a ? c.b : 0, c.a };
                memcpy(&out, q, 4);
            }
            memcpy(p + 4 * i, &out, 4);
        }
    }
    free(cache);
    return POYO_OK;
}

poyo_status quantize_reduce(anim *a, int colors, double dither, poyo_error *err)
{
    omp_set_num_threads(1);
    if (colors < QUANTIZE_COLORS_MIN || colors > QUANTIZE_COLORS_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "colours must be %d to %d, not %d", QUANTIZE_COLORS_MIN,
                         QUANTIZE_COLORS_MAX, colors);
    size_t npx = (size_t)a->width * a->height;
    liq_attr *attr = liq_attr_create();
    liq_histogram *hist = attr ? liq_histogram_create(attr) : NULL;
    liq_result *res = NULL;
    uint8_t *ix = NULL;
    poyo_status st = POYO_OK;
    if (!attr || !hist || liq_set_max_colors(attr, colors) != LIQ_OK) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while reducing colours");
        goto done;
    }
    int clear = 0; /* some pixel is fully transparent */
    st = reduce_histogram(a, attr, hist, &clear, err);
    /* a palette of few colours may otherwise give the clear background a faint
     * colour of its own: a box around the stamp */
    if (st == POYO_OK && clear && liq_histogram_add_fixed_color(hist, (liq_color){ 0, 0, 0, 0 }, 0.0) != LIQ_OK)
        st = poyo_fail(err, POYO_ERR_NOMEM, "cannot reserve the transparent colour");
    if (st != POYO_OK)
        goto done;
    if (liq_histogram_quantize(hist, attr, &res) != LIQ_OK || !res) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "cannot reduce the colours");
        goto done;
    }
    if (dither <= 0.0) {
        st = remap_nearest(a, liq_get_palette(res), err);
        goto done;
    }
    liq_set_dithering_level(res, (float)dither);
    const liq_palette *pal = liq_get_palette(res);
    ix = malloc(npx);
    if (!ix) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while reducing colours");
        goto done;
    }
    for (int f = 0; f < a->count && st == POYO_OK; f++) {
        uint8_t *p = anim_frame(a, f);
        liq_image *img = liq_image_create_rgba(attr, p, a->width, a->height, 0);
        if (!img || liq_write_remapped_image(res, img, ix, npx) != LIQ_OK) {
            st = poyo_fail(err, POYO_ERR_NOMEM, "cannot remap a frame");
        } else {
            for (size_t i = 0; i < npx; i++) {
                /* a clear pixel stays clear, a visible one visible (dithering may swap them) */
                liq_color c = pal->entries[ix[i]];
                if (p[4 * i + 3] == 0)
                    c = (liq_color){ 0, 0, 0, 0 };
                else if (c.a == 0)
                    c = nearest_visible(pal, p + 4 * i);
                p[4 * i + 0] = c.a ? c.r : 0;
                p[4 * i + 1] = c.a ? c.g : 0;
                p[4 * i + 2] = c.a ? c.b : 0;
                p[4 * i + 3] = c.a;
            }
        }
        liq_image_destroy(img);
    }
done:
    free(ix);
    liq_result_destroy(res);
    liq_histogram_destroy(hist);
    liq_attr_destroy(attr);
    return st;
}
