/* mkwebm.c - WebM files poyo would never write, for the tests of check:
 *   mkwebm audio IN OUT        IN's video plus an Opus audio track (silent
 *                              packets; only the track matters to check)
 *   mkwebm vp8 OUT W H N       N grey frames of W x H in VP8, 10 fps */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>

static int fail(const char *what)
{
    fprintf(stderr, "mkwebm: %s\n", what);
    return 1;
}

static AVFormatContext *open_out(const char *path)
{
    AVFormatContext *oc = NULL;
    if (avformat_alloc_output_context2(&oc, NULL, "webm", path) < 0 || !oc)
        return NULL;
    if (avio_open(&oc->pb, path, AVIO_FLAG_WRITE) < 0) {
        avformat_free_context(oc);
        return NULL;
    }
    oc->flags |= AVFMT_FLAG_BITEXACT;
    return oc;
}

static void close_out(AVFormatContext *oc)
{
    avio_closep(&oc->pb);
    avformat_free_context(oc);
}

static int with_audio(const char *in, const char *out)
{
    AVFormatContext *ic = NULL;
    if (avformat_open_input(&ic, in, NULL, NULL) < 0 || avformat_find_stream_info(ic, NULL) < 0)
        return fail("cannot read the input");
    AVFormatContext *oc = open_out(out);
    if (!oc)
        return fail("cannot create the output");
    AVStream *vs = avformat_new_stream(oc, NULL), *as = avformat_new_stream(oc, NULL);
    avcodec_parameters_copy(vs->codecpar, ic->streams[0]->codecpar);
    vs->codecpar->codec_tag = 0;
    vs->time_base = ic->streams[0]->time_base;
    av_dict_copy(&vs->metadata, ic->streams[0]->metadata, 0);
    /* an Opus header (RFC 7845, 5.1): version 1, 1 channel, no pre-skip, 48 kHz */
    static const uint8_t head[19] = { 'O', 'p', 'u', 's', 'H', 'e', 'a', 'd', 1, 1, 0, 0, 0x80, 0xbb, 0, 0, 0, 0, 0 };
    as->codecpar->codec_type = AVMEDIA_TYPE_AUDIO;
    as->codecpar->codec_id = AV_CODEC_ID_OPUS;
    as->codecpar->sample_rate = 48000;
    av_channel_layout_default(&as->codecpar->ch_layout, 1);
    as->codecpar->extradata = av_mallocz(sizeof head + AV_INPUT_BUFFER_PADDING_SIZE);
    memcpy(as->codecpar->extradata, head, sizeof head);
    as->codecpar->extradata_size = sizeof head;
    as->time_base = (AVRational){ 1, 1000 };
    if (avformat_write_header(oc, NULL) < 0)
        return fail("cannot write the header");
    AVPacket *pkt = av_packet_alloc();
    int64_t t = 0;
    while (av_read_frame(ic, pkt) >= 0) {
        if (pkt->stream_index == 0) {
            av_packet_rescale_ts(pkt, ic->streams[0]->time_base, vs->time_base);
            pkt->stream_index = 0;
            av_interleaved_write_frame(oc, pkt);
        }
        av_packet_unref(pkt);
        /* a 20 ms silent Opus frame (TOC byte 0xf8: CELT, 20 ms, mono, one frame) every 20 ms */
        for (; t < 1000; t += 20) {
            AVPacket *ap = av_packet_alloc();
            av_new_packet(ap, 3);
            ap->data[0] = 0xf8;
            ap->data[1] = 0xff;
            ap->data[2] = 0xfe;
            ap->pts = ap->dts = t;
            ap->duration = 20;
            ap->stream_index = 1;
            av_interleaved_write_frame(oc, ap);
            av_packet_free(&ap);
        }
    }
    av_write_trailer(oc);
    av_packet_free(&pkt);
    close_out(oc);
    avformat_close_input(&ic);
    return 0;
}

static int vp8(const char *out, int w, int h, int n)
{
    const AVCodec *codec = avcodec_find_encoder_by_name("libvpx");
    if (!codec)
        return fail("no libvpx encoder");
    AVCodecContext *cc = avcodec_alloc_context3(codec);
    cc->width = w;
    cc->height = h;
    cc->pix_fmt = AV_PIX_FMT_YUV420P;
    cc->time_base = (AVRational){ 1, 10 };
    cc->framerate = (AVRational){ 10, 1 };
    cc->bit_rate = 100000;
    cc->thread_count = 1;
    if (avcodec_open2(cc, codec, NULL) < 0)
        return fail("cannot open the VP8 encoder");
    AVFormatContext *oc = open_out(out);
    if (!oc)
        return fail("cannot create the output");
    AVStream *st = avformat_new_stream(oc, NULL);
    avcodec_parameters_from_context(st->codecpar, cc);
    st->time_base = cc->time_base;
    if (avformat_write_header(oc, NULL) < 0)
        return fail("cannot write the header");
    AVFrame *f = av_frame_alloc();
    f->format = cc->pix_fmt;
    f->width = w;
    f->height = h;
    av_frame_get_buffer(f, 0);
    AVPacket *pkt = av_packet_alloc();
    for (int i = 0; i <= n; i++) {
        if (i < n) {
            av_frame_make_writable(f);
            for (int p = 0; p < 3; p++)
                memset(f->data[p], p ? 128 : 60 + 10 * i, (size_t)f->linesize[p] * (p ? (h + 1) / 2 : h));
            f->pts = i;
        }
        avcodec_send_frame(cc, i < n ? f : NULL);
        while (avcodec_receive_packet(cc, pkt) == 0) {
            av_packet_rescale_ts(pkt, cc->time_base, st->time_base);
            pkt->stream_index = 0;
            av_interleaved_write_frame(oc, pkt);
        }
    }
    av_write_trailer(oc);
    av_packet_free(&pkt);
    av_frame_free(&f);
    avcodec_free_context(&cc);
    close_out(oc);
    return 0;
}

int main(int argc, char **argv)
{
    av_log_set_level(AV_LOG_ERROR);
    if (argc == 4 && strcmp(argv[1], "audio") == 0)
        return with_audio(argv[2], argv[3]);
    if (argc == 6 && strcmp(argv[1], "vp8") == 0)
        return vp8(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    fprintf(stderr, "usage: mkwebm audio IN OUT | vp8 OUT W H N\n");
    return 2;
}
