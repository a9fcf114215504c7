/* webp.c - animated WebP writer (the WebP container specification, RIFF
 * VP8X, ANIM and ANMF). Each frame after the first stores only the rectangle
 * that changed (its offset even, as ANMF requires), drawn OVER the last frame
 * with the unchanged pixels transparent when every changed pixel is opaque,
 * else replacing it; the first frame stores its visible pixels' bounding box
 * and an unchanged frame lengthens the one before. The frames are encoded by
 * libwebp's WebPEncode, each on its own, on up to `threads` threads (the bytes
 * do not depend on how many), and joined by libwebpmux. */
#include "webp.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <webp/encode.h>
#include <webp/mux.h>

#define WEBP_MAX_SIDE 16383
#define WEBP_MAX_THREADS 8
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
    config->quality = o->lossy ? (float)o->quality : 75.0f;   /* lossless: libwebp's default effort */
    config->method = o->lossy ? o->method : o->lossless_method;
    config->thread_level = 0;
    if (o->lossy) {
        config->alpha_quality = o->alpha_quality;
        /* the alpha plane's prediction filter: none below effort 3 (on a stamp's
         * 256 alpha levels libwebp's quick pick encodes the plane twice, and the
         * plane is most of the time), the quick pick to 4, the best of all above */
        config->alpha_filtering = o->method >= 5 ? 2 : o->method >= 3 ? 1 : 0;
    }
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
    WebPMemoryWriter data;   /* the encoded frame, a whole WebP file */
    WebPEncodingError error; /* set when the encode failed */
} plan;

/* The bounding box of frame 0's pixels that are not fully transparent (empty when none). */
static anim_rect visible_rect(const anim *a)
{
    const uint8_t *f = anim_frame(a, 0);
    int x0 = a->width, x1 = -1, y0 = -1, y1 = -1;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            if (f[((size_t)y * a->width + x) * 4 + 3]) {
                if (y0 < 0)
                    y0 = y;
                y1 = y;
                x0 = x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
            }
    anim_rect r = { 0, 0, 0, 0 };
    if (y0 >= 0)
        r = (anim_rect){ x0, y0, x1 - x0 + 1, y1 - y0 + 1 };
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

/* The work the encoding threads share: the next plan to take, and the buffers. */
typedef struct job {
    const anim *a;
    const WebPConfig *config;
    plan *p;
    int n;
    atomic_int next;
} job;

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
    WebPPicture pic;
    if (!WebPPictureInit(&pic)) {
        p->error = VP8_ENC_ERROR_OUT_OF_MEMORY;
        return 0;
    }
    pic.width = p->r.w;
    pic.height = p->r.h;
    pic.use_argb = 1;
    pic.writer = WebPMemoryWrite;
    pic.custom_ptr = &p->data;
    int ok = WebPPictureImportRGBA(&pic, src, (int)rb) && WebPEncode(config, &pic);
    p->error = ok ? VP8_ENC_OK : pic.error_code != VP8_ENC_OK ? pic.error_code : VP8_ENC_ERROR_OUT_OF_MEMORY;
    WebPPictureFree(&pic);
    return ok;
}

/* A thread's loop: takes plans in turn until none is left or one fails. */
static void *encode_some(void *arg)
{
    job *j = arg;
    uint8_t *scratch = malloc(anim_frame_bytes(j->a));
    for (;;) {
        int k = atomic_fetch_add(&j->next, 1);
        if (k >= j->n)
            break;
        if (!scratch) {
            j->p[k].error = VP8_ENC_ERROR_OUT_OF_MEMORY;
            continue;
        }
        if (!encode_one(j->a, j->config, &j->p[k], scratch))
            atomic_store(&j->next, j->n);   /* the others stop too */
    }
    free(scratch);
    return NULL;
}

/* Encodes every plan, on up to `threads` threads (this one among them). */
static void encode_all(job *j, int threads)
{
    pthread_t th[WEBP_MAX_THREADS];
    int started = 0;
    if (threads > WEBP_MAX_THREADS)
        threads = WEBP_MAX_THREADS;
    if (threads > j->n)
        threads = j->n;
    while (started + 1 < threads && pthread_create(&th[started], NULL, encode_some, j) == 0)
        started++;
    encode_some(j);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
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
        fi.bitstream.bytes = p[k].data.mem;
        fi.bitstream.size = p[k].data.size;
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
    for (int k = 0; k < n; k++)
        WebPMemoryWriterInit(&p[k].data);

    job j = { .a = a, .config = &config, .p = p, .n = n };
    atomic_init(&j.next, 0);
    encode_all(&j, o.threads);
    for (int k = 0; k < n && st == POYO_OK; k++)
        if (p[k].error != VP8_ENC_OK)
            st = poyo_fail(err, POYO_ERR_NOMEM, "WebP encoding of frame %d failed: %s", p[k].frame + 1,
                           picture_error(p[k].error));
    if (st == POYO_OK)
        st = assemble(a, p, n, out, err);
    for (int k = 0; k < n; k++)
        WebPMemoryWriterClear(&p[k].data);
    free(p);
    free(ms);
    return st;
}
