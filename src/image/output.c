/* output.c - format dispatch and writing: GIF, APNG, WebP, WebM into memory, then
 * one atomic write; PNG frame folders; sprite sheets with a JSON index in the
 * array form game engines and CSS sprite tools read. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gif.h"
#include "image.h"
#include "webm.h"
#include "util/fileio.h"

output_def output_default_def(void)
{
    output_def d;
    d.format = FORMAT_AUTO;
    d.quant = quantize_default_def();
    d.apng = apng_default_def();
    d.webp = webp_default_def();
    d.webm = webm_default_def();
    d.force = 0;
    d.input = NULL;
    d.mode = 0644;
    d.tmp = NULL;
    d.tmp_cap = 0;
    return d;
}

void output_set_threads(output_def *d, int threads)
{
    d->quant.threads = threads;
    d->webp.threads = threads;
    d->apng.threads = threads;
}

out_format output_format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return FORMAT_AUTO;
    if (strcasecmp(dot, ".gif") == 0)
        return FORMAT_GIF;
    if (strcasecmp(dot, ".png") == 0 || strcasecmp(dot, ".apng") == 0)
        return FORMAT_APNG;
    if (strcasecmp(dot, ".webp") == 0)
        return FORMAT_WEBP;
    if (strcasecmp(dot, ".webm") == 0)
        return FORMAT_WEBM;
    return FORMAT_AUTO;
}

const char *output_format_name(out_format f)
{
    return f == FORMAT_APNG ? "apng" : f == FORMAT_WEBP ? "webp" : f == FORMAT_WEBM ? "webm" : "gif";
}

const char *output_extension(out_format f)
{
    return f == FORMAT_APNG ? ".png" : f == FORMAT_WEBP ? ".webp" : f == FORMAT_WEBM ? ".webm" : ".gif";
}

int output_format_lookup(const char *name)
{
    if (strcmp(name, "gif") == 0)
        return FORMAT_GIF;
    if (strcmp(name, "apng") == 0 || strcmp(name, "png") == 0)
        return FORMAT_APNG;
    if (strcmp(name, "webp") == 0)
        return FORMAT_WEBP;
    if (strcmp(name, "webm") == 0)
        return FORMAT_WEBM;
    return -1;
}

poyo_status output_encode(const anim *a, out_format f, const output_def *def, bytebuf *out, poyo_error *err)
{
    switch (f) {
    case FORMAT_APNG:
        return apng_encode(a, &def->apng, out, err);
    case FORMAT_WEBP:
        return webp_encode(a, &def->webp, out, err);
    case FORMAT_WEBM:
        return webm_encode(a, &def->webm, out, err);
    default:
        return gif_encode(a, &def->quant, out, NULL, err);
    }
}

poyo_status output_write(const anim *a, const char *path, const char *input, const output_def *def, size_t *bytes,
                         poyo_error *err)
{
    out_format f = def->format != FORMAT_AUTO ? def->format : output_format_of(path);
    if (f == FORMAT_AUTO)
        f = FORMAT_GIF;
    bytebuf buf = { NULL, 0, 0 };
    poyo_status st = output_encode(a, f, def, &buf, err);
    if (st == POYO_OK) {
        write_opts wo = { def->force, input ? input : def->input, def->mode };
        st = file_write_atomic(path, buf.data, buf.len, &wo, def->tmp, def->tmp_cap, err);
        if (st == POYO_OK && bytes)
            *bytes = buf.len;
    }
    bytebuf_free(&buf);
    return st;
}

poyo_status output_check(const char *path, const char *input, const output_def *def, poyo_error *err)
{
    write_opts wo = { def->force, input ? input : def->input, def->mode };
    return file_check_target(path, &wo, err);
}

static poyo_status write_png(const uint8_t *rgba, int w, int h, const char *path, const output_def *def,
                             poyo_error *err)
{
    uint8_t *png = NULL;
    size_t len = 0;
    poyo_status st = image_encode_png(rgba, w, h, &png, &len, err);
    if (st != POYO_OK)
        return st;
    write_opts wo = { def->force, def->input, def->mode };
    st = file_write_atomic(path, png, len, &wo, def->tmp, def->tmp_cap, err);
    free(png);
    return st;
}

poyo_status output_write_frames(const anim *a, const char *dir, const output_def *def, poyo_error *err)
{
    if (!*dir)
        return poyo_fail(err, POYO_ERR_USAGE, "the frame directory name is empty");
    int made = mkdir(dir, 0777) == 0;
    if (!made && errno != EEXIST)
        return poyo_fail(err, POYO_ERR_IO, "cannot create the directory: %s", strerror(errno));
    if (!file_is_dir(dir))
        return poyo_fail(err, POYO_ERR_IO, "is not a directory");
    size_t n = strlen(dir) + 32;
    char *path = malloc(n);
    if (!path)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory");
    const char *sep = dir[strlen(dir) - 1] == '/' ? "" : "/";
    poyo_status st = POYO_OK;
    int i;
    for (i = 0; i < a->count && st == POYO_OK; i++) {
        snprintf(path, n, "%s%sframe_%04d.png", dir, sep, i);
        st = write_png(anim_frame(a, i), a->width, a->height, path, def, err);
        if (st != POYO_OK) {
            char msg[sizeof err->msg + 32];
            snprintf(msg, sizeof msg, "frame_%04d.png: %s", i, err->msg);
            snprintf(err->msg, sizeof err->msg, "%.300s", msg);
        }
    }
    if (st != POYO_OK) {
        /* a partial set of frames is worse than none: remove the ones this call wrote */
        for (int k = 0; k < i - 1; k++) {
            snprintf(path, n, "%s%sframe_%04d.png", dir, sep, k);
            unlink(path);
        }
        if (made)
            rmdir(dir);
    } else {
        /* the frames of an earlier, longer clip would play on after this one's */
        for (int k = a->count;; k++) {
            snprintf(path, n, "%s%sframe_%04d.png", dir, sep, k);
            struct stat sb;
            if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || unlink(path) != 0)
                break;
        }
    }
    free(path);
    return st;
}

/* The sheet's index: each frame's rectangle and duration (ms), then the
 * image's name (base, as a JSON string) and size and the clip's timing. */
static poyo_status sheet_json(const anim *a, const int *ms, int cols, const char *base, long long sw, long long sh,
                              bytebuf *js, poyo_error *err)
{
    char line[512];
    int len = snprintf(line, sizeof line, "{\n  \"frames\": [\n");
    poyo_status st = bytebuf_append(js, line, (size_t)len, err);
    for (int i = 0; i < a->count && st == POYO_OK; i++) {
        len = snprintf(line, sizeof line,
                       "    {\"filename\": \"frame_%04d\", \"frame\": {\"x\": %d, \"y\": %d, \"w\": %d, \"h\": %d}, "
                       "\"duration\": %d}%s\n",
                       i, (i % cols) * a->width, (i / cols) * a->height, a->width, a->height, ms[i],
                       i + 1 < a->count ? "," : "");
        st = bytebuf_append(js, line, (size_t)len, err);
    }
    if (st != POYO_OK)
        return st;
    /* the image name is written as a JSON string: escape quotes and backslashes */
    char esc[300];
    size_t e = 0;
    for (const char *c = base; *c && e + 7 < sizeof esc; c++) {
        if (*c == '"' || *c == '\\')
            esc[e++] = '\\';
        if ((unsigned char)*c < 0x20) {
            e += (size_t)snprintf(esc + e, sizeof esc - e, "\\u%04x", (unsigned char)*c);
            continue;
        }
        esc[e++] = *c;
    }
    esc[e] = '\0';
    len = snprintf(line, sizeof line,
                   "  ],\n  \"meta\": {\"image\": \"%s\", \"size\": {\"w\": %lld, \"h\": %lld}, \"frame_count\": %d, "
                   "\"fps\": %g, \"loop\": %d, \"duration_ms\": %d}\n}\n",
                   esc, sw, sh, a->count, a->fps, a->loop, (int)(anim_duration(a) * 1000.0 + 0.5));
    return bytebuf_append(js, line, (size_t)len, err);
}

/* The sheet's PNG at path, then its index at jpath; a sheet whose index
 * cannot be written is removed again. */
static poyo_status write_sheet_files(const uint8_t *sheet, int sw, int sh, const char *path, const char *jpath,
                                     const bytebuf *js, const output_def *def, poyo_error *err)
{
    poyo_status st = write_png(sheet, sw, sh, path, def, err);
    if (st != POYO_OK)
        return st;
    write_opts wo = { def->force, def->input, def->mode };
    st = file_write_atomic(jpath, js->data, js->len, &wo, def->tmp, def->tmp_cap, err);
    if (st != POYO_OK) {
        unlink(path); /* a sheet without its index is not written */
        char msg[sizeof err->msg + 32];
        snprintf(msg, sizeof msg, "%s: %s", strrchr(jpath, '/') ? strrchr(jpath, '/') + 1 : jpath, err->msg);
        snprintf(err->msg, sizeof err->msg, "%.300s", msg);
    }
    return st;
}

poyo_status output_write_sheet(const anim *a, const char *path, const output_def *def, poyo_error *err)
{
    int cols = 1;
    while (cols * cols < a->count)
        cols++;
    int rows = (a->count + cols - 1) / cols;
    long long sw = (long long)cols * a->width, sh = (long long)rows * a->height;
    if (sw > 16384 || sh > 16384)
        return poyo_fail(err, POYO_ERR_USAGE, "a %lldx%lld sprite sheet is too large (16384 pixels per side at most)", sw,
                         sh);
    uint8_t *sheet = calloc((size_t)sw * (size_t)sh, 4);
    int *ms = malloc((size_t)a->count * sizeof *ms);
    bytebuf js = { NULL, 0, 0 };
    char *jpath = NULL;
    poyo_status st = POYO_OK;
    if (!sheet || !ms) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the sprite sheet");
        goto done;
    }
    anim_delays(a, 1000, 1, ms);
    for (int i = 0; i < a->count; i++) {
        int cx = i % cols, cy = i / cols;
        for (int y = 0; y < a->height; y++)
            memcpy(sheet + (((size_t)cy * a->height + y) * (size_t)sw + (size_t)cx * a->width) * 4,
                   anim_frame(a, i) + (size_t)y * a->width * 4, (size_t)a->width * 4);
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if ((st = sheet_json(a, ms, cols, base, sw, sh, &js, err)) != POYO_OK)
        goto done;
    size_t pl = strlen(path);
    jpath = malloc(pl + 6);
    if (!jpath) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory");
        goto done;
    }
    const char *dot = strrchr(path, '.');
    size_t stem = (dot && dot > path + (base - path)) ? (size_t)(dot - path) : pl;
    snprintf(jpath, pl + 6, "%.*s.json", (int)stem, path);
    st = write_sheet_files(sheet, (int)sw, (int)sh, path, jpath, &js, def, err);
done:
    free(sheet);
    free(ms);
    free(jpath);
    bytebuf_free(&js);
    return st;
}
