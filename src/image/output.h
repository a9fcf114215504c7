/* output.h - encodes an anim in the format the user asked for (by --format or
 * the output's extension) and writes it atomically; also PNG frame folders
 * and sprite sheets with their JSON. */
#ifndef POYO_OUTPUT_H
#define POYO_OUTPUT_H

#include <sys/types.h>

#include "anim.h"
#include "apng.h"
#include "quantize.h"
#include "webm.h"
#include "webp.h"
#include "util/bytebuf.h"
#include "util/error.h"

typedef enum out_format { FORMAT_AUTO = 0, FORMAT_GIF, FORMAT_APNG, FORMAT_WEBP, FORMAT_WEBM } out_format;

typedef struct output_def {
    out_format format;     /* FORMAT_AUTO: from the extension, GIF when it says nothing */
    quantize_def quant;    /* GIF palette settings */
    apng_options apng;
    webp_options webp;
    webm_options webm;     /* VP9 settings */
    int force;             /* replace existing regular files */
    const char *input;     /* never overwrite this file, for frames and sheets too (NULL: none) */
    mode_t mode;           /* permissions of new files */
    char *tmp;             /* register for the name of the temporary file being written (or NULL) */
    size_t tmp_cap;        /* its size in bytes */
} output_def;

/* The defaults, the only place they live (mode 0644). */
output_def output_default_def(void);
/* Sets the threads each encoder that runs on several (GIF, WebP) may take. */
void output_set_threads(output_def *d, int threads);
/* The format a file name asks for (".gif", ".png", ".apng", ".webp", ".webm"), else FORMAT_AUTO. */
out_format output_format_of(const char *path);
/* "gif", "apng", "webp" or "webm". */
const char *output_format_name(out_format f);
/* The file extension of a format, with the dot. */
const char *output_extension(out_format f);
/* The format named on the command line, or -1. */
int output_format_lookup(const char *name);

/* Encodes a as format f into out (appended). */
poyo_status output_encode(const anim *a, out_format f, const output_def *def, bytebuf *out, poyo_error *err);
/* Encodes and writes a to path (format from def or the name); *bytes gets the size.
 * input (may be NULL) is never overwritten. */
poyo_status output_write(const anim *a, const char *path, const char *input, const output_def *def, size_t *bytes,
                         poyo_error *err);
/* Refuses, before any work, a path output_write would refuse to write over (an
 * existing file without force, a link, a FIFO or device, input itself). */
poyo_status output_check(const char *path, const char *input, const output_def *def, poyo_error *err);
/* Writes every frame as DIR/frame_NNNN.png, creating DIR when missing; on
 * failure the frames written so far (and DIR, when made here) are removed. */
poyo_status output_write_frames(const anim *a, const char *dir, const output_def *def, poyo_error *err);
/* Writes all frames on one PNG sprite sheet plus a JSON file beside it (same
 * name, .json) with each frame's rectangle and duration in milliseconds; when
 * the JSON cannot be written the sheet is removed again. */
poyo_status output_write_sheet(const anim *a, const char *path, const output_def *def, poyo_error *err);

#endif
