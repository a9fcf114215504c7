/* mkpng.c - writes the PNG files the tests need, good and bad, byte by byte
 * with zlib: every colour type and depth, palette + tRNS, Adam7 interlacing,
 * and truncated, corrupt, empty, zero-sized and huge-header files.
 * Usage: mkpng KIND OUT [W H] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t hdr[8];
    put32(hdr, len);
    memcpy(hdr + 4, type, 4);
    fwrite(hdr, 1, 8, f);
    if (len)
        fwrite(data, 1, len, f);
    uLong crc = crc32(0, (const Bytef *)type, 4);
    if (len)
        crc = crc32(crc, data, len);
    uint8_t c[4];
    put32(c, (uint32_t)crc);
    fwrite(c, 1, 4, f);
}

/* A test picture: a disc with a soft edge on transparency, colour varying over it. */
static void pixel(int x, int y, int w, int h, double *r, double *g, double *b, double *a)
{
    double cx = w * 0.5, cy = h * 0.5, rad = (w < h ? w : h) * 0.42;
    double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
    double d = rad - sqrt(dx * dx + dy * dy);
    *a = d > 1 ? 1 : d < 0 ? 0 : d;
    *r = 0.9;
    *g = 0.3 + 0.6 * y / (double)h;
    *b = 0.2 + 0.7 * x / (double)w;
}

/* Bytes of one row for a colour type and bit depth (8 or 16). */
static size_t row_bytes(int ctype, int depth, int w)
{
    int ch = ctype == 0 ? 1 : ctype == 2 ? 3 : ctype == 3 ? 1 : ctype == 4 ? 2 : 4;
    return (size_t)w * ch * (depth / 8);
}

static void put_sample(uint8_t **p, double v, int depth)
{
    if (depth == 16) {
        unsigned s = (unsigned)(v * 65535.0 + 0.5);
        *(*p)++ = (uint8_t)(s >> 8);
        *(*p)++ = (uint8_t)s;
    } else {
        *(*p)++ = (uint8_t)(v * 255.0 + 0.5);
    }
}

static void make_row(uint8_t *row, int y, int x0, int dx, int n, int w, int h, int ctype, int depth, int opaque)
{
    uint8_t *p = row;
    for (int i = 0; i < n; i++) {
        int x = x0 + i * dx;
        double r, g, b, a;
        pixel(x, y, w, h, &r, &g, &b, &a);
        if (opaque)
            a = opaque == 2 ? 0 : 1;
        double gray = 0.3 * r + 0.59 * g + 0.11 * b;
        switch (ctype) {
        case 0: put_sample(&p, a > 0.5 ? gray : 0, depth); break;
        case 2: put_sample(&p, r, depth); put_sample(&p, g, depth); put_sample(&p, b, depth); break;
        case 3: *p++ = (uint8_t)(a < 0.5 ? 0 : 1 + (int)(g * 6.99)); break;
        case 4: put_sample(&p, gray, depth); put_sample(&p, a, depth); break;
        default:
            put_sample(&p, r, depth); put_sample(&p, g, depth); put_sample(&p, b, depth); put_sample(&p, a, depth);
        }
    }
}

static int write_png(const char *out, int w, int h, int ctype, int depth, int interlace, int opaque, int cut)
{
    /* raw scanlines with filter byte 0, pass by pass when interlaced */
    static const int sx[7] = { 0, 4, 0, 2, 0, 1, 0 }, sy[7] = { 0, 0, 4, 0, 2, 0, 1 };
    static const int dx[7] = { 8, 8, 4, 4, 2, 2, 1 }, dy[7] = { 8, 8, 8, 4, 4, 2, 2 };
    size_t cap = (row_bytes(ctype, depth, w) + 1) * (size_t)h * 2 + 64, len = 0;
    uint8_t *raw = malloc(cap);
    if (!raw)
        return 1;
    int passes = interlace ? 7 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int x0 = interlace ? sx[pass] : 0, y0 = interlace ? sy[pass] : 0;
        int ddx = interlace ? dx[pass] : 1, ddy = interlace ? dy[pass] : 1;
        int n = x0 < w ? (w - x0 + ddx - 1) / ddx : 0;
        if (n == 0)
            continue;
        for (int y = y0; y < h; y += ddy) {
            raw[len++] = 0;
            make_row(raw + len, y, x0, ddx, n, w, h, ctype, depth, opaque);
            len += row_bytes(ctype, depth, n);
        }
    }
    uLongf zlen = compressBound(len);
    uint8_t *z = malloc(zlen);
    if (!z || compress2(z, &zlen, raw, len, 9) != Z_OK)
        return 1;
    FILE *f = fopen(out, "wb");
    if (!f)
        return 1;
    static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    fwrite(sig, 1, 8, f);
    uint8_t ihdr[13];
    put32(ihdr, (uint32_t)w);
    put32(ihdr + 4, (uint32_t)h);
    ihdr[8] = (uint8_t)depth;
    ihdr[9] = (uint8_t)ctype;
    ihdr[10] = 0;
    ihdr[11] = 0;
    ihdr[12] = (uint8_t)interlace;
    chunk(f, "IHDR", ihdr, 13);
    if (ctype == 3) {
        uint8_t plte[8 * 3], trns[1] = { 0 };
        for (int i = 0; i < 8; i++) {
            plte[3 * i] = 230;
            plte[3 * i + 1] = (uint8_t)(70 + 22 * i);
            plte[3 * i + 2] = (uint8_t)(40 + 10 * i);
        }
        plte[0] = plte[1] = plte[2] = 0;
        chunk(f, "PLTE", plte, sizeof plte);
        chunk(f, "tRNS", trns, 1);
    }
    uint32_t keep = cut ? (uint32_t)zlen / 2 : (uint32_t)zlen;
    if (cut == 2) { /* corrupt the deflate stream but keep the CRC right */
        for (uLongf i = zlen / 3; i < zlen; i += 7)
            z[i] ^= 0x5a;
        keep = (uint32_t)zlen;
    }
    chunk(f, "IDAT", z, keep);
    if (!cut)
        chunk(f, "IEND", NULL, 0);
    fclose(f);
    free(raw);
    free(z);
    return 0;
}

static int write_bytes(const char *out, const void *data, size_t n)
{
    FILE *f = fopen(out, "wb");
    if (!f)
        return 1;
    if (n)
        fwrite(data, 1, n, f);
    return fclose(f) != 0;
}

/* A header that claims w x h with a tiny, valid IDAT after it. */
static int write_header_only(const char *out, uint32_t w, uint32_t h)
{
    FILE *f = fopen(out, "wb");
    if (!f)
        return 1;
    static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    fwrite(sig, 1, 8, f);
    uint8_t ihdr[13] = { 0 };
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = 8;
    ihdr[9] = 6;
    chunk(f, "IHDR", ihdr, 13);
    uint8_t raw[5] = { 0, 0, 0, 0, 0 };
    uLongf zl = 64;
    uint8_t z[64];
    compress2(z, &zl, raw, sizeof raw, 9);
    chunk(f, "IDAT", z, (uint32_t)zl);
    chunk(f, "IEND", NULL, 0);
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mkpng KIND OUT [W H]\n");
        return 2;
    }
    const char *k = argv[1], *out = argv[2];
    int w = argc > 3 ? atoi(argv[3]) : 64, h = argc > 4 ? atoi(argv[4]) : w;
    if (!strcmp(k, "rgba")) return write_png(out, w, h, 6, 8, 0, 0, 0);
    if (!strcmp(k, "rgba16")) return write_png(out, w, h, 6, 16, 0, 0, 0);
    if (!strcmp(k, "rgb")) return write_png(out, w, h, 2, 8, 0, 1, 0);
    if (!strcmp(k, "rgb16")) return write_png(out, w, h, 2, 16, 0, 1, 0);
    if (!strcmp(k, "gray")) return write_png(out, w, h, 0, 8, 0, 1, 0);
    if (!strcmp(k, "gray16")) return write_png(out, w, h, 0, 16, 0, 1, 0);
    if (!strcmp(k, "graya")) return write_png(out, w, h, 4, 8, 0, 0, 0);
    if (!strcmp(k, "palette")) return write_png(out, w, h, 3, 8, 0, 0, 0);
    if (!strcmp(k, "interlaced")) return write_png(out, w, h, 6, 8, 1, 0, 0);
    if (!strcmp(k, "truncated")) return write_png(out, w, h, 6, 8, 0, 0, 1);
    if (!strcmp(k, "corrupt-idat")) return write_png(out, w, h, 6, 8, 0, 0, 2);
    if (!strcmp(k, "empty")) return write_bytes(out, "", 0);
    if (!strcmp(k, "text")) return write_bytes(out, "hello, this is not a picture\n", 29);
    if (!strcmp(k, "zero-width")) return write_header_only(out, 0, 64);
    if (!strcmp(k, "huge")) return write_header_only(out, 60000, 60000);
    if (!strcmp(k, "transparent")) /* valid, but every alpha is 0 */
        return write_png(out, w, h, 6, 8, 0, 2, 0);
    fprintf(stderr, "mkpng: unknown kind %s\n", k);
    return 2;
}
