/* webp.c - animated WebP writer on libwebp's WebPAnimEncoder (the WebP container
 * specification, RIFF ANIM/ANMF). Only the first frame is a keyframe, so each
 * frame is encoded once (libwebp's own default), not also as a candidate
 * keyframe; the efforts are the quickest that keep the bytes within a few
 * percent of libwebp's default effort 4. */
#include "webp.h"

#include <math.h>
#include <stdlib.h>

#include <webp/encode.h>
#include <webp/mux.h>

#define WEBP_MAX_SIDE 16383

webp_options webp_default_def(void)
{
    webp_options o = { .lossy = 0, .quality = 80, .method = 3, .lossless_method = 3, .alpha_quality = 100 };
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
    if (o->method < 0 || o->method > 6)
        return poyo_fail(err, POYO_ERR_USAGE, "WebP method %d is outside 0-6", o->method);
    if (o->lossless_method < 0 || o->lossless_method > 6)
        return poyo_fail(err, POYO_ERR_USAGE, "WebP lossless method %d is outside 0-6", o->lossless_method);
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

/* The animation's settings (loop, no keyframes after the first) and the
 * encoder's (lossless or lossy, quality, effort), checked by libwebp. */
static poyo_status set_options(const anim *a, const webp_options *o, WebPAnimEncoderOptions *eo, WebPConfig *config,
                               poyo_error *err)
{
    eo->anim_params.loop_count = a->loop;
    eo->anim_params.bgcolor = 0x00000000;   /* transparent */
    eo->minimize_size = 0;
    eo->kmin = 0;
    eo->kmax = 0;   /* keyframes off: the first frame only */
    eo->allow_mixed = o->lossy;
    eo->verbose = 0;

    config->lossless = !o->lossy;
    config->quality = o->lossy ? (float)o->quality : 75.0f;   /* lossless: libwebp's default effort */
    config->method = o->lossy ? o->method : o->lossless_method;
    config->thread_level = 0;
    if (o->lossy)
        config->alpha_quality = o->alpha_quality;
    if (!WebPValidateConfig(config))
        return poyo_fail(err, POYO_ERR_USAGE, "invalid WebP encoder settings");
    return POYO_OK;
}

/* Adds every frame to enc at its timestamp (ms, the delays added up), then the end. */
static poyo_status add_frames(WebPAnimEncoder *enc, const anim *a, const int *ms, WebPPicture *pic,
                              const WebPConfig *config, poyo_error *err)
{
    int timestamp = 0;
    for (int i = 0; i < a->count; i++) {
        if (!WebPPictureImportRGBA(pic, anim_frame(a, i), a->width * 4))
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory importing WebP frame %d", i + 1);
        if (!WebPAnimEncoderAdd(enc, pic, timestamp, config)) {
            const char *why = WebPAnimEncoderGetError(enc);
            return poyo_fail(err, POYO_ERR_NOMEM, "WebP encoding of frame %d failed: %s", i + 1,
                             why && *why ? why : picture_error(pic->error_code));
        }
        if (ms[i] > 0x7fffffff - timestamp)
            return poyo_fail(err, POYO_ERR_USAGE, "animation is too long for WebP timestamps");
        timestamp += ms[i];
    }
    if (!WebPAnimEncoderAdd(enc, NULL, timestamp, NULL)) {
        const char *why = WebPAnimEncoderGetError(enc);
        return poyo_fail(err, POYO_ERR_NOMEM, "WebP encoding failed at the end: %s", why && *why ? why : "unknown");
    }
    return POYO_OK;
}

/* Appends the finished file that enc assembles to out. */
static poyo_status assemble(WebPAnimEncoder *enc, bytebuf *out, poyo_error *err)
{
    WebPData data;
    WebPDataInit(&data);
    poyo_status st;
    if (!WebPAnimEncoderAssemble(enc, &data)) {
        const char *why = WebPAnimEncoderGetError(enc);
        st = poyo_fail(err, POYO_ERR_NOMEM, "WebP assembly failed: %s", why && *why ? why : "unknown");
    } else {
        st = bytebuf_append(out, data.bytes, data.size, err);
    }
    WebPDataClear(&data);
    return st;
}

poyo_status webp_encode(const anim *a, const webp_options *opt, bytebuf *out, poyo_error *err)
{
    webp_options o = opt ? *opt : webp_default_def();
    poyo_status st = check_args(a, &o, err);
    if (st != POYO_OK)
        return st;

    WebPAnimEncoder *enc = NULL;
    WebPPicture pic;
    WebPConfig config;
    WebPAnimEncoderOptions eo;
    int *ms = NULL;
    int pic_ready = 0;

    if (!WebPAnimEncoderOptionsInit(&eo) || !WebPConfigInit(&config) || !WebPPictureInit(&pic)) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "the linked libwebp does not match its headers");
        goto done;
    }
    pic_ready = 1;
    st = set_options(a, &o, &eo, &config, err);
    if (st != POYO_OK)
        goto done;

    ms = malloc((size_t)a->count * sizeof *ms);
    if (!ms) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d frame delays", a->count);
        goto done;
    }
    anim_delays(a, 1000, 1, ms);

    enc = WebPAnimEncoderNew(a->width, a->height, &eo);
    if (!enc) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "cannot create a WebP animation encoder for %dx%d", a->width,
                       a->height);
        goto done;
    }
    pic.width = a->width;
    pic.height = a->height;
    pic.use_argb = 1;

    st = add_frames(enc, a, ms, &pic, &config, err);
    if (st == POYO_OK)
        st = assemble(enc, out, err);
done:
    WebPAnimEncoderDelete(enc);
    if (pic_ready)
        WebPPictureFree(&pic);
    free(ms);
    return st;
}
