/* webp.c - animated WebP writer (the WebP container specification, RIFF
 * VP8X, ANIM and ANMF). Each frame after the first stores only the rectangle
 * that changed (its offset even, as ANMF requires), drawn OVER the last frame
 * with the unchanged pixels transparent when every changed pixel is opaque,
 * else replacing it; the first frame stores its visible pixels' bounding box
 * and an unchanged frame lengthens the one before. The frames are encoded by
 * libwebp's WebPEncode, each on its own, on up to `threads` threads of
 * workers.c (the bytes do not depend on how many), and joined by libwebpmux.
 * A lossy frame's exact alpha plane is coded by webpalpha.c: libwebp's own
 * coder takes longer for it than for the colours. */
#include "webp.h"
#include "image.h"
#include "webpalpha.h"

#include "util/workers.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <webp/encode.h>
#include <webp/mux.h>

#define WEBP_MAX_SIDE 16383
#define WEBP_MAX_DURATION 0xffffff   /* ANMF's 24-bit duration, ms */

webp_options webp_default_def(void)
{
    webp_options o = { .lossy = 0, .quality = 80, .method = 2, .lossless_method = 0, .alpha_quality = 100,
                       .threads = 1 };
    return o;
}

static poyo_status check_args(const anim *a, const webp_options *o, poyo_error *err)
{
    poyo_status st = anim_check_encodable(a, "WebP", err);
    if (st != POYO_OK)
        return st;
    if (a->width > WEBP_MAX_SIDE || a->height > WEBP_MAX_SIDE)
        return poyo_fail(err, POYO_ERR_USAGE, "WebP canvas %dx%d exceeds the format's limit of %dx%d",
                         a->width, a->height, WEBP_MAX_SIDE, WEBP_MAX_SIDE);
    if (a->loop < 0 || a->loop > 65535)
        return poyo_fail(err, POYO_ERR_USAGE, "WebP loop count %d is outside 0-65535", a->loop);
    if (o->quality < 0 || o->quality > 100)
        return poyo_fail(err, POYO_ERR_USAGE, "WebP quality %d is outside 0-100", o->quality);
    if (o->method < 0 || o->method > WEBP_EFFORT_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "WebP method %d is outside 0-%d", o->method, WEBP_EFFORT_MAX);
    if (o->lossless_method < 0 || o->lossless_method > WEBP_EFFORT_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "WebP lossless method %d is outside 0-%d", o->lossless_method,
                         WEBP_EFFORT_MAX);
    if (o->alpha_quality < 0 || o->alpha_quality > 100)
        return poyo_fail(err, POYO_ERR_USAGE, "WebP alpha quality %d is outside 0-100", o->alpha_quality);
    return POYO_OK;
}

static const char *picture_error(WebPEncodingError e)
{
    switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "bad picture dimension";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "partition overflow";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "file too big";
    default: return "encoder error";
    }
}

/* The encoder's settings (lossless or lossy, quality, effort), checked by libwebp. */
static poyo_status set_config(const webp_options *o, WebPConfig *config, poyo_error *err)
{
    config->lossless = !o->lossy;
    /* lossless, quality is how hard libwebp searches for matches: at effort 0
     * a third of its default 75 takes a third less time (half on two threads)
     * for 0.5-2 % more bytes */
    config->quality = o->lossy ? (float)o->quality : o->lossless_method == 0 ? 25.0f : 75.0f;
    config->method = o->lossy ? o->method : o->lossless_method;
    config->thread_level = 0;
    if (o->lossy)
        config->alpha_quality = o->alpha_quality;   /* below 100 libwebp codes the plane, else webpalpha.c */
    if (!WebPValidateConfig(config))
        return poyo_fail(err, POYO_ERR_USAGE, "invalid WebP encoder settings");
    return POYO_OK;
}

/* One stored frame: where it goes, how it is drawn, what it holds. */
typedef struct plan {
    int frame;        /* the anim frame it shows */
    anim_rect r;      /* its rectangle of the canvas (x and y even) */
    int over;         /* drawn OVER the last frame (unchanged pixels transparent), else replacing it */
    int ms;           /* how long it is shown */
    bytebuf data;            /* the encoded frame, a whole WebP file */
    WebPEncodingError error; /* set when the encode failed */
} plan;

/* The bounding box of frame 0's pixels that are not fully transparent (empty when none). */
static anim_rect visible_rect(const anim *a)
{
    image f0 = { a->width, a->height, anim_frame(a, 0), NULL };
    int x0, y0, x1, y1;
    anim_rect r = { 0, 0, 0, 0 };
    if (image_visible_bbox(&f0, &x0, &y0, &x1, &y1))
        r = (anim_rect){ x0, y0, x1 - x0, y1 - y0 };
    return r;
}

/* Refuses a frame held longer than ANMF can say, and a clip whose frames'
 * times add up past what a 31-bit count of milliseconds holds. */
static poyo_status check_delays(const anim *a, const int *ms, poyo_error *err)
{
    long long total = 0;
    for (int i = 0; i < a->count; i++) {
        if (ms[i] > WEBP_MAX_DURATION)
            return poyo_fail(err, POYO_ERR_USAGE, "WebP frame %d is held %d ms, more than the format's %d ms",
                             i + 1, ms[i], WEBP_MAX_DURATION);
        total += ms[i];
    }
    if (total > 0x7fffffff)
        return poyo_fail(err, POYO_ERR_USAGE, "animation is too long for WebP timestamps");
    return POYO_OK;
}

/* Plans the frames into p (a->count entries); returns how many are stored. An
 * unchanged frame adds its time to the stored frame before it. */
static int plan_frames(const anim *a, const int *ms, plan *p)
{
    int n = 0;
    for (int i = 0; i < a->count; i++) {
        anim_rect r = i == 0 ? visible_rect(a) : anim_diff_rect(a, i - 1, i);
        if (i > 0 && r.w == 0 && p[n - 1].ms + ms[i] <= WEBP_MAX_DURATION) {
            p[n - 1].ms += ms[i];
            continue;
        }
        if (r.w == 0)
            r = (anim_rect){ 0, 0, 1, 1 };   /* a blank first frame, or a hold too long for one frame */
        /* ANMF offsets are stored halved: widen the rectangle to an even corner */
        r.w += r.x & 1;
        r.h += r.y & 1;
        r.x &= ~1;
        r.y &= ~1;
        p[n] = (plan){ .frame = i, .r = r, .ms = ms[i] };
        n++;
    }
    return n;
}

/* The work the encoding threads share: the plans, and whether one failed. */
typedef struct job {
    const anim *a;
    const WebPConfig *config;
    plan *p;
    int n;
    atomic_int failed;
} job;

/* libwebp's writer: appends to the bytebuf custom_ptr points at. */
static int write_to(const uint8_t *data, size_t size, const WebPPicture *pic)
{
    poyo_error err;
    return bytebuf_append(pic->custom_ptr, data, size, &err) == POYO_OK;
}

static void put_le(uint8_t *p, uint32_t v, int bytes)
{
    for (int k = 0; k < bytes; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* Appends a RIFF chunk (its FourCC, size, payload and pad byte) to out. */
static int put_chunk(bytebuf *out, const char *fourcc, const uint8_t *payload, size_t n)
{
    poyo_error err;
    uint8_t head[8];
    memcpy(head, fourcc, 4);
    put_le(head + 4, (uint32_t)n, 4);
    return bytebuf_append(out, head, 8, &err) == POYO_OK && bytebuf_append(out, payload, n, &err) == POYO_OK &&
           ((n & 1) == 0 || bytebuf_append(out, "", 1, &err) == POYO_OK);
}

/* A lossy frame with its alpha plane exact, as one WebP file in out: the
 * colours encoded by libwebp without their alpha (the colour under fully
 * transparent blocks flattened first), the alpha plane by webp_alpha_encode,
 * joined as VP8X, ALPH and VP8 chunks; a frame with no transparent pixel is
 * libwebp's file alone. */
static WebPEncodingError encode_lossy(const WebPConfig *config, const uint8_t *src, size_t rb, int w, int h,
                                      bytebuf *out)
{
    WebPPicture pic;
    bytebuf vp8 = { NULL, 0, 0 }, alph = { NULL, 0, 0 };
    if (!WebPPictureInit(&pic))
        return VP8_ENC_ERROR_OUT_OF_MEMORY;
    pic.width = w;
    pic.height = h;
    pic.use_argb = 0;   /* imported straight to YUV, as WebPEncode would convert it */
    int opaque = 1;
    for (int y = 0; y < h && opaque; y++)
        for (int x = 0; x < w; x++)
            if (src[(size_t)y * rb + 4 * (size_t)x + 3] != 255) {
                opaque = 0;
                break;
            }
    int ok = WebPPictureImportRGBA(&pic, src, (int)rb);
    if (ok && !opaque) {
        WebPCleanupTransparentArea(&pic);
        pic.a = NULL;   /* inside the picture's own block, freed with it */
        pic.a_stride = 0;
        pic.colorspace = WEBP_YUV420;
    }
    pic.writer = write_to;
    pic.custom_ptr = opaque ? out : &vp8;
    ok = ok && WebPEncode(config, &pic);
    WebPEncodingError e = ok ? VP8_ENC_OK : pic.error_code != VP8_ENC_OK ? pic.error_code : VP8_ENC_ERROR_OUT_OF_MEMORY;
    WebPPictureFree(&pic);
    if (ok && !opaque) {
        poyo_error err;
        size_t at = out->len;
        /* libwebp's file without alpha is RIFF, WEBP and one VP8 chunk */
        uint8_t head[12 + 18];
        memcpy(head, "RIFF\0\0\0\0WEBPVP8X", 16);
        put_le(head + 16, 10, 4);
        head[20] = 0x10;   /* alpha */
        memset(head + 21, 0, 3);
        put_le(head + 24, (uint32_t)(w - 1), 3);
        put_le(head + 27, (uint32_t)(h - 1), 3);
        if (vp8.len < 20 || memcmp(vp8.data + 12, "VP8 ", 4) != 0)
            e = VP8_ENC_ERROR_BAD_WRITE;
        else if (webp_alpha_encode(src, w, h, rb, &alph, &err) != POYO_OK ||
                 bytebuf_append(out, head, sizeof head, &err) != POYO_OK ||
                 !put_chunk(out, "ALPH", alph.data, alph.len) ||
                 bytebuf_append(out, vp8.data + 12, vp8.len - 12, &err) != POYO_OK)
            e = VP8_ENC_ERROR_OUT_OF_MEMORY;
        else
            put_le(out->data + at + 4, (uint32_t)(out->len - at - 8), 4);
    }
    bytebuf_free(&vp8);
    bytebuf_free(&alph);
    return e;
}

/* Encodes plan p: its rectangle (OVER when exact and it has unchanged pixels,
 * the pixels then made in scratch) into p->data. Returns 0 on failure. */
static int encode_one(const anim *a, const WebPConfig *config, plan *p, uint8_t *scratch)
{
    size_t rb = (size_t)a->width * 4u;
    const uint8_t *src = anim_frame(a, p->frame) + (size_t)p->r.y * rb + (size_t)p->r.x * 4u;
    /* OVER needs the alpha exact: lossless, or lossy with a lossless alpha plane */
    int exact_alpha = config->lossless || config->alpha_quality == 100;
    if (p->frame > 0 && exact_alpha && anim_over_rect(a, p->frame, p->r, scratch)) {
        p->over = 1;
        src = scratch;
        rb = (size_t)p->r.w * 4u;
    }
    if (!config->lossless && exact_alpha) {
        p->error = encode_lossy(config, src, rb, p->r.w, p->r.h, &p->data);
        return p->error == VP8_ENC_OK;
    }
    WebPPicture pic;
    if (!WebPPictureInit(&pic)) {
        p->error = VP8_ENC_ERROR_OUT_OF_MEMORY;
        return 0;
    }
    pic.width = p->r.w;
    pic.height = p->r.h;
    pic.use_argb = 1;
    pic.writer = write_to;
    pic.custom_ptr = &p->data;
    int ok = WebPPictureImportRGBA(&pic, src, (int)rb) && WebPEncode(config, &pic);
    p->error = ok ? VP8_ENC_OK : pic.error_code != VP8_ENC_OK ? pic.error_code : VP8_ENC_ERROR_OUT_OF_MEMORY;
    WebPPictureFree(&pic);
    return ok;
}

/* Part i of the encoding: plan i, with a scratch frame of its own for the
 * pixels of a frame drawn OVER the last; skipped once another has failed. */
static void encode_part(void *arg, int i)
{
    job *j = arg;
    if (atomic_load(&j->failed))
        return;
    uint8_t *scratch = malloc(anim_frame_bytes(j->a));
    if (!scratch)
        j->p[i].error = VP8_ENC_ERROR_OUT_OF_MEMORY;
    if (!scratch || !encode_one(j->a, j->config, &j->p[i], scratch))
        atomic_store(&j->failed, 1);
    free(scratch);
}

/* Joins the encoded frames into the animation and appends it to out. */
static poyo_status assemble(const anim *a, const plan *p, int n, bytebuf *out, poyo_error *err)
{
    WebPMux *mux = WebPMuxNew();
    if (!mux)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a WebP container");
    WebPMuxError e = WebPMuxSetCanvasSize(mux, a->width, a->height);
    WebPMuxAnimParams params = { .bgcolor = 0x00000000, .loop_count = a->loop };   /* transparent */
    if (e == WEBP_MUX_OK)
        e = WebPMuxSetAnimationParams(mux, &params);
    for (int k = 0; k < n && e == WEBP_MUX_OK; k++) {
        WebPMuxFrameInfo fi;
        memset(&fi, 0, sizeof fi);
        fi.bitstream.bytes = p[k].data.data;
        fi.bitstream.size = p[k].data.len;
        fi.x_offset = p[k].r.x;
        fi.y_offset = p[k].r.y;
        fi.duration = p[k].ms;
        fi.id = WEBP_CHUNK_ANMF;
        fi.dispose_method = WEBP_MUX_DISPOSE_NONE;
        fi.blend_method = p[k].over ? WEBP_MUX_BLEND : WEBP_MUX_NO_BLEND;
        e = WebPMuxPushFrame(mux, &fi, 0);
    }
    WebPData data;
    WebPDataInit(&data);
    if (e == WEBP_MUX_OK)
        e = WebPMuxAssemble(mux, &data);
    poyo_status st = e == WEBP_MUX_OK ? bytebuf_append(out, data.bytes, data.size, err)
                     : e == WEBP_MUX_MEMORY_ERROR
                         ? poyo_fail(err, POYO_ERR_NOMEM, "out of memory assembling the WebP file")
                         : poyo_fail(err, POYO_ERR_NOMEM, "WebP assembly failed (libwebpmux error %d)", (int)e);
    WebPDataClear(&data);
    WebPMuxDelete(mux);
    return st;
}

poyo_status webp_encode(const anim *a, const webp_options *opt, bytebuf *out, poyo_error *err)
{
    webp_options o = opt ? *opt : webp_default_def();
    poyo_status st = check_args(a, &o, err);
    if (st != POYO_OK)
        return st;
    WebPConfig config;
    if (!WebPConfigInit(&config))
        return poyo_fail(err, POYO_ERR_NOMEM, "the linked libwebp does not match its headers");
    st = set_config(&o, &config, err);
    if (st != POYO_OK)
        return st;

    int *ms = malloc((size_t)a->count * sizeof *ms);
    plan *p = calloc((size_t)a->count, sizeof *p);
    if (!ms || !p) {
        free(ms);
        free(p);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d WebP frames", a->count);
    }
    anim_delays(a, 1000, 1, ms);
    st = check_delays(a, ms, err);
    if (st != POYO_OK) {
        free(ms);
        free(p);
        return st;
    }
    int n = plan_frames(a, ms, p);

    job j = { .a = a, .config = &config, .p = p, .n = n };
    atomic_init(&j.failed, 0);
    workers_run(n, o.threads, encode_part, &j);   /* plans on up to o.threads threads, this one among them */
    for (int k = 0; k < n && st == POYO_OK; k++)
        if (p[k].error != VP8_ENC_OK)
            st = poyo_fail(err, POYO_ERR_NOMEM, "WebP encoding of frame %d failed: %s", p[k].frame + 1,
                           picture_error(p[k].error));
    if (st == POYO_OK)
        st = assemble(a, p, n, out, err);
    for (int k = 0; k < n; k++)
        bytebuf_free(&p[k].data);
    free(p);
    free(ms);
    return st;
}
