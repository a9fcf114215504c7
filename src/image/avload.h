/* avload.h - libavutil, libavcodec and libavformat opened with dlopen the first
 * time a WebM is written or read (webm.c is the only user): a run that never
 * touches a video loads none of them nor the hundred libraries they pull in. */
#ifndef POYO_AVLOAD_H
#define POYO_AVLOAD_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>

#include "util/error.h"

/* Every libav function webm.c calls: X(library, name), the library being
 * UTIL, CODEC or FORMAT (the one whose soname exports it). */
#define AVLOAD_FUNCTIONS(X)                                                                                    \
    X(UTIL, av_log_set_level) X(UTIL, av_strerror) X(UTIL, av_d2q) X(UTIL, av_rescale) X(UTIL, av_rescale_q) \
    X(UTIL, av_opt_set) X(UTIL, av_opt_set_int) X(UTIL, av_malloc) X(UTIL, av_free) X(UTIL, av_freep)         \
    X(UTIL, av_frame_alloc) X(UTIL, av_frame_free) X(UTIL, av_frame_get_buffer)                               \
    X(UTIL, av_frame_make_writable) X(UTIL, av_frame_unref) X(UTIL, av_dict_set) X(UTIL, av_dict_get)         \
    X(UTIL, av_dict_free) X(UTIL, av_get_pix_fmt_name)                                                        \
    X(CODEC, avcodec_find_encoder_by_name) X(CODEC, avcodec_find_decoder_by_name)                             \
    X(CODEC, avcodec_alloc_context3) X(CODEC, avcodec_free_context) X(CODEC, avcodec_open2)                   \
    X(CODEC, avcodec_parameters_from_context) X(CODEC, avcodec_parameters_to_context)                         \
    X(CODEC, avcodec_send_frame) X(CODEC, avcodec_receive_packet) X(CODEC, avcodec_send_packet)               \
    X(CODEC, avcodec_receive_frame) X(CODEC, avcodec_get_name) X(CODEC, av_packet_alloc)                      \
    X(CODEC, av_packet_free) X(CODEC, av_packet_unref) X(CODEC, av_packet_rescale_ts)                         \
    X(CODEC, av_packet_get_side_data)                                                                         \
    X(FORMAT, avformat_alloc_output_context2) X(FORMAT, avformat_alloc_context)                               \
    X(FORMAT, avformat_free_context) X(FORMAT, avformat_new_stream) X(FORMAT, avformat_write_header)           \
    X(FORMAT, av_interleaved_write_frame) X(FORMAT, av_write_trailer) X(FORMAT, av_find_input_format)         \
    X(FORMAT, avformat_open_input) X(FORMAT, avformat_close_input) X(FORMAT, av_read_frame)                   \
    X(FORMAT, avio_alloc_context) X(FORMAT, avio_context_free) X(FORMAT, avio_flush)

/* One pointer per function, typed as its declaration in the headers (a call
 * through the table is checked as a direct call would be). */
typedef struct avlib {
#define AVLOAD_MEMBER(lib, name) __typeof__(name) *name;
    AVLOAD_FUNCTIONS(AVLOAD_MEMBER)
#undef AVLOAD_MEMBER
} avlib;

/* The table, loading the three libraries (by the sonames of the headers' major
 * versions) on the first call; at most once per process, safe from several
 * threads, libav's logging silenced. NULL when a library or a function is
 * missing, with err (POYO_ERR_IO) naming the Debian packages and dlerror's
 * reason; every later call fails the same way. The table lives as long as the
 * process. */
const avlib *avload(poyo_error *err);

#endif
