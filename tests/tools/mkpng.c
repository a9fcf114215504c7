/* mkpng.c - writes the PNG files the tests need, good and bad, byte by byte
 * with zlib: every colour type and depth, palette + tRNS, Adam7 interlacing,
 * and truncated, corrupt, empty, zero-sized and huge-header files; and the
 * hostile files: PNG decompression bombs behind every zlib header form and
 * behind Apple's CgBI chunk, JPEGs with thousands of scans, and tiny GIF, APNG
 * and WebP files that declare huge canvases, many frames or frames off their canvas;
 * and a Unix socket (a name in a folder that is no file at all). And pixel art
 * (invader: squares that meet at corners; invader-torn: the same with two
 * pieces cut off), the rgba picture with a hole through it (holed) and with its
 * top pressed into a V (notched), for the motion figures.
 * Usage: mkpng KIND OUT [W H], or for the hostile kinds mkpng KIND OUT ARGS:
 *   png-bomb OUT MIB CMF FLG   a 64x64 RGBA PNG whose IDAT inflates to MIB MiB,
 *                              behind the 2-byte zlib header CMF FLG (decimal)
 *   png-cgbi OUT MIB           the same bomb as raw deflate behind a CgBI chunk
 *   jpeg-scans OUT N SIDE      a SIDExSIDE grey progressive JPEG with N DC scans
 *   gif-frames OUT W H N       N 1x1 frames on a WxH canvas
 *   gif-offcanvas OUT N        N 4096x4096 frames placed off a 1x1 canvas
 *   apng-frames OUT W H N      a WxH APNG declaring N frames (only the first stored)
 *   webp-frames OUT W H N      N 1x1 frames on a WxH animated WebP canvas
 *   webp-still OUT [W [H]]     a still lossless WebP (no VP8X, no animation) of the rgba picture
 *   socket OUT                 a Unix domain socket bound at OUT, left behind */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

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

/* What a picture's pixels show: the disc (alpha from pixel()), the same
 * colours fully opaque or fully clear, the invader whole or torn, the disc
 * with a hole through it or its top pressed into a V. */
enum picture { PIC_DISC, PIC_OPAQUE, PIC_CLEAR, PIC_INVADER, PIC_INVADER_TORN, PIC_HOLED, PIC_NOTCHED };

/* How far down the notched picture draws the disc at column x: its top pressed into a V
 * a tenth of the picture deep and as wide, fading out by the disc's middle. */
static double notch_depth(double x, double y, int w, int h)
{
    double depth = 0.1 * h * fmax(0.0, 1.0 - fabs(x - 0.5 * w) / (0.1 * w));
    return depth * fmax(0.0, 1.0 - y / (0.5 * h));
}

/* Pixel art whose squares meet at corners (antennae, feet): an invader 11 cells
 * wide and 8 high, a cell's margin round it and two above and below, drawn
 * with hard edges; torn, its antennae's tips stand a cell above them, a gap
 * seen through. */
static double invader(int x, int y, int w, int h, int torn)
{
    static const char *art[8] = { "..X.....X..", "...X...X...", "..XXXXXXX..", ".XX.XXX.XX.",
                                  "XXXXXXXXXXX", "X.XXXXXXX.X", "X.X.....X.X", "...XX.XX..." };
    int i = x * 13 / w - 1, j = y * 12 / h - 2;
    if (torn && j == -1 && (i == 2 || i == 8))
        return 1;
    if (torn && j == 0)
        return 0;
    return i >= 0 && i < 11 && j >= 0 && j < 8 && art[j][i] == 'X';
}

static void make_row(uint8_t *row, int y, int x0, int dx, int n, int w, int h, int ctype, int depth,
                     enum picture pic)
{
    uint8_t *p = row;
    for (int i = 0; i < n; i++) {
        int x = x0 + i * dx;
        double r, g, b, a;
        if (pic == PIC_NOTCHED) {
            /* the disc drawn from where the V moved each pixel from (found by iterating
             * y = y0 + depth(y0), which converges as depth falls with y by less than 1) */
            double y0 = y + 0.5;
            for (int it = 0; it < 20; it++)
                y0 = y + 0.5 - notch_depth(x + 0.5, y0, w, h);
            pixel(x, (int)floor(y0), w, h, &r, &g, &b, &a);
            double ux = x + 0.5 - w * 0.5, uy = y0 - h * 0.5, rad = (w < h ? w : h) * 0.42;
            double d = rad - sqrt(ux * ux + uy * uy);
            a = d > 1 ? 1 : d < 0 ? 0 : d;
        } else
            pixel(x, y, w, h, &r, &g, &b, &a);
        if (pic == PIC_HOLED) {
            double ux = x + 0.5 - w * 0.5, uy = y + 0.5 - h * 0.5;
            a = sqrt(ux * ux + uy * uy) < w * 0.1 ? 0 : a;
        } else if (pic == PIC_INVADER || pic == PIC_INVADER_TORN) {
            a = invader(x, y, w, h, pic == PIC_INVADER_TORN);
            r = 0.33, g = 0.22, b = 0.53;
        } else if (pic != PIC_DISC && pic != PIC_NOTCHED)
            a = pic == PIC_CLEAR ? 0 : 1;
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

static int write_png(const char *out, int w, int h, int ctype, int depth, int interlace, enum picture pic, int cut)
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
            make_row(raw + len, y, x0, ddx, n, w, h, ctype, depth, pic);
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
/* The signature, a CgBI chunk when asked, and an 8-bit RGBA IHDR of w x h. */
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

static int write_header_only(const char *out, uint32_t w, uint32_t h)
{
    FILE *f = fopen(out, "wb");
    if (!f)
        return 1;
    png_start(f, w, h, 0);
    uint8_t raw[5] = { 0, 0, 0, 0, 0 };
    uLongf zl = 64;
    uint8_t z[64];
    compress2(z, &zl, raw, sizeof raw, 9);
    chunk(f, "IDAT", z, (uint32_t)zl);
    chunk(f, "IEND", NULL, 0);
    return fclose(f) != 0;
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

/* A still lossless WebP: a disc of colour fading out at its edge. */
static int webp_still(const char *path, int w, int h)
{
    if (w < 1 || h < 1 || w > 4096 || h > 4096)
        return 1;
    uint8_t *px = malloc((size_t)w * h * 4), *enc = NULL;
    if (!px)
        return 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = px + ((size_t)y * w + x) * 4;
            double dx = (x + 0.5) / w - 0.5, dy = (y + 0.5) / h - 0.5, r = dx * dx + dy * dy;
            p[0] = (uint8_t)(255 * x / w);
            p[1] = (uint8_t)(255 * y / h);
            p[2] = 160;
            p[3] = r < 0.16 ? 255 : r < 0.25 ? (uint8_t)(255 * (0.25 - r) / 0.09) : 0;
        }
    size_t n = WebPEncodeLosslessRGBA(px, w, h, w * 4, &enc);
    free(px);
    int rc = n ? write_bytes(path, enc, n) : 1;
    WebPFree(enc);
    return rc;
}

/* Binds a Unix socket at path and closes it: the name stays, a socket. */
static int make_socket(const char *path)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a.sun_path)
        return 1;
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return 1;
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a) != 0;
    close(fd);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mkpng KIND OUT [W H]\n");
        return 2;
    }
    const char *k = argv[1], *out = argv[2];
    int w = argc > 3 ? atoi(argv[3]) : 64, h = argc > 4 ? atoi(argv[4]) : w;
    if (!strcmp(k, "rgba")) return write_png(out, w, h, 6, 8, 0, PIC_DISC, 0);
    if (!strcmp(k, "rgba16")) return write_png(out, w, h, 6, 16, 0, PIC_DISC, 0);
    if (!strcmp(k, "rgb")) return write_png(out, w, h, 2, 8, 0, PIC_OPAQUE, 0);
    if (!strcmp(k, "rgb16")) return write_png(out, w, h, 2, 16, 0, PIC_OPAQUE, 0);
    if (!strcmp(k, "gray")) return write_png(out, w, h, 0, 8, 0, PIC_OPAQUE, 0);
    if (!strcmp(k, "gray16")) return write_png(out, w, h, 0, 16, 0, PIC_OPAQUE, 0);
    if (!strcmp(k, "graya")) return write_png(out, w, h, 4, 8, 0, PIC_DISC, 0);
    if (!strcmp(k, "palette")) return write_png(out, w, h, 3, 8, 0, PIC_DISC, 0);
    if (!strcmp(k, "interlaced")) return write_png(out, w, h, 6, 8, 1, PIC_DISC, 0);
    if (!strcmp(k, "truncated")) return write_png(out, w, h, 6, 8, 0, PIC_DISC, 1);
    if (!strcmp(k, "corrupt-idat")) return write_png(out, w, h, 6, 8, 0, PIC_DISC, 2);
    if (!strcmp(k, "empty")) return write_bytes(out, "", 0);
    if (!strcmp(k, "text")) return write_bytes(out, "hello, this is not a picture\n", 29);
    if (!strcmp(k, "zero-width")) return write_header_only(out, 0, 64);
    if (!strcmp(k, "huge")) return write_header_only(out, 60000, 60000);
    if (!strcmp(k, "webp-still")) return webp_still(out, w, h);
    if (!strcmp(k, "socket")) return make_socket(out);
    if (!strcmp(k, "transparent")) /* valid, but every alpha is 0 */
        return write_png(out, w, h, 6, 8, 0, PIC_CLEAR, 0);
    if (!strcmp(k, "invader")) return write_png(out, w, h, 6, 8, 0, PIC_INVADER, 0);
    if (!strcmp(k, "invader-torn")) return write_png(out, w, h, 6, 8, 0, PIC_INVADER_TORN, 0);
    if (!strcmp(k, "holed")) return write_png(out, w, h, 6, 8, 0, PIC_HOLED, 0);
    if (!strcmp(k, "notched")) return write_png(out, w, h, 6, 8, 0, PIC_NOTCHED, 0);
    long a = argc > 3 ? atol(argv[3]) : 0, b = argc > 4 ? atol(argv[4]) : 0, c = argc > 5 ? atol(argv[5]) : 0;
    if (!strcmp(k, "png-bomb") && argc == 6) return png_bomb(out, (int)a, (int)b, (int)c, 0);
    if (!strcmp(k, "png-cgbi") && argc == 4) return png_bomb(out, (int)a, 0, 0, 1);
    if (!strcmp(k, "jpeg-scans") && argc == 5) return jpeg_scans(out, a, (int)b);
    if (!strcmp(k, "gif-frames") && argc == 6) return gif_frames(out, (int)a, (int)b, c, 1, 1, 0, 0);
    if (!strcmp(k, "gif-offcanvas") && argc == 4) return gif_frames(out, 1, 1, a, 4096, 4096, 60000, 60000);
    if (!strcmp(k, "apng-frames") && argc == 6) return apng_frames(out, (uint32_t)a, (uint32_t)b, (uint32_t)c);
    if (!strcmp(k, "webp-frames") && argc == 6) return webp_frames(out, (uint32_t)a, (uint32_t)b, (uint32_t)c);
    fprintf(stderr, "mkpng: unknown kind %s\n", k);
    return 2;
}
