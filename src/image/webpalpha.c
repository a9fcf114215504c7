/* webpalpha.c - the ALPH chunk of a lossy WebP frame (the WebP container
 * specification) coded as a WebP lossless image stream (RFC 9649, section 3)
 * by a small encoder of its own: libwebp's lossless encoder takes as long
 * for a stamp's alpha plane as the lossy encoder for its colours.
 *
 * The plane is coded as it is and as the residuals of the gradient filter,
 * and the shorter stream is kept. The stream has no transform, no colour
 * cache and one group of prefix codes; a run copies from one of the six
 * nearest pixels (distance codes 1 to 6: above, left, above left, above
 * right, two above, two left), whichever goes on longest, and every other
 * value is a literal in the green channel, where the alpha travels. */
#include "webpalpha.h"

#include <stdlib.h>
#include <string.h>

#define GREEN_SYMBOLS (256 + 24)   /* literals, then length prefixes (no colour cache) */
#define DIST_SYMBOLS 40
#define CL_SYMBOLS 19              /* the code-length code's alphabet */
#define MAX_BITS 15                /* the longest prefix code */
#define MAX_CL_BITS 7              /* the longest code of the code-length code */
#define MAX_COPY 4096              /* the longest back-reference */
#define MIN_COPY 3                 /* shorter runs are literals */
#define MAX_SYMBOLS GREEN_SYMBOLS
#define RUN ((uint64_t)1 << 63)    /* a token that is a run, not a literal */

enum { FILTER_NONE = 0, FILTER_GRADIENT = 3 };   /* the ALPH header's numbers */

/* The first distance codes, nearest pixels first: code k + 1 copies from dx
 * to the left (negative: to the right) and dy rows up. */
static const struct { int8_t dx, dy; } near[] = { { 0, 1 }, { 1, 0 }, { 1, 1 }, { -1, 1 }, { 0, 2 }, { 2, 0 } };
#define NEAR ((int)(sizeof near / sizeof near[0]))

/* The order the code-length code's lengths are stored in. */
static const uint8_t cl_order[CL_SYMBOLS] = { 17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/* Bits written least significant first into a buffer sized beforehand. */
typedef struct bitw {
    uint8_t *p;
    uint64_t acc;
    int used;
} bitw;

static void put(bitw *b, uint32_t v, int n)
{
    b->acc |= (uint64_t)v << b->used;
    b->used += n;
    while (b->used >= 8) {
        *b->p++ = (uint8_t)b->acc;
        b->acc >>= 8;
        b->used -= 8;
    }
}

/* A prefix code: each symbol's length, the bits written for it (0 when the
 * code has one symbol: the decoder then reads none) and its code, bit-reversed. */
typedef struct code {
    uint8_t len[MAX_SYMBOLS];
    uint8_t nbits[MAX_SYMBOLS];
    uint16_t bits[MAX_SYMBOLS];
} code;

static void put_sym(bitw *b, const code *c, int s)
{
    put(b, c->bits[s], c->nbits[s]);
}

/* Lengths of at most `limit` bits for the n counts: a Huffman code over the
 * symbols that occur, rebuilt with the smallest counts raised until it fits;
 * one symbol that occurs gets length 1, none all 0. */
static void huffman_lengths(const uint32_t *count, int n, int limit, uint8_t *len)
{
    int sym[MAX_SYMBOLS], m = 0;
    memset(len, 0, (size_t)n);
    for (int s = 0; s < n; s++)
        if (count[s])
            sym[m++] = s;
    if (m == 1)
        len[sym[0]] = 1;
    if (m < 2)
        return;
    uint64_t w[2 * MAX_SYMBOLS];
    int parent[2 * MAX_SYMBOLS], leaf[MAX_SYMBOLS], depth[2 * MAX_SYMBOLS];
    for (uint64_t floor = 1;; floor *= 2) {
        /* the leaves by weight (insertion sort: at most 280 symbols) */
        for (int i = 0; i < m; i++) {
            uint64_t wi = count[sym[i]] < floor ? floor : count[sym[i]];
            int j = i;
            while (j > 0 && w[j - 1] > wi) {
                w[j] = w[j - 1];
                leaf[j] = leaf[j - 1];
                j--;
            }
            w[j] = wi;
            leaf[j] = sym[i];
        }
        /* two queues: the sorted leaves, and the inner nodes in the order made */
        int li = 0, ii = m, ie = m;
        for (int k = 0; k < m - 1; k++) {
            int pick[2];
            for (int t = 0; t < 2; t++)
                pick[t] = li < m && (ii >= ie || w[li] <= w[ii]) ? li++ : ii++;
            w[ie] = w[pick[0]] + w[pick[1]];
            parent[pick[0]] = parent[pick[1]] = ie;
            ie++;
        }
        int deepest = 0;
        depth[ie - 1] = 0;
        for (int k = ie - 2; k >= 0; k--) {
            depth[k] = depth[parent[k]] + 1;
            if (depth[k] > deepest)
                deepest = depth[k];
        }
        if (deepest <= limit) {
            for (int i = 0; i < m; i++)
                len[leaf[i]] = (uint8_t)depth[i];
            return;
        }
    }
}

/* The canonical codes of the lengths (shorter first, then by symbol), reversed
 * for a stream read least significant bit first. */
static void assign_codes(code *c, int n)
{
    int count[MAX_BITS + 1] = { 0 }, next[MAX_BITS + 1], used = 0;
    for (int s = 0; s < n; s++)
        if (c->len[s]) {
            count[c->len[s]]++;
            used++;
        }
    for (int b = 1, v = 0; b <= MAX_BITS; b++) {
        v = (v + count[b - 1]) << 1;
        next[b] = v;
    }
    for (int s = 0; s < n; s++) {
        int l = c->len[s];
        c->nbits[s] = (uint8_t)(used > 1 ? l : 0);
        c->bits[s] = 0;
        if (!l)
            continue;
        unsigned x = (unsigned)next[l]++, r = 0;
        for (int k = 0; k < l; k++)
            r |= ((x >> k) & 1u) << (l - 1 - k);
        c->bits[s] = (uint16_t)r;
    }
}

/* One token of the lengths: a length 0-15, or 16 (repeat the last nonzero
 * length 3-6 times), 17 (3-10 zeros), 18 (11-138 zeros) with its extra bits. */
typedef struct cl_token { uint8_t sym, extra; } cl_token;

static int length_tokens(const uint8_t *len, int n, cl_token *t)
{
    int k = 0;
    for (int i = 0; i < n;) {
        int v = len[i], run = 1;
        while (i + run < n && len[i + run] == v)
            run++;
        i += run;
        if (v == 0) {
            while (run >= 11) {
                int r = run > 138 ? 138 : run;
                t[k++] = (cl_token){ 18, (uint8_t)(r - 11) };
                run -= r;
            }
            if (run >= 3) {
                t[k++] = (cl_token){ 17, (uint8_t)(run - 3) };
                run = 0;
            }
        } else {
            t[k++] = (cl_token){ (uint8_t)v, 0 };
            run--;
            while (run >= 3) {
                int r = run > 6 ? 6 : run;
                t[k++] = (cl_token){ 16, (uint8_t)(r - 3) };
                run -= r;
            }
        }
        while (run-- > 0)
            t[k++] = (cl_token){ (uint8_t)v, 0 };
    }
    return k;
}

/* Builds the code for count[0..n) and writes it: as a simple code when at
 * most two symbols occur and both fit in 8 bits, else as a normal one. */
static void write_code(bitw *b, const uint32_t *count, int n, code *c)
{
    huffman_lengths(count, n, MAX_BITS, c->len);
    int used[2] = { 0, 0 }, m = 0;
    for (int s = 0; s < n; s++)
        if (c->len[s]) {
            if (m < 2)
                used[m] = s;
            m++;
        }
    if (m <= 2 && used[0] < 256 && used[1] < 256) {
        if (m == 0)
            c->len[0] = 1;   /* never read: any one symbol */
        put(b, 1, 1);         /* simple */
        put(b, m == 2, 1);    /* two symbols, else one */
        int wide = used[0] > 1;
        put(b, (uint32_t)wide, 1);
        put(b, (uint32_t)used[0], wide ? 8 : 1);
        if (m == 2)
            put(b, (uint32_t)used[1], 8);
        assign_codes(c, n);
        return;
    }
    cl_token tok[MAX_SYMBOLS];
    int nt = length_tokens(c->len, n, tok);
    uint32_t cl_count[CL_SYMBOLS] = { 0 };
    for (int i = 0; i < nt; i++)
        cl_count[tok[i].sym]++;
    code cl;
    huffman_lengths(cl_count, CL_SYMBOLS, MAX_CL_BITS, cl.len);
    assign_codes(&cl, CL_SYMBOLS);
    int stored = CL_SYMBOLS;
    while (stored > 4 && cl.len[cl_order[stored - 1]] == 0)
        stored--;
    put(b, 0, 1);   /* normal */
    put(b, (uint32_t)(stored - 4), 4);
    for (int i = 0; i < stored; i++)
        put(b, cl.len[cl_order[i]], 3);
    put(b, 0, 1);   /* a length for every symbol */
    for (int i = 0; i < nt; i++) {
        put_sym(b, &cl, tok[i].sym);
        if (tok[i].sym >= 16)
            put(b, tok[i].extra, tok[i].sym == 16 ? 2 : tok[i].sym == 17 ? 3 : 7);
    }
    assign_codes(c, n);
}

/* The prefix symbol of a length or distance value v >= 1, its extra bits and their count. */
static int prefix_of(uint32_t v, uint32_t *extra, int *nextra)
{
    uint32_t d = v - 1;
    if (d < 4) {
        *extra = 0;
        *nextra = 0;
        return (int)d;
    }
    int h = 31 - __builtin_clz(d);
    int second = (int)((d >> (h - 1)) & 1u);
    *nextra = h - 1;
    *extra = d & ((1u << (h - 1)) - 1u);
    return 2 * h + second;
}

/* The plane's values as they are (plain) and as residuals of the WebP
 * container's gradient filter (grad): clip(left + above - above left), the
 * first row predicting from the left, the first column from above and the
 * first pixel from 0. */
static void filter_plane(const uint8_t *rgba, int w, int h, size_t stride, uint8_t *plain, uint8_t *grad)
{
    for (int y = 0; y < h; y++) {
        const uint8_t *row = rgba + (size_t)y * stride + 3, *up = y ? row - stride : NULL;
        uint8_t *p = plain + (size_t)y * w, *g = grad + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            int pred;
            if (y == 0)
                pred = x ? row[4 * (x - 1)] : 0;
            else if (x == 0)
                pred = up[0];
            else {
                pred = row[4 * (x - 1)] + up[4 * x] - up[4 * (x - 1)];
                pred = pred < 0 ? 0 : pred > 255 ? 255 : pred;
            }
            p[x] = row[4 * x];
            g[x] = (uint8_t)(row[4 * x] - pred);
        }
    }
}

/* How far the values from i on repeat those d back (at most MAX_COPY, and to the end). */
static int run_length(const uint8_t *v, size_t i, size_t n, size_t d)
{
    size_t k = 0, cap = n - i < MAX_COPY ? n - i : MAX_COPY;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* eight at a time: the first byte that differs is the lowest set byte of the xor */
    while (k + 8 <= cap) {
        uint64_t a, b;
        memcpy(&a, v + i + k, 8);
        memcpy(&b, v + i + k - d, 8);
        if (a != b)
            return (int)(k + (size_t)(__builtin_ctzll(a ^ b) >> 3));
        k += 8;
    }
#endif
    while (k < cap && v[i + k] == v[i + k - d])
        k++;
    return (int)k;
}

/* The longest copy from a near pixel for position i: its length (0 when none
 * reaches MIN_COPY) and its distance code in *dcode. */
static int find_copy(const uint8_t *v, size_t i, size_t n, int w, uint32_t *dcode)
{
    int best = 0;
    for (int k = 0; k < NEAR; k++) {
        size_t d = (size_t)near[k].dy * (size_t)w + (size_t)near[k].dx;
        if (d < 1 || d > i)
            continue;
        int l = run_length(v, i, n, d);
        if (l > best) {
            best = l;
            *dcode = (uint32_t)k + 1;
        }
    }
    return best >= MIN_COPY ? best : 0;
}

/* Appends to out the chunk's header byte for filter and the image stream of
 * the n values v of a w-pixel-wide plane. */
static poyo_status code_plane(const uint8_t *v, size_t n, int w, int filter, uint64_t *tok, bytebuf *out,
                              poyo_error *err)
{
    uint32_t green[GREEN_SYMBOLS] = { 0 }, dist[DIST_SYMBOLS] = { 0 }, zero[256] = { 1 };
    code lit, *c = &lit;
    size_t nt = 0;
    for (size_t i = 0; i < n;) {
        uint32_t dcode = 0;
        int len = find_copy(v, i, n, w, &dcode);
        if (!len) {
            tok[nt++] = v[i];
            green[v[i]]++;
            i++;
            continue;
        }
        uint32_t extra;
        int nextra;
        green[256 + prefix_of((uint32_t)len, &extra, &nextra)]++;
        dist[prefix_of(dcode, &extra, &nextra)]++;
        tok[nt++] = RUN | (uint64_t)len << 32 | dcode;
        i += (size_t)len;
    }

    /* at most 15 bits a literal or a run's two symbols and extra bits, and the codes */
    poyo_status st = bytebuf_reserve(out, 1 + n * 2 + 8192, err);
    if (st != POYO_OK)
        return st;
    out->data[out->len] = (uint8_t)filter << 2 | 1u;   /* no pre-processing, the filter, lossless */
    bitw b = { out->data + out->len + 1, 0, 0 };
    put(&b, 0, 1);   /* no transform */
    put(&b, 0, 1);   /* no colour cache */
    put(&b, 0, 1);   /* one group of prefix codes */
    write_code(&b, green, GREEN_SYMBOLS, c);
    code other;
    for (int k = 0; k < 3; k++)   /* red, blue and alpha: always 0, no bits */
        write_code(&b, zero, 256, &other);
    code dc;
    write_code(&b, dist, DIST_SYMBOLS, &dc);
    for (size_t k = 0; k < nt; k++) {
        uint64_t t = tok[k];
        uint32_t extra;
        int nextra;
        if (t < 256) {
            put_sym(&b, c, (int)t);
            continue;
        }
        int s = prefix_of((uint32_t)(t >> 32) & 0x1fffu, &extra, &nextra);
        put_sym(&b, c, 256 + s);
        put(&b, extra, nextra);
        s = prefix_of((uint32_t)t, &extra, &nextra);
        put_sym(&b, &dc, s);
        put(&b, extra, nextra);
    }
    if (b.used > 0)
        put(&b, 0, 8 - b.used);
    out->len = (size_t)(b.p - out->data);
    return POYO_OK;
}

poyo_status webp_alpha_encode(const uint8_t *rgba, int w, int h, size_t stride, bytebuf *out, poyo_error *err)
{
    size_t n = (size_t)w * (size_t)h;
    uint8_t *v = malloc(2 * n);
    uint64_t *tok = malloc(n * sizeof *tok);   /* a literal, or RUN | length << 32 | distance code */
    bytebuf alt = { NULL, 0, 0 };
    poyo_status st = POYO_OK;
    if (!v || !tok) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d alpha plane", w, h);
        goto done;
    }
    /* the plane as it is and its gradient residuals, the shorter stream kept */
    filter_plane(rgba, w, h, stride, v, v + n);
    size_t at = out->len;
    st = code_plane(v, n, w, FILTER_NONE, tok, &alt, err);
    if (st == POYO_OK)
        st = code_plane(v + n, n, w, FILTER_GRADIENT, tok, out, err);
    if (st == POYO_OK && alt.len < out->len - at) {
        out->len = at;
        st = bytebuf_append(out, alt.data, alt.len, err);
    }
done:
    bytebuf_free(&alt);
    free(v);
    free(tok);
    return st;
}
