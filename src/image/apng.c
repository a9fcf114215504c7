/* apng.c - APNG writer following the APNG 1.0 specification (Mozilla wiki) and
 * PNG (ISO/IEC 15948): each later frame stores only the rectangle that changed,
 * compressed by libdeflate. One row filter serves the whole clip, None or Up,
 * whichever makes the first frame smaller: a stamp's flat colours (and any
 * clip cut to a palette) repeat best unfiltered, a smooth upscale best as Up.
 * The later frames are compressed side by side, each run of them by a
 * compressor of its own, and written in order: the bytes do not depend on
 * the number of threads. */
#include "apng.h"

#include <libdeflate.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/workers.h"

#define MAX_CHUNK_DATA (1u << 30)

enum { DISPOSE_NONE = 0 };
enum { BLEND_SOURCE = 0, BLEND_OVER = 1 };
enum { FILTER_NONE = 0, FILTER_UP = 2 };

typedef anim_rect rect;

apng_options apng_default_def(void)
{
    apng_options o = { .level = 6, .threads = 1 };
    return o;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* One chunk whose data is head (hn bytes) followed by body (bn bytes). */
static poyo_status put_chunk(bytebuf *out, const char *type, const uint8_t *head, size_t hn,
                             const uint8_t *body, size_t bn, poyo_error *err)
{
    uint8_t lt[8];
    put32(lt, (uint32_t)(hn + bn));
    memcpy(lt + 4, type, 4);
    uint32_t crc = libdeflate_crc32(0, lt + 4, 4);
    if (hn)
        crc = libdeflate_crc32(crc, head, hn);
    if (bn)
        crc = libdeflate_crc32(crc, body, bn);
    uint8_t c[4];
    put32(c, crc);
    poyo_status st = bytebuf_reserve(out, 12 + hn + bn, err);
    if (st == POYO_OK)
        st = bytebuf_append(out, lt, 8, err);
    if (st == POYO_OK)
        st = bytebuf_append(out, head, hn, err);
    if (st == POYO_OK)
        st = bytebuf_append(out, body, bn, err);
    if (st == POYO_OK)
        st = bytebuf_append(out, c, 4, err);
    return st;
}

/* Writes rows of w RGBA pixels (stride bytes apart) into dst, each behind its
 * filter byte: None, or Up (the row minus the row above; the first row is
 * stored as None, which is Up against a row of zeros). */
static void filter_image(const uint8_t *src, size_t stride, int w, int h, int filter, uint8_t *dst)
{
    size_t rb = (size_t)w * 4u;
    for (int y = 0; y < h; y++) {
        const uint8_t *cur = src + (size_t)y * stride;
        uint8_t *d = dst + (size_t)y * (rb + 1);
        if (filter == FILTER_UP && y > 0) {
            const uint8_t *up = cur - stride;
            d[0] = FILTER_UP;
            for (size_t i = 0; i < rb; i++)
                d[1 + i] = (uint8_t)(cur[i] - up[i]);
        } else {
            d[0] = FILTER_NONE;
            memcpy(d + 1, cur, rb);
        }
    }
}

/* Replaces z's contents with the zlib stream of the n filtered bytes in. */
static poyo_status zcompress(struct libdeflate_compressor *c, const uint8_t *in, size_t n, bytebuf *z,
                             poyo_error *err)
{
    z->len = 0;
    size_t bound = libdeflate_zlib_compress_bound(c, n);
    poyo_status st = bytebuf_reserve(z, bound, err);
    if (st != POYO_OK)
        return st;
    z->len = libdeflate_zlib_compress(c, in, n, z->data, z->cap);
    if (z->len == 0)
        return poyo_fail(err, POYO_ERR_NOMEM, "DEFLATE compression failed");
    return POYO_OK;
}

/* Numerator and denominator of frame i's delay. */
static poyo_status frame_delay(const anim *a, int i, int exact, const int *ms, unsigned *num, unsigned *den,
                               poyo_error *err)
{
    if (exact) {
        *num = (unsigned)a->hold[i];
        *den = (unsigned)a->fps;
        return POYO_OK;
    }
    static const int dens[] = { 1000, 100, 10, 1 };
    for (int k = 0; k < 4; k++) {
        long v = lround((double)ms[i] * dens[k] / 1000.0);
        if (v <= 65535) {
            *num = (unsigned)v;
            *den = (unsigned)dens[k];
            return POYO_OK;
        }
    }
    return poyo_fail(err, POYO_ERR_USAGE, "frame %d is held %d ms, longer than APNG can store", i + 1, ms[i]);
}

static poyo_status check_anim(const anim *a, const apng_options *o, poyo_error *err)
{
    poyo_status st = anim_check_encodable(a, "APNG", err);
    if (st != POYO_OK)
        return st;
    if (a->loop < 0)
        return poyo_fail(err, POYO_ERR_USAGE, "loop count %d is negative", a->loop);
    if (o->level < 0 || o->level > 12)
        return poyo_fail(err, POYO_ERR_USAGE, "APNG compression level %d is outside 0-12", o->level);
    if (o->threads < 1 || o->threads > WORKERS_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "APNG threads %d is outside 1-%d", o->threads, WORKERS_MAX);
    if ((size_t)a->width * 4u + 1u > (size_t)MAX_CHUNK_DATA)
        return poyo_fail(err, POYO_ERR_USAGE, "animation width %d is too large for APNG", a->width);
    return POYO_OK;
}

/* Compressed data in chunks of at most MAX_CHUNK_DATA: IDAT, or fdAT each with
 * its own sequence number. */
static poyo_status put_data(bytebuf *out, int fdat, const bytebuf *z, uint32_t *seq, poyo_error *err)
{
    size_t off = 0;
    poyo_status st = POYO_OK;
    do {
        size_t n = z->len - off > MAX_CHUNK_DATA ? MAX_CHUNK_DATA : z->len - off;
        if (fdat) {
            uint8_t s[4];
            put32(s, (*seq)++);
            st = put_chunk(out, "fdAT", s, 4, z->data + off, n, err);
        } else {
            st = put_chunk(out, "IDAT", NULL, 0, z->data + off, n, err);
        }
        off += n;
    } while (st == POYO_OK && off < z->len);
    return st;
}

/* The signature, IHDR and acTL: the canvas, RGBA 8-bit, the frame and play counts. */
static poyo_status write_head(const anim *a, bytebuf *out, poyo_error *err)
{
    static const uint8_t sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
    uint8_t ihdr[13], actl[8];
    put32(ihdr, (uint32_t)a->width);
    put32(ihdr + 4, (uint32_t)a->height);
    ihdr[8] = 8;   /* bit depth */
    ihdr[9] = 6;   /* RGBA */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    put32(actl, (uint32_t)a->count);
    put32(actl + 4, (uint32_t)a->loop);
    poyo_status st = bytebuf_append(out, sig, 8, err);
    if (st == POYO_OK)
        st = put_chunk(out, "IHDR", ihdr, 13, NULL, 0, err);
    if (st == POYO_OK)
        st = put_chunk(out, "acTL", actl, 8, NULL, 0, err);
    return st;
}

/* What the frames share while they are encoded: the compressor, the scratch
 * buffers and the clip's row filter. */
typedef struct coder {
    struct libdeflate_compressor *dc;
    uint8_t *filtered;   /* a rectangle's rows behind their filter bytes */
    uint8_t *over;       /* a rectangle's pixels for blend OVER */
    bytebuf z, z2;       /* the frame's zlib stream; a trial one */
    int filter;
} coder;

/* The rectangle of frame i to store: the whole first frame, else what changed. */
static rect frame_rect(const anim *a, int i)
{
    rect r = { 0, 0, a->width, a->height };
    if (i > 0) {
        r = anim_diff_rect(a, i - 1, i);
        if (r.w == 0)
            r = (rect){ 0, 0, 1, 1 };   /* unchanged frame: rewrite one equal pixel */
    }
    return r;
}

/* Compresses rectangle r of frame i into z, its rows with the given filter. */
static poyo_status compress_into(coder *c, const anim *a, int i, rect r, int filter, bytebuf *z, poyo_error *err)
{
    size_t rb = (size_t)a->width * 4u;
    const uint8_t *src = anim_frame(a, i) + (size_t)r.y * rb + (size_t)r.x * 4u;
    size_t n = (size_t)r.h * ((size_t)r.w * 4u + 1u);
    filter_image(src, rb, r.w, r.h, filter, c->filtered);
    return zcompress(c->dc, c->filtered, n, z, err);
}

/* Compresses rectangle r of frame i into c->z with c's filter. */
static poyo_status compress_rect(coder *c, const anim *a, int i, rect r, poyo_error *err)
{
    return compress_into(c, a, i, r, c->filter, &c->z, err);
}

/* Tries rectangle r of frame i (i > 0) as blend OVER, unchanged pixels
 * transparent, and keeps it in c->z when smaller; *blend says which is kept. */
static poyo_status try_over(coder *c, const anim *a, int i, rect r, int *blend, poyo_error *err)
{
    size_t n = (size_t)r.h * ((size_t)r.w * 4u + 1u);
    /* OVER with unchanged pixels transparent is exact when every changed pixel is opaque. */
    if (!anim_over_rect(a, i, r, c->over))
        return POYO_OK;
    size_t orb = (size_t)r.w * 4u;
    filter_image(c->over, orb, r.w, r.h, c->filter, c->filtered);
    poyo_status st = zcompress(c->dc, c->filtered, n, &c->z2, err);
    if (st != POYO_OK)
        return st;
    if (c->z2.len < c->z.len) {
        bytebuf t = c->z;
        c->z = c->z2;
        c->z2 = t;
        *blend = BLEND_OVER;
    }
    return POYO_OK;
}

/* Frame i's fcTL (rectangle r, its delay, blend) and then its data, z. */
static poyo_status write_frame(bytebuf *out, const anim *a, int i, rect r, int blend, int exact, const int *ms,
                               const bytebuf *z, uint32_t *seq, poyo_error *err)
{
    unsigned num = 0, den = 1;
    poyo_status st = frame_delay(a, i, exact, ms, &num, &den, err);
    if (st != POYO_OK)
        return st;
    uint8_t fctl[26];
    put32(fctl, (*seq)++);
    put32(fctl + 4, (uint32_t)r.w);
    put32(fctl + 8, (uint32_t)r.h);
    put32(fctl + 12, (uint32_t)r.x);
    put32(fctl + 16, (uint32_t)r.y);
    put16(fctl + 20, num);
    put16(fctl + 22, den);
    fctl[24] = DISPOSE_NONE;
    fctl[25] = (uint8_t)blend;
    st = put_chunk(out, "fcTL", fctl, 26, NULL, 0, err);
    if (st == POYO_OK)
        st = put_data(out, i > 0, z, seq, err);
    return st;
}

/* Frees what coder_init allocated (each pointer may be NULL). */
static void coder_free(coder *c)
{
    bytebuf_free(&c->z);
    bytebuf_free(&c->z2);
    free(c->filtered);
    free(c->over);
    libdeflate_free_compressor(c->dc);
    memset(c, 0, sizeof *c);
}

/* A coder for frames of fb bytes and h rows, with the clip's filter. */
static poyo_status coder_init(coder *c, int level, size_t fb, int h, int filter, poyo_error *err)
{
    memset(c, 0, sizeof *c);
    c->filter = filter;
    c->filtered = malloc(fb + (size_t)h);
    c->over = malloc(fb);
    c->dc = libdeflate_alloc_compressor(level);
    if (!c->filtered || !c->over || !c->dc) {
        coder_free(c);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for an APNG compressor");
    }
    return POYO_OK;
}

/* One stored frame: its rectangle, how it is drawn and its zlib stream. */
typedef struct stored {
    rect r;
    int blend;
    bytebuf z;
} stored;

/* The work the threads share: the frames, a run of them for each part, and
 * the first failure. */
typedef struct job {
    const anim *a;
    int level, filter;
    coder *first_try;   /* the first frame's coders, one per filter tried side by
                         * side (the second unused on one thread); then the
                         * coders of the later frames' first runs */
    int tried;          /* how many of them are in use */
    stored *f;
    int first[WORKERS_MAX + 1];
    atomic_int failed;
    poyo_status status;   /* the status and message of the part that failed first */
    poyo_error err;
} job;

/* Compresses frame i (i > 0), its rectangle planned, with coder c into
 * j->f[i], a copy of c's stream as long as it is (c's buffers serve its next
 * frame). */
static poyo_status code_frame(job *j, coder *c, int i, poyo_error *err)
{
    stored *s = &j->f[i];
    s->blend = BLEND_SOURCE;
    poyo_status st = compress_rect(c, j->a, i, s->r, err);
    if (st == POYO_OK)
        st = try_over(c, j->a, i, s->r, &s->blend, err);
    if (st != POYO_OK)
        return st;
    s->z.data = malloc(c->z.len);
    if (!s->z.data)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for an APNG frame of %zu bytes", c->z.len);
    memcpy(s->z.data, c->z.data, c->z.len);
    s->z.len = s->z.cap = c->z.len;
    return POYO_OK;
}

/* Part k of the job: its run of frames, on the first frame's coder k (while
 * there is one) or a coder of its own. */
static void code_part(void *arg, int k)
{
    job *j = arg;
    coder own, *c = k < j->tried ? &j->first_try[k] : &own;
    poyo_error err;
    poyo_status st = POYO_OK;
    if (k < j->tried)
        c->filter = j->filter;
    else
        st = coder_init(c, j->level, anim_frame_bytes(j->a), j->a->height, j->filter, &err);
    for (int i = j->first[k]; st == POYO_OK && i < j->first[k + 1]; i++)
        if (!atomic_load(&j->failed))   /* else another part has failed */
            st = code_frame(j, c, i, &err);
    if (k >= j->tried)
        coder_free(c);
    if (st != POYO_OK && !atomic_exchange(&j->failed, 1)) {
        j->status = st;
        j->err = err;
    }
}

/* Compresses frames 1 to count - 1 into j->f, on up to `threads` threads. */
static poyo_status code_later(job *j, int threads, poyo_error *err)
{
    const anim *a = j->a;
    int later = a->count - 1;
    if (later < 1)
        return POYO_OK;
    double *weight = malloc((size_t)later * sizeof *weight);
    if (!weight)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d APNG frames", a->count);
    for (int i = 1; i < a->count; i++) {
        j->f[i].r = frame_rect(a, i);
        weight[i - 1] = (double)j->f[i].r.w * j->f[i].r.h + 1.0;
    }
    int parts = workers_split(weight, later, threads, j->first);
    free(weight);
    for (int k = 0; k <= parts; k++)
        j->first[k]++;   /* runs of frame numbers, from frame 1 */
    atomic_init(&j->failed, 0);
    workers_run(parts, threads, code_part, j);
    if (!atomic_load(&j->failed))
        return POYO_OK;
    if (err)
        *err = j->err;
    return j->status;
}

/* Part k of the first frame's trials: the whole frame with filter k. */
static void code_first_part(void *arg, int k)
{
    job *j = arg;
    coder *c = &j->first_try[k];
    poyo_error err;
    poyo_status st = compress_rect(c, j->a, 0, frame_rect(j->a, 0), &err);
    if (st != POYO_OK && !atomic_exchange(&j->failed, 1)) {
        j->status = st;
        j->err = err;
    }
}

/* Compresses the first frame, whole, unfiltered and (when it has more than
 * one row) Up-filtered: on two threads or more side by side, c[1] made for
 * the second, else (or when c[1] cannot be made) one after the other on
 * c[0]. The smaller stream, in c[0].z, picks the clip's filter, j->filter. */
static poyo_status code_first(job *j, coder c[2], int threads, size_t fb, poyo_error *err)
{
    int tries = j->a->height > 1 ? 2 : 1;
    rect r = frame_rect(j->a, 0);
    bytebuf *up = &c[0].z2;
    poyo_status st = POYO_OK;
    j->first_try = c;
    j->tried = 1;
    if (tries == 2 && threads > 1 && coder_init(&c[1], j->level, fb, j->a->height, FILTER_UP, err) == POYO_OK) {
        j->tried = 2;
        atomic_init(&j->failed, 0);
        workers_run(2, threads, code_first_part, j);
        if (atomic_load(&j->failed)) {
            if (err)
                *err = j->err;
            return j->status;
        }
        up = &c[1].z;
    } else {
        st = compress_into(&c[0], j->a, 0, r, FILTER_NONE, &c[0].z, err);
        if (st == POYO_OK && tries == 2)
            st = compress_into(&c[0], j->a, 0, r, FILTER_UP, up, err);
    }
    j->filter = FILTER_NONE;
    if (st == POYO_OK && tries == 2 && up->len < c[0].z.len) {
        bytebuf t = c[0].z;
        c[0].z = *up;
        *up = t;
        j->filter = FILTER_UP;
    }
    return st;
}

poyo_status apng_encode(const anim *a, const apng_options *opt, bytebuf *out, poyo_error *err)
{
    apng_options o = opt ? *opt : apng_default_def();
    poyo_status st = check_anim(a, &o, err);
    if (st != POYO_OK)
        return st;
    int w = a->width, h = a->height;
    size_t rb = (size_t)w * 4u;
    size_t fb = anim_frame_bytes(a);
    if (fb / rb != (size_t)h || (size_t)h > (SIZE_MAX - fb) / 2u)
        return poyo_fail(err, POYO_ERR_NOMEM, "animation frames of %dx%d are too large", w, h);

    int exact = a->fps == floor(a->fps) && a->fps <= 65535.0;
    for (int i = 0; exact && i < a->count; i++)
        exact = a->hold[i] <= 65535;

    coder c[2];
    memset(&c[1], 0, sizeof c[1]);
    job j = { .a = a, .level = o.level };
    int *ms = malloc((size_t)a->count * sizeof *ms);
    j.f = calloc((size_t)a->count, sizeof *j.f);
    st = coder_init(&c[0], o.level, fb, h, FILTER_NONE, err);
    if (st == POYO_OK && (!ms || !j.f))
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory encoding %d APNG frames", a->count);
    if (st != POYO_OK)
        goto done;
    anim_delays(a, 1000, 1, ms);

    /* the first frame, whole, picks the clip's filter; the others follow it */
    st = code_first(&j, c, o.threads, fb, err);
    if (st == POYO_OK)
        st = write_head(a, out, err);
    uint32_t seq = 0;
    if (st == POYO_OK)
        st = write_frame(out, a, 0, frame_rect(a, 0), BLEND_SOURCE, exact, ms, &c[0].z, &seq, err);
    if (st == POYO_OK)
        st = code_later(&j, o.threads, err);
    for (int i = 1; st == POYO_OK && i < a->count; i++)
        st = write_frame(out, a, i, j.f[i].r, j.f[i].blend, exact, ms, &j.f[i].z, &seq, err);
    if (st == POYO_OK)
        st = put_chunk(out, "IEND", NULL, 0, NULL, 0, err);
done:
    for (int i = 0; j.f && i < a->count; i++)
        bytebuf_free(&j.f[i].z);
    free(j.f);
    free(ms);
    coder_free(&c[0]);
    coder_free(&c[1]);
    return st;
}
