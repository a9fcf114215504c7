/* animread.h - reads a GIF, APNG, still PNG, (animated) WebP or WebM video from
 * memory into an anim of fully composited frames, plus the facts a validator checks. */
#ifndef POYO_ANIMREAD_H
#define POYO_ANIMREAD_H

#include <stddef.h>
#include <stdint.h>

#include "anim.h"
#include "util/error.h"

/* Largest canvas or frame accepted, in pixels (poyo's default --max-pixels). */
#define ANIMREAD_MAX_PIXELS (16u * 1024u * 1024u)
/* Most frames a file may hold: each costs work however small it is, and poyo
 * itself writes at most 6000 (100 fps for 60 s). */
#define ANIMREAD_MAX_FRAMES 10000

typedef struct anim_meta {
    char format[8];        /* "gif", "apng", "png", "webp" or "webm" */
    char codec[16];        /* WebM: the video codec ("vp9", "vp8", ...); otherwise the format */
    int width, height;     /* canvas in pixels */
    int frames;            /* frames in the file */
    int *delay_ms;         /* frames entries, as stored (GIF: centiseconds x 10, 0 kept); owned */
    int loop;              /* GIF: NETSCAPE2.0/ANIMEXTS1.0 count, -1 without the block;
                              APNG num_plays; WebP loop_count; still PNG -1; WebM 0
                              (a video has no count: players loop stickers). 0 = forever */
    int semi_transparent;  /* 1 when some composited pixel has 0 < alpha < 255 */
    int palette_size;      /* entries of the largest colour table (GIF, paletted PNG), else 0 */
    int alpha;             /* 1 when the file can carry transparency: WebM with an alpha
                              plane (AlphaMode 1); GIF, PNG and WebP always */
    int audio_tracks;      /* WebM: audio tracks in the file; otherwise 0 */
    double fps;            /* WebM: the video track's declared frame rate (0 none); otherwise 0 */
    size_t file_bytes;     /* size of the input */
} anim_meta;

/* Decodes len bytes at data. On success *out holds the composited canvas after
 * each frame (straight alpha), fps 1000 and hold[i] = max(1, delay_ms[i]);
 * out->loop is the number of plays (0 forever, GIF without loop block 1, GIF
 * count N > 0 gives N + 1). Free with anim_free and anim_meta_free. meta may be
 * NULL. On failure both are left empty and err says why (POYO_ERR_INPUT for
 * corrupt, truncated, unsupported or oversized files). The composited frames
 * and the two canvases they are made on stay within the memory bound
 * (memlimit.h), checked from the declared canvas and frame count before the
 * frames are allocated, and there are at most ANIMREAD_MAX_FRAMES of them; the frames' own pixels (decoding work) are held to a
 * quarter of it in pixels. */
poyo_status anim_read(const uint8_t *data, size_t len, anim *out, anim_meta *meta, poyo_error *err);
/* Frees meta's delays; a no-op on NULL or a zeroed meta. */
void anim_meta_free(anim_meta *meta);

#endif
