/* animread.c - decodes GIF (giflib, GIF89a disposal semantics), PNG/APNG (own chunk
 * parser after ISO/IEC 15948 and the APNG 1.0 specification, zlib inflate) and WebP
 * (libwebp's WebPAnimDecoder) into fully composited RGBA frames. */
#define ZLIB_CONST
#include "animread.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <zlib.h>

#include "image.h"
#include "webm.h"
#include "util/memlimit.h"

/* Frames collected while decoding: the anim plus each frame's stored delay. */
typedef struct builder {
    anim a;
    int *delay;
    int cap;
    int palette_size;
    int loop_raw;
    uint8_t *canvas;   /* width * height * 4, the current composited picture */
} builder;

static poyo_status builder_init(builder *b, const char *fmt, uint32_t w, uint32_t h, poyo_error *err)
{
    memset(b, 0, sizeof *b);
    if (w == 0 || h == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "%s canvas is %ux%u, empty", fmt, (unsigned)w, (unsigned)h);
    if ((uint64_t)w * h > ANIMREAD_MAX_PIXELS)
        return poyo_fail(err, POYO_ERR_INPUT, "%s canvas %ux%u exceeds the limit of %u pixels", fmt, (unsigned)w,
                         (unsigned)h, (unsigned)ANIMREAD_MAX_PIXELS);
    b->a.width = (int)w;
    b->a.height = (int)h;
    b->a.fps = 1000.0;
    b->canvas = calloc((size_t)w * h, 4);
    if (!b->canvas)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %ux%u canvas", (unsigned)w, (unsigned)h);
    return POYO_OK;
}

static void builder_free(builder *b)
{
    anim_free(&b->a);
    free(b->delay);
    free(b->canvas);
    b->delay = NULL;
    b->canvas = NULL;
}

/* Bytes the composited frames may take: the memory bound (memlimit.h) less the
 * two canvases the compositing works on beside them. */
static uint64_t max_frame_bytes(uint64_t fb)
{
    uint64_t bound = (uint64_t)memlimit_get();
    return bound > 2 * fb ? bound - 2 * fb : 0;
}

/* Fails when n composited w x h frames would exceed the memory bound. */
static poyo_status check_budget(uint64_t n, uint32_t w, uint32_t h, poyo_error *err)
{
    uint64_t fb = (uint64_t)w * h * 4u;
    if (fb && n > max_frame_bytes(fb) / fb) {
        char what[80];
        snprintf(what, sizeof what, "%llu frames of %ux%u", (unsigned long long)n, (unsigned)w, (unsigned)h);
        return memlimit_check((double)(n + 2) * (double)fb, what, NULL, POYO_ERR_INPUT, err);
    }
    if (n > ANIMREAD_MAX_FRAMES)
        return poyo_fail(err, POYO_ERR_INPUT, "animation has more than %d frames", ANIMREAD_MAX_FRAMES);
    return POYO_OK;
}

/* Fails when n frames of the canvas would exceed the memory bound. */
static poyo_status check_frames(const builder *b, uint64_t n, poyo_error *err)
{
    return check_budget(n, (uint32_t)b->a.width, (uint32_t)b->a.height, err);
}

/* Makes room for cap frames, at most as many as the memory bound allows. The
 * readers take room for the frames a file declares at once, so that no frame
 * is copied again as they grow. */
static poyo_status builder_grow(builder *b, uint64_t cap, poyo_error *err)
{
    size_t fb = anim_frame_bytes(&b->a);
    if (fb == 0)
        return POYO_OK;   /* no canvas yet */
    uint64_t most = max_frame_bytes(fb) / fb;
    if (cap > most)
        cap = most;
    if (cap > ANIMREAD_MAX_FRAMES)
        cap = ANIMREAD_MAX_FRAMES;
    if (cap <= (uint64_t)b->cap)
        return POYO_OK;
    uint8_t *px = realloc(b->a.rgba, (size_t)cap * fb);
    if (px)
        b->a.rgba = px;
    int *hold = realloc(b->a.hold, (size_t)cap * sizeof *hold);
    if (hold)
        b->a.hold = hold;
    int *delay = realloc(b->delay, (size_t)cap * sizeof *delay);
    if (delay)
        b->delay = delay;
    if (!px || !hold || !delay)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d frames of %dx%d", (int)cap, b->a.width,
                         b->a.height);
    b->cap = (int)cap;
    return POYO_OK;
}

/* Appends a copy of the canvas as the next frame, shown delay_ms. */
static poyo_status builder_push(builder *b, int delay_ms, poyo_error *err)
{
    poyo_status st = check_frames(b, (uint64_t)b->a.count + 1, err);
    if (st == POYO_OK && b->a.count == b->cap)
        st = builder_grow(b, b->cap ? 2 * (uint64_t)b->cap : 8, err);
    if (st == POYO_OK && b->a.count >= b->cap)   /* the bound checked above leaves room; never taken */
        st = poyo_fail(err, POYO_ERR_NOMEM, "no room for frame %d of %dx%d", b->a.count + 1, b->a.width, b->a.height);
    if (st != POYO_OK)
        return st;
    size_t fb = anim_frame_bytes(&b->a);
    memcpy(anim_frame(&b->a, b->a.count), b->canvas, fb);
    b->delay[b->a.count] = delay_ms;
    b->a.hold[b->a.count] = delay_ms > 1 ? delay_ms : 1;
    b->a.count++;
    return POYO_OK;
}

static void clear_rect(builder *b, int x0, int y0, int w, int h)
{
    for (int y = y0; y < y0 + h; y++)
        memset(b->canvas + ((size_t)y * (size_t)b->a.width + (size_t)x0) * 4u, 0, (size_t)w * 4u);
}

/* ---- GIF ------------------------------------------------------------------ */

static poyo_status gif_fail(poyo_error *err, int code, const char *what)
{
    const char *why = GifErrorString(code);
    if (code == D_GIF_ERR_READ_FAILED)
        why = "the file is truncated";
    return poyo_fail(err, POYO_ERR_INPUT, "cannot read GIF %s: %s", what, why ? why : "unknown error");
}

/* Passes over the rest of a frame's compressed data without decoding it. */
static poyo_status gif_skip_data(GifFileType *gif, int started, poyo_error *err)
{
    int code = 0;
    GifByteType *blk = NULL;
    if (!started && DGifGetCode(gif, &code, &blk) == GIF_ERROR)
        return gif_fail(err, gif->Error, "image data");
    if (started && DGifGetCodeNext(gif, &blk) == GIF_ERROR)
        return gif_fail(err, gif->Error, "image data");
    while (blk)
        if (DGifGetCodeNext(gif, &blk) == GIF_ERROR)
            return gif_fail(err, gif->Error, "image data");
    return POYO_OK;
}

/* Walks a GIF's blocks without decoding them: the number of frames and the sum
 * of their declared areas. A walk cut short by a corrupt or truncated file
 * counts what it saw; giflib names the fault later. */
static void gif_scan(const uint8_t *d, size_t len, uint64_t *frames, uint64_t *area)
{
    *frames = *area = 0;
    if (len < 13)
        return;
    size_t pos = 13;
    if (d[10] & 0x80)
        pos += (size_t)3 << ((d[10] & 7) + 1);
    while (pos < len) {
        uint8_t t = d[pos++];
        if (t == 0x21) {
            pos++; /* the extension's label */
        } else if (t == 0x2c) {
            if (pos + 9 > len)
                return;
            uint32_t w = (uint32_t)d[pos + 4] | (uint32_t)d[pos + 5] << 8;
            uint32_t h = (uint32_t)d[pos + 6] | (uint32_t)d[pos + 7] << 8;
            uint8_t flags = d[pos + 8];
            pos += 9;
            if (flags & 0x80)
                pos += (size_t)3 << ((flags & 7) + 1);
            pos++; /* LZW minimum code size */
            (*frames)++;
            *area += (uint64_t)w * h;
        } else {
            return; /* the trailer, or something giflib will refuse */
        }
        while (pos < len) {
            uint8_t n = d[pos++];
            if (n == 0)
                break;
            pos += n;
        }
    }
}

static poyo_status gif_frame(GifFileType *gif, builder *b, const GraphicsControlBlock *gcb, uint8_t **line,
                             uint8_t **saved, poyo_error *err)
{
    const GifImageDesc *d = &gif->Image;
    int n = b->a.count + 1;
    if (d->Width <= 0 || d->Height <= 0)
        return poyo_fail(err, POYO_ERR_INPUT, "GIF frame %d has an empty size %dx%d", n, d->Width, d->Height);
    if ((uint64_t)d->Width * (uint64_t)d->Height > ANIMREAD_MAX_PIXELS)
        return poyo_fail(err, POYO_ERR_INPUT, "GIF frame %d of %dx%d exceeds the limit of %u pixels", n, d->Width,
                         d->Height, (unsigned)ANIMREAD_MAX_PIXELS);
    const ColorMapObject *cm = d->ColorMap ? d->ColorMap : gif->SColorMap;
    if (!cm || !cm->Colors)
        return poyo_fail(err, POYO_ERR_INPUT, "GIF frame %d has no colour table", n);
    if (cm->ColorCount > b->palette_size)
        b->palette_size = cm->ColorCount;
    poyo_status st = check_frames(b, (uint64_t)n, err);
    if (st != POYO_OK)
        return st;
    uint8_t *l = realloc(*line, (size_t)d->Width);
    if (!l)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a GIF line of %d pixels", d->Width);
    *line = l;
    int W = b->a.width, H = b->a.height;
    size_t fb = anim_frame_bytes(&b->a);
    int disposal = gcb->DisposalMode;
    if (disposal == DISPOSE_PREVIOUS) {
        if (!*saved && !(*saved = malloc(fb)))
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d canvas", W, H);
        memcpy(*saved, b->canvas, fb);
    }
    static const int start[4] = { 0, 4, 2, 1 }, step[4] = { 8, 8, 4, 2 };
    int passes = d->Interlace ? 4 : 1;
    if (d->Left >= W || d->Top >= H) {
        /* wholly off the canvas: nothing of it can show */
        passes = 0;
        st = gif_skip_data(gif, 0, err);
        if (st != POYO_OK)
            return st;
    }
    for (int p = 0; p < passes; p++) {
        int y0 = d->Interlace ? start[p] : 0, dy = d->Interlace ? step[p] : 1;
        for (int row = y0; row < d->Height; row += dy) {
            int y = d->Top + row;
            if (y >= H && !d->Interlace) {
                /* the rows left all lie below the canvas */
                st = gif_skip_data(gif, 1, err);
                if (st != POYO_OK)
                    return st;
                break;
            }
            if (DGifGetLine(gif, l, d->Width) == GIF_ERROR)
                return gif_fail(err, gif->Error, "image data");
            if (y >= H)
                continue;
            image_gif_paint_row(b->canvas + (size_t)y * (size_t)W * 4u, W, d->Left, l, d->Width, cm, gcb->TransparentColor);
        }
    }
    st = builder_push(b, gcb->DelayTime * 10, err);
    if (st != POYO_OK)
        return st;
    if (disposal == DISPOSE_BACKGROUND && d->Left < W && d->Top < H) {
        int cw = d->Left + d->Width > W ? W - d->Left : d->Width;
        int ch = d->Top + d->Height > H ? H - d->Top : d->Height;
        clear_rect(b, d->Left, d->Top, cw, ch);
    } else if (disposal == DISPOSE_PREVIOUS) {
        memcpy(b->canvas, *saved, fb);
    }
    return POYO_OK;
}

/* Reads one extension; sets a GCB or the loop count. */
static poyo_status gif_extension(GifFileType *gif, GraphicsControlBlock *gcb, int *loop, poyo_error *err)
{
    int code = 0;
    GifByteType *ext = NULL;
    if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR)
        return gif_fail(err, gif->Error, "extension");
    int app = 0;
    if (code == GRAPHICS_EXT_FUNC_CODE && ext) {
        if (ext[0] != 4 || DGifExtensionToGCB(ext[0], ext + 1, gcb) == GIF_ERROR)
            return poyo_fail(err, POYO_ERR_INPUT, "GIF graphic control extension has length %d, not 4", ext[0]);
    } else if (code == APPLICATION_EXT_FUNC_CODE && ext && ext[0] == 11) {
        app = memcmp(ext + 1, "NETSCAPE2.0", 11) == 0 || memcmp(ext + 1, "ANIMEXTS1.0", 11) == 0;
    }
    while (ext) {
        if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR)
            return gif_fail(err, gif->Error, "extension");
        if (app && ext && ext[0] >= 3 && ext[1] == 1) {
            if (*loop < 0)
                *loop = ext[2] | (ext[3] << 8);
            app = 0;
        }
    }
    return POYO_OK;
}

static poyo_status read_gif(const uint8_t *data, size_t len, builder *b, poyo_error *err)
{
    image_gif_src src = { data, len, 0 };
    int code = 0;
    GifFileType *gif = DGifOpen(&src, image_gif_read, &code);
    if (!gif)
        return gif_fail(err, code, "header");
    uint8_t *line = NULL, *saved = NULL;
    uint32_t sw = (uint32_t)(gif->SWidth > 0 ? gif->SWidth : 0), sh = (uint32_t)(gif->SHeight > 0 ? gif->SHeight : 0);
    /* the frames and the pixels they declare, checked before anything is allocated */
    uint64_t frames, area;
    gif_scan(data, len, &frames, &area);
    poyo_status st = check_budget(frames, sw, sh, err);
    if (st == POYO_OK && area > (uint64_t)memlimit_get() / 4u)
        st = poyo_fail(err, POYO_ERR_INPUT, "GIF frames hold %llu pixels in all, more than the limit of %llu",
                       (unsigned long long)area, (unsigned long long)memlimit_get() / 4u);
    if (st == POYO_OK)
        st = builder_init(b, "GIF", sw, sh, err);
    if (st == POYO_OK)
        st = builder_grow(b, frames, err);
    if (st != POYO_OK)
        goto done;
    b->loop_raw = -1;
    if (gif->SColorMap)
        b->palette_size = gif->SColorMap->ColorCount;
    GraphicsControlBlock gcb = { DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR };
    GifRecordType rt = UNDEFINED_RECORD_TYPE;
    while (st == POYO_OK && rt != TERMINATE_RECORD_TYPE) {
        if (DGifGetRecordType(gif, &rt) == GIF_ERROR) {
            st = gif_fail(err, gif->Error, "block");
            break;
        }
        if (rt == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) {
                st = gif_fail(err, gif->Error, "frame header");
                break;
            }
            st = gif_frame(gif, b, &gcb, &line, &saved, err);
            /* giflib keeps a record of every frame header read, grown by one
             * on each; dropped here, a file of many frames costs linear time */
            GifFreeSavedImages(gif);
            gif->ImageCount = 0;
            gcb = (GraphicsControlBlock){ DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR };
        } else if (rt == EXTENSION_RECORD_TYPE) {
            st = gif_extension(gif, &gcb, &b->loop_raw, err);
        }
    }
    if (st == POYO_OK && b->a.count == 0)
        st = poyo_fail(err, POYO_ERR_INPUT, "GIF has no frames");
    b->a.loop = b->loop_raw < 0 ? 1 : b->loop_raw == 0 ? 0 : b->loop_raw + 1;
done:
    DGifCloseFile(gif, &code);
    free(line);
    free(saved);
    return st;
}

/* ---- PNG and APNG ------------------------------------------------------------ */

enum { DISPOSE_OP_NONE, DISPOSE_OP_BACKGROUND, DISPOSE_OP_PREVIOUS };
enum { BLEND_OP_SOURCE, BLEND_OP_OVER };

typedef struct png_frame {
    uint32_t x, y, w, h;
    int delay_ms, dispose, blend;
    int from_idat;   /* its data is the IDAT stream */
    size_t raw_size, produced;
    uint8_t *raw;    /* inflated, still filtered */
    z_stream zs;
    int z_live, z_end;
} png_frame;

typedef struct png_dec {
    builder *b;
    uint32_t W, H;
    int depth, ctype, interlace, channels;
    uint8_t pal[256][4];
    int npal;
    int has_key;
    uint16_t key[3];
    int animated;          /* acTL seen */
    size_t file_len;       /* the whole file's bytes */
    uint32_t num_frames;
    uint32_t fctl_count;
    uint32_t next_seq;
    int idat_state;        /* 0 none yet, 1 in the IDAT run, 2 after it */
    int idat_is_frame;     /* the first fcTL came before IDAT */
    png_frame f;
    int have_frame;
    uint8_t *pixels;       /* one frame's RGBA, at most W * H */
    uint8_t *saved;        /* canvas before a DISPOSE_OP_PREVIOUS frame */
} png_dec;

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static size_t row_bytes(const png_dec *d, uint32_t w)
{
    return ((size_t)w * (size_t)d->channels * (size_t)d->depth + 7u) / 8u;
}

static const uint8_t adam7[7][4] = {   /* x0, y0, dx, dy */
    { 0, 0, 8, 8 }, { 4, 0, 8, 8 }, { 0, 4, 4, 8 }, { 2, 0, 4, 4 }, { 0, 2, 2, 4 }, { 1, 0, 2, 2 }, { 0, 1, 1, 2 },
};

/* Pixels of pass p along a side of n pixels starting at s with step k. */
static uint32_t pass_len(uint32_t n, int s, int k)
{
    return n > (uint32_t)s ? (n - (uint32_t)s + (uint32_t)k - 1u) / (uint32_t)k : 0u;
}

static size_t frame_raw_size(const png_dec *d, uint32_t w, uint32_t h)
{
    if (!d->interlace)
        return (size_t)h * (1u + row_bytes(d, w));
    size_t n = 0;
    for (int p = 0; p < 7; p++) {
        uint32_t pw = pass_len(w, adam7[p][0], adam7[p][2]), ph = pass_len(h, adam7[p][1], adam7[p][3]);
        if (pw && ph)
            n += (size_t)ph * (1u + row_bytes(d, pw));
    }
    return n;
}

static void frame_release(png_frame *f)
{
    if (f->z_live)
        inflateEnd(&f->zs);
    free(f->raw);
    memset(f, 0, sizeof *f);
}

static poyo_status frame_begin(png_dec *d, poyo_error *err)
{
    png_frame *f = &d->f;
    f->raw_size = frame_raw_size(d, f->w, f->h);
    f->raw = malloc(f->raw_size);
    if (!f->raw)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %ux%u PNG frame", (unsigned)f->w, (unsigned)f->h);
    if (inflateInit(&f->zs) != Z_OK)
        return poyo_fail(err, POYO_ERR_NOMEM, "cannot start the zlib decompressor");
    f->z_live = 1;
    d->have_frame = 1;
    return POYO_OK;
}

static poyo_status frame_feed(png_dec *d, const uint8_t *p, uint32_t n, poyo_error *err)
{
    png_frame *f = &d->f;
    if (f->z_end || f->produced == f->raw_size)
        return POYO_OK;   /* trailing data after a complete image is ignored */
    f->zs.next_in = p;
    f->zs.avail_in = n;
    f->zs.next_out = f->raw + f->produced;
    f->zs.avail_out = (uInt)(f->raw_size - f->produced);
    int zr = inflate(&f->zs, Z_NO_FLUSH);
    f->produced = f->raw_size - f->zs.avail_out;
    if (zr == Z_STREAM_END)
        f->z_end = 1;
    else if (zr != Z_OK && zr != Z_BUF_ERROR)
        return poyo_fail(err, POYO_ERR_INPUT, "PNG frame %d has corrupt compressed data", d->b->a.count + 1);
    return POYO_OK;
}

static uint8_t scale_sample(unsigned v, int depth)
{
    if (depth == 16)
        return (uint8_t)((v * 255u + 32767u) / 65535u);
    return (uint8_t)(v * 255u / ((1u << depth) - 1u));
}

/* Sample k of an unfiltered row at the file's bit depth. */
static unsigned sample(const uint8_t *row, size_t k, int depth)
{
    if (depth == 8)
        return row[k];
    if (depth == 16)
        return (unsigned)row[2 * k] << 8 | row[2 * k + 1];
    size_t bit = k * (size_t)depth;
    return (row[bit / 8] >> (8 - depth - (int)(bit % 8))) & ((1u << depth) - 1u);
}

/* Converts pixel i of an unfiltered row to straight RGBA8. */
static void to_rgba(const png_dec *d, const uint8_t *row, size_t i, uint8_t *o)
{
    size_t c = (size_t)d->channels;
    unsigned s0 = sample(row, i * c, d->depth);
    switch (d->ctype) {
    case 0:
        o[0] = o[1] = o[2] = scale_sample(s0, d->depth);
        o[3] = d->has_key && s0 == d->key[0] ? 0 : 255;
        break;
    case 2: {
        unsigned s1 = sample(row, i * c + 1, d->depth), s2 = sample(row, i * c + 2, d->depth);
        o[0] = scale_sample(s0, d->depth);
        o[1] = scale_sample(s1, d->depth);
        o[2] = scale_sample(s2, d->depth);
        o[3] = d->has_key && s0 == d->key[0] && s1 == d->key[1] && s2 == d->key[2] ? 0 : 255;
        break;
    }
    case 3:
        if ((int)s0 < d->npal) {
            memcpy(o, d->pal[s0], 4);
        } else {
            o[0] = o[1] = o[2] = 0;
            o[3] = 255;
        }
        break;
    case 4:
        o[0] = o[1] = o[2] = scale_sample(s0, d->depth);
        o[3] = scale_sample(sample(row, i * c + 1, d->depth), d->depth);
        break;
    default:
        for (int k = 0; k < 4; k++)
            o[k] = scale_sample(sample(row, i * c + (size_t)k, d->depth), d->depth);
        break;
    }
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c;
    int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc)
        return a;
    return pb <= pc ? b : c;
}

/* Unfilters a w x h sub-image in place starting at raw; returns bytes used or 0 on a bad filter. */
static size_t unfilter(const png_dec *d, uint8_t *raw, uint32_t w, uint32_t h)
{
    size_t rb = row_bytes(d, w);
    size_t bpp = ((size_t)d->channels * (size_t)d->depth + 7u) / 8u;
    uint8_t *prev = NULL;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *r = raw + (size_t)y * (rb + 1u);
        uint8_t *cur = r + 1;
        int f = r[0];
        for (size_t i = 0; i < rb; i++) {
            int a = i >= bpp ? cur[i - bpp] : 0;
            int b = prev ? prev[i] : 0;
            int c = (prev && i >= bpp) ? prev[i - bpp] : 0;
            switch (f) {
            case 0: break;
            case 1: cur[i] = (uint8_t)(cur[i] + a); break;
            case 2: cur[i] = (uint8_t)(cur[i] + b); break;
            case 3: cur[i] = (uint8_t)(cur[i] + ((a + b) >> 1)); break;
            case 4: cur[i] = (uint8_t)(cur[i] + paeth(a, b, c)); break;
            default: return 0;
            }
        }
        prev = cur;
    }
    return (size_t)h * (rb + 1u);
}

/* Unfilters the finished frame, composites it, pushes a frame, then disposes. */
static poyo_status frame_finish(png_dec *d, poyo_error *err)
{
    png_frame *f = &d->f;
    builder *b = d->b;
    int n = b->a.count + 1;
    poyo_status st = POYO_OK;
    if (f->produced < f->raw_size) {
        st = poyo_fail(err, POYO_ERR_INPUT, "PNG frame %d has too little image data (truncated)", n);
        goto done;
    }
    size_t off = 0;
    for (int p = 0; p < (d->interlace ? 7 : 1); p++) {
        uint32_t x0 = 0, y0 = 0, dx = 1, dy = 1, pw = f->w, ph = f->h;
        if (d->interlace) {
            x0 = adam7[p][0];
            y0 = adam7[p][1];
            dx = adam7[p][2];
            dy = adam7[p][3];
            pw = pass_len(f->w, (int)x0, (int)dx);
            ph = pass_len(f->h, (int)y0, (int)dy);
            if (!pw || !ph)
                continue;
        }
        uint8_t *raw = f->raw + off;
        size_t used = unfilter(d, raw, pw, ph);
        if (!used) {
            st = poyo_fail(err, POYO_ERR_INPUT, "PNG frame %d uses an unknown row filter", n);
            goto done;
        }
        off += used;
        size_t rb = row_bytes(d, pw);
        for (uint32_t j = 0; j < ph; j++) {
            const uint8_t *row = raw + (size_t)j * (rb + 1u) + 1u;
            uint8_t *out = d->pixels + ((size_t)(y0 + j * dy) * f->w + x0) * 4u;
            for (uint32_t i = 0; i < pw; i++)
                to_rgba(d, row, i, out + (size_t)i * dx * 4u);
        }
    }
    size_t W = d->W, fb = anim_frame_bytes(&b->a);
    int dispose = f->dispose;
    if (dispose == DISPOSE_OP_PREVIOUS && b->a.count == 0)
        dispose = DISPOSE_OP_BACKGROUND;
    if (dispose == DISPOSE_OP_PREVIOUS) {
        if (!d->saved && !(d->saved = malloc(fb))) {
            st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %ux%u canvas", (unsigned)d->W, (unsigned)d->H);
            goto done;
        }
        memcpy(d->saved, b->canvas, fb);
    }
    for (uint32_t y = 0; y < f->h; y++) {
        uint8_t *dst = b->canvas + ((size_t)(f->y + y) * W + f->x) * 4u;
        const uint8_t *src = d->pixels + (size_t)y * f->w * 4u;
        if (f->blend == BLEND_OP_SOURCE) {
            memcpy(dst, src, (size_t)f->w * 4u);
        } else {
            for (uint32_t x = 0; x < f->w; x++)
                anim_blend_over(dst + (size_t)x * 4u, src + (size_t)x * 4u);
        }
    }
    st = builder_push(b, f->delay_ms, err);
    if (st != POYO_OK)
        goto done;
    if (dispose == DISPOSE_OP_BACKGROUND)
        clear_rect(b, (int)f->x, (int)f->y, (int)f->w, (int)f->h);
    else if (dispose == DISPOSE_OP_PREVIOUS)
        memcpy(b->canvas, d->saved, fb);
done:
    frame_release(f);
    d->have_frame = 0;
    return st;
}

static poyo_status png_ihdr(png_dec *d, const uint8_t *p, uint32_t n, poyo_error *err)
{
    if (n != 13)
        return poyo_fail(err, POYO_ERR_INPUT, "PNG header chunk has length %u, not 13", (unsigned)n);
    d->W = be32(p);
    d->H = be32(p + 4);
    d->depth = p[8];
    d->ctype = p[9];
    d->interlace = p[12];
    static const int channels[7] = { 1, 0, 3, 1, 2, 0, 4 };
    int depth_ok = 0;
    switch (d->ctype) {
    case 0: depth_ok = d->depth == 1 || d->depth == 2 || d->depth == 4 || d->depth == 8 || d->depth == 16; break;
    case 3: depth_ok = d->depth == 1 || d->depth == 2 || d->depth == 4 || d->depth == 8; break;
    case 2: case 4: case 6: depth_ok = d->depth == 8 || d->depth == 16; break;
    default: break;
    }
    if (!depth_ok)
        return poyo_fail(err, POYO_ERR_INPUT, "PNG colour type %d with bit depth %d is not valid", d->ctype, d->depth);
    if (p[10] != 0 || p[11] != 0 || d->interlace > 1)
        return poyo_fail(err, POYO_ERR_INPUT, "PNG uses an unknown compression, filter or interlace method");
    if (d->W > 0x7fffffffu || d->H > 0x7fffffffu)
        return poyo_fail(err, POYO_ERR_INPUT, "PNG size %ux%u is not valid", (unsigned)d->W, (unsigned)d->H);
    d->channels = channels[d->ctype];
    poyo_status st = builder_init(d->b, "PNG", d->W, d->H, err);
    if (st != POYO_OK)
        return st;
    d->pixels = malloc(anim_frame_bytes(&d->b->a));
    if (!d->pixels)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %ux%u PNG frame", (unsigned)d->W, (unsigned)d->H);
    return POYO_OK;
}

static poyo_status png_fctl(png_dec *d, const uint8_t *p, uint32_t n, poyo_error *err)
{
    if (n != 26)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG fcTL chunk has length %u, not 26", (unsigned)n);
    if (!d->animated)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG fcTL chunk is misplaced");
    if (be32(p) != d->next_seq)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG sequence number %u is out of order (expected %u)",
                         (unsigned)be32(p), (unsigned)d->next_seq);
    d->next_seq++;
    if (++d->fctl_count > d->num_frames)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG has more frames than the %u its acTL declares",
                         (unsigned)d->num_frames);
    poyo_status st = d->have_frame ? frame_finish(d, err) : POYO_OK;
    if (st != POYO_OK)
        return st;
    png_frame *f = &d->f;
    f->w = be32(p + 4);
    f->h = be32(p + 8);
    f->x = be32(p + 12);
    f->y = be32(p + 16);
    unsigned num = (unsigned)p[20] << 8 | p[21], den = (unsigned)p[22] << 8 | p[23];
    f->dispose = p[24];
    f->blend = p[25];
    int k = (int)d->fctl_count;
    if (f->w == 0 || f->h == 0 || (uint64_t)f->x + f->w > d->W || (uint64_t)f->y + f->h > d->H)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG frame %d (%ux%u at %u,%u) lies outside the %ux%u canvas", k,
                         (unsigned)f->w, (unsigned)f->h, (unsigned)f->x, (unsigned)f->y, (unsigned)d->W,
                         (unsigned)d->H);
    if (f->dispose > DISPOSE_OP_PREVIOUS || f->blend > BLEND_OP_OVER)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG frame %d has unknown dispose or blend operation", k);
    if (d->idat_state == 0) {
        if (f->x || f->y || f->w != d->W || f->h != d->H)
            return poyo_fail(err, POYO_ERR_INPUT, "APNG first frame must cover the whole canvas");
        f->from_idat = 1;
        d->idat_is_frame = 1;
    }
    if (den == 0)
        den = 100;
    f->delay_ms = (int)(((uint64_t)num * 1000u + den / 2u) / den);
    return frame_begin(d, err);
}

static poyo_status png_idat(png_dec *d, const uint8_t *p, uint32_t n, poyo_error *err)
{
    if (d->idat_state == 2)
        return poyo_fail(err, POYO_ERR_INPUT, "PNG image data chunks are not consecutive");
    if (d->ctype == 3 && d->npal == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "paletted PNG has no palette");
    if (d->idat_state == 0) {
        d->idat_state = 1;
        if (!d->animated) {
            d->f.w = d->W;
            d->f.h = d->H;
            d->f.from_idat = 1;
            poyo_status st = frame_begin(d, err);
            if (st != POYO_OK)
                return st;
        }
    }
    if (d->have_frame && d->f.from_idat)
        return frame_feed(d, p, n, err);
    return POYO_OK;   /* the default image is not part of the animation */
}

static poyo_status png_fdat(png_dec *d, const uint8_t *p, uint32_t n, poyo_error *err)
{
    if (n < 4)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG fdAT chunk is shorter than 4 bytes");
    if (!d->have_frame || d->f.from_idat || d->idat_state == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG fdAT chunk has no frame control before it");
    if (be32(p) != d->next_seq)
        return poyo_fail(err, POYO_ERR_INPUT, "APNG sequence number %u is out of order (expected %u)",
                         (unsigned)be32(p), (unsigned)d->next_seq);
    d->next_seq++;
    return frame_feed(d, p + 4, n - 4, err);
}

static poyo_status png_chunk(png_dec *d, const char *type, const uint8_t *p, uint32_t n, poyo_error *err)
{
    if (d->idat_state == 1 && memcmp(type, "IDAT", 4) != 0)
        d->idat_state = 2;
    if (memcmp(type, "IHDR", 4) == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "PNG has a second header chunk");
    if (memcmp(type, "PLTE", 4) == 0) {
        if (n % 3 || n == 0 || n > 768 || d->idat_state)
            return poyo_fail(err, POYO_ERR_INPUT, "PNG palette chunk is malformed");
        d->npal = (int)(n / 3);
        for (int i = 0; i < d->npal; i++) {
            memcpy(d->pal[i], p + 3 * i, 3);
            d->pal[i][3] = 255;
        }
        return POYO_OK;
    }
    if (memcmp(type, "tRNS", 4) == 0) {
        if (d->ctype == 3 && (int)n <= d->npal) {
            for (uint32_t i = 0; i < n; i++)
                d->pal[i][3] = p[i];
        } else if (d->ctype == 0 && n == 2) {
            d->has_key = 1;
            d->key[0] = (uint16_t)(p[0] << 8 | p[1]);
        } else if (d->ctype == 2 && n == 6) {
            d->has_key = 1;
            for (int k = 0; k < 3; k++)
                d->key[k] = (uint16_t)(p[2 * k] << 8 | p[2 * k + 1]);
        } else if (d->ctype != 4 && d->ctype != 6) {
            return poyo_fail(err, POYO_ERR_INPUT, "PNG transparency chunk is malformed");
        }
        return POYO_OK;
    }
    if (memcmp(type, "acTL", 4) == 0) {
        if (n != 8 || d->animated)
            return poyo_fail(err, POYO_ERR_INPUT, "APNG acTL chunk is malformed");
        if (d->idat_state)
            return poyo_fail(err, POYO_ERR_INPUT, "APNG acTL chunk comes after the image data");
        d->num_frames = be32(p);
        d->b->loop_raw = (int)(be32(p + 4) > INT_MAX ? INT_MAX : be32(p + 4));
        if (d->num_frames == 0 || d->num_frames > INT_MAX)
            return poyo_fail(err, POYO_ERR_INPUT, "APNG declares %u frames", (unsigned)d->num_frames);
        d->animated = 1;
        poyo_status st = check_frames(d->b, d->num_frames, err);
        /* room for the frames declared, as many as the file can hold: each has a
         * 38-byte fcTL chunk (a file that declares more fails when it ends) */
        uint64_t room = d->num_frames < d->file_len / 38u ? d->num_frames : d->file_len / 38u;
        return st == POYO_OK ? builder_grow(d->b, room, err) : st;
    }
    if (memcmp(type, "fcTL", 4) == 0)
        return png_fctl(d, p, n, err);
    if (memcmp(type, "IDAT", 4) == 0)
        return png_idat(d, p, n, err);
    if (memcmp(type, "fdAT", 4) == 0)
        return png_fdat(d, p, n, err);
    if (!(type[0] & 0x20))
        return poyo_fail(err, POYO_ERR_INPUT, "PNG has an unknown critical chunk %.4s", type);
    return POYO_OK;
}

static poyo_status read_png(const uint8_t *data, size_t len, builder *b, int *animated, poyo_error *err)
{
    png_dec d;
    memset(&d, 0, sizeof d);
    d.b = b;
    d.file_len = len;
    poyo_status st = POYO_OK;
    size_t pos = 8;
    int first = 1, ended = 0;
    while (!ended) {
        if (len - pos < 12) {
            st = poyo_fail(err, POYO_ERR_INPUT, "PNG is truncated (no IEND chunk)");
            goto done;
        }
        uint32_t n = be32(data + pos);
        const char *type = (const char *)data + pos + 4;
        const uint8_t *body = data + pos + 8;
        if (n > 0x7fffffffu || n > len - pos - 12) {
            st = poyo_fail(err, POYO_ERR_INPUT, "PNG is truncated inside a chunk of %u bytes", (unsigned)n);
            goto done;
        }
        for (int k = 0; k < 4; k++) {
            int c = type[k] & ~0x20;
            if (c < 'A' || c > 'Z') {
                st = poyo_fail(err, POYO_ERR_INPUT, "PNG is corrupt: invalid chunk type at byte %zu", pos + 4);
                goto done;
            }
        }
        if ((uint32_t)crc32_z(0L, (const uint8_t *)type, (size_t)n + 4u) != be32(body + n)) {
            st = poyo_fail(err, POYO_ERR_INPUT, "PNG chunk %.4s has a bad checksum", type);
            goto done;
        }
        if (first) {
            if (memcmp(type, "IHDR", 4) != 0) {
                st = poyo_fail(err, POYO_ERR_INPUT, "PNG does not start with a header chunk");
                goto done;
            }
            st = png_ihdr(&d, body, n, err);
            first = 0;
        } else if (memcmp(type, "IEND", 4) == 0) {
            ended = 1;
        } else {
            st = png_chunk(&d, type, body, n, err);
        }
        if (st != POYO_OK)
            goto done;
        pos += 12u + n;
    }
    if (d.idat_state == 0) {
        st = poyo_fail(err, POYO_ERR_INPUT, "PNG has no image data");
        goto done;
    }
    if (d.have_frame)
        st = frame_finish(&d, err);
    if (st == POYO_OK && d.animated && d.fctl_count != d.num_frames)
        st = poyo_fail(err, POYO_ERR_INPUT, "APNG has %u frames but its acTL declares %u", (unsigned)d.fctl_count,
                       (unsigned)d.num_frames);
    if (st == POYO_OK && d.ctype == 3)
        b->palette_size = d.npal;
    if (!d.animated) {
        b->loop_raw = -1;
        b->a.loop = 1;
    } else {
        b->a.loop = b->loop_raw;
    }
    *animated = d.animated;
done:
    frame_release(&d.f);
    free(d.pixels);
    free(d.saved);
    return st;
}

/* ---- WebP -------------------------------------------------------------------- */

static poyo_status read_webp(const uint8_t *data, size_t len, builder *b, poyo_error *err)
{
    WebPBitstreamFeatures feat;
    if (WebPGetFeatures(data, len, &feat) != VP8_STATUS_OK)
        return poyo_fail(err, POYO_ERR_INPUT, "WebP header is corrupt or truncated");
    WebPData wd = { data, len };
    /* the frame count from the container, checked before the decoder allocates its canvases */
    WebPDemuxer *demux = WebPDemux(&wd);
    if (!demux)
        return poyo_fail(err, POYO_ERR_INPUT, "WebP is corrupt or truncated");
    uint32_t nframes = WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
    WebPDemuxDelete(demux);
    poyo_status st = POYO_OK;
    if ((uint64_t)feat.width * (uint64_t)feat.height <= ANIMREAD_MAX_PIXELS)
        st = check_budget(nframes, (uint32_t)feat.width, (uint32_t)feat.height, err);
    if (st == POYO_OK)
        st = builder_init(b, "WebP", (uint32_t)feat.width, (uint32_t)feat.height, err);
    if (st == POYO_OK)
        st = builder_grow(b, nframes, err);
    if (st != POYO_OK)
        return st;
    WebPAnimDecoderOptions opt;
    if (!WebPAnimDecoderOptionsInit(&opt))
        return poyo_fail(err, POYO_ERR_NOMEM, "the linked libwebp does not match its headers");
    opt.color_mode = MODE_RGBA;
    opt.use_threads = 0;
    WebPAnimDecoder *dec = WebPAnimDecoderNew(&wd, &opt);
    if (!dec)
        return poyo_fail(err, POYO_ERR_INPUT, "WebP is corrupt or truncated");
    WebPAnimInfo info;
    if (!WebPAnimDecoderGetInfo(dec, &info)) {
        st = poyo_fail(err, POYO_ERR_INPUT, "WebP is corrupt");
        goto done;
    }
    if (info.canvas_width != (uint32_t)b->a.width || info.canvas_height != (uint32_t)b->a.height) {
        st = poyo_fail(err, POYO_ERR_INPUT, "WebP canvas size is inconsistent");
        goto done;
    }
    st = check_frames(b, info.frame_count, err);
    if (st != POYO_OK)
        goto done;
    b->loop_raw = (int)info.loop_count;
    b->a.loop = b->loop_raw;
    int prev = 0;
    while (WebPAnimDecoderHasMoreFrames(dec)) {
        uint8_t *buf = NULL;
        int ts = 0;
        if (!WebPAnimDecoderGetNext(dec, &buf, &ts)) {
            st = poyo_fail(err, POYO_ERR_INPUT, "WebP frame %d is corrupt or truncated", b->a.count + 1);
            goto done;
        }
        memcpy(b->canvas, buf, anim_frame_bytes(&b->a));
        /* libwebp's int timestamps wrap on long files; the difference is each frame's 24-bit duration */
        st = builder_push(b, (int)((unsigned)ts - (unsigned)prev), err);
        if (st != POYO_OK)
            goto done;
        prev = ts;
    }
    if (b->a.count == 0)
        st = poyo_fail(err, POYO_ERR_INPUT, "WebP has no frames");
done:
    WebPAnimDecoderDelete(dec);
    return st;
}

/* ---- WebM ------------------------------------------------------------------- */

/* 1 when some pixel of a has 0 < alpha < 255. */
static int semi_transparent(const anim *a)
{
    size_t total = anim_frame_bytes(a) * (size_t)a->count;
    for (size_t i = 3; i < total; i += 4)
        if (a->rgba[i] != 0 && a->rgba[i] != 255)
            return 1;
    return 0;
}

/* webm.c decodes; the facts are copied into meta. */
static poyo_status read_webm(const uint8_t *data, size_t len, anim *out, anim_meta *meta, poyo_error *err)
{
    webm_info info;
    poyo_status st = webm_read(data, len, ANIMREAD_MAX_PIXELS, (size_t)memlimit_get(), out, &info, err);
    if (st != POYO_OK)
        return st;
    if (meta) {
        meta->semi_transparent = semi_transparent(out);
        memcpy(meta->format, "webm", 5);
        memcpy(meta->codec, info.codec, sizeof meta->codec);
        meta->width = info.width;
        meta->height = info.height;
        meta->frames = info.frames;
        meta->delay_ms = info.delay_ms;
        info.delay_ms = NULL;
        meta->loop = 0;
        meta->alpha = info.alpha;
        meta->audio_tracks = info.audio_tracks;
        meta->fps = info.fps;
        meta->file_bytes = len;
    }
    webm_info_free(&info);
    return POYO_OK;
}

/* ---- entry ----------------------------------------------------------------- */

poyo_status anim_read(const uint8_t *data, size_t len, anim *out, anim_meta *meta, poyo_error *err)
{
    static const uint8_t png_sig[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
    memset(out, 0, sizeof *out);
    if (meta)
        memset(meta, 0, sizeof *meta);
    if (!data || len == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "file is empty");
    builder b;
    memset(&b, 0, sizeof b);
    const char *fmt;
    poyo_status st;
    if (len >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) {
        fmt = "gif";
        st = read_gif(data, len, &b, err);
    } else if (len >= 8 && memcmp(data, png_sig, 8) == 0) {
        int animated = 0;
        st = read_png(data, len, &b, &animated, err);
        fmt = animated ? "apng" : "png";
    } else if (len >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        fmt = "webp";
        st = read_webp(data, len, &b, err);
    } else if (webm_sniff(data, len)) {
        return read_webm(data, len, out, meta, err);
    } else {
        return poyo_fail(err, POYO_ERR_INPUT, "not a GIF, PNG, WebP or WebM file");
    }
    if (st != POYO_OK) {
        builder_free(&b);
        return st;
    }
    if (meta) {
        memcpy(meta->format, fmt, strlen(fmt) + 1);
        memcpy(meta->codec, fmt, strlen(fmt) + 1);
        meta->alpha = 1;
        meta->width = b.a.width;
        meta->height = b.a.height;
        meta->frames = b.a.count;
        meta->delay_ms = b.delay;
        b.delay = NULL;
        meta->loop = b.loop_raw;
        meta->semi_transparent = semi_transparent(&b.a);
        meta->palette_size = b.palette_size;
        meta->file_bytes = len;
    }
    *out = b.a;
    b.a.rgba = NULL;
    b.a.hold = NULL;
    builder_free(&b);
    return POYO_OK;
}

void anim_meta_free(anim_meta *meta)
{
    if (!meta)
        return;
    free(meta->delay_ms);
    meta->delay_ms = NULL;
}
