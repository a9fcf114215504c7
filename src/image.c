/* image.c - decoding (stb_image) with a pixel limit checked from the header,
 * resampling (stb_image_resize) and PNG encoding (stb_image_write). */
#include "image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "fileio.h"

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

/* Checks a PNG's chunks before stb_image sees them: 0 when fine, 1 when the
 * image data inflates to more than the header allows (stb_image grows its
 * output for as long as the stream goes on: a decompression bomb), 2 when a
 * chunk claims more bytes than the file has (stb_image would allocate them). */
static int png_precheck(const uint8_t *d, size_t len, long long w, long long h)
{
    int depth = d[24], ctype = d[25];
    int ch = ctype == 0 ? 1 : ctype == 2 ? 3 : ctype == 3 ? 1 : ctype == 4 ? 2 : ctype == 6 ? 4 : 0;
    if (!ch || depth < 1 || depth > 16)
        return 0; /* let the decoder name what is wrong */
    /* rows with their filter byte; interlacing adds at most a filter byte and a
     * partial byte per row of each of the seven passes */
    long long row = (w * ch * depth + 7) / 8 + 1;
    long long limit = row * h + 7 * (h + 8) * 2 + 64;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return 1;
    uint8_t scratch[16384];
    long long total = 0;
    int ok = 1, done = 0, cut = 0;
    size_t pos = 8;
    while (ok && !cut && pos + 12 <= len) {
        uint32_t clen = be32(d + pos);
        if (clen > len - pos - 12) {
            cut = 1;
            break;
        }
        if (memcmp(d + pos + 4, "IDAT", 4) == 0 && !done) {
            z.next_in = (Bytef *)(d + pos + 8);
            z.avail_in = clen;
            while (z.avail_in > 0 && ok && !done) {
                z.next_out = scratch;
                z.avail_out = sizeof scratch;
                int r = inflate(&z, Z_NO_FLUSH);
                total += (long long)(sizeof scratch - z.avail_out);
                if (total > limit)
                    ok = 0;
                if (r == Z_STREAM_END)
                    done = 1;
                else if (r != Z_OK && r != Z_BUF_ERROR)
                    done = 1; /* corrupt: the decoder reports it */
                else if (r == Z_BUF_ERROR && z.avail_out == sizeof scratch)
                    break;
            }
        } else if (memcmp(d + pos + 4, "IEND", 4) == 0) {
            break;
        }
        pos += 12 + (size_t)clen;
    }
    inflateEnd(&z);
    return !ok ? 1 : cut ? 2 : 0;
}

poyo_status image_decode(const uint8_t *data, size_t len, long long max_pixels, image *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "empty file");
    if (len > 0x7fffffff)
        return poyo_fail(err, POYO_ERR_INPUT, "file is too large (%zu bytes)", len);
    long long hw, hh;
    if (png_header_size(data, len, &hw, &hh)) {
        if (hw == 0 || hh == 0)
            return poyo_fail(err, POYO_ERR_INPUT, "image has zero width or height (%lldx%lld)", hw, hh);
        if (hw > max_pixels || hh > max_pixels || hw * hh > max_pixels)
            return poyo_fail(err, POYO_ERR_INPUT, "image is %lldx%lld, more than the %lld-pixel limit (see --max-pixels)",
                             hw, hh, max_pixels);
        int pc = len >= 33 ? png_precheck(data, len, hw, hh) : 0;
        if (pc == 1)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt PNG: its image data inflates to more than a %lldx%lld image holds",
                             hw, hh);
        if (pc == 2)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (a chunk runs past the end of the file)");
    }
    int w, h, comp;
    if (!stbi_info_from_memory(data, (int)len, &w, &h, &comp)) {
        const char *why = stbi_failure_reason();
        if (len >= 8 && memcmp(data, png_sig, 8) == 0)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt PNG header%s%s%s", why && *why ? " (" : "",
                             why && *why ? why : "", why && *why ? ")" : "");
        return poyo_fail(err, POYO_ERR_INPUT, "not a PNG or other supported image");
    }
    if (w <= 0 || h <= 0)
        return poyo_fail(err, POYO_ERR_INPUT, "image has zero width or height");
    if ((long long)w * h > max_pixels)
        return poyo_fail(err, POYO_ERR_INPUT, "image is %dx%d, more than the %lld-pixel limit (see --max-pixels)",
                         w, h, max_pixels);
    uint8_t *px = stbi_load_from_memory(data, (int)len, &w, &h, &comp, 4);
    if (!px) {
        const char *why = stbi_failure_reason();
        if (why && *why)
            return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data (%s)", why);
        return poyo_fail(err, POYO_ERR_INPUT, "corrupt or truncated image data");
    }
    size_t n = (size_t)w * (size_t)h * 4u;
    out->rgba = malloc(n);
    if (!out->rgba) {
        stbi_image_free(px);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d image", w, h);
    }
    memcpy(out->rgba, px, n);
    stbi_image_free(px);
    out->w = w;
    out->h = h;
    return POYO_OK;
}

poyo_status image_load(const char *path, long long max_pixels, image *out, poyo_error *err)
{
    uint8_t *data;
    size_t len;
    memset(out, 0, sizeof *out);
    poyo_status st = file_read_all(path, (size_t)1 << 30, &data, &len, err);
    if (st != POYO_OK)
        return st;
    st = image_decode(data, len, max_pixels, out, err);
    free(data);
    return st;
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
    im->rgba = NULL;
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

poyo_status image_place(const image *src, int w, int h, int pw, int ph, int ox, int oy, image *out, poyo_error *err)
{
    if (pw < 1 || ph < 1)
        return poyo_fail(err, POYO_ERR_USAGE, "cannot scale a %dx%d image to %dx%d", src->w, src->h, pw, ph);
    poyo_status st = image_alloc(out, w, h, err);
    if (st != POYO_OK)
        return st;
    image scaled = *src;
    int owned = 0;
    if (pw != src->w || ph != src->h) {
        st = image_alloc(&scaled, pw, ph, err);
        if (st != POYO_OK) {
            image_free(out);
            return st;
        }
        owned = 1;
        if (!stbir_resize_uint8_srgb_edgemode(src->rgba, src->w, src->h, 0, scaled.rgba, pw, ph, 0, 4, 3, 0,
                                              STBIR_EDGE_CLAMP)) {
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
