/* gif.c - writes the indexed frames as GIF89a with an LZW encoder of its own
 * (the bytes giflib's encoder writes, GIF89a appendix F), or a lossy one that
 * lets a string go on with a nearby palette colour, and start with one, where
 * that takes it further down the table. For each frame the
 * previous frame's disposal is chosen (keep, or restore to background when a
 * pixel must turn transparent) so that only the changed rectangle is stored
 * and unchanged pixels inside it become the transparent index. */
#include "gif.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/workers.h"


/* the LZW table: open addressing, at most 4093 entries in 8192 slots */
#define LZW_BITS 13
#define LZW_SLOTS (1u << LZW_BITS)
#define LZW_EMPTY 0xffffffffu

/* pixels whose strings exact LZW keeps in tables of their own */
#define LZW_DIRECT 4
/* the longest string a lossy writer follows at once, and how far it follows
 * the tree to choose among a pixel's stand-ins */
#define LZW_PATH 4096
#define LOOKAHEAD 6

/* GIF disposal methods (GIF89a, 23.c.iv) */
#define DISPOSE_DO_NOT 1
#define DISPOSE_BACKGROUND 2

/* The bytes written so far and the LZW state of the image being written:
 * GIF's variable-length-code LZW (GIF89a, appendix F), codes packed from the
 * low bit up, gathered for the whole image and then cut into sub-blocks of
 * 255 bytes. */
typedef struct gif_writer {
    bytebuf *out;
    int failed;
    uint8_t *code;        /* the image's packed codes so far: ncode bytes of at most LZW_CODE_BYTES(pixels) */
    size_t ncode;
    uint64_t acc;         /* bits not yet in code, low bits first */
    int nacc;
    int min_bits, clear, next, bits, limit; /* codes: clear, next free, width, 1 << width */
    int prefix;           /* code of the string matched so far, -1 before the first pixel */
    uint32_t slot[LZW_SLOTS]; /* (prefix << 8 | pixel) << 12 | code, or LZW_EMPTY */
    /* exact LZW: the strings that go on with one of a few common pixels
     * (the transparent index and the clip's commonest colours) are kept in
     * tables indexed by code instead of slot */
    int8_t direct[256];   /* the table in child_of for each pixel, or -1 (its strings are in slot) */
    uint16_t child_of[LZW_DIRECT][4096]; /* the code of each code's string followed by that pixel, 0 for none */
    /* lossy LZW: a pixel may be written as a stand-in, a palette entry up to
     * the loss away, where that makes a string longer */
    long loss2;           /* largest squared RGB distance allowed, 0 = exact */
    int tr;               /* the transparent index: never swapped, never swapped in */
    const uint8_t (*pal)[3];
    int ncolors;
    uint8_t suffix[4096];         /* the last pixel of each code's string */
    uint64_t kids[4096][4];       /* the pixels each code's string goes on with in the table, as a set */
    uint8_t near[256][256];       /* each entry's stand-ins, itself first, then nearest first, */
    int16_t nnear[256];           /* how many, */
    uint64_t near_mask[256][4];   /* and as a set */
    const uint8_t *px;            /* the image being written, n pixels */
    int n;
    int path[LZW_PATH + 1];       /* the string being followed: its codes, */
    uint8_t written[LZW_PATH + 1]; /* and the pixels written for it */
} gif_writer;

/* Bytes an image of n pixels packs its codes into at most: a code per pixel
 * and a clear code per table of 4093 entries, at 12 bits, with the first and
 * the last codes and the bits not yet a whole byte (four bytes at a time). */
#define LZW_CODE_BYTES(n) ((size_t)(n) * 2 + 64)

static void gif_start(gif_writer *g, bytebuf *out, int loss, int tr, const uint8_t (*pal)[3])
{
    g->out = out;
    g->failed = 0;
    g->loss2 = (long)loss * loss;
    g->tr = tr;
    memset(g->direct, -1, sizeof g->direct);
    g->pal = pal;
    g->next = 4096; /* lzw_reset clears the table of every code */
}

static void gif_put(gif_writer *g, const uint8_t *p, size_t n)
{
    if (!g->failed && bytebuf_append(g->out, p, n, NULL) != POYO_OK)
        g->failed = 1;
}

/* Writes code at the current width; the width grows once the next code to
 * be made needs it (as giflib does, so the bytes match its encoder's). */
static inline void lzw_code(gif_writer *g, int code)
{
    g->acc |= (uint64_t)code << g->nacc;
    g->nacc += g->bits;
    if (g->nacc >= 32) {
        uint8_t *d = g->code + g->ncode;
        d[0] = (uint8_t)g->acc;
        d[1] = (uint8_t)(g->acc >> 8);
        d[2] = (uint8_t)(g->acc >> 16);
        d[3] = (uint8_t)(g->acc >> 24);
        g->ncode += 4;
        g->acc >>= 32;
        g->nacc -= 32;
    }
    if (g->next >= g->limit && g->bits < 12)
        g->limit = 1 << ++g->bits;
}

static void lzw_reset(gif_writer *g)
{
    if (g->loss2)
        memset(g->kids, 0, sizeof g->kids[0] * (size_t)g->next); /* the codes that may have children */
    else
        memset(g->child_of, 0, sizeof g->child_of);
    g->next = g->clear + 2;
    g->bits = g->min_bits + 1;
    g->limit = 1 << g->bits;
    memset(g->slot, 0xff, sizeof g->slot);
}

/* Starts an image's data: the minimum code size, then a clear code. */
static void lzw_start(gif_writer *g, int min_bits)
{
    uint8_t b = (uint8_t)min_bits;
    gif_put(g, &b, 1);
    g->min_bits = min_bits;
    g->clear = 1 << min_bits;
    g->ncode = 0;
    g->acc = 0;
    g->nacc = 0;
    g->prefix = -1;
    lzw_reset(g);
    lzw_code(g, g->clear);
}

static inline size_t lzw_hash(uint32_t key) { return (key * 2654435761u) >> (32 - LZW_BITS); }

/* The slot of key (prefix << 8 | pixel) in the table: where its entry is,
 * or the empty slot where it goes. */
static inline size_t lzw_find(const gif_writer *g, uint32_t key)
{
    size_t h = lzw_hash(key);
    uint32_t e;
    while ((e = g->slot[h]) != LZW_EMPTY && e >> 12 != key)
        h = (h + 1) & (LZW_SLOTS - 1);
    return h;
}

/* The exact child of code c for pixel px, or -1. */
static int lzw_child(const gif_writer *g, int c, int px)
{
    uint32_t e = g->slot[lzw_find(g, (uint32_t)c << 8 | (uint32_t)px)];
    return e == LZW_EMPTY ? -1 : (int)(e & 0xfff);
}

/* Each palette entry's stand-ins for a lossy writer: the entries up to the
 * loss away (squared RGB distance at most loss2), nearest first, itself
 * first of all; the transparent index is never swapped in or out. */
static void lossy_candidates(gif_writer *g)
{
    memset(g->near_mask, 0, sizeof g->near_mask);
    for (int q = 0; q < 256; q++) {
        int32_t d2[256];
        int n = 0;
        for (int s = 0; s < g->ncolors && q < g->ncolors; s++) {
            long d = 0;
            for (int c = 0; c < 3; c++)
                d += (g->pal[q][c] - g->pal[s][c]) * (g->pal[q][c] - g->pal[s][c]);
            if (s == q)
                d = -1;
            else if (d > g->loss2 || s == g->tr || q == g->tr)
                continue;
            int k = n++;
            for (; k > 0 && d2[k - 1] > d; k--) {
                g->near[q][k] = g->near[q][k - 1];
                d2[k] = d2[k - 1];
            }
            g->near[q][k] = (uint8_t)s;
            d2[k] = (int32_t)d;
            g->near_mask[q][s >> 6] |= 1ull << (s & 63);
        }
        g->nnear[q] = (int16_t)n;
    }
}

/* Whether some child of code c is a stand-in for pixel value q. */
static inline int any_near_child(const gif_writer *g, int c, int q)
{
    const uint64_t *a = g->kids[c], *b = g->near_mask[q];
    return ((a[0] & b[0]) | (a[1] & b[1]) | (a[2] & b[2]) | (a[3] & b[3])) != 0;
}

static inline int has_child(const gif_writer *g, int c, int s) { return g->kids[c][s >> 6] >> (s & 63) & 1; }

/* The child of code c for the nearest stand-in for pixel i, or -1. */
static int lzw_nearest(const gif_writer *g, int c, int i)
{
    int q = g->px[i];
    if (!any_near_child(g, c, q))
        return -1;
    for (int j = 0;; j++)
        if (has_child(g, c, g->near[q][j]))
            return lzw_child(g, c, g->near[q][j]);
}

/* How many pixels from i on the table's tree follows from code c, each the
 * child lzw_nearest takes, at most limit. */
static int lzw_reach(const gif_writer *g, int c, int i, int limit)
{
    int len = 0;
    for (; i + len < g->n && len < limit; len++) {
        c = lzw_nearest(g, c, i + len);
        if (c < 0)
            break;
    }
    return len;
}

/* Of the strings that go on from code c (from nothing when c < 0: the
 * strings of one pixel) with a stand-in for pixel i, the one the next
 * LOOKAHEAD pixels follow furthest (the nearer on a tie), or -1. */
static int lossy_step(const gif_writer *g, int c, int i)
{
    int q = g->px[i], best = -1, reach = -1;
    if (c >= 0 && !any_near_child(g, c, q))
        return -1;
    for (int j = 0; j < g->nnear[q]; j++) {
        int s = g->near[q][j], k = s;
        if (c >= 0) {
            if (!has_child(g, c, s))
                continue;
            k = lzw_child(g, c, s);
        }
        int r = lzw_reach(g, k, i + 1, LOOKAHEAD);
        if (r > reach) {
            reach = r;
            best = k;
            if (r == LOOKAHEAD || i + 1 + r == g->n)
                break;
        }
    }
    return best;
}

/* How many pixels from i on the tree follows from code c: the exact child
 * where there is one, else lossy_step's; each code reached goes to code[],
 * each pixel written to out[]. */
static int lossy_path(const gif_writer *g, int c, int i, int *code, uint8_t *out)
{
    int len = 0;
    for (; i + len < g->n && len < LZW_PATH; len++) {
        int q = g->px[i + len], k = has_child(g, c, q) ? lzw_child(g, c, q) : lossy_step(g, c, i + len);
        if (k < 0)
            break;
        code[len] = k;
        out[len] = g->suffix[k];
        c = k;
    }
    return len;
}

/* Adds the entry the decoder makes after a string of code c: c followed by
 * pixel px, the first of the next string; when the table is full, starts
 * afresh instead. (A string ends only where no stand-in for the next pixel
 * goes on from it, so the table never has that string already; were it
 * there, the decoder's entry would be a code never used.) */
static void lzw_add(gif_writer *g, int c, int px)
{
    if (g->next >= 4095) { /* the table is full: start afresh */
        lzw_code(g, g->clear);
        lzw_reset(g);
        return;
    }
    int code = g->next++;
    uint32_t key = (uint32_t)c << 8 | (uint32_t)px;
    size_t h = lzw_find(g, key);
    if (g->slot[h] != LZW_EMPTY)
        return;
    g->suffix[code] = (uint8_t)px;
    g->kids[c][px >> 6] |= 1ull << (px & 63);
    g->slot[h] = key << 12 | (uint32_t)code;
}

/* The LZW of a lossy writer, over a whole image of n pixels (the rows one
 * after another): each string follows the table as far as stand-ins let it,
 * and starts with the stand-in for its first pixel whose strings go furthest
 * when its own do not reach LOOKAHEAD pixels (the first pixel decides which
 * branch of the table the whole string can take: choosing it halves the
 * bytes at a loss of 10 where choosing only later pixels saved a third);
 * px then holds what was written. */
static void lzw_image_lossy(gif_writer *g, uint8_t *px, int n)
{
    g->px = px;
    g->n = n;
    for (int p = 0, prev = -1; p < n;) {
        /* the string's first pixel (its own, first among its stand-ins, unless
         * another reaches further), then the rest */
        int root = g->nnear[px[p]] > 1 ? lossy_step(g, -1, p) : px[p];
        if (prev >= 0)
            lzw_add(g, prev, root);
        g->path[0] = root;
        g->written[0] = (uint8_t)root;
        int len = 1 + lossy_path(g, root, p + 1, g->path + 1, g->written + 1);
        memcpy(px + p, g->written, (size_t)len);
        prev = g->path[len - 1];
        lzw_code(g, prev);
        p += len;
    }
}

/* Adds n pixels to the image's data (an exact writer's). */
static void lzw_pixels(gif_writer *g, const uint8_t *px, int n)
{
    int i = 0, prefix = g->prefix;
    if (prefix < 0 && n > 0)
        prefix = px[i++];
    for (; i < n; i++) {
        uint32_t key = (uint32_t)prefix << 8 | px[i], e;
        size_t h = 0;
        int d = g->direct[px[i]];
        if (d >= 0) {
            if (g->child_of[d][prefix]) {
                prefix = g->child_of[d][prefix];
                continue;
            }
        } else {
            h = lzw_find(g, key);
            if ((e = g->slot[h]) != LZW_EMPTY) {
                prefix = (int)(e & 0xfff);
                continue;
            }
        }
        lzw_code(g, prefix);
        if (g->next >= 4095) { /* the table is full: start afresh */
            lzw_code(g, g->clear);
            lzw_reset(g);
        } else if (d >= 0) {
            g->child_of[d][prefix] = (uint16_t)g->next++;
        } else {
            g->slot[h] = key << 12 | (uint32_t)g->next++;
        }
        prefix = px[i];
    }
    g->prefix = prefix;
}

/* Ends the image's data: the last string, the end code and the last bits,
 * written as sub-blocks of 255 bytes (the last one shorter), then an empty
 * one. */
static void lzw_finish(gif_writer *g)
{
    if (g->prefix >= 0)
        lzw_code(g, g->prefix);
    lzw_code(g, g->clear + 1);
    for (; g->nacc > 0; g->nacc -= 8, g->acc >>= 8)
        g->code[g->ncode++] = (uint8_t)g->acc;
    g->acc = 0;
    g->nacc = 0;
    if (g->failed || bytebuf_reserve(g->out, g->ncode + g->ncode / 255 + 2, NULL) != POYO_OK) {
        g->failed = 1;
        return;
    }
    uint8_t *d = g->out->data + g->out->len;
    for (size_t i = 0; i < g->ncode; i += 255) {
        size_t n = g->ncode - i < 255 ? g->ncode - i : 255;
        *d++ = (uint8_t)n;
        memcpy(d, g->code + i, n);
        d += n;
    }
    *d++ = 0;
    g->out->len = (size_t)(d - g->out->data);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct rect { int x0, y0, x1, y1; } rect; /* [x0, x1) x [y0, y1) */

static int rect_area(rect r) { return r.x1 > r.x0 && r.y1 > r.y0 ? (r.x1 - r.x0) * (r.y1 - r.y0) : 0; }

#define ONES 0x0101010101010101ull
#define LOW7 0x7f7f7f7f7f7f7f7full

/* 0x80 in each byte of v that is zero, 0 in the others. */
static inline uint64_t zero_bytes(uint64_t v) { return ~(((v & LOW7) + LOW7) | v | LOW7); }

/* Whether pixel x of rows b, t counts: they differ (clear 0), or t is
 * transparent where b is not (clear 1). */
static inline int hit(const uint8_t *b, const uint8_t *t, int x, uint8_t tr, int clear)
{
    return clear ? t[x] == tr && b[x] != tr : b[x] != t[x];
}

/* The same for eight pixels at once: nonzero when any counts. */
static inline uint64_t hit8(const uint8_t *b, const uint8_t *t, int x, uint64_t trs, int clear)
{
    uint64_t vb, vt;
    memcpy(&vb, b + x, 8);
    memcpy(&vt, t + x, 8);
    return clear ? zero_bytes(vt ^ trs) & ~zero_bytes(vb ^ trs) : vb ^ vt;
}

/* Bounding box of the pixels that count (see hit). */
static inline rect hit_rect(const uint8_t *base, const uint8_t *target, int w, int h, int tr, int clear)
{
    rect r = { w, h, 0, 0 };
    uint8_t t8 = (uint8_t)tr;
    uint64_t trs = ONES * t8;
    for (int y = 0; y < h; y++) {
        const uint8_t *b = base + (size_t)y * w, *t = target + (size_t)y * w;
        int x = 0;
        while (x + 8 <= w && !hit8(b, t, x, trs, clear))
            x += 8;
        while (x < w && !hit(b, t, x, t8, clear))
            x++;
        if (x >= w)
            continue;
        int first = x;
        x = w;
        while (x - 8 > first && !hit8(b, t, x - 8, trs, clear))
            x -= 8;
        do
            x--;
        while (!hit(b, t, x, t8, clear));
        if (first < r.x0) r.x0 = first;
        if (x >= r.x1) r.x1 = x + 1;
        if (y < r.y0) r.y0 = y;
        if (y >= r.y1) r.y1 = y + 1;
    }
    return r;
}

/* Bounding box of the pixels where target differs from base. */
static rect diff_rect(const uint8_t *base, const uint8_t *target, int w, int h)
{
    return hit_rect(base, target, w, h, 0, 0);
}

/* Bounding box of the pixels that are transparent in target but not in base:
 * a frame drawn over base cannot clear them, only a disposal can. */
static rect clear_rect(const uint8_t *base, const uint8_t *target, int w, int h, int tr)
{
    return hit_rect(base, target, w, h, tr, 1);
}

static rect rect_union(rect a, rect b)
{
    if (rect_area(a) == 0)
        return b;
    if (rect_area(b) == 0)
        return a;
    rect r = { a.x0 < b.x0 ? a.x0 : b.x0, a.y0 < b.y0 ? a.y0 : b.y0, a.x1 > b.x1 ? a.x1 : b.x1,
               a.y1 > b.y1 ? a.y1 : b.y1 };
    return r;
}

typedef struct frame_plan {
    rect r;
    int disposal; /* of this frame, applied before the next one */
} frame_plan;

/* Frames that came out identical after quantising become one longer frame:
 * src[k] is the frame shown k-th, hold[k] how long; returns how many. */
static int merge_identical(const anim *a, const indexed *ix, size_t npx, int *src, int *hold)
{
    int count = 0;
    for (int f = 0; f < a->count; f++) {
        if (count > 0 && memcmp(ix->index + npx * (size_t)src[count - 1], ix->index + npx * (size_t)f, npx) == 0) {
            hold[count - 1] += a->hold[f];
            continue;
        }
        src[count] = f;
        hold[count] = a->hold[f];
        count++;
    }
    return count;
}

/* Plans each frame's rectangle and the disposal of the one before it against
 * the canvas a decoder will show (canvas and cleared: npx bytes of scratch). */
static void plan_frames(const indexed *ix, const int *src, int count, int w, int h, frame_plan *plan,
                        uint8_t *canvas, uint8_t *cleared)
{
    int tr = ix->transparent;
    size_t npx = (size_t)w * h;
    memset(canvas, tr, npx);
    for (int f = 0; f < count; f++) {
        const uint8_t *target = ix->index + npx * (size_t)src[f];
        if (f == 0) {
            plan[0].r = diff_rect(canvas, target, w, h);
        } else {
            /* either keep the previous frame, or restore its rectangle to the
             * background, grown to cover every pixel that must turn clear */
            rect must = clear_rect(canvas, target, w, h, tr);
            rect pr = rect_union(plan[f - 1].r, must);
            memcpy(cleared, canvas, npx);
            for (int y = pr.y0; y < pr.y1; y++)
                memset(cleared + (size_t)y * w + pr.x0, tr, (size_t)(pr.x1 - pr.x0));
            rect keep = diff_rect(canvas, target, w, h);
            rect clear = diff_rect(cleared, target, w, h);
            int grow = rect_area(pr) - rect_area(plan[f - 1].r);
            if (rect_area(must) == 0 && rect_area(keep) <= rect_area(clear) + grow) {
                plan[f - 1].disposal = DISPOSE_DO_NOT;
                plan[f].r = keep;
            } else {
                plan[f - 1].disposal = DISPOSE_BACKGROUND;
                plan[f - 1].r = pr;
                plan[f].r = clear;
                memcpy(canvas, cleared, npx);
            }
        }
        if (rect_area(plan[f].r) == 0) { /* nothing changed: store one pixel */
            plan[f].r.x0 = plan[f].r.y0 = 0;
            plan[f].r.x1 = plan[f].r.y1 = 1;
        }
        /* the canvas after this frame equals the target inside its rectangle */
        rect r = plan[f].r;
        for (int y = r.y0; y < r.y1; y++)
            memcpy(canvas + (size_t)y * w + r.x0, target + (size_t)y * w + r.x0, (size_t)(r.x1 - r.x0));
    }
    plan[count - 1].disposal = DISPOSE_DO_NOT;
}

/* The pixels an exact writer keeps in tables of their own: the transparent
 * index (every pixel a decoder already shows) and the commonest colours of
 * a sample of the frames (every eighth pixel); which ones only decides how
 * fast the strings are found. */
static void choose_direct(gif_writer *g, const indexed *ix)
{
    size_t n = (size_t)ix->width * ix->height * (size_t)ix->count, seen[256] = { 0 };
    for (size_t i = 0; i < n; i += 8)
        seen[ix->index[i]]++;
    seen[ix->transparent] = (size_t)-1;
    for (int d = 0; d < LZW_DIRECT; d++) {
        int best = 0;
        for (int c = 1; c < 256; c++)
            if (seen[c] > seen[best])
                best = c;
        if (seen[best] == 0)
            break;
        g->direct[best] = (int8_t)d;
        seen[best] = 0;
    }
}

/* The header, the logical screen (a global table of 2^bits entries, 8 bits per
 * primary, the transparent index as background, square pixels), the palette
 * and the loop count. */
static void write_head(gif_writer *g, const indexed *ix, int w, int h, int bits, int loop)
{
    uint8_t head[13] = { 'G', 'I', 'F', '8', '9', 'a', (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)h, (uint8_t)(h >> 8),
                         (uint8_t)(0x80 | 7 << 4 | (bits - 1)), (uint8_t)ix->transparent, 0 };
    gif_put(g, head, sizeof head);
    uint8_t table[256 * 3];
    memset(table, 0, sizeof table);
    memcpy(table, ix->palette, (size_t)ix->ncolors * 3);
    gif_put(g, table, (size_t)3 << bits);
    if (loop != 1) {
        int reps = loop == 0 ? 0 : loop - 1;
        uint8_t nab[19] = { 0x21, 0xff, 11, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0',
                            3, 1, (uint8_t)(reps & 0xff), (uint8_t)(reps >> 8), 0 };
        gif_put(g, nab, sizeof nab);
    }
}

/* The n pixels of row t as a frame stores them over row c (what a decoder
 * shows): each one c already shows as tr, so that it shows through, eight at
 * a time. */
static void changed_pixels(uint8_t *line, const uint8_t *t, const uint8_t *c, int n, uint8_t tr)
{
    uint64_t trs = ONES * tr;
    int x = 0;
    for (; x + 8 <= n; x += 8) {
        uint64_t vt, vc;
        memcpy(&vt, t + x, 8);
        memcpy(&vc, c + x, 8);
        uint64_t same = (zero_bytes(vt ^ vc) >> 7) * 0xff; /* 0xff where equal */
        uint64_t v = (vt & ~same) | (trs & same);
        memcpy(line + x, &v, 8);
    }
    for (; x < n; x++)
        line[x] = t[x] == c[x] ? tr : t[x];
}

/* One planned frame: its graphic control and descriptor, then its rectangle's
 * pixels, those a decoder already shows written as the transparent index.
 * canvas is what the decoder shows and is brought up to date; line holds w. */
static void write_frame(gif_writer *g, const indexed *ix, const uint8_t *target, const frame_plan *plan, int f,
                        int delay, int w, int bits, int lossy, uint8_t *canvas, uint8_t *line)
{
    int tr = ix->transparent;
    rect r = plan[f].r;
    int rw = r.x1 - r.x0, rh = r.y1 - r.y0;
    if (f > 0 && plan[f - 1].disposal == DISPOSE_BACKGROUND) {
        rect pr = plan[f - 1].r;
        for (int y = pr.y0; y < pr.y1; y++)
            memset(canvas + (size_t)y * w + pr.x0, tr, (size_t)(pr.x1 - pr.x0));
    }
    /* graphic control (disposal, delay, transparent index), image descriptor */
    uint8_t gce[18] = { 0x21, 0xf9, 4, (uint8_t)(plan[f].disposal << 2 | 1), (uint8_t)delay,
                        (uint8_t)(delay >> 8), (uint8_t)tr, 0,
                        0x2c, (uint8_t)r.x0, (uint8_t)(r.x0 >> 8), (uint8_t)r.y0, (uint8_t)(r.y0 >> 8),
                        (uint8_t)rw, (uint8_t)(rw >> 8), (uint8_t)rh, (uint8_t)(rh >> 8), 0 };
    gif_put(g, gce, sizeof gce);
    lzw_start(g, bits < 2 ? 2 : bits);
    if (lossy) { /* the whole image at once; then what was written, where it was not the transparent index */
        for (int y = r.y0; y < r.y1; y++)
            changed_pixels(line + (size_t)(y - r.y0) * rw, target + (size_t)y * w + r.x0, canvas + (size_t)y * w + r.x0,
                           rw, (uint8_t)tr);
        lzw_image_lossy(g, line, rw * rh);
        for (int y = r.y0; y < r.y1; y++) {
            uint8_t *cw = canvas + (size_t)y * w + r.x0;
            const uint8_t *lw = line + (size_t)(y - r.y0) * rw;
            for (int x = 0; x < rw; x++)
                if (lw[x] != tr)
                    cw[x] = lw[x];
        }
    } else {
        for (int y = r.y0; y < r.y1; y++) {
            const uint8_t *t = target + (size_t)y * w;
            changed_pixels(line, t + r.x0, canvas + (size_t)y * w + r.x0, rw, (uint8_t)tr);
            lzw_pixels(g, line, rw);
            memcpy(canvas + (size_t)y * w + r.x0, t + r.x0, (size_t)rw);
        }
    }
    lzw_finish(g);
}

/* The frames of an exact GIF written in parts, each by a writer of its own:
 * after frame f a decoder shows frame f's target exactly (pixels outside a
 * frame's rectangle already matched it), so a part that starts at frame f
 * starts from frame f - 1's target, and its bytes are those the frames would
 * get written in turn. Part i writes frames first[i] to first[i + 1] - 1. */
typedef struct write_part {
    gif_writer *g;
    bytebuf out;         /* the part's bytes (part 0's go to the GIF itself) */
    uint8_t *canvas, *line, *code;
} write_part;

typedef struct write_job {
    const indexed *ix;
    const frame_plan *plan;
    const int *src, *delays;
    int w, bits, lossy;
    int first[WORKERS_MAX + 1];
    write_part part[WORKERS_MAX];
} write_job;

static void write_some(void *arg, int i)
{
    write_job *j = arg;
    write_part *p = &j->part[i];
    const indexed *ix = j->ix;
    size_t npx = (size_t)ix->width * ix->height;
    int f0 = j->first[i];
    if (f0 == 0)
        memset(p->canvas, ix->transparent, npx);
    else
        memcpy(p->canvas, ix->index + npx * (size_t)j->src[f0 - 1], npx);
    for (int f = f0; f < j->first[i + 1]; f++)
        write_frame(p->g, ix, ix->index + npx * (size_t)j->src[f], j->plan, f, j->delays[f], j->w, j->bits,
                    j->lossy, p->canvas, p->line);
}

/* Splits the count frames into parts of about the same number of pixels
 * written (lossy LZW carries what it wrote from frame to frame: one part);
 * returns how many, 0 when out of memory. */
static int split_frames(write_job *j, int count, int threads)
{
    int n = j->lossy || threads < 2 ? 1 : threads;
    if (n > WORKERS_MAX)
        n = WORKERS_MAX;
    double *area = malloc((size_t)count * sizeof *area);
    if (!area)
        return 0;
    for (int f = 0; f < count; f++)
        area[f] = rect_area(j->plan[f].r);
    n = workers_split(area, count, n, j->first);
    free(area);
    return n;
}

poyo_status gif_encode(const anim *a, const quantize_def *q, bytebuf *out, gif_stats *stats, poyo_error *err)
{
    double t0 = now_ms();
    indexed ix;
    poyo_status st = quantize_anim(a, q, &ix, err);
    if (st != POYO_OK)
        return st;
    double t1 = now_ms();
    int w = a->width, h = a->height, tr = ix.transparent;
    size_t npx = (size_t)w * h;
    frame_plan *plan = calloc((size_t)a->count, sizeof *plan);
    uint8_t *canvas = malloc(npx), *cleared = malloc(npx);
    int *delays = malloc((size_t)a->count * sizeof *delays);
    int *src = malloc((size_t)a->count * sizeof *src), *hold = malloc((size_t)a->count * sizeof *hold);
    write_job j;
    memset(&j, 0, sizeof j);
    int parts = 0;
    if (!plan || !canvas || !cleared || !delays || !src || !hold) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while writing the GIF");
        goto done;
    }
    int count = merge_identical(a, &ix, npx, src, hold);
    plan_frames(&ix, src, count, w, h, plan, canvas, cleared);
    anim merged = *a;
    merged.count = count;
    merged.hold = hold;
    anim_delays(&merged, 100, 2, delays);
    int bits = 1;
    while ((1 << bits) < ix.ncolors)
        bits++;
    j = (write_job){ &ix, plan, src, delays, w, bits, q->lossy, { 0 }, { { 0 } } };
    int n = split_frames(&j, count, q->threads);
    if (n == 0) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while writing the GIF");
        goto done;
    }
    for (; parts < n; parts++) {
        write_part *p = &j.part[parts];
        p->g = malloc(sizeof *p->g);
        p->canvas = parts == 0 ? canvas : malloc(npx);
        p->line = malloc(q->lossy ? npx : (size_t)w);
        p->code = malloc(LZW_CODE_BYTES(npx));
        if (!p->g || !p->canvas || !p->line || !p->code) {
            parts++;
            st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while writing the GIF");
            goto done;
        }
        gif_start(p->g, parts == 0 ? out : &p->out, q->lossy, tr, (const uint8_t (*)[3])ix.palette);
        if (!q->lossy && parts == 0)
            choose_direct(p->g, &ix);
        else if (!q->lossy)
            memcpy(p->g->direct, j.part[0].g->direct, sizeof p->g->direct);
        p->g->code = p->code;
        p->g->ncolors = ix.ncolors;
        if (q->lossy)
            lossy_candidates(p->g);
    }
    write_head(j.part[0].g, &ix, w, h, bits, a->loop);
    workers_run(n, q->threads, write_some, &j);
    for (int i = 1; i < n; i++)
        gif_put(j.part[0].g, j.part[i].out.data, j.part[i].out.len);
    gif_put(j.part[0].g, (const uint8_t *)";", 1);
    for (int i = 0; i < n; i++)
        if (j.part[i].g->failed) {
            st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory while writing the GIF");
            goto done;
        }
    if (stats) {
        stats->frames = count;
        stats->colors = ix.ncolors;
        stats->quantize_ms = t1 - t0;
        stats->encode_ms = now_ms() - t1;
    }
    st = POYO_OK;
done:
    for (int i = 0; i < parts; i++) {
        write_part *p = &j.part[i];
        free(p->g);
        if (i > 0)
            free(p->canvas);
        free(p->line);
        free(p->code);
        bytebuf_free(&p->out);
    }
    free(plan);
    free(canvas);
    free(cleared);
    free(delays);
    free(src);
    free(hold);
    indexed_free(&ix);
    return st;
}
