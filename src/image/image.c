/* image.c - decoding (PNG and JPEG through stb_image, WebP through libwebp, the
 * first frame of a GIF through giflib, SVG through librsvg and cairo, loaded
 * on the first SVG by svglib.c) with a pixel limit checked from the header,
 * resampling (stb_image_resize) and PNG encoding (stb_image_write). */
#include "image.h"
#include "util/hugemem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <webp/decode.h>
#include <zlib.h>

#include "svglib.h"
#include "util/fileio.h"
#include "util/memlimit.h"

#include <stb_image.h>
#include <stb_image_resize.h>
#include <stb_image_write.h>

static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

/* Reads the size from a PNG IHDR without decoding, so a huge header fails fast. */
static int png_header_size(const uint8_t *d, size_t len, long long *w, long long *h)
{
    if (len < 24 || memcmp(d, png_sig, 8) != 0 || memcmp(d + 12, "IHDR", 4) != 0)
        return 0;
    *w = ((long long)d[16] << 24) | ((long long)d[17] << 16) | ((long long)d[18] << 8) | d[19];
    *h = ((long long)d[20] << 24) | ((long long)d[21] << 16) | ((long long)d[22] << 8) | d[23];
    return 1;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Samples a pixel of PNG colour type ctype, 0 for a type PNG does not have. */
static int png_channels(int ctype)
{
    return ctype == 0 ? 1 : ctype == 2 ? 3 : ctype == 3 ? 1 : ctype == 4 ? 2 : ctype == 6 ? 4 : 0;
}

/* The inflated rows of a PNG, each behind its filter byte: len bytes asked
 * for at data (NULL: none kept), got bytes the stream held. */
typedef struct png_rows {
    uint8_t *data;
    size_t len;
    long long got;
    int ended;   /* the deflate stream reached its end */
    int unfiltered;   /* png_plain has unfiltered them in place */
} png_rows;

/* What png_precheck found. */
enum {
    PNG_FINE,      /* stb_image may decode it */
    PNG_BOMB,      /* the image data inflates to more than the header allows */
    PNG_CUT,       /* a chunk claims more bytes than the file has */
    PNG_BAD_ZLIB,  /* the zlib header or the deflate data is corrupt */
    PNG_CGBI,      /* Apple's CgBI variant: headerless deflate, BGRA */
    PNG_NOMEM
};

/* Checks a PNG's chunks before stb_image sees them, walking them as stb_image
 * does (IDAT chunks joined wherever they stand, CgBI honoured anywhere before
 * IEND). stb_image grows its output for as long as the deflate stream goes on
 * and takes any zlib window size, so the data is inflated here first: the
 * 2-byte zlib header checked as stb_image checks it (method 8, FCHECK, no
 * preset dictionary; any CINFO), then the stream inflated raw with the
 * largest window, stopping as soon as it passes what IHDR allows. Data zlib
 * cannot inflate is refused here rather than left to stb_image's laxer inflater.
 * When rows->data is set, the inflated bytes fill it first (rows->len of
 * them, the rest only counted) and rows->got says how many there were. */
static int png_precheck(const uint8_t *d, size_t len, long long w, long long h, png_rows *rows)
{
    int depth = d[24], ch = png_channels(d[25]);
    if (!ch || depth < 1 || depth > 16)
        return PNG_FINE; /* stb_image refuses the header before inflating anything */
    /* rows with their filter byte; interlacing adds at most a filter byte and a
     * partial byte per row of each of the seven passes */
    long long row = (w * ch * depth + 7) / 8 + 1;
    long long limit = row * h + 7 * (h + 8) * 2 + 64;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK)
        return PNG_NOMEM;
    uint8_t scratch[16384], zhdr[2];
    long long total = 0;
    int res = PNG_FINE, done = 0, nhdr = 0;
    size_t pos = 8;
    while (res == PNG_FINE && pos + 12 <= len) {
        uint32_t clen = be32(d + pos);
        const uint8_t *type = d + pos + 4, *body = d + pos + 8;
        if (clen > len - pos - 12) {
            res = PNG_CUT;
            break;
        }
        if (memcmp(type, "CgBI", 4) == 0) {
            res = PNG_CGBI;
        } else if (memcmp(type, "IDAT", 4) == 0 && !done) {
            const uint8_t *p = body;
            uint32_t n = clen;
            while (nhdr < 2 && n > 0) {
                zhdr[nhdr++] = *p++;
                n--;
                if (nhdr == 2 && ((zhdr[0] & 15) != 8 || (zhdr[0] * 256 + zhdr[1]) % 31 != 0 || (zhdr[1] & 32)))
                    res = PNG_BAD_ZLIB;
            }
            z.next_in = (Bytef *)p;
            z.avail_in = n;
            while (z.avail_in > 0 && res == PNG_FINE && !done) {
                int keep = rows->data && total < (long long)rows->len;
                uInt room = keep ? (uInt)((long long)rows->len - total > 1 << 30 ? 1 << 30 : (long long)rows->len - total)
                                 : (uInt)sizeof scratch;
                z.next_out = keep ? rows->data + total : scratch;
                z.avail_out = room;
                int r = inflate(&z, Z_NO_FLUSH);
                total += (long long)(room - z.avail_out);
                if (total > limit)
                    res = PNG_BOMB;
                else if (r == Z_STREAM_END)
                    done = 1;
                else if (r == Z_MEM_ERROR)
                    res = PNG_NOMEM;
                else if (r != Z_OK && r != Z_BUF_ERROR)
                    res = PNG_BAD_ZLIB;
            }
        } else if (memcmp(type, "IEND", 4) == 0) {
            break;
        }
        pos += 12 + (size_t)clen;
    }
    inflateEnd(&z);
    rows->got = total;
    rows->ended = done;
    return res;
}

/* The most scans a JPEG may have: a progressive JPEG repeats the whole
 * coefficient pass per scan, so a file of tiny scans costs minutes in
 * stb_image. Encoders write about 10 (jpegtran, mozjpeg at most about 60). */
#define JPEG_MAX_SCANS 500

/* What jpeg_check finds wrong with a JPEG before stb_image sees it. */
typedef enum jpeg_fault { JPEG_FINE, JPEG_TOO_MANY_SCANS, JPEG_UNDEFINED_TABLE } jpeg_fault;

/* Walks a JPEG's segments: counts its start-of-scan markers (at most
 * JPEG_MAX_SCANS) and checks that each scan uses only Huffman tables an
 * earlier DHT segment defined; stb_image decodes with an undefined table's
 * uninitialised memory. Truncation is left to the decoder. */
static jpeg_fault jpeg_check(const uint8_t *d, size_t len)
{
    size_t pos = 2;
    int scans = 0, progressive = 0;
    unsigned defined[2] = { 0, 0 }; /* bit t: DC (0) or AC (1) table t */
    while (pos + 1 < len) {
        if (d[pos] != 0xff) {
            pos++; /* entropy-coded data after a scan header */
            continue;
        }
        uint8_t m = d[pos + 1];
        if (m == 0xff) {
            pos++; /* fill byte */
            continue;
        }
        pos += 2;
        if (m == 0x00 || (m >= 0xd0 && m <= 0xd8) || m == 0x01)
            continue; /* a stuffed 0xff, a restart marker, SOI, TEM: no length */
        if (m == 0xd9)
            break;    /* end of image */
        if (pos + 2 > len)
            break;
        size_t seg = (size_t)d[pos] << 8 | d[pos + 1];
        size_t end = pos + seg < len ? pos + seg : len;
        if (m == 0xc2)
            progressive = 1;
        if (m == 0xc4) {
            /* one or more tables: class and id, 16 code counts, the symbols */
            size_t p = pos + 2;
            while (p + 17 <= end) {
                size_t n = 0;
                for (int i = 1; i <= 16; i++)
                    n += d[p + i];
                if (p + 17 + n > end)
                    break;
                if (d[p] >> 4 <= 1 && (d[p] & 15) <= 3)
                    defined[d[p] >> 4] |= 1u << (d[p] & 15);
                p += 17 + n;
            }
        }
        if (m == 0xda) {
            if (++scans > JPEG_MAX_SCANS)
                return JPEG_TOO_MANY_SCANS;
            size_t p = pos + 2;
            if (p < end) {
                size_t ns = d[p];
                if (p + 2 * ns + 2 < end) {
                    int ss = d[p + 1 + 2 * ns];
                    /* baseline scans use both tables; progressive ones DC or AC */
                    int need_dc = !progressive || ss == 0, need_ac = !progressive || ss > 0;
                    for (size_t i = 0; i < ns; i++) {
                        unsigned td = d[p + 2 + 2 * i] >> 4, ta = d[p + 2 + 2 * i] & 15;
                        if ((need_dc && td <= 3 && !(defined[0] >> td & 1)) ||
                            (need_ac && ta <= 3 && !(defined[1] >> ta & 1)))
                            return JPEG_UNDEFINED_TABLE;
                    }
                }
            }
        }
        pos += seg < 2 ? 2 : seg;
    }
    return JPEG_FINE;
}

static int is_png(const uint8_t *d, size_t len)
{
    return len >= 8 && memcmp(d, png_sig, 8) == 0;
}

static int is_jpeg(const uint8_t *d, size_t len)
{
    return len >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff;
}

/* Fails when decoding a w x h image would take more than the memory bound. */
static poyo_status check_memory(long long w, long long h, poyo_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "decoding a %lldx%lld image", w, h);
    return memlimit_check(memlimit_decode((double)w, (double)h), what, NULL, POYO_ERR_INPUT, err);
}

/* Fails unless a w x h image is within max_pixels and the memory bound. */
static poyo_status check_size(long long w, long long h, long long max_pixels, poyo_error *err)
{
    if (w <= 0 || h <= 0)
        return poyo_fail(err, POYO_ERR_INPUT, "image has zero width or height (%lldx%lld)", w, h);
    if (w > max_pixels || h > max_pixels || w * h > max_pixels)
        return poyo_fail(err, POYO_ERR_INPUT, "image is %lldx%lld, more than the %lld-pixel limit (see --max-pixels)",
                         w, h, max_pixels);
    return check_memory(w, h, err);
}

/* The bytes of a PNG's IDAT chunks, the chunks that stand whole in the file. */
static size_t png_idat_bytes(const uint8_t *d, size_t len)
{
    size_t total = 0;
    for (size_t pos = 8; pos + 12 <= len;) {
        uint32_t clen = be32(d + pos);
        if (clen > len - pos - 12)
            break;
        if (memcmp(d + pos + 4, "IDAT", 4) == 0)
            total += clen;
        pos += 12 + (size_t)clen;
    }
    return total;
}

/* The channels of a PNG that png_plain decodes (colour type 0, 2, 3, 4 or 6
 * at 8 bits a sample, not interlaced), else 0. */
static int png_plain_channels(const uint8_t *d)
{
    int ctype = d[25];
    uint32_t w = be32(d + 16), h = be32(d + 20);
    /* stb_image's own limits: 2^24 pixels a side, 2^30 bytes of pixels */
    if (be32(d + 8) != 13 || w > 1u << 24 || h > 1u << 24 || (uint64_t)w * h * 4 > (uint64_t)1 << 30)
        return 0;
    if (d[24] != 8 || d[26] != 0 || d[27] != 0 || d[28] != 0)
        return 0;
    return png_channels(ctype);
}

/* Unfilters the h rows of rb bytes (each behind its filter byte) of a PNG
 * with bpp bytes a pixel, in place; 0 at a filter type PNG does not have.
 * The first row's filters see a row of zeros above: Up is None, Paeth is Sub. */
static int png_unfilter(uint8_t *raw, size_t rb, int h, int bpp)
{
    const uint8_t *prev = NULL;
    for (int y = 0; y < h; y++) {
        uint8_t *row = raw + (size_t)y * (rb + 1) + 1;
        int f = row[-1];
        size_t i;
        if (f > 4)
            return 0;
        if (!prev && (f == 2 || f == 4))
            f = f == 2 ? 0 : 1;
        switch (f) {
        case 1:
            for (i = (size_t)bpp; i < rb; i++)
                row[i] = (uint8_t)(row[i] + row[i - bpp]);
            break;
        case 2:
            for (i = 0; i < rb; i++)
                row[i] = (uint8_t)(row[i] + prev[i]);
            break;
        case 3:
            for (i = 0; i < (size_t)bpp && i < rb; i++)
                row[i] = (uint8_t)(row[i] + (prev ? prev[i] >> 1 : 0));
            if (prev)
                for (; i < rb; i++)
                    row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prev[i]) >> 1));
            else
                for (; i < rb; i++)
                    row[i] = (uint8_t)(row[i] + (row[i - bpp] >> 1));
            break;
        case 4:
            for (i = 0; i < (size_t)bpp && i < rb; i++)
                row[i] = (uint8_t)(row[i] + prev[i]);
            for (; i < rb; i++) {
                int a = row[i - bpp], b = prev[i], c = prev[i - bpp];
                int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
                int pred = pb < pa ? b : a, pp = pb < pa ? pb : pa;
                row[i] = (uint8_t)(row[i] + (pc < pp ? c : pred));
            }
            break;
        default: break;
        }
        prev = row;
    }
    return 1;
}

/* The pixels across (*pw) and down (*ph) of pass k of a PNG: the whole image
 * without interlacing (one pass), else pass k of Adam7's seven (0 when it is
 * empty). Returns how many passes the PNG has. */
static int png_pass(const uint8_t *d, int k, uint64_t *pw, uint64_t *ph)
{
    static const int x0[7] = { 0, 4, 0, 2, 0, 1, 0 }, y0[7] = { 0, 0, 4, 0, 2, 0, 1 };
    static const int dx[7] = { 8, 8, 4, 4, 2, 2, 1 }, dy[7] = { 8, 8, 8, 4, 4, 2, 2 };
    uint64_t w = be32(d + 16), h = be32(d + 20);
    if (!d[28]) {
        *pw = w;
        *ph = h;
        return 1;
    }
    *pw = w > (uint64_t)x0[k] ? (w - x0[k] + dx[k] - 1) / dx[k] : 0;
    *ph = h > (uint64_t)y0[k] ? (h - y0[k] + dy[k] - 1) / dy[k] : 0;
    return 7;
}

/* The bytes a palette PNG's (colour type 3, 1 to 8 bits a pixel) inflated
 * data holds: each row of each pass behind its filter byte. 0 for another kind. */
static size_t png_palette_rows_len(const uint8_t *d)
{
    uint64_t depth = d[24], total = 0, pw, ph;
    if (be32(d + 8) != 13 || d[25] != 3 || (depth != 1 && depth != 2 && depth != 4 && depth != 8) || d[28] > 1)
        return 0;
    for (int k = 0, passes = 1; k < passes; k++) {
        passes = png_pass(d, k, &pw, &ph);
        if (pw && ph)
            total += ((pw * depth + 7) / 8 + 1) * ph;
    }
    return total > (uint64_t)1 << 31 ? 0 : (size_t)total;
}

/* Whether a palette PNG's pixels all index its palette (the last PLTE
 * chunk's entries, the one stb_image uses): 1, or 0 when one points past it.
 * Unfilters rows (rows->len bytes, as png_palette_rows_len counts them) in
 * place unless png_plain has. A file whose rows are short, whose filter bytes PNG does not have or
 * that has no valid palette passes: stb_image refuses it with its own words. */
static int png_indices_in_palette(const uint8_t *d, size_t len, png_rows *rows)
{
    long npal = -1;
    for (size_t pos = 8; pos + 12 <= len;) {
        uint32_t clen = be32(d + pos);
        if (clen > len - pos - 12 || memcmp(d + pos + 4, "IEND", 4) == 0)
            break;
        if (memcmp(d + pos + 4, "PLTE", 4) == 0)
            npal = clen % 3 == 0 && clen <= 768 && clen > 0 ? (long)clen / 3 : -1;
        pos += 12 + (size_t)clen;
    }
    if (npal < 1 || npal == 256 || rows->got < (long long)rows->len)
        return 1;
    int depth = d[24], mask = (1 << depth) - 1;
    uint8_t *p = rows->data;
    uint64_t pw, ph;
    for (int k = 0, passes = 1; k < passes; k++) {
        passes = png_pass(d, k, &pw, &ph);
        if (!pw || !ph)
            continue;
        size_t rb = (size_t)((pw * (uint64_t)depth + 7) / 8);
        if (!rows->unfiltered && !png_unfilter(p, rb, (int)ph, 1))
            return 1;
        for (uint64_t y = 0; y < ph; y++) {
            const uint8_t *row = p + y * (rb + 1) + 1;
            for (uint64_t x = 0; x < pw; x++) {
                uint64_t bit = x * (uint64_t)depth;
                int idx = row[bit / 8] >> (8 - depth - (int)(bit % 8)) & mask;
                if (idx >= npal)
                    return 0;
            }
        }
        p += (rb + 1) * ph;
    }
    return 1;
}

/* Decodes a plain PNG (png_plain_channels) from its inflated rows into RGBA
 * as stb_image would: a palette and tRNS chunk before the first IDAT, tRNS
 * a colour key for grey and RGB. Returns 1 when decoded; PNG_INDEX_PAST
 * when a pixel indexes past the palette (stb_image would read memory it
 * never set); 0 leaves the file to stb_image and its messages: rows of
 * another length, a filter type PNG does not have, a palette or tRNS chunk
 * it refuses or after the image data, a palette in a PNG without indices,
 * a critical chunk it does not know, no IEND chunk. */
#define PNG_INDEX_PAST (-1)
static int png_plain(const uint8_t *d, size_t len, png_rows *rows, image *out)
{
    int w = (int)be32(d + 16), h = (int)be32(d + 20), ctype = d[25], ch = png_plain_channels(d);
    size_t rb = (size_t)w * (size_t)ch;
    if (rows->got != (long long)rows->len || !rows->ended || !png_unfilter(rows->data, rb, h, ch))
        return 0;
    rows->unfiltered = 1;
    uint8_t pal[256][4];
    int npal = 0, ntrns = -1, key[3] = { -1, -1, -1 }, seen_idat = 0, ended = 0;
    for (size_t pos = 8; pos + 12 <= len;) {
        uint32_t clen = be32(d + pos);
        const uint8_t *type = d + pos + 4, *body = d + pos + 8;
        if (clen > len - pos - 12)
            return 0;
        if (memcmp(type, "IEND", 4) == 0) {
            ended = 1;
            break;
        }
        if (memcmp(type, "IDAT", 4) == 0)
            seen_idat = 1;
        else if (pos > 8 && memcmp(type, "IHDR", 4) == 0)
            return 0;   /* a second IHDR */
        else if (!(type[0] & 32) && memcmp(type, "IHDR", 4) != 0 && memcmp(type, "PLTE", 4) != 0 &&
                 memcmp(type, "tRNS", 4) != 0)
            return 0;   /* a critical chunk stb_image does not know: it refuses the file */
        else if (seen_idat && (memcmp(type, "PLTE", 4) == 0 || memcmp(type, "tRNS", 4) == 0))
            return 0;
        else if (memcmp(type, "PLTE", 4) == 0) {
            if (ctype != 3 || clen % 3 || clen == 0 || clen > 768 || npal)
                return 0;
            npal = (int)clen / 3;
            for (int k = 0; k < npal; k++)
                pal[k][0] = body[3 * k], pal[k][1] = body[3 * k + 1], pal[k][2] = body[3 * k + 2], pal[k][3] = 255;
        } else if (memcmp(type, "tRNS", 4) == 0) {
            if (ntrns >= 0 || ctype == 4 || ctype == 6)
                return 0;
            if (ctype == 3) {
                if (!npal || clen > (uint32_t)npal)
                    return 0;
                for (uint32_t k = 0; k < clen; k++)
                    pal[k][3] = body[k];
            } else {
                if (clen != (uint32_t)ch * 2)
                    return 0;
                for (int k = 0; k < ch; k++)
                    key[k] = body[2 * k + 1];   /* stb_image keeps the low byte of each 16-bit sample */
            }
            ntrns = (int)clen;
        }
        pos += 12 + (size_t)clen;
    }
    if (!ended || (ctype == 3 && !npal))
        return 0;
    uint8_t *px = malloc((size_t)w * (size_t)h * 4u);
    if (!px)
        return 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *s = rows->data + (size_t)y * (rb + 1) + 1;
        uint8_t *o = px + (size_t)y * (size_t)w * 4u;
        if (ctype == 6) {
            memcpy(o, s, rb);
            continue;
        }
        /* one loop a kind, each pixel's bytes stored one by one */
        if (ctype == 3) {
            for (int x = 0; x < w; x++, o += 4) {
                const uint8_t *c = pal[s[x]];
                if (s[x] >= npal) {
                    free(px);
                    return PNG_INDEX_PAST;
                }
                o[0] = c[0], o[1] = c[1], o[2] = c[2], o[3] = c[3];
            }
        } else if (ctype == 4) {
            for (int x = 0; x < w; x++, o += 4)
                o[0] = o[1] = o[2] = s[2 * x], o[3] = s[2 * x + 1];
        } else if (ctype == 2) {
            for (int x = 0; x < w; x++, o += 4) {
                const uint8_t *c = s + 3 * x;
                o[0] = c[0], o[1] = c[1], o[2] = c[2];
                o[3] = c[0] == key[0] && c[1] == key[1] && c[2] == key[2] ? 0 : 255;
            }
        } else {
            for (int x = 0; x < w; x++, o += 4)
                o[0] = o[1] = o[2] = s[x], o[3] = s[x] == key[0] ? 0 : 255;
        }
    }
    out->rgba = px;
    out->w = w;
    out->h = h;
    return 1;
}

/* Checks a PNG before stb_image sees it: the header, the size against the limit, the chunks. */
static poyo_status png_gate(const uint8_t *data, size_t len, long long max_pixels, png_rows *rows, poyo_error *err)
{
    if (len >= 16 && memcmp(data + 12, "CgBI", 4) == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "an Apple CgBI PNG (made for iOS), not a standard PNG; convert it first");
    long long hw, hh;
    if (len < 33 || !png_header_size(data, len, &hw, &hh))
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt PNG header (no IHDR chunk first)");
    if (hw == 0 || hh == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "image has zero width or height (%lldx%lld)", hw, hh);
    poyo_status st = check_size(hw, hh, max_pixels, err);
    if (st != POYO_OK)
        return st;
    /* the plain kinds (8 bits a sample, not interlaced) are unfiltered by
     * png_plain from the rows inflated here; the others go to stb_image */
    int ch = png_plain_channels(data);
    size_t need = ch ? ((size_t)hw * (size_t)ch + 1) * (size_t)hh : png_palette_rows_len(data);
    /* deflate grows data at most 1032 times: rows the IDAT chunks cannot
     * fill are not allocated (stb_image then refuses the short data) */
    if (need && need / 1032 <= png_idat_bytes(data, len)) {
        /* a palette PNG's rows are kept too, to check its indices */
        rows->len = need;
        hugemem_prefer(rows->len + (size_t)hw * (size_t)hh * 4u);
        rows->data = malloc(rows->len);   /* none: stb_image decodes it */
    }
    switch (png_precheck(data, len, hw, hh, rows)) {
    case PNG_BOMB:
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt PNG: its image data inflates to more than a %lldx%lld image holds",
                         hw, hh);
    case PNG_CUT:
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (a chunk runs past the end of the file)");
    case PNG_BAD_ZLIB:
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt PNG: its compressed image data is not valid zlib data");
    case PNG_CGBI:
        return poyo_fail(err, POYO_ERR_INPUT, "an Apple CgBI PNG (made for iOS), not a standard PNG; convert it first");
    case PNG_NOMEM:
        return poyo_fail(err, POYO_ERR_NOMEM, "cannot start the zlib decompressor");
    default:
        return POYO_OK;
    }
}

static int is_webp(const uint8_t *d, size_t len)
{
    return len >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0;
}

static int is_gif(const uint8_t *d, size_t len)
{
    return len >= 6 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0);
}

static uint32_t le24(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static uint32_t le32(const uint8_t *p)
{
    return le24(p) | (uint32_t)p[3] << 24;
}

static void put_le(uint8_t *p, uint32_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* An animated WebP's first frame, placed on the transparent w x h canvas out.
 * The RIFF chunks are walked to the first ANMF chunk only; its rectangle must
 * lie on the canvas, and its bitstream (ALPH and VP8, or VP8L) is decoded as
 * a still image wrapped in a VP8X header of the frame's size, so the other
 * frames are never parsed nor allocated for. Blending a first frame onto the
 * transparent canvas leaves it as it is. */
static poyo_status webp_first_frame(const uint8_t *data, size_t len, image *out, poyo_error *err)
{
    size_t end = 8 + (size_t)le32(data + 4), pos = 12;
    if (end > len)
        end = len;
    const uint8_t *anmf = NULL;
    size_t n = 0;
    while (pos + 8 <= end && !anmf) {
        size_t size = le32(data + pos + 4);
        if (size > end - pos - 8)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated WebP animation (a chunk runs past the end of the file)");
        if (memcmp(data + pos, "ANMF", 4) == 0) {
            anmf = data + pos + 8;
            n = size;
        }
        pos += 8 + size + (size & 1);
    }
    if (!anmf)
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated WebP animation (no frame)");
    if (n < 16 + 8)
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt WebP animation (frame 1 is too short)");
    uint32_t fx = 2 * le24(anmf), fy = 2 * le24(anmf + 3), fw = 1 + le24(anmf + 6), fh = 1 + le24(anmf + 9);
    if (fx + fw > (uint32_t)out->w || fy + fh > (uint32_t)out->h)
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt WebP animation (frame 1, %ux%u at %u,%u, leaves the %dx%d canvas)",
                         (unsigned)fw, (unsigned)fh, (unsigned)fx, (unsigned)fy, out->w, out->h);
    size_t body = n - 16, total = 12 + 18 + body;
    uint8_t *still = malloc(total);
    uint8_t *px = malloc((size_t)fw * fh * 4u);
    poyo_status st = POYO_OK;
    if (!still || !px) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %ux%u WebP frame", (unsigned)fw, (unsigned)fh);
    } else {
        memcpy(still, "RIFF", 4);
        put_le(still + 4, (uint32_t)(total - 8), 4);
        memcpy(still + 8, "WEBPVP8X", 8);
        put_le(still + 16, 10, 4);
        memset(still + 20, 0, 4);
        still[20] = 0x10; /* alpha: an ALPH chunk may follow */
        put_le(still + 24, fw - 1, 3);
        put_le(still + 27, fh - 1, 3);
        memcpy(still + 30, anmf + 16, body);
        if (!WebPDecodeRGBAInto(still, total, px, (size_t)fw * fh * 4u, (int)fw * 4))
            st = poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (WebP animation frame 1)");
    }
    for (uint32_t y = 0; st == POYO_OK && y < fh; y++)
        memcpy(out->rgba + ((size_t)(fy + y) * (size_t)out->w + fx) * 4u, px + (size_t)y * fw * 4u, (size_t)fw * 4u);
    free(still);
    free(px);
    return st;
}

/* A WebP: a still one decoded whole, an animated one's first frame on its
 * canvas. The canvas size comes from the header (VP8X, or the VP8/VP8L
 * frame of a simple file) and is checked before anything is decoded. */
static poyo_status decode_webp(const uint8_t *data, size_t len, long long max_pixels, image *out, poyo_error *err)
{
    WebPBitstreamFeatures feat;
    if (WebPGetFeatures(data, len, &feat) != VP8_STATUS_OK)
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated WebP header");
    poyo_status st = check_size(feat.width, feat.height, max_pixels, err);
    if (st != POYO_OK)
        return st;
    if (feat.has_animation) {
        st = image_alloc(out, feat.width, feat.height, err);
        if (st == POYO_OK)
            st = webp_first_frame(data, len, out, err);
        if (st != POYO_OK)
            image_free(out);
        return st;
    }
    size_t n = (size_t)feat.width * (size_t)feat.height * 4u;
    out->rgba = malloc(n);
    if (!out->rgba)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d image", feat.width, feat.height);
    if (!WebPDecodeRGBAInto(data, len, out->rgba, n, feat.width * 4)) {
        free(out->rgba);
        out->rgba = NULL;
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (WebP)");
    }
    out->w = feat.width;
    out->h = feat.height;
    return POYO_OK;
}

void image_gif_paint_row(uint8_t *dst, int w, int left, const unsigned char *line, int width,
                         const struct ColorMapObject *cm, int transparent)
{
    for (int x = 0; x < width && left + x < w; x++) {
        int idx = line[x];
        if (idx == transparent || idx >= cm->ColorCount)
            continue;
        uint8_t *px = dst + (size_t)(left + x) * 4u;
        px[0] = cm->Colors[idx].Red;
        px[1] = cm->Colors[idx].Green;
        px[2] = cm->Colors[idx].Blue;
        px[3] = 255;
    }
}

int image_gif_read(GifFileType *g, GifByteType *buf, int n)
{
    image_gif_src *s = g->UserData;
    if (n <= 0)
        return 0;
    size_t k = s->len - s->pos < (size_t)n ? s->len - s->pos : (size_t)n;
    memcpy(buf, s->p + s->pos, k);
    s->pos += k;
    return (int)k;
}

static poyo_status gif_error(poyo_error *err, int code)
{
    if (code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON)
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (GIF: the file is truncated)");
    const char *why = GifErrorString(code);
    return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (GIF: %s)", why ? why : "unknown error");
}

/* Decodes the first image block of an open GIF onto the transparent canvas
 * out (the logical screen): its colour table, its transparent index from the
 * graphic control block before it, rows outside the canvas read and dropped. */
static poyo_status gif_first_frame(GifFileType *gif, long long max_pixels, image *out, poyo_error *err)
{
    int transparent = NO_TRANSPARENT_COLOR;
    GifRecordType rt = UNDEFINED_RECORD_TYPE;
    for (;;) {
        if (DGifGetRecordType(gif, &rt) == GIF_ERROR)
            return gif_error(err, gif->Error);
        if (rt == TERMINATE_RECORD_TYPE)
            return poyo_fail(err, POYO_ERR_INPUT, "GIF has no frames");
        if (rt == IMAGE_DESC_RECORD_TYPE)
            break;
        if (rt != EXTENSION_RECORD_TYPE)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (GIF: unknown block)");
        int code = 0;
        GifByteType *ext = NULL;
        if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR)
            return gif_error(err, gif->Error);
        if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] == 4) {
            GraphicsControlBlock gcb;
            if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK)
                transparent = gcb.TransparentColor;
        }
        while (ext)
            if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR)
                return gif_error(err, gif->Error);
    }
    if (DGifGetImageDesc(gif) == GIF_ERROR)
        return gif_error(err, gif->Error);
    const GifImageDesc *d = &gif->Image;
    if (d->Width <= 0 || d->Height <= 0)
        return poyo_fail(err, POYO_ERR_INPUT, "GIF frame 1 has an empty size %dx%d", d->Width, d->Height);
    /* the decoding work is the frame's area, whatever part of it shows */
    if ((long long)d->Width * d->Height > max_pixels)
        return poyo_fail(err, POYO_ERR_INPUT, "GIF frame 1 is %dx%d, more than the %lld-pixel limit (see --max-pixels)",
                         d->Width, d->Height, max_pixels);
    const ColorMapObject *cm = d->ColorMap ? d->ColorMap : gif->SColorMap;
    if (!cm || !cm->Colors)
        return poyo_fail(err, POYO_ERR_INPUT, "GIF frame 1 has no colour table");
    /* one line of the frame at a time: at most 65535 bytes whatever it declares */
    uint8_t *line = malloc((size_t)d->Width);
    if (!line)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a GIF line of %d pixels", d->Width);
    static const int start[4] = { 0, 4, 2, 1 }, step[4] = { 8, 8, 4, 2 };
    int passes = d->Interlace ? 4 : 1;
    poyo_status st = POYO_OK;
    for (int p = 0; p < passes && st == POYO_OK; p++) {
        int y0 = d->Interlace ? start[p] : 0, dy = d->Interlace ? step[p] : 1;
        for (int row = y0; row < d->Height; row += dy) {
            int y = d->Top + row;
            if (y >= out->h && !d->Interlace)
                break; /* the rows left lie below the canvas; nothing after this frame is read */
            if (DGifGetLine(gif, line, d->Width) == GIF_ERROR) {
                st = gif_error(err, gif->Error);
                break;
            }
            if (y >= out->h)
                continue;
            image_gif_paint_row(out->rgba + (size_t)y * (size_t)out->w * 4u, out->w, d->Left, line, d->Width, cm,
                                transparent);
        }
    }
    free(line);
    return st;
}

/* A GIF's first frame, composited on its logical screen (transparent where
 * the frame does not reach or uses its transparent index). The screen size is
 * checked against the limit before anything is allocated; later frames are
 * never read. */
static poyo_status decode_gif(const uint8_t *data, size_t len, long long max_pixels, image *out, poyo_error *err)
{
    if (len < 13)
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated GIF header");
    long long sw = data[6] | data[7] << 8, sh = data[8] | data[9] << 8;
    poyo_status st = check_size(sw, sh, max_pixels, err);
    if (st != POYO_OK)
        return st;
    image_gif_src src = { data, len, 0 };
    int code = 0;
    GifFileType *gif = DGifOpen(&src, image_gif_read, &code);
    if (!gif)
        return code == D_GIF_ERR_NOT_ENOUGH_MEM ? poyo_fail(err, POYO_ERR_NOMEM, "out of memory reading a GIF")
                                                : poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated GIF header");
    st = image_alloc(out, (int)sw, (int)sh, err);
    if (st == POYO_OK)
        st = gif_first_frame(gif, max_pixels, out, err);
    if (st != POYO_OK)
        image_free(out);
    DGifCloseFile(gif, &code);
    return st;
}

/* What the start of a file says about it as XML. */
typedef enum xml_kind {
    XML_NONE,     /* not XML: no '<' first, or none a tag can start with */
    XML_SVG,      /* the root element is svg (any namespace prefix) */
    XML_OTHER,    /* the root element is another one */
    XML_NO_ROOT   /* the prolog never ends in a root element */
} xml_kind;

static int xml_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int xml_name_char(uint8_t c)
{
    return c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == ':' || c == '-' || c == '.';
}

/* The offset just past the first `end` at or after pos, or len when there is none. */
static size_t skip_past(const uint8_t *d, size_t len, size_t pos, const char *end)
{
    size_t k = strlen(end);
    for (; pos + k <= len; pos++)
        if (memcmp(d + pos, end, k) == 0)
            return pos + k;
    return len + 1;
}

/* Finds the root element of XML data: after a UTF-8 byte order mark, white
 * space, the XML declaration, processing instructions, comments and a
 * DOCTYPE (its internal subset included, quoted strings skipped). The root's
 * name (at most cap - 1 bytes) goes to name. */
static xml_kind xml_root(const uint8_t *d, size_t len, char *name, size_t cap)
{
    size_t pos = len >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf ? 3 : 0;
    while (pos < len && xml_space(d[pos]))
        pos++;
    if (pos + 1 >= len || d[pos] != '<' || !(d[pos + 1] == '?' || d[pos + 1] == '!' || xml_name_char(d[pos + 1])))
        return XML_NONE;
    for (;;) {
        while (pos < len && xml_space(d[pos]))
            pos++;
        if (pos + 1 >= len || d[pos] != '<')
            return XML_NO_ROOT;
        if (d[pos + 1] == '?') {
            pos = skip_past(d, len, pos + 2, "?>");
        } else if (len - pos >= 4 && memcmp(d + pos, "<!--", 4) == 0) {
            pos = skip_past(d, len, pos + 4, "-->");
        } else if (d[pos + 1] == '!') {
            int depth = 0;
            uint8_t quote = 0;
            for (pos += 2; pos < len; pos++) {
                uint8_t c = d[pos];
                if (quote) {
                    quote = c == quote ? 0 : quote;
                } else if (c == '"' || c == '\'') {
                    quote = c;
                } else if (c == '[') {
                    depth++;
                } else if (c == ']') {
                    depth--;
                } else if (c == '>' && depth <= 0) {
                    break;
                }
            }
            pos++;
        } else {
            size_t start = ++pos, colon = pos;
            while (pos < len && xml_name_char(d[pos])) {
                if (d[pos] == ':')
                    colon = pos + 1;
                pos++;
            }
            size_t n = pos - start < cap - 1 ? pos - start : cap - 1;
            memcpy(name, d + start, n);
            name[n] = 0;
            if (n == 0)
                return XML_NO_ROOT;
            return pos - colon == 3 && memcmp(d + colon, "svg", 3) == 0 ? XML_SVG : XML_OTHER;
        }
        if (pos > len)
            return XML_NO_ROOT;
    }
}

/* A library's message made one line: breaks and tabs to spaces, no trailing space. */
static void one_line(char *msg)
{
    for (char *c = msg; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    for (size_t n = strlen(msg); n > 0 && msg[n - 1] == ' '; n--)
        msg[n - 1] = 0;
}

static int scheme_char(char c)
{
    return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

/* 1 when the n bytes at text hold a data: URL as a URL parser would read
 * it: CSS escapes undone (\64 or \d for d), tabs and line breaks dropped (URL
 * parsers drop them anywhere), "data:" in any case and not the end of a
 * longer word ("metadata:"); -1 when out of memory. */
static int has_data_url(const char *text, size_t n)
{
    char *t = malloc(n + 1);
    if (!t)
        return -1;
    size_t k = 0;
    for (const char *p = text, *end = text + n; p < end;) {
        unsigned c = (unsigned char)*p++;
        if (c == '\\' && p < end) {
            if (isxdigit((unsigned char)*p)) {
                unsigned v = 0;
                for (int i = 0; i < 6 && p < end && isxdigit((unsigned char)*p); i++, p++)
                    v = v * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10);
                if (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f'))
                    p++;
                c = v < 128 ? v : '?';
            } else {
                c = (unsigned char)*p++;
            }
        }
        if (c != '\t' && c != '\n' && c != '\r' && c != 0)
            t[k++] = (char)tolower((int)c);
    }
    t[k] = 0;
    int found = 0;
    for (const char *q = t; !found && (q = strstr(q, "data:")) != NULL; q++)
        found = q == t || !scheme_char(q[-1]);
    free(t);
    return found;
}

/* The most elements an SVG may draw with every <use> replaced by what it
 * refers to. librsvg stops at 500000 references, after 5 s (12 s built with
 * the sanitizers) on ten uses of ten uses, twelve levels deep; a stamp draws
 * a few thousand. */
#define SVG_MAX_DRAWN 100000

/* What svg_scan has seen so far. */
typedef struct svg_seen {
    int found;        /* 1: a data: URL; -1: out of memory */
    int depth;        /* elements open */
    int style_depth;  /* depth of the open style element, or -1 */
    char *style;      /* its text so far (comments may split it) */
    size_t slen;
    char why[200];    /* libxml2's first error, one line */
    const svglib *lib;
    /* every element in document order, and the one open now (-1: none) */
    int n, cap, open;
    struct svg_element {
        int parent;     /* -1 for the root */
        char *id, *ref; /* its id and, for a <use>, the id it refers to (without the '#'), or NULL */
    } *el;
} svg_seen;

static void seen_check(svg_seen *s, const char *text, size_t n)
{
    if (!s->found)
        s->found = has_data_url(text, n);
}

static void scan_start(void *ctx, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri, int nns,
                       const xmlChar **ns, int nattr, int ndefaulted, const xmlChar **attr)
{
    (void)prefix, (void)uri, (void)nns, (void)ns, (void)ndefaulted;
    svg_seen *s = ((xmlParserCtxtPtr)ctx)->_private;
    s->depth++;
    if (s->style_depth < 0 && strcmp((const char *)name, "style") == 0)
        s->style_depth = s->depth;
    for (int i = 0; i < nattr; i++) /* localname, prefix, URI, value, end of value */
        seen_check(s, (const char *)attr[5 * i + 3], (size_t)(attr[5 * i + 4] - attr[5 * i + 3]));
    if (s->found)
        return;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        struct svg_element *el = cap <= (1 << 28) ? realloc(s->el, (size_t)cap * sizeof *el) : NULL;
        if (!el) {
            s->found = -1;
            return;
        }
        s->el = el;
        s->cap = cap;
    }
    int e = s->n++;
    struct svg_element *x = &s->el[e];
    *x = (struct svg_element){ s->open, NULL, NULL };
    s->open = e;
    int use = strcmp((const char *)name, "use") == 0;
    for (int i = 0; i < nattr; i++) {
        const char *key = (const char *)attr[5 * i], *v = (const char *)attr[5 * i + 3];
        size_t vn = (size_t)(attr[5 * i + 4] - attr[5 * i + 3]);
        char **to = !attr[5 * i + 1] && !strcmp(key, "id") ? &x->id
                    : use && !strcmp(key, "href") && vn > 1 && v[0] == '#' ? &x->ref
                                                                      : NULL;
        if (!to || *to)
            continue;
        if (to == &x->ref)
            v++, vn--;
        if (!(*to = malloc(vn + 1))) {
            s->found = -1;
            return;
        }
        memcpy(*to, v, vn);
        (*to)[vn] = 0;
    }
}

static void scan_end(void *ctx, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri)
{
    (void)name, (void)prefix, (void)uri;
    svg_seen *s = ((xmlParserCtxtPtr)ctx)->_private;
    if (s->open >= 0 && !s->found)
        s->open = s->el[s->open].parent;
    if (s->depth-- == s->style_depth) {
        if (s->style)
            seen_check(s, s->style, s->slen);
        s->style_depth = -1;
        s->slen = 0;
    }
}

static void scan_text(void *ctx, const xmlChar *text, int n)
{
    svg_seen *s = ((xmlParserCtxtPtr)ctx)->_private;
    if (s->style_depth < 0 || s->found)
        return;
    char *grown = realloc(s->style, s->slen + (size_t)n + 1);
    if (!grown) {
        s->found = -1;
        return;
    }
    s->style = grown;
    memcpy(s->style + s->slen, text, (size_t)n);
    s->style[s->slen += (size_t)n] = 0;
}

static void scan_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
    (void)target;
    if (data)
        seen_check(((xmlParserCtxtPtr)ctx)->_private, (const char *)data, strlen((const char *)data));
}

/* Declares internal entities only: an external one (a file or URL) is left
 * undeclared, so a reference to it is an error and nothing is looked up. */
static void scan_entity(void *ctx, const xmlChar *name, int type, const xmlChar *pub, const xmlChar *sys,
                        xmlChar *content)
{
    const svglib *lib = ((svg_seen *)((xmlParserCtxtPtr)ctx)->_private)->lib;
    if (type == XML_INTERNAL_GENERAL_ENTITY || type == XML_INTERNAL_PARAMETER_ENTITY)
        lib->xmlSAX2EntityDecl(ctx, name, type, pub, sys, content);
}

static void scan_error(void *ctx, xmlErrorPtr e)
{
    svg_seen *s = ((xmlParserCtxtPtr)ctx)->_private;
    if (*s->why || !e || !e->message || e->level < XML_ERR_ERROR)
        return;
    /* libxml2 ends this one with a parser option to set, which is no advice
     * to a user: its limit is kept, the option left out */
    const char *msg = e->message, *deep = strstr(msg, "Excessive depth"), *colon = deep ? strchr(deep, ':') : NULL;
    char nested[64];
    int limit = 0;
    if (deep) {
        if (colon && sscanf(colon + 1, "%d", &limit) == 1 && limit > 0)
            snprintf(nested, sizeof nested, "elements nested more than %d deep", limit);
        else
            snprintf(nested, sizeof nested, "elements nested too deep");
        msg = nested;
    }
    if (e->line > 0)
        snprintf(s->why, sizeof s->why, "line %d: %s", e->line, msg);
    else
        snprintf(s->why, sizeof s->why, "%s", msg);
    one_line(s->why);
}

/* An id's slot in the table of t slots (a power of two): FNV-1a, then the
 * next slot until one holds the id or none. */
static size_t id_slot(const int *table, size_t t, const struct svg_element *el, const char *key)
{
    uint32_t hash = 2166136261u;
    for (const char *c = key; *c; c++)
        hash = (hash ^ (uint8_t)*c) * 16777619u;
    size_t k = hash & (t - 1);
    while (table[k] >= 0 && strcmp(el[table[k]].id, key) != 0)
        k = (k + 1) & (t - 1);
    return k;
}

/* How many elements the SVG draws with every <use> replaced by the element
 * it refers to (its subtree, and what the uses in that refer to), counted up
 * to SVG_MAX_DRAWN + 1; a use that refers to itself through others counts
 * once (librsvg refuses it). -1 when out of memory. */
static long svg_drawn(const svg_seen *s)
{
    int n = s->n;
    if (n == 0)
        return 0;
    size_t t = 16;
    while (t < 2 * (size_t)n)
        t *= 2;
    int *table = malloc(t * sizeof *table), *first = malloc((size_t)n * sizeof *first);
    int *next = malloc((size_t)n * sizeof *next), *target = malloc((size_t)n * sizeof *target);
    int *stack = malloc((size_t)n * sizeof *stack);
    long *drawn = malloc((size_t)n * sizeof *drawn);
    uint8_t *state = calloc((size_t)n, 1);
    long total = -1;
    if (!table || !first || !next || !target || !stack || !drawn || !state)
        goto done;
    memset(table, 0xff, t * sizeof *table);
    const struct svg_element *el = s->el;
    for (int e = 0; e < n; e++)
        if (el[e].id) {
            size_t k = id_slot(table, t, el, el[e].id);
            if (table[k] < 0)
                table[k] = e;   /* the first element with an id is the one referred to */
        }
    /* children in document order, and what each use refers to */
    memset(first, 0xff, (size_t)n * sizeof *first);
    memset(next, 0xff, (size_t)n * sizeof *next);
    for (int e = n - 1; e >= 0; e--)
        if (el[e].parent >= 0) {
            next[e] = first[el[e].parent];
            first[el[e].parent] = e;
        }
    for (int e = 0; e < n; e++)
        target[e] = el[e].ref ? table[id_slot(table, t, el, el[e].ref)] : -1;
    /* drawn[e] = 1 + its children's + its target's, depth first without
     * recursion (a chain of uses may be as long as the file) */
    total = 0;
    for (int root = 0; root < n; root++) {
        if (el[root].parent >= 0 || state[root])
            continue;
        int top = 0;
        stack[top++] = root;
        state[root] = 1;
        while (top > 0) {
            int e = stack[top - 1], pushed = 0;
            for (int c = first[e]; c >= 0 && !pushed; c = next[c])
                if (!state[c]) {
                    state[c] = 1;
                    stack[top++] = c;
                    pushed = 1;
                }
            if (!pushed && target[e] >= 0 && !state[target[e]]) {
                state[target[e]] = 1;
                stack[top++] = target[e];
                pushed = 1;
            }
            if (pushed)
                continue;
            long sum = 1;
            for (int c = first[e]; c >= 0; c = next[c])
                sum += state[c] == 2 ? drawn[c] : 0;
            if (target[e] >= 0 && state[target[e]] == 2)
                sum += drawn[target[e]];
            drawn[e] = sum > SVG_MAX_DRAWN ? SVG_MAX_DRAWN + 1 : sum;
            state[e] = 2;
            top--;
        }
        total += drawn[root];
        if (total > SVG_MAX_DRAWN)
            total = SVG_MAX_DRAWN + 1;
    }
done:
    free(table);
    free(first);
    free(next);
    free(target);
    free(stack);
    free(drawn);
    free(state);
    return total;
}

/* Reads the SVG once through libxml2 (streaming: no tree is built), with
 * internal entities expanded as librsvg expands them, before librsvg sees
 * it. Without a base file the only URLs librsvg reads are data: URLs:
 * embedded images, whose decoders allocate whatever size the image declares,
 * and embedded documents, possibly compressed. An SVG holding one in an
 * attribute, a style sheet or a processing instruction is refused, as is one
 * that is not well-formed or uses an external entity. */
static poyo_status svg_scan(const svglib *lib, const uint8_t *data, size_t len, poyo_error *err)
{
    svg_seen s = { 0, 0, -1, NULL, 0, "", lib, 0, 0, -1, NULL };
    xmlParserCtxtPtr ctxt = lib->xmlCreateMemoryParserCtxt((const char *)data, (int)len);
    if (!ctxt)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory reading an SVG");
    lib->xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOENT | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlSAXHandler *h = ctxt->sax;
    lib->xmlSAXVersion(h, 2);
    /* the document's DTD is kept (for its entities), no element tree */
    h->startElementNs = scan_start;
    h->endElementNs = scan_end;
    h->characters = h->cdataBlock = scan_text;
    h->ignorableWhitespace = NULL;
    h->processingInstruction = scan_pi;
    h->entityDecl = scan_entity;
    h->comment = NULL;
    h->reference = NULL;
    h->serror = scan_error;
    h->error = h->warning = NULL;
    ctxt->_private = &s;
    int bad = lib->xmlParseDocument(ctxt) != 0 || !ctxt->wellFormed;
    if (ctxt->myDoc)
        lib->xmlFreeDoc(ctxt->myDoc);
    lib->xmlFreeParserCtxt(ctxt);
    free(s.style);
    long drawn = !s.found && !bad ? svg_drawn(&s) : 0;
    for (int e = 0; e < s.n; e++) {
        free(s.el[e].id);
        free(s.el[e].ref);
    }
    free(s.el);
    if (s.found < 0 || drawn < 0)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory reading an SVG");
    if (s.found)
        return poyo_fail(err, POYO_ERR_INPUT, "SVG embeds an image or document (a data: URL), which poyo does not read");
    if (bad)
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated SVG%s%s%s", *s.why ? " (" : "", s.why,
                         *s.why ? ")" : "");
    if (drawn > SVG_MAX_DRAWN)
        return poyo_fail(err, POYO_ERR_INPUT, "SVG draws more than %d elements through its <use> references",
                         SVG_MAX_DRAWN);
    return POYO_OK;
}

/* A drawing and the window of it an image shows: the image's pixels are
 * those of the drawing drawn at full_w x full_h, from (x, y). */
struct image_vector {
    const image_drawer *d; /* how to draw it */
    void *obj;             /* the drawing: a reference of its own */
    int x, y, full_w, full_h;
};

/* Fails with librsvg's own message (one line) after what went wrong. */
static poyo_status svg_fail(const svglib *lib, poyo_error *err, GError *gerr, const char *what)
{
    char why[200] = "";
    if (gerr && gerr->message) {
        snprintf(why, sizeof why, "%s", gerr->message);
        one_line(why);
    }
    if (gerr)
        lib->g_error_free(gerr);
    return poyo_fail(err, POYO_ERR_INPUT, "%s%s%s%s", what, *why ? " (" : "", why, *why ? ")" : "");
}

/* Draws the document (an RsvgHandle) fitted into the rectangle (x, y, dw, dh)
 * of a transparent w x h canvas held in rgba (w * h * 4 bytes, straight RGBA). */
static poyo_status svg_draw(void *doc, int w, int h, double x, double y, double dw, double dh, uint8_t *rgba,
                            poyo_error *err)
{
    /* cairo's ARGB32 rows are 4 * w bytes: it draws straight into the image */
    const svglib *lib;
    poyo_status st = svglib_load(&lib, err);
    if (st != POYO_OK)
        return st;
    memset(rgba, 0, (size_t)w * (size_t)h * 4u);
    cairo_surface_t *surf = lib->cairo_image_surface_create_for_data(rgba, CAIRO_FORMAT_ARGB32, w, h, w * 4);
    cairo_t *cr = lib->cairo_create(surf);
    GError *gerr = NULL;
    RsvgRectangle vp = { x, y, dw, dh };
    gboolean ok = lib->cairo_status(cr) == CAIRO_STATUS_SUCCESS &&
                  lib->rsvg_handle_render_document(doc, cr, &vp, &gerr);
    cairo_status_t cs = lib->cairo_status(cr);
    lib->cairo_destroy(cr);
    lib->cairo_surface_finish(surf);
    lib->cairo_surface_destroy(surf);
    if (!ok || cs != CAIRO_STATUS_SUCCESS) {
        if (!gerr && cs == CAIRO_STATUS_NO_MEMORY)
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory drawing the SVG at %dx%d", w, h);
        return svg_fail(lib, err, gerr, "cannot draw the SVG");
    }
    /* native-endian premultiplied ARGB to straight RGBA bytes */
    for (size_t i = 0, n = (size_t)w * (size_t)h; i < n; i++) {
        uint32_t p;
        memcpy(&p, rgba + 4 * i, 4);
        uint32_t a = p >> 24, c[3] = { p >> 16 & 255, p >> 8 & 255, p & 255 };
        for (int k = 0; k < 3; k++)
            rgba[4 * i + k] = a ? (uint8_t)((c[k] * 255 + a / 2) / a) : 0;
        rgba[4 * i + 3] = (uint8_t)a;
    }
    return POYO_OK;
}

/* An RsvgHandle's references: the library is loaded once a handle exists. */
static void svg_ref(void *doc)
{
    const svglib *lib;
    if (svglib_load(&lib, NULL) == POYO_OK)
        (lib->g_object_ref)(doc); /* parenthesised: GObject also defines g_object_ref as a macro */
}

static void svg_unref(void *doc)
{
    const svglib *lib;
    if (svglib_load(&lib, NULL) == POYO_OK)
        lib->g_object_unref(doc);
}

static const image_drawer svg_drawer = { svg_draw, svg_ref, svg_unref };

static void vector_free(struct image_vector *v)
{
    if (!v)
        return;
    v->d->unref(v->obj);
    free(v);
}

/* Cairo's image surfaces hold at most this many pixels a side. */
#define SVG_MAX_SIDE 32767

/* An SVG, scanned (svg_scan), then parsed with no base file so that no
 * reference outside the data (an image, a stylesheet, an XInclude, by path
 * or URL) is ever read, and with
 * librsvg's limits on XML entity expansion, nesting and instancing left on;
 * its intrinsic size (width and height, or else the viewBox) is checked
 * against the pixel limit before anything is drawn. The libraries are loaded
 * here, on the first SVG. */
static poyo_status decode_svg(const uint8_t *data, size_t len, long long max_pixels, image *out, poyo_error *err)
{
    const svglib *lib;
    poyo_status st = svglib_load(&lib, err);
    if (st != POYO_OK)
        return st;
    st = svg_scan(lib, data, len, err);
    if (st != POYO_OK)
        return st;
    GInputStream *in = lib->g_memory_input_stream_new_from_data(data, (gssize)len, NULL);
    GError *gerr = NULL;
    RsvgHandle *handle =
        in ? lib->rsvg_handle_new_from_stream_sync(in, NULL, RSVG_HANDLE_FLAGS_NONE, NULL, &gerr) : NULL;
    if (in)
        lib->g_object_unref(in);
    if (!handle)
        return svg_fail(lib, err, gerr, "corrupt or truncated SVG");
    lib->rsvg_handle_set_dpi(handle, 96.0);
    double w = 0, h = 0;
    if (!lib->rsvg_handle_get_intrinsic_size_in_pixels(handle, &w, &h)) {
        /* width or height in percent, or absent: the viewBox gives the size */
        gboolean has_w, has_h, has_vb;
        RsvgLength lw, lh;
        RsvgRectangle vb;
        lib->rsvg_handle_get_intrinsic_dimensions(handle, &has_w, &lw, &has_h, &lh, &has_vb, &vb);
        if (!has_vb) {
            lib->g_object_unref(handle);
            return poyo_fail(err, POYO_ERR_INPUT, "SVG has no size (neither width and height in absolute units nor a viewBox)");
        }
        w = vb.width;
        h = vb.height;
    }
    if (!(w >= 0.5 && h >= 0.5 && isfinite(w) && isfinite(h)))
        st = poyo_fail(err, POYO_ERR_INPUT, "SVG has an empty size (%gx%g)", w, h);
    else if (w > (double)max_pixels || h > (double)max_pixels || w * h > (double)max_pixels)
        st = poyo_fail(err, POYO_ERR_INPUT, "image is %.0fx%.0f, more than the %lld-pixel limit (see --max-pixels)", w,
                       h, max_pixels);
    else if (lround(w) > SVG_MAX_SIDE || lround(h) > SVG_MAX_SIDE)
        st = poyo_fail(err, POYO_ERR_INPUT, "SVG is %.0fx%.0f, more than the %d pixels a side it can be drawn at", w, h,
                       SVG_MAX_SIDE);
    else
        st = check_size(lround(w), lround(h), max_pixels, err);
    if (st == POYO_OK)
        st = image_from_drawing(&svg_drawer, handle, (int)lround(w), (int)lround(h), out, err);
    lib->g_object_unref(handle);
    return st;
}

poyo_status image_from_drawing(const image_drawer *d, void *obj, int w, int h, image *out, poyo_error *err)
{
    struct image_vector *v = NULL;
    poyo_status st = image_alloc(out, w, h, err);
    if (st == POYO_OK && !(v = calloc(1, sizeof *v)))
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a drawing");
    if (st == POYO_OK)
        st = d->draw(obj, w, h, 0, 0, w, h, out->rgba, err);
    if (st != POYO_OK) {
        free(v);
        image_free(out);
        return st;
    }
    d->ref(obj);
    *v = (struct image_vector){ d, obj, 0, 0, w, h };
    out->vec = v;
    return POYO_OK;
}

/* The drawing of im when im is all of it (not a crop), else NULL. */
static const struct image_vector *whole_drawing(const image *im)
{
    const struct image_vector *v = im->vec;
    return v && v->x == 0 && v->y == 0 && v->full_w == im->w && v->full_h == im->h ? v : NULL;
}

int image_fit_size(const image *im, int w, int h, long long max_pixels, int *fw, int *fh)
{
    if (!whole_drawing(im) || w < 1 || h < 1)
        return 0;
    double s = fmin((double)w / im->w, (double)h / im->h);
    if (max_pixels > 0)
        s = fmin(s, sqrt((double)max_pixels / ((double)im->w * im->h)));
    if (!(s > 1.0))
        return 0;
    *fw = (int)fmin(w, floor(im->w * s + 1e-6));
    *fh = (int)fmin(h, floor(im->h * s + 1e-6));
    return *fw > im->w || *fh > im->h;
}

poyo_status image_redraw(image *im, int w, int h, poyo_error *err)
{
    const struct image_vector *v = whole_drawing(im);
    if (!v)
        return poyo_fail(err, POYO_ERR_USAGE, "the image has no drawing to draw again");
    image out;
    poyo_status st = image_from_drawing(v->d, v->obj, w, h, &out, err);
    if (st != POYO_OK)
        return st;
    image_free(im);
    *im = out;
    return POYO_OK;
}

poyo_status image_decode(const uint8_t *data, size_t len, long long max_pixels, image *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "empty file");
    if (len > 0x7fffffff)
        return poyo_fail(err, POYO_ERR_INPUT, "file is too large (%zu bytes)", len);
    if (is_webp(data, len))
        return decode_webp(data, len, max_pixels, out, err);
    if (is_gif(data, len))
        return decode_gif(data, len, max_pixels, out, err);
    /* stb_image decodes whatever it recognises; only PNG and JPEG reach it */
    if (is_png(data, len)) {
        png_rows rows = { NULL, 0, 0, 0, 0 };
        poyo_status st = png_gate(data, len, max_pixels, &rows, err);
        int done = st == POYO_OK && rows.data && png_plain_channels(data) ? png_plain(data, len, &rows, out) : 0;
        if (st == POYO_OK && rows.data && !done && png_palette_rows_len(data) &&
            !png_indices_in_palette(data, len, &rows))
            done = PNG_INDEX_PAST;
        free(rows.data);
        if (done == PNG_INDEX_PAST)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt PNG: a pixel indexes past the end of its palette");
        if (st != POYO_OK || done)
            return st;
    } else if (is_jpeg(data, len)) {
        jpeg_fault f = jpeg_check(data, len);
        if (f == JPEG_TOO_MANY_SCANS)
            return poyo_fail(err, POYO_ERR_INPUT, "JPEG has more than %d scans", JPEG_MAX_SCANS);
        if (f == JPEG_UNDEFINED_TABLE)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt JPEG (a scan uses a Huffman table no DHT segment defines)");
    } else {
        char root[32];
        switch (xml_root(data, len, root, sizeof root)) {
        case XML_SVG:
            return decode_svg(data, len, max_pixels, out, err);
        case XML_OTHER:
            return poyo_fail(err, POYO_ERR_INPUT, "XML whose root element is <%s>, not an SVG image", root);
        case XML_NO_ROOT:
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated XML (no root element), not an SVG image");
        default:
            return poyo_fail(err, POYO_ERR_INPUT, "not a PNG or other supported image");
        }
    }
    int w, h, comp;
    if (!stbi_info_from_memory(data, (int)len, &w, &h, &comp)) {
        const char *why = stbi_failure_reason();
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt %s header%s%s%s", is_png(data, len) ? "PNG" : "JPEG",
                         why && *why ? " (" : "", why && *why ? why : "", why && *why ? ")" : "");
    }
    if (w <= 0 || h <= 0)
        return poyo_fail(err, POYO_ERR_INPUT, "image has zero width or height");
    poyo_status st = check_size(w, h, max_pixels, err);
    if (st != POYO_OK)
        return st;
    /* stb_image inflates the PNG's rows (4 w + 1 bytes each) and then writes
     * the image: for a 1024 px input, 8 MiB first touched in 2,000 page faults,
     * a third of the whole run; on huge pages, a few */
    hugemem_prefer(((size_t)w * 4 + 1) * (size_t)h * 2);
    uint8_t *px = stbi_load_from_memory(data, (int)len, &w, &h, &comp, 4);
    if (!px) {
        const char *why = stbi_failure_reason();
        if (why && *why)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (%s)", why);
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data");
    }
    /* stb_image allocates with malloc (its STBI_MALLOC unset), so image_free's
     * free releases its pixels: kept as they are, not copied */
    out->rgba = px;
    out->w = w;
    out->h = h;
    return POYO_OK;
}

poyo_status image_load(const char *path, long long max_pixels, image *out, poyo_error *err)
{
    uint8_t *data;
    size_t len;
    memset(out, 0, sizeof *out);
    poyo_status st = file_read_all(path, FILE_MAX_BYTES, &data, &len, err);
    if (st != POYO_OK)
        return st;
    st = image_decode(data, len, max_pixels, out, err);
    free(data);
    return st;
}

poyo_status image_crop(const image *src, int x0, int y0, int x1, int y1, image *out, poyo_error *err)
{
    if (x0 < 0 || y0 < 0 || x1 > src->w || y1 > src->h || x0 >= x1 || y0 >= y1)
        return poyo_fail(err, POYO_ERR_USAGE, "cannot crop [%d, %d) x [%d, %d) from a %dx%d image", x0, x1, y0, y1,
                         src->w, src->h);
    poyo_status st = image_alloc(out, x1 - x0, y1 - y0, err);
    if (st != POYO_OK)
        return st;
    for (int y = y0; y < y1; y++)
        memcpy(out->rgba + (size_t)(y - y0) * out->w * 4u, src->rgba + ((size_t)y * src->w + x0) * 4u,
               (size_t)out->w * 4u);
    if (src->vec) {
        struct image_vector *v = malloc(sizeof *v);
        if (!v) {
            image_free(out);
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a drawing");
        }
        *v = *src->vec;
        v->x += x0;
        v->y += y0;
        v->d->ref(v->obj);
        out->vec = v;
    }
    return POYO_OK;
}

void *image_drawing(const image *im, const image_drawer *d)
{
    const struct image_vector *v = whole_drawing(im);
    return v && v->d == d ? v->obj : NULL;
}

poyo_status image_alloc(image *out, int w, int h, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    if (w < 1 || h < 1)
        return poyo_fail(err, POYO_ERR_USAGE, "invalid image size %dx%d", w, h);
    out->rgba = calloc((size_t)w * (size_t)h, 4u);
    if (!out->rgba)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d image", w, h);
    out->w = w;
    out->h = h;
    return POYO_OK;
}

void image_free(image *im)
{
    if (!im)
        return;
    free(im->rgba);
    vector_free(im->vec);
    im->rgba = NULL;
    im->vec = NULL;
    im->w = im->h = 0;
}

void image_clear_invisible(image *im)
{
    size_t n = (size_t)im->w * (size_t)im->h;
    for (size_t i = 0; i < n; i++)
        if (im->rgba[4 * i + 3] == 0)
            memset(im->rgba + 4 * i, 0, 3);
}

int image_visible_bbox(const image *im, int *x0, int *y0, int *x1, int *y1)
{
    int bx0 = im->w, by0 = im->h, bx1 = -1, by1 = -1;
    for (int y = 0; y < im->h; y++) {
        const uint8_t *row = im->rgba + (size_t)y * (size_t)im->w * 4u;
        for (int x = 0; x < im->w; x++) {
            if (row[4 * x + 3] == 0)
                continue;
            if (x < bx0) bx0 = x;
            if (x > bx1) bx1 = x;
            if (y < by0) by0 = y;
            if (y > by1) by1 = y;
        }
    }
    if (bx1 < 0)
        return 0;
    *x0 = bx0;
    *y0 = by0;
    *x1 = bx1 + 1;
    *y1 = by1 + 1;
    return 1;
}

/* The mean of each k x k block of src (blocks at the right and bottom edges
 * hold what is left), colours weighted by alpha, into out ((w + k - 1) / k x
 * (h + k - 1) / k): the area average a box filter would take, in a few
 * integer operations per pixel. */
static poyo_status box_shrink(const image *src, int k, image *out, poyo_error *err)
{
    int ow = (src->w + k - 1) / k, oh = (src->h + k - 1) / k;
    poyo_status st = image_alloc(out, ow, oh, err);
    if (st != POYO_OK)
        return st;
    uint32_t *acc = calloc((size_t)ow * 4, sizeof *acc);
    if (!acc) {
        image_free(out);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d image", ow, oh);
    }
    for (int by = 0; by < oh; by++) {
        int y0 = by * k, y1 = y0 + k < src->h ? y0 + k : src->h;
        memset(acc, 0, (size_t)ow * 4 * sizeof *acc);
        for (int y = y0; y < y1; y++) {
            const uint8_t *p = src->rgba + (size_t)y * src->w * 4;
            for (int bx = 0; bx < ow; bx++) {
                int n = bx * k + k < src->w ? k : src->w - bx * k;
                uint32_t r = 0, g = 0, b = 0, a = 0;
                for (int i = 0; i < n; i++, p += 4) {
                    uint32_t al = p[3];
                    r += p[0] * al;
                    g += p[1] * al;
                    b += p[2] * al;
                    a += al;
                }
                uint32_t *s = acc + 4 * bx;
                s[0] += r;
                s[1] += g;
                s[2] += b;
                s[3] += a;
            }
        }
        uint8_t *d = out->rgba + (size_t)by * ow * 4;
        for (int bx = 0; bx < ow; bx++, d += 4) {
            const uint32_t *s = acc + 4 * bx;
            uint32_t n = (uint32_t)((bx * k + k < src->w ? k : src->w - bx * k) * (y1 - y0));
            uint32_t a = s[3];
            if (a == 0) {
                memset(d, 0, 4);
                continue;
            }
            d[0] = (uint8_t)((s[0] + a / 2) / a);
            d[1] = (uint8_t)((s[1] + a / 2) / a);
            d[2] = (uint8_t)((s[2] + a / 2) / a);
            d[3] = (uint8_t)((a + n / 2) / n);
        }
    }
    free(acc);
    return POYO_OK;
}

poyo_status image_place(const image *src, int w, int h, int pw, int ph, int ox, int oy, image *out, poyo_error *err)
{
    if (pw < 1 || ph < 1)
        return poyo_fail(err, POYO_ERR_USAGE, "cannot scale a %dx%d image to %dx%d", src->w, src->h, pw, ph);
    poyo_status st = image_alloc(out, w, h, err);
    if (st != POYO_OK)
        return st;
    if (src->vec) {
        /* drawn at the placed size: as sharp as an image made at that size */
        const struct image_vector *v = src->vec;
        double sx = (double)pw / src->w, sy = (double)ph / src->h;
        st = v->d->draw(v->obj, w, h, ox - v->x * sx, oy - v->y * sy, v->full_w * sx, v->full_h * sy, out->rgba, err);
        if (st != POYO_OK)
            image_free(out);
        else
            image_clear_invisible(out);
        return st;
    }
    image scaled = *src;
    int owned = 0;
    if (pw != src->w || ph != src->h) {
        st = image_alloc(&scaled, pw, ph, err);
        if (st != POYO_OK) {
            image_free(out);
            return st;
        }
        owned = 1;
        /* filtered as stored (gamma-encoded, premultiplied by stb): in linear light
         * a thin dark outline averaged with a bright fill comes out too light, and
         * the emoji looks thinner than its designer drew it; shrinking averages the
         * area each pixel covers, enlarging interpolates (Catmull-Rom) */
        stbir_filter filter = pw < src->w && ph < src->h ? STBIR_FILTER_BOX : STBIR_FILTER_CATMULLROM;
        /* a shrink by 4 or more first averages k x k blocks (k the whole factor
         * that leaves at least twice the size asked for), then resamples the
         * region of the blocks that covers the image: the same area average
         * at a fraction of the filter's cost */
        int k = src->w / (2 * pw) < src->h / (2 * ph) ? src->w / (2 * pw) : src->h / (2 * ph);
        if (k > 64)
            k = 64; /* the block sums fit 32 bits */
        image box = { 0, 0, NULL, NULL };
        if (k >= 2 && (st = box_shrink(src, k, &box, err)) != POYO_OK) {
            image_free(&scaled);
            image_free(out);
            return st;
        }
        int ok = k >= 2 ? stbir_resize_region(box.rgba, box.w, box.h, 0, scaled.rgba, pw, ph, 0, STBIR_TYPE_UINT8, 4, 3,
                                              0, STBIR_EDGE_CLAMP, STBIR_EDGE_CLAMP, filter, filter,
                                              STBIR_COLORSPACE_LINEAR, NULL, 0.0f, 0.0f,
                                              (float)((double)src->w / k / box.w), (float)((double)src->h / k / box.h))
                        : stbir_resize_uint8_generic(src->rgba, src->w, src->h, 0, scaled.rgba, pw, ph, 0, 4, 3, 0,
                                                     STBIR_EDGE_CLAMP, filter, STBIR_COLORSPACE_LINEAR, NULL);
        image_free(&box);
        if (!ok) {
            image_free(&scaled);
            image_free(out);
            return poyo_fail(err, POYO_ERR_NOMEM, "cannot resample the image to %dx%d", pw, ph);
        }
    }
    for (int y = 0; y < ph; y++) {
        int dy = y + oy;
        if (dy < 0 || dy >= h)
            continue;
        int x0 = ox < 0 ? -ox : 0, x1 = pw;
        if (x1 + ox > w)
            x1 = w - ox;
        if (x1 <= x0)
            continue;
        memcpy(out->rgba + ((size_t)dy * w + (size_t)(x0 + ox)) * 4u, scaled.rgba + ((size_t)y * pw + x0) * 4u,
               (size_t)(x1 - x0) * 4u);
    }
    if (owned)
        image_free(&scaled);
    image_clear_invisible(out);
    return POYO_OK;
}

struct png_sink {
    uint8_t *data;
    size_t len, cap;
    int failed;
};

static void png_write_cb(void *ctx, void *data, int size)
{
    struct png_sink *s = ctx;
    if (s->failed || size <= 0)
        return;
    if (s->len + (size_t)size > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 65536;
        while (cap < s->len + (size_t)size)
            cap *= 2;
        uint8_t *p = realloc(s->data, cap);
        if (!p) {
            s->failed = 1;
            return;
        }
        s->data = p;
        s->cap = cap;
    }
    memcpy(s->data + s->len, data, (size_t)size);
    s->len += (size_t)size;
}

poyo_status image_encode_png(const uint8_t *rgba, int w, int h, uint8_t **out, size_t *len, poyo_error *err)
{
    struct png_sink s = { NULL, 0, 0, 0 };
    int ok = stbi_write_png_to_func(png_write_cb, &s, w, h, 4, rgba, w * 4);
    if (!ok || s.failed) {
        free(s.data);
        return poyo_fail(err, POYO_ERR_NOMEM, "cannot encode a %dx%d PNG", w, h);
    }
    *out = s.data;
    *len = s.len;
    return POYO_OK;
}
