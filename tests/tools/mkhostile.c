/* mkhostile.c - writes the hostile files the tests throw at poyo: PNG
 * decompression bombs behind every zlib header form and behind Apple's CgBI
 * chunk, JPEGs with thousands of scans, and tiny GIF, APNG and WebP files
 * that declare huge canvases, many frames or frames off their canvas.
 * Usage: mkhostile KIND OUT [ARGS]
 *   png-bomb OUT MIB CMF FLG   a 64x64 RGBA PNG whose IDAT inflates to MIB MiB,
 *                              behind the 2-byte zlib header CMF FLG (decimal)
 *   png-cgbi OUT MIB           the same bomb as raw deflate behind a CgBI chunk
 *   jpeg-scans OUT N SIDE      a SIDExSIDE grey progressive JPEG with N DC scans
 *   gif-frames OUT W H N       N 1x1 frames on a WxH canvas
 *   gif-offcanvas OUT N        N 4096x4096 frames placed off a 1x1 canvas
 *   apng-frames OUT W H N      a WxH APNG declaring N frames (only the first stored)
 *   webp-frames OUT W H N      N 1x1 frames on a WxH animated WebP canvas */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <webp/encode.h>
#include <zlib.h>

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void le24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
}

static void le32(uint8_t *p, uint32_t v)
{
    le24(p, v);
    p[3] = (uint8_t)(v >> 24);
}

static void chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t hdr[8], c[4];
    put32(hdr, len);
    memcpy(hdr + 4, type, 4);
    fwrite(hdr, 1, 8, f);
    if (len)
        fwrite(data, 1, len, f);
    uLong crc = crc32(0, (const Bytef *)type, 4);
    if (len)
        crc = crc32(crc, data, len);
    put32(c, (uint32_t)crc);
    fwrite(c, 1, 4, f);
}

static void png_start(FILE *f, uint32_t w, uint32_t h, int cgbi)
{
    static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    fwrite(sig, 1, 8, f);
    if (cgbi) {
        static const uint8_t cg[4] = { 0x50, 0x00, 0x20, 0x06 };
        chunk(f, "CgBI", cg, 4);
    }
    uint8_t ihdr[13] = { 0 };
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = 8;
    ihdr[9] = 6;
    chunk(f, "IHDR", ihdr, 13);
}

/* Raw deflate of mib MiB of zero bytes, preceded by hdr_len header bytes. */
static uint8_t *deflate_zeros(int mib, const uint8_t *hdr, size_t hdr_len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = (size_t)mib * 1100 + 4096;
    uint8_t *out = malloc(cap), zeros[65536] = { 0 };
    if (!out)
        return NULL;
    memcpy(out, hdr, hdr_len);
    z.next_out = out + hdr_len;
    z.avail_out = (uInt)(cap - hdr_len);
    for (long i = 0; i < (long)mib * 16; i++) {
        z.next_in = zeros;
        z.avail_in = sizeof zeros;
        deflate(&z, Z_NO_FLUSH);
    }
    deflate(&z, Z_FINISH);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static int png_bomb(const char *path, int mib, int cmf, int flg, int cgbi)
{
    uint8_t hdr[2] = { (uint8_t)cmf, (uint8_t)flg };
    size_t n;
    uint8_t *z = deflate_zeros(mib, hdr, cgbi ? 0 : 2, &n);
    FILE *f = fopen(path, "wb");
    if (!z || !f)
        return 1;
    png_start(f, 64, 64, cgbi);
    chunk(f, "IDAT", z, (uint32_t)n);
    chunk(f, "IEND", NULL, 0);
    free(z);
    return fclose(f) != 0;
}

static int jpeg_scans(const char *path, long n, int side)
{
    static const uint8_t head[] = {
        0xff, 0xd8,                                                       /* SOI */
        0xff, 0xdb, 0x00, 0x43, 0x00,                                     /* DQT, 64 ones follow */
    };
    uint8_t sof[] = {
        0xff, 0xc2, 0x00, 0x0b, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00, /* SOF2 8x8 grey */
        0xff, 0xc4, 0x00, 0x14, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, /* DHT DC0 */
    };
    static const uint8_t sos[] = { 0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00 };
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    fwrite(head, 1, sizeof head, f);
    for (int i = 0; i < 64; i++)
        fputc(1, f);
    sof[5] = sof[7] = (uint8_t)(side >> 8);
    sof[6] = sof[8] = (uint8_t)side;
    fwrite(sof, 1, sizeof sof, f);
    /* one 0 bit per 8x8 block: a DC difference of 0 */
    size_t data = ((size_t)(side / 8) * (size_t)(side / 8) + 7) / 8;
    for (long i = 0; i < n; i++) {
        fwrite(sos, 1, sizeof sos - 1, f);
        for (size_t k = 0; k < data; k++)
            fputc(0, f);
    }
    fputc(0xff, f);
    fputc(0xd9, f);
    return fclose(f) != 0;
}

/* GIF89a with a two-colour table; each frame is one image block written by giflib. */
typedef struct sink {
    uint8_t *p;
    size_t len, cap;
} sink;

static int sink_write(GifFileType *g, const GifByteType *b, int n)
{
    sink *s = g->UserData;
    if (s->len + (size_t)n > s->cap) {
        s->cap = (s->len + (size_t)n) * 2;
        s->p = realloc(s->p, s->cap);
    }
    memcpy(s->p + s->len, b, (size_t)n);
    s->len += (size_t)n;
    return n;
}

/* The bytes of one image block (descriptor and data) of fw x fh at x,y. */
static int gif_block(int fw, int fh, int x, int y, sink *s)
{
    int e;
    GifFileType *g = EGifOpen(s, sink_write, &e);
    GifColorType c[2] = { { 0, 0, 0 }, { 255, 255, 255 } };
    ColorMapObject *cm = GifMakeMapObject(2, c);
    if (!g || !cm || EGifPutScreenDesc(g, 1, 1, 1, 0, cm) == GIF_ERROR ||
        EGifPutImageDesc(g, x, y, fw, fh, false, NULL) == GIF_ERROR)
        return 1;
    GifPixelType *line = calloc((size_t)fw, 1);
    for (int r = 0; r < fh; r++)
        EGifPutLine(g, line, fw);
    free(line);
    GifFreeMapObject(cm);
    return EGifCloseFile(g, &e) == GIF_ERROR;
}

static int gif_frames(const char *path, int w, int h, long n, int fw, int fh, int x, int y)
{
    sink s = { NULL, 0, 0 };
    if (gif_block(fw, fh, x, y, &s))
        return 1;
    /* header (6) + screen descriptor (7) + colour table (6); trailer last */
    const size_t start = 19;
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    uint8_t lsd[13];
    memcpy(lsd, "GIF89a", 6);
    lsd[6] = (uint8_t)w;
    lsd[7] = (uint8_t)(w >> 8);
    lsd[8] = (uint8_t)h;
    lsd[9] = (uint8_t)(h >> 8);
    lsd[10] = 0x80;
    lsd[11] = lsd[12] = 0;
    fwrite(lsd, 1, 13, f);
    fwrite(s.p + 13, 1, 6, f);
    for (long i = 0; i < n; i++)
        fwrite(s.p + start, 1, s.len - start - 1, f);
    fputc(0x3b, f);
    free(s.p);
    return fclose(f) != 0;
}

static int apng_frames(const char *path, uint32_t w, uint32_t h, uint32_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    png_start(f, w, h, 0);
    uint8_t actl[8];
    put32(actl, n);
    put32(actl + 4, 0);
    chunk(f, "acTL", actl, 8);
    uint8_t fctl[26] = { 0 };
    put32(fctl + 4, w);
    put32(fctl + 8, h);
    fctl[21] = 1;
    chunk(f, "fcTL", fctl, 26);
    /* the first frame: every row filter 0 and transparent, deflated */
    size_t rawn = (size_t)h * (1 + (size_t)w * 4);
    uint8_t *raw = calloc(rawn, 1);
    uLongf zn = compressBound((uLong)rawn);
    uint8_t *z = malloc(zn);
    if (!raw || !z || compress2(z, &zn, raw, (uLong)rawn, 9) != Z_OK)
        return 1;
    chunk(f, "IDAT", z, (uint32_t)zn);
    chunk(f, "IEND", NULL, 0);
    free(raw);
    free(z);
    return fclose(f) != 0;
}

static int webp_frames(const char *path, uint32_t w, uint32_t h, uint32_t n)
{
    uint8_t px[4] = { 255, 0, 0, 255 }, *one = NULL;
    size_t one_len = WebPEncodeLosslessRGBA(px, 1, 1, 4, &one);
    if (!one_len || one_len < 20)
        return 1;
    /* the VP8L chunk of the 1x1 still: after "RIFF" size "WEBP" */
    const uint8_t *vp8l = one + 12;
    size_t vp8l_len = one_len - 12;
    size_t anmf_len = 16 + vp8l_len;
    size_t body = 4 + (8 + 10) + (8 + 6) + (size_t)n * (8 + anmf_len + (anmf_len & 1));
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    uint8_t b[32];
    memcpy(b, "RIFF", 4);
    le32(b + 4, (uint32_t)body);
    memcpy(b + 8, "WEBP", 4);
    fwrite(b, 1, 12, f);
    memcpy(b, "VP8X", 4);
    le32(b + 4, 10);
    memset(b + 8, 0, 10);
    b[8] = 0x12; /* animation, alpha */
    le24(b + 12, w - 1);
    le24(b + 15, h - 1);
    fwrite(b, 1, 18, f);
    memcpy(b, "ANIM", 4);
    le32(b + 4, 6);
    memset(b + 8, 0, 6);
    fwrite(b, 1, 14, f);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(b, "ANMF", 4);
        le32(b + 4, (uint32_t)anmf_len);
        memset(b + 8, 0, 16);
        le24(b + 20, 100); /* duration */
        b[23] = 0x02;      /* no blending */
        fwrite(b, 1, 24, f);
        fwrite(vp8l, 1, vp8l_len, f);
        if (anmf_len & 1)
            fputc(0, f);
    }
    WebPFree(one);
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mkhostile KIND OUT [ARGS]\n");
        return 2;
    }
    const char *k = argv[1], *out = argv[2];
    long a = argc > 3 ? atol(argv[3]) : 0, b = argc > 4 ? atol(argv[4]) : 0, c = argc > 5 ? atol(argv[5]) : 0;
    if (!strcmp(k, "png-bomb") && argc == 6) return png_bomb(out, (int)a, (int)b, (int)c, 0);
    if (!strcmp(k, "png-cgbi") && argc == 4) return png_bomb(out, (int)a, 0, 0, 1);
    if (!strcmp(k, "jpeg-scans") && argc == 5) return jpeg_scans(out, a, (int)b);
    if (!strcmp(k, "gif-frames") && argc == 6) return gif_frames(out, (int)a, (int)b, c, 1, 1, 0, 0);
    if (!strcmp(k, "gif-offcanvas") && argc == 4) return gif_frames(out, 1, 1, a, 4096, 4096, 60000, 60000);
    if (!strcmp(k, "apng-frames") && argc == 6) return apng_frames(out, (uint32_t)a, (uint32_t)b, (uint32_t)c);
    if (!strcmp(k, "webp-frames") && argc == 6) return webp_frames(out, (uint32_t)a, (uint32_t)b, (uint32_t)c);
    fprintf(stderr, "mkhostile: unknown kind or wrong arguments: %s\n", k);
    return 2;
}
