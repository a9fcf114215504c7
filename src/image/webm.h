/* webm.h - writes an anim as a WebM video (VP9 with an alpha plane, no audio)
 * and reads WebM back, both through libavformat/libavcodec in memory. Those
 * libraries are loaded when first needed: webm_encode and webm_read fail with
 * POYO_ERR_IO, and one sentence naming the missing package, when they cannot be. */
#ifndef POYO_WEBM_H
#define POYO_WEBM_H

#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "util/bytebuf.h"
#include "util/error.h"

typedef struct webm_options {
    int crf;     /* constant quality 0 (best) to 63 (smallest) */
    int speed;   /* libvpx cpu-used 0 (slowest, smallest) to 8 (fastest) */
} webm_options;

/* The default options: the only place their values live. */
webm_options webm_default_def(void);
/* Appends the whole WebM file for a to out (owned by the caller, freed with
 * bytebuf_free); opt NULL means the defaults. One VP9 track in yuva420p
 * (alpha as Matroska BlockAdditional, AlphaMode 1), no alt-ref frames,
 * timestamps in milliseconds from the frames' holds. Canvas at most 16384x16384.
 * A WebM has no loop count: players loop a sticker themselves. */
poyo_status webm_encode(const anim *a, const webm_options *opt, bytebuf *out, poyo_error *err);

/* What a WebM file declares and holds, for `poyo check`. */
typedef struct webm_info {
    char codec[16];        /* the first video track's codec: "vp9", "vp8", "av1", ... */
    int width, height;     /* that track's size, pixels */
    int frames;            /* its frames */
    int *delay_ms;         /* frames entries: each frame's duration, milliseconds; owned */
    long long duration_ms; /* the sum of delay_ms */
    double fps;            /* the track's declared frame rate, 0 when it declares none */
    int alpha;             /* 1: the track declares an alpha plane (AlphaMode 1) */
    int video_tracks;      /* tracks of each kind in the file */
    int audio_tracks;
    int other_tracks;
} webm_info;

/* 1 when data starts with an EBML header (Matroska or WebM). */
int webm_sniff(const uint8_t *data, size_t len);
/* Decodes the first video track of a WebM (or Matroska) file into out:
 * frames of straight RGBA (alpha from the BlockAdditional plane where the
 * track has one, else opaque), fps 1000, hold[i] = max(1, delay_ms[i]),
 * loop 0. Refuses a file that ends before its Segment says (truncated), a
 * codec other than VP8 and VP9, canvases over max_pixels, a frame header
 * (colour or alpha) declaring another size than the track's before it is
 * decoded, and frames totalling over max_bytes of RGBA before holding them. info may be NULL; free it with
 * webm_info_free. On failure out and info are left empty
 * (POYO_ERR_INPUT: corrupt, truncated, unsupported or oversized). */
poyo_status webm_read(const uint8_t *data, size_t len, size_t max_pixels, size_t max_bytes, anim *out,
                      webm_info *info, poyo_error *err);
/* Frees info's delays; a no-op on NULL or a zeroed info. */
void webm_info_free(webm_info *info);

#endif
