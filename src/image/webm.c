/* webm.c - WebM (VP9 with alpha) through libavcodec's libvpx-vp9 and libavformat's
 * Matroska muxer and demuxer, in memory via custom AVIOContexts. The alpha plane
 * travels as BlockAdditional (the WebM alpha convention, AlphaMode 1); colours use
 * BT.601 limited range, the VP9 default. libav* is called through avload's table,
 * loaded by the first encode or read. */
#include "webm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avload.h"

#define WEBM_MAX_SIDE 16384
#define AVIO_BUF 65536

/* libavformat gave its write callback a const buffer from major version 61 on */
#if LIBAVFORMAT_VERSION_MAJOR >= 61
#define AVIO_WBUF const uint8_t
#else
#define AVIO_WBUF uint8_t
#endif

webm_options webm_default_def(void)
{
    webm_options o = { .crf = 32, .speed = 5 };
    return o;
}

static const char *av_text(const avlib *av, int e, char *buf, size_t cap)
{
    if (av->av_strerror(e, buf, cap) < 0)
        snprintf(buf, cap, "error %d", e);
    return buf;
}

/* ---- colour: BT.601 limited range, integer form ----------------------------- */

static uint8_t clamp8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* RGBA (straight alpha) into the four planes of f; chroma averages the 2x2
 * block weighted by alpha, so invisible pixels lend no colour to the edge. */
static void rgba_to_yuva(const uint8_t *rgba, int w, int h, AVFrame *f)
{
    for (int y = 0; y < h; y++) {
        const uint8_t *s = rgba + (size_t)y * w * 4;
        uint8_t *yp = f->data[0] + (size_t)y * f->linesize[0];
        uint8_t *ap = f->data[3] + (size_t)y * f->linesize[3];
        for (int x = 0; x < w; x++, s += 4) {
            yp[x] = (uint8_t)(((66 * s[0] + 129 * s[1] + 25 * s[2] + 128) >> 8) + 16);
            ap[x] = s[3];
        }
    }
    for (int cy = 0; cy < (h + 1) / 2; cy++) {
        uint8_t *up = f->data[1] + (size_t)cy * f->linesize[1];
        uint8_t *vp = f->data[2] + (size_t)cy * f->linesize[2];
        for (int cx = 0; cx < (w + 1) / 2; cx++) {
            long r = 0, g = 0, b = 0, wsum = 0, rp = 0, gp = 0, bp = 0, n = 0;
            for (int dy = 0; dy < 2 && cy * 2 + dy < h; dy++)
                for (int dx = 0; dx < 2 && cx * 2 + dx < w; dx++) {
                    const uint8_t *p = rgba + ((size_t)(cy * 2 + dy) * w + (size_t)(cx * 2 + dx)) * 4;
                    r += (long)p[0] * p[3];
                    g += (long)p[1] * p[3];
                    b += (long)p[2] * p[3];
                    wsum += p[3];
                    rp += p[0];
                    gp += p[1];
                    bp += p[2];
                    n++;
                }
            if (wsum > 0) {
                r = (r + wsum / 2) / wsum;
                g = (g + wsum / 2) / wsum;
                b = (b + wsum / 2) / wsum;
            } else {
                r = (rp + n / 2) / n;
                g = (gp + n / 2) / n;
                b = (bp + n / 2) / n;
            }
            up[cx] = (uint8_t)(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
            vp[cx] = (uint8_t)(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
        }
    }
}

/* A decoded 8-bit 4:2:0 frame (with or without alpha) into RGBA. */
static void yuva_to_rgba(const AVFrame *f, int w, int h, uint8_t *rgba)
{
    int has_alpha = f->format == AV_PIX_FMT_YUVA420P && f->data[3];
    for (int y = 0; y < h; y++) {
        const uint8_t *yp = f->data[0] + (size_t)y * f->linesize[0];
        const uint8_t *up = f->data[1] + (size_t)(y / 2) * f->linesize[1];
        const uint8_t *vp = f->data[2] + (size_t)(y / 2) * f->linesize[2];
        const uint8_t *ap = has_alpha ? f->data[3] + (size_t)y * f->linesize[3] : NULL;
        uint8_t *d = rgba + (size_t)y * w * 4;
        for (int x = 0; x < w; x++, d += 4) {
            int c = 298 * (yp[x] - 16), du = up[x / 2] - 128, dv = vp[x / 2] - 128;
            d[0] = clamp8((c + 409 * dv + 128) >> 8);
            d[1] = clamp8((c - 100 * du - 208 * dv + 128) >> 8);
            d[2] = clamp8((c + 516 * du + 128) >> 8);
            d[3] = ap ? ap[x] : 255;
        }
    }
}

/* ---- writing: the muxer's output into a bytebuf, seekable --------------------- */

typedef struct sink {
    bytebuf *buf;
    size_t base;    /* where the file starts in buf */
    size_t pos;     /* write position, relative to base */
    int failed;
    poyo_error *err;
} sink;

static int sink_write(void *opaque, AVIO_WBUF *p, int n)
{
    sink *s = opaque;
    if (n < 0 || s->failed)
        return AVERROR(EIO);
    size_t end = s->base + s->pos + (size_t)n;
    if (end > s->buf->len) {
        if (bytebuf_reserve(s->buf, end - s->buf->len, s->err) != POYO_OK) {
            s->failed = 1;
            return AVERROR(ENOMEM);
        }
        memset(s->buf->data + s->buf->len, 0, end - s->buf->len);
        s->buf->len = end;
    }
    memcpy(s->buf->data + s->base + s->pos, p, (size_t)n);
    s->pos += (size_t)n;
    return n;
}

static int64_t sink_seek(void *opaque, int64_t off, int whence)
{
    sink *s = opaque;
    int64_t size = (int64_t)(s->buf->len - s->base), to;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return size;
    case SEEK_SET: to = off; break;
    case SEEK_CUR: to = (int64_t)s->pos + off; break;
    case SEEK_END: to = size + off; break;
    default: return AVERROR(EINVAL);
    }
    if (to < 0 || to > size)
        return AVERROR(EINVAL);
    s->pos = (size_t)to;
    return to;
}

typedef struct encoder {
    const avlib *av;
    AVCodecContext *cc;
    AVFormatContext *fc;
    AVStream *st;
    AVPacket *pkt;
    const long long *pts;   /* each frame's start, ms */
    const int *ms;          /* each frame's duration, ms */
    int count;
} encoder;

/* Sends frame f (NULL: flush) and writes every packet the encoder gives back. */
static poyo_status encode_send(encoder *e, const AVFrame *f, poyo_error *err)
{
    const avlib *av = e->av;
    char t[128];
    int r = av->avcodec_send_frame(e->cc, f);
    if (r < 0)
        return poyo_fail(err, POYO_ERR_INPUT, "VP9 encoder refused a frame: %s", av_text(av, r, t, sizeof t));
    for (;;) {
        r = av->avcodec_receive_packet(e->cc, e->pkt);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF)
            return POYO_OK;
        if (r < 0)
            return poyo_fail(err, POYO_ERR_INPUT, "VP9 encoding failed: %s", av_text(av, r, t, sizeof t));
        /* one packet per frame (no alt-ref frames): its duration is that frame's */
        int lo = 0, hi = e->count - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (e->pts[mid] <= e->pkt->pts)
                lo = mid;
            else
                hi = mid - 1;
        }
        e->pkt->duration = e->ms[lo];
        e->pkt->stream_index = e->st->index;
        av->av_packet_rescale_ts(e->pkt, e->cc->time_base, e->st->time_base);
        r = av->av_interleaved_write_frame(e->fc, e->pkt);
        av->av_packet_unref(e->pkt);
        if (r < 0)
            return poyo_fail(err, POYO_ERR_NOMEM, "WebM muxing failed: %s", av_text(av, r, t, sizeof t));
    }
}

static poyo_status check_args(const anim *a, const webm_options *o, poyo_error *err)
{
    poyo_status st = anim_check_encodable(a, "WebM", err);
    if (st != POYO_OK)
        return st;
    if (a->width > WEBM_MAX_SIDE || a->height > WEBM_MAX_SIDE)
        return poyo_fail(err, POYO_ERR_USAGE, "WebM canvas %dx%d exceeds poyo's limit of %dx%d", a->width, a->height,
                         WEBM_MAX_SIDE, WEBM_MAX_SIDE);
    if (o->crf < 0 || o->crf > 63)
        return poyo_fail(err, POYO_ERR_USAGE, "VP9 crf %d is outside 0-63", o->crf);
    if (o->speed < 0 || o->speed > 8)
        return poyo_fail(err, POYO_ERR_USAGE, "VP9 speed %d is outside 0-8", o->speed);
    return POYO_OK;
}

/* VP9 with alpha at constant quality, the same bytes on every machine. */
static void set_codec(const avlib *av, AVCodecContext *cc, const anim *a, const webm_options *o)
{
    cc->width = a->width;
    cc->height = a->height;
    cc->pix_fmt = AV_PIX_FMT_YUVA420P;
    cc->time_base = (AVRational){ 1, 1000 };
    cc->framerate = av->av_d2q(a->fps, 100000);
    cc->gop_size = a->count > 1 ? a->count : 1; /* one keyframe: the clip is short and loops whole */
    cc->bit_rate = 0;                          /* constant quality: crf alone sets the size */
    cc->thread_count = 1;                      /* the same bytes on every machine */
    cc->flags |= AV_CODEC_FLAG_BITEXACT;
    cc->color_range = AVCOL_RANGE_MPEG;
    cc->colorspace = AVCOL_SPC_BT470BG;
    av->av_opt_set_int(cc->priv_data, "crf", o->crf, 0);
    av->av_opt_set_int(cc->priv_data, "cpu-used", o->speed, 0);
    av->av_opt_set(cc->priv_data, "deadline", "good", 0);
    av->av_opt_set_int(cc->priv_data, "auto-alt-ref", 0, 0); /* alt-ref frames lose the alpha plane */
    av->av_opt_set_int(cc->priv_data, "lag-in-frames", 0, 0);
    av->av_opt_set_int(cc->priv_data, "row-mt", 0, 0);
}

/* The WebM muxer writing into sink s through *io, the encoder opened, one
 * stream and the header written. */
static poyo_status start_muxer(encoder *e, const AVCodec *codec, sink *s, AVIOContext **io, poyo_error *err)
{
    const avlib *av = e->av;
    char t[128];
    int r = av->avformat_alloc_output_context2(&e->fc, NULL, "webm", NULL);
    if (r < 0 || !e->fc)
        return poyo_fail(err, POYO_ERR_NOMEM, "cannot start a WebM file: %s", av_text(av, r, t, sizeof t));
    if (e->fc->oformat->flags & AVFMT_GLOBALHEADER)
        e->cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((r = av->avcodec_open2(e->cc, codec, NULL)) < 0)
        return poyo_fail(err, POYO_ERR_INPUT, "cannot open the VP9 encoder: %s", av_text(av, r, t, sizeof t));
    e->st = av->avformat_new_stream(e->fc, NULL);
    uint8_t *iobuf = av->av_malloc(AVIO_BUF);
    if (iobuf)
        *io = av->avio_alloc_context(iobuf, AVIO_BUF, 1, s, NULL, sink_write, sink_seek);
    if (!e->st || !*io) {
        if (!*io)
            av->av_free(iobuf);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the WebM muxer");
    }
    av->avcodec_parameters_from_context(e->st->codecpar, e->cc);
    e->st->time_base = (AVRational){ 1, 1000 };
    e->st->avg_frame_rate = e->cc->framerate;
    e->fc->pb = *io;
    e->fc->flags |= AVFMT_FLAG_CUSTOM_IO | AVFMT_FLAG_BITEXACT;
    if ((r = av->avformat_write_header(e->fc, NULL)) < 0)
        return s->failed ? POYO_ERR_NOMEM
                         : poyo_fail(err, POYO_ERR_INPUT, "cannot write the WebM header: %s", av_text(av, r, t, sizeof t));
    return POYO_OK;
}

/* Every frame of a converted and sent, then the encoder drained. */
static poyo_status encode_frames(encoder *e, const anim *a, AVFrame *frame, const long long *pts, poyo_error *err)
{
    const avlib *av = e->av;
    frame->format = AV_PIX_FMT_YUVA420P;
    frame->width = a->width;
    frame->height = a->height;
    if (av->av_frame_get_buffer(frame, 0) < 0)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d WebM frame", a->width, a->height);
    poyo_status st = POYO_OK;
    for (int i = 0; i < a->count && st == POYO_OK; i++) {
        if (av->av_frame_make_writable(frame) < 0)
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d WebM frame", a->width, a->height);
        rgba_to_yuva(anim_frame(a, i), a->width, a->height, frame);
        frame->pts = pts[i];
        st = encode_send(e, frame, err);
    }
    return st == POYO_OK ? encode_send(e, NULL, err) : st;
}

poyo_status webm_encode(const anim *a, const webm_options *opt, bytebuf *out, poyo_error *err)
{
    webm_options o = opt ? *opt : webm_default_def();
    poyo_status st = check_args(a, &o, err);
    if (st != POYO_OK)
        return st;
    const avlib *av = avload(err);
    if (!av)
        return POYO_ERR_IO;
    const AVCodec *codec = av->avcodec_find_encoder_by_name("libvpx-vp9");
    if (!codec)
        return poyo_fail(err, POYO_ERR_INPUT, "this libavcodec has no libvpx-vp9 encoder");
    char t[128];
    encoder e;
    memset(&e, 0, sizeof e);
    e.av = av;
    AVIOContext *io = NULL;
    AVFrame *frame = NULL;
    int *ms = malloc((size_t)a->count * sizeof *ms);
    long long *pts = malloc((size_t)a->count * sizeof *pts);
    size_t start = out->len;
    sink s = { out, start, 0, 0, err };
    int header = 0, r;
    e.cc = av->avcodec_alloc_context3(codec);
    e.pkt = av->av_packet_alloc();
    frame = av->av_frame_alloc();
    if (!ms || !pts || !e.cc || !e.pkt || !frame) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the WebM encoder");
        goto done;
    }
    anim_delays(a, 1000, 1, ms);
    long long total = 0;
    for (int i = 0; i < a->count; i++) {
        pts[i] = total;
        total += ms[i];
    }
    e.pts = pts;
    e.ms = ms;
    e.count = a->count;
    set_codec(av, e.cc, a, &o);
    if ((st = start_muxer(&e, codec, &s, &io, err)) != POYO_OK)
        goto done;
    header = 1;
    st = encode_frames(&e, a, frame, pts, err);
    if (st == POYO_OK) {
        header = 0;
        if ((r = av->av_write_trailer(e.fc)) < 0)
            st = poyo_fail(err, POYO_ERR_NOMEM, "cannot finish the WebM file: %s", av_text(av, r, t, sizeof t));
        else
            av->avio_flush(io);
    }
    if (st == POYO_OK && s.failed)
        st = POYO_ERR_NOMEM; /* the sink set err */
done:
    if (header)
        av->av_write_trailer(e.fc);
    if (io) {
        av->av_freep(&io->buffer);
        av->avio_context_free(&io);
    }
    if (e.fc)
        av->avformat_free_context(e.fc);
    av->avcodec_free_context(&e.cc);
    av->av_packet_free(&e.pkt);
    av->av_frame_free(&frame);
    free(ms);
    free(pts);
    if (st != POYO_OK)
        out->len = start;
    return st;
}

/* ---- reading: the demuxer over memory, the libvpx decoder for the alpha -------- */

typedef struct source {
    const uint8_t *data;
    size_t len, pos;
} source;

static int source_read(void *opaque, uint8_t *p, int n)
{
    source *s = opaque;
    if (s->pos >= s->len)
        return AVERROR_EOF;
    size_t k = s->len - s->pos < (size_t)n ? s->len - s->pos : (size_t)n;
    memcpy(p, s->data + s->pos, k);
    s->pos += k;
    return (int)k;
}

static int64_t source_seek(void *opaque, int64_t off, int whence)
{
    source *s = opaque;
    int64_t to;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return (int64_t)s->len;
    case SEEK_SET: to = off; break;
    case SEEK_CUR: to = (int64_t)s->pos + off; break;
    case SEEK_END: to = (int64_t)s->len + off; break;
    default: return AVERROR(EINVAL);
    }
    if (to < 0 || to > (int64_t)s->len)
        return AVERROR(EINVAL);
    s->pos = (size_t)to;
    return to;
}

int webm_sniff(const uint8_t *data, size_t len)
{
    return data && len >= 4 && data[0] == 0x1a && data[1] == 0x45 && data[2] == 0xdf && data[3] == 0xa3;
}

/* Reads an EBML variable-size integer at p (at most end): its length in bytes
 * (0 when malformed) and value, marker bit removed; *unknown is set when all
 * value bits are ones (a size left open by a live stream). */
static int ebml_vint(const uint8_t *p, const uint8_t *end, uint64_t *v, int *unknown)
{
    if (p >= end || *p == 0)
        return 0;
    int n = 1;
    while (!(*p & (0x80 >> (n - 1))))
        n++;
    if (end - p < n)
        return 0;
    uint64_t x = *p & (0xffu >> n), ones = 0xffu >> n;
    for (int i = 1; i < n; i++) {
        x = (x << 8) | p[i];
        ones = (ones << 8) | 0xffu;
    }
    *v = x;
    *unknown = x == ones;
    return n;
}

/* Where the Segment after the EBML header says it ends, or 0 when it leaves
 * its size open or the header cannot be walked (the demuxer then judges). */
static uint64_t segment_end(const uint8_t *data, size_t len)
{
    const uint8_t *p = data + 4, *end = data + len;
    uint64_t size;
    int unknown, k;
    if ((k = ebml_vint(p, end, &size, &unknown)) == 0 || unknown || size > (uint64_t)(end - p - k))
        return 0;
    p += k + size;
    if (end - p < 4 || memcmp(p, "\x18\x53\x80\x67", 4) != 0)
        return 0;
    p += 4;
    if ((k = ebml_vint(p, end, &size, &unknown)) == 0 || unknown)
        return 0;
    return (uint64_t)(p + k - data) + size;
}

void webm_info_free(webm_info *info)
{
    if (!info)
        return;
    free(info->delay_ms);
    info->delay_ms = NULL;
}

/* ---- frame sizes, read before decoding: libvpx allocates for whatever size a
 * frame header declares, so every header (colour and alpha) must declare the
 * track's size (VP9 bitstream spec, 6.2 uncompressed header; RFC 6386, 9.1). */

typedef struct bitreader {
    const uint8_t *p;
    size_t n, pos;   /* bytes; position in bits */
    int over;        /* read past the end */
} bitreader;

static unsigned get_bits(bitreader *b, int k)
{
    unsigned v = 0;
    while (k-- > 0) {
        if (b->pos >= b->n * 8) {
            b->over = 1;
            return 0;
        }
        v = (v << 1) | ((b->p[b->pos >> 3] >> (7 - (b->pos & 7))) & 1u);
        b->pos++;
    }
    return v;
}

static int vp9_sync(bitreader *b)
{
    return get_bits(b, 8) == 0x49 && get_bits(b, 8) == 0x83 && get_bits(b, 8) == 0x42;
}

static void vp9_color_config(bitreader *b, int profile)
{
    if (profile >= 2)
        get_bits(b, 1); /* ten_or_twelve_bit */
    if (get_bits(b, 3) != 7) /* color_space other than RGB */
        get_bits(b, profile == 1 || profile == 3 ? 4 : 1);
    else if (profile == 1 || profile == 3)
        get_bits(b, 1);
}

/* One VP9 frame's declared size: 1 (in *w, *h), 0 when it declares none (it
 * shows or takes the size of a frame already checked), -1 when malformed. */
static int vp9_frame_size(const uint8_t *p, size_t n, int *w, int *h)
{
    bitreader b = { p, n, 0, 0 };
    if (get_bits(&b, 2) != 2)
        return -1;
    int profile = (int)get_bits(&b, 1);
    profile |= (int)get_bits(&b, 1) << 1;
    if (profile == 3)
        get_bits(&b, 1);
    if (get_bits(&b, 1)) /* show_existing_frame */
        return b.over ? -1 : 0;
    int key = get_bits(&b, 1) == 0, show = (int)get_bits(&b, 1), error_res = (int)get_bits(&b, 1);
    if (key) {
        if (!vp9_sync(&b))
            return -1;
        vp9_color_config(&b, profile);
    } else {
        int intra_only = show ? 0 : (int)get_bits(&b, 1);
        if (!error_res)
            get_bits(&b, 2); /* reset_frame_context */
        if (intra_only) {
            if (!vp9_sync(&b))
                return -1;
            if (profile > 0)
                vp9_color_config(&b, profile);
            get_bits(&b, 8); /* refresh_frame_flags */
        } else {
            get_bits(&b, 8 + 3 * 4); /* refresh_frame_flags, three references and sign biases */
            for (int i = 0; i < 3; i++)
                if (get_bits(&b, 1)) /* found_ref: a checked frame's size */
                    return b.over ? -1 : 0;
        }
    }
    *w = (int)get_bits(&b, 16) + 1;
    *h = (int)get_bits(&b, 16) + 1;
    return b.over ? -1 : 1;
}

/* 1 when every frame in a VP9 packet (a superframe holds several, indexed at
 * its end) declares w x h or no size. */
static int vp9_sizes_ok(const uint8_t *p, size_t n, int w, int h)
{
    if (n == 0)
        return 0;
    uint8_t last = p[n - 1];
    size_t mag = ((last >> 3) & 3u) + 1u, frames = (last & 7u) + 1u, idx = 2 + mag * frames;
    int super = (last & 0xe0) == 0xc0 && n >= idx && p[n - idx] == last;
    size_t off = 0, end = super ? n - idx : n;
    for (size_t i = 0; i < (super ? frames : 1); i++) {
        size_t sz = end - off;
        if (super) {
            sz = 0;
            for (size_t k = 0; k < mag; k++)
                sz |= (size_t)p[n - idx + 1 + i * mag + k] << (8 * k);
            if (sz > end - off)
                return 0;
        }
        int fw = 0, fh = 0, r = sz ? vp9_frame_size(p + off, sz, &fw, &fh) : 0;
        if (r < 0 || (r == 1 && (fw != w || fh != h)))
            return 0;
        off += sz;
    }
    return 1;
}

/* 1 when a VP8 frame declares w x h or no size (only key frames declare one). */
static int vp8_size_ok(const uint8_t *p, size_t n, int w, int h)
{
    if (n < 3)
        return 0;
    if (p[0] & 1)
        return 1;
    if (n < 10 || p[3] != 0x9d || p[4] != 0x01 || p[5] != 0x2a)
        return 0;
    return ((p[6] | p[7] << 8) & 0x3fff) == w && ((p[8] | p[9] << 8) & 0x3fff) == h;
}

/* 1 when the packet's frames, and its alpha frames (BlockAdditional 1), all
 * declare the track's size. */
static int packet_sizes_ok(const avlib *av, enum AVCodecID id, const AVPacket *pkt, int w, int h)
{
    int (*ok)(const uint8_t *, size_t, int, int) = id == AV_CODEC_ID_VP9 ? vp9_sizes_ok : vp8_size_ok;
    if (!ok(pkt->data, (size_t)pkt->size, w, h))
        return 0;
    size_t sz = 0;
    const uint8_t *add = av->av_packet_get_side_data(pkt, AV_PKT_DATA_MATROSKA_BLOCKADDITIONAL, &sz);
    return !add || sz <= 8 || ok(add + 8, sz - 8, w, h);
}

/* Frames decoded so far, grown as they come. */
typedef struct reel {
    const avlib *av;
    uint8_t *rgba;
    long long *pts;   /* each frame's timestamp, ms */
    int count, cap;
    int width, height;
    size_t max_bytes;
} reel;

static poyo_status reel_push(reel *r, const AVFrame *f, long long pts, poyo_error *err)
{
    const char *fmt = r->av->av_get_pix_fmt_name(f->format);
    if (f->width != r->width || f->height != r->height)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM frame %d is %dx%d, the track declares %dx%d", r->count + 1,
                         f->width, f->height, r->width, r->height);
    if (f->format != AV_PIX_FMT_YUVA420P && f->format != AV_PIX_FMT_YUV420P)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM frame %d has pixel format %s, poyo reads 8-bit 4:2:0 only",
                         r->count + 1, fmt ? fmt : "unknown");
    size_t fb = (size_t)r->width * (size_t)r->height * 4u;
    if ((size_t)(r->count + 1) > r->max_bytes / fb)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM has more than %zu frames of %dx%d, over the %zu MiB limit",
                         r->max_bytes / fb, r->width, r->height, r->max_bytes >> 20);
    if (r->count == r->cap) {
        int cap = r->cap ? r->cap * 2 : 16;
        if ((size_t)cap > r->max_bytes / fb + 1)
            cap = (int)(r->max_bytes / fb + 1);
        uint8_t *px = realloc(r->rgba, (size_t)cap * fb);
        if (!px)
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d WebM frames", cap);
        r->rgba = px;
        long long *pp = realloc(r->pts, (size_t)cap * sizeof *pp);
        if (!pp)
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d WebM frames", cap);
        r->pts = pp;
        r->cap = cap;
    }
    yuva_to_rgba(f, r->width, r->height, r->rgba + (size_t)r->count * fb);
    r->pts[r->count++] = pts;
    return POYO_OK;
}

/* Feeds pkt (NULL: drain) to the decoder and keeps every frame it returns. */
static poyo_status decode_send(AVCodecContext *dc, const AVPacket *pkt, AVFrame *f, AVRational tb, reel *r,
                               poyo_error *err)
{
    const avlib *av = r->av;
    char t[128];
    int e = av->avcodec_send_packet(dc, pkt);
    if (e < 0 && e != AVERROR_EOF)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM frame %d is corrupt: %s", r->count + 1, av_text(av, e, t, sizeof t));
    for (;;) {
        e = av->avcodec_receive_frame(dc, f);
        if (e == AVERROR(EAGAIN) || e == AVERROR_EOF)
            return POYO_OK;
        if (e < 0)
            return poyo_fail(err, POYO_ERR_INPUT, "WebM frame %d is corrupt: %s", r->count + 1,
                             av_text(av, e, t, sizeof t));
        int64_t ts = f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp : f->pts;
        long long ms = ts == AV_NOPTS_VALUE ? -1 : (long long)av->av_rescale_q(ts, tb, (AVRational){ 1, 1000 });
        poyo_status st = reel_push(r, f, ms, err);
        av->av_frame_unref(f);
        if (st != POYO_OK)
            return st;
    }
}

/* Refuses what is plainly no WebM before libav is loaded: an empty file, no
 * EBML header, a segment that ends past the file. */
static poyo_status check_file(const uint8_t *data, size_t len, poyo_error *err)
{
    if (!data || len == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "file is empty");
    if (!webm_sniff(data, len))
        return poyo_fail(err, POYO_ERR_INPUT, "not a WebM file");
    uint64_t seg = segment_end(data, len);
    if (seg > len)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM is truncated: its segment ends at byte %llu, the file has %zu",
                         (unsigned long long)seg, len);
    return POYO_OK;
}

/* The demuxer over a file in memory, the decoder of its first video track and
 * what they hand over, all freed by close_reader. */
typedef struct reader {
    const avlib *av;
    source src;
    AVFormatContext *fc;
    AVIOContext *io;
    AVCodecContext *dc;
    AVPacket *pkt;
    AVFrame *f;
    AVDictionary *opts;
    int vi;           /* the first video track, -1 when none */
    int vt, at, ot;   /* the video, audio and other tracks */
} reader;

/* Opens the Matroska demuxer over R->src, bounded in what probing reads, and
 * counts the tracks. */
static poyo_status open_demuxer(reader *R, poyo_error *err)
{
    const avlib *av = R->av;
    char t[128];
    int e;
    uint8_t *iobuf = av->av_malloc(AVIO_BUF);
    if (iobuf)
        R->io = av->avio_alloc_context(iobuf, AVIO_BUF, 0, &R->src, source_read, NULL, source_seek);
    R->fc = av->avformat_alloc_context();
    R->pkt = av->av_packet_alloc();
    R->f = av->av_frame_alloc();
    if (!R->io || !R->fc || !R->pkt || !R->f) {
        if (!R->io)
            av->av_free(iobuf);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the WebM reader");
    }
    R->fc->pb = R->io;
    R->fc->flags |= AVFMT_FLAG_CUSTOM_IO;
    /* the file is already in memory; these bound what probing may read and decode */
    R->fc->probesize = 1 << 20;
    R->fc->max_analyze_duration = 5 * AV_TIME_BASE;
    av->av_dict_set(&R->opts, "probesize", "1048576", 0);
    av->av_dict_set(&R->opts, "analyzeduration", "5000000", 0);
    const AVInputFormat *mkv = av->av_find_input_format("matroska");
    if ((e = av->avformat_open_input(&R->fc, NULL, mkv, &R->opts)) < 0) {
        R->fc = NULL; /* freed by avformat_open_input */
        return poyo_fail(err, POYO_ERR_INPUT, "WebM is corrupt or truncated: %s", av_text(av, e, t, sizeof t));
    }
    for (unsigned i = 0; i < R->fc->nb_streams; i++) {
        enum AVMediaType mt = R->fc->streams[i]->codecpar->codec_type;
        if (mt == AVMEDIA_TYPE_VIDEO) {
            if (R->vi < 0)
                R->vi = (int)i;
            R->vt++;
        } else if (mt == AVMEDIA_TYPE_AUDIO) {
            R->at++;
        } else {
            R->ot++;
        }
    }
    return POYO_OK;
}

/* Checks the video track (a size within max_pixels, VP8 or VP9) and opens
 * libvpx's decoder for it; *cname is the codec's name, *alpha whether the
 * track declares an alpha plane. */
static poyo_status open_decoder(reader *R, reel *rl, size_t max_pixels, const char **cname, int *alpha,
                                poyo_error *err)
{
    const avlib *av = R->av;
    char t[128];
    int e;
    if (R->vi < 0)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM has no video track");
    AVStream *vs = R->fc->streams[R->vi];
    AVCodecParameters *par = vs->codecpar;
    rl->width = par->width;
    rl->height = par->height;
    if (rl->width < 1 || rl->height < 1)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM video track declares no size");
    if ((unsigned long long)rl->width * (unsigned long long)rl->height > max_pixels)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM video is %dx%d, more than %zu pixels", rl->width, rl->height,
                         max_pixels);
    *cname = av->avcodec_get_name(par->codec_id);
    const AVDictionaryEntry *am = av->av_dict_get(vs->metadata, "alpha_mode", NULL, 0);
    *alpha = am && strtol(am->value, NULL, 10) == 1;
    /* libavcodec's own VP9 decoder drops the alpha plane; libvpx's keeps it.
     * Other codecs are refused: their frame headers are not checked below. */
    if (par->codec_id != AV_CODEC_ID_VP9 && par->codec_id != AV_CODEC_ID_VP8)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM video codec %s: poyo reads VP8 and VP9 only", *cname);
    const AVCodec *codec = av->avcodec_find_decoder_by_name(par->codec_id == AV_CODEC_ID_VP9 ? "libvpx-vp9" : "libvpx");
    if (!codec)
        return poyo_fail(err, POYO_ERR_INPUT, "WebM video codec %s cannot be decoded: libavcodec has no libvpx", *cname);
    R->dc = av->avcodec_alloc_context3(codec);
    if (!R->dc || av->avcodec_parameters_to_context(R->dc, par) < 0)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the WebM decoder");
    R->dc->thread_count = 1;
    if ((e = av->avcodec_open2(R->dc, codec, NULL)) < 0)
        return poyo_fail(err, POYO_ERR_INPUT, "cannot open the %s decoder: %s", *cname, av_text(av, e, t, sizeof t));
    return POYO_OK;
}

/* Decodes every packet of the video track into rl, each checked for the
 * track's size first, and drains the decoder; *last_duration is the last
 * block's duration in ms (-1 when none says). */
static poyo_status decode_all(reader *R, reel *rl, long long *last_duration, poyo_error *err)
{
    const avlib *av = R->av;
    AVStream *vs = R->fc->streams[R->vi];
    enum AVCodecID id = vs->codecpar->codec_id;
    char t[128];
    poyo_status st = POYO_OK;
    int e;
    while (st == POYO_OK && (e = av->av_read_frame(R->fc, R->pkt)) >= 0) {
        if (R->pkt->stream_index == R->vi) {
            if (R->pkt->duration > 0)
                *last_duration = av->av_rescale_q(R->pkt->duration, vs->time_base, (AVRational){ 1, 1000 });
            if (!packet_sizes_ok(av, id, R->pkt, rl->width, rl->height))
                st = poyo_fail(err, POYO_ERR_INPUT, "WebM frame %d is corrupt or not %dx%d as its track declares",
                               rl->count + 1, rl->width, rl->height);
            else
                st = decode_send(R->dc, R->pkt, R->f, vs->time_base, rl, err);
        }
        av->av_packet_unref(R->pkt);
    }
    if (st == POYO_OK && e < 0 && e != AVERROR_EOF)
        st = poyo_fail(err, POYO_ERR_INPUT, "WebM is corrupt or truncated: %s", av_text(av, e, t, sizeof t));
    if (st == POYO_OK)
        st = decode_send(R->dc, NULL, R->f, vs->time_base, rl, err);
    if (st == POYO_OK && rl->count == 0)
        st = poyo_fail(err, POYO_ERR_INPUT, "WebM has no frames (truncated?)");
    return st;
}

/* Frees what open_demuxer and open_decoder made. */
static void close_reader(reader *R)
{
    const avlib *av = R->av;
    av->av_dict_free(&R->opts);
    av->avcodec_free_context(&R->dc);
    if (R->fc)
        av->avformat_close_input(&R->fc);
    if (R->io) {
        av->av_freep(&R->io->buffer);
        av->avio_context_free(&R->io);
    }
    av->av_packet_free(&R->pkt);
    av->av_frame_free(&R->f);
}

/* Each frame's delay in ms into delay, and their sum: a frame lasts until the
 * next one; the last one until the segment's declared end (end_ms, -1 when
 * none), else as its block says, else as the track's rate, else as long as
 * the frame before it. */
static long long frame_delays(const reel *rl, long long end_ms, long long last_duration, double rate, int *delay)
{
    long long sum = 0;
    for (int i = 0; i < rl->count; i++) {
        long long d;
        if (i + 1 < rl->count && rl->pts[i] >= 0 && rl->pts[i + 1] >= 0)
            d = rl->pts[i + 1] - rl->pts[i];
        else if (i + 1 == rl->count && rl->pts[i] >= 0 && end_ms > rl->pts[i])
            d = end_ms - rl->pts[i];
        else if (last_duration > 0)
            d = last_duration;
        else if (rate > 0.0)
            d = (long long)(1000.0 / rate + 0.5);
        else
            d = i > 0 ? delay[i - 1] : 0;
        delay[i] = d < 0 ? 0 : d > INT_MAX / 2 ? INT_MAX / 2 : (int)d;
        sum += delay[i];
    }
    return sum;
}

/* Moves rl's frames into out (made by anim_init), each held its delay in ms,
 * at least 1. */
static poyo_status take_frames(reel *rl, const int *delay, anim *out, poyo_error *err)
{
    free(out->rgba);
    free(out->hold);
    out->rgba = rl->rgba;
    rl->rgba = NULL;
    out->hold = malloc((size_t)rl->count * sizeof *out->hold);
    if (!out->hold) {
        anim_free(out);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the WebM delays");
    }
    out->count = rl->count;
    out->loop = 0;
    for (int i = 0; i < rl->count; i++)
        out->hold[i] = delay[i] > 0 ? delay[i] : 1;
    return POYO_OK;
}

poyo_status webm_read(const uint8_t *data, size_t len, size_t max_pixels, size_t max_bytes, anim *out,
                      webm_info *info, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    if (info)
        memset(info, 0, sizeof *info);
    poyo_status st = check_file(data, len, err);
    if (st != POYO_OK)
        return st;
    const avlib *av = avload(err);
    if (!av)
        return POYO_ERR_IO;
    reader R;
    memset(&R, 0, sizeof R);
    R.av = av;
    R.src = (source){ data, len, 0 };
    R.vi = -1;
    reel rl;
    memset(&rl, 0, sizeof rl);
    rl.av = av;
    rl.max_bytes = max_bytes;
    int *delay = NULL;
    const char *cname = NULL;
    int alpha = 0;
    long long last_duration = -1;
    st = open_demuxer(&R, err);
    if (st == POYO_OK)
        st = open_decoder(&R, &rl, max_pixels, &cname, &alpha, err);
    if (st == POYO_OK)
        st = decode_all(&R, &rl, &last_duration, err);
    if (st != POYO_OK)
        goto done;
    AVStream *vs = R.fc->streams[R.vi];
    long long end_ms = R.fc->duration != AV_NOPTS_VALUE && R.fc->duration > 0
                         ? (long long)av->av_rescale(R.fc->duration, 1000, AV_TIME_BASE) : -1;
    delay = malloc((size_t)rl.count * sizeof *delay);
    if (!delay || anim_init(out, rl.width, rl.height, 1, 1000.0, err) != POYO_OK) {
        st = delay ? POYO_ERR_NOMEM : poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the WebM delays");
        goto done;
    }
    double rate = vs->avg_frame_rate.num > 0 && vs->avg_frame_rate.den > 0 ? av_q2d(vs->avg_frame_rate) : 0.0;
    long long sum = frame_delays(&rl, end_ms, last_duration, rate, delay);
    st = take_frames(&rl, delay, out, err);
    if (st == POYO_OK && info) {
        snprintf(info->codec, sizeof info->codec, "%s", cname);
        info->width = rl.width;
        info->height = rl.height;
        info->frames = rl.count;
        info->delay_ms = delay;
        delay = NULL;
        info->duration_ms = sum;
        info->fps = rate;
        info->alpha = alpha;
        info->video_tracks = R.vt;
        info->audio_tracks = R.at;
        info->other_tracks = R.ot;
    }
done:
    close_reader(&R);
    free(rl.rgba);
    free(rl.pts);
    free(delay);
    return st;
}
