/* test_output.c - writing outputs: the input named in output_def is never
 * overwritten by an animation, a frame folder or a sprite sheet, even with
 * force; a failed frame folder leaves no frames behind; a sprite sheet holds
 * each frame where its JSON says, with the frame's duration. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

#include "image/output.h"
#include "util/fileio.h"

static const char *dir;

/* A scratch folder per test (test_scratch), in dir. */
static int scratch(void) { return (dir = test_scratch("output")) != NULL; }

static int make_anim(anim *a)
{
    if (anim_init(a, 4, 4, 3, 10.0, NULL) != POYO_OK)
        return 0;
    for (int i = 0; i < 3; i++)
        anim_frame(a, i)[3 + 4 * i] = 255;
    return 1;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    return f && fputs(text, f) >= 0 && fclose(f) == 0;
}

static int has_text(const char *path, const char *text)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

static void test_input_never_overwritten(void)
{
    ENSURE(scratch());
    anim a;
    ENSURE(make_anim(&a));
    char in[128], frames[128], frame0[160];
    snprintf(in, sizeof in, "%s/in.png", dir);
    snprintf(frames, sizeof frames, "%s/frames", dir);
    snprintf(frame0, sizeof frame0, "%s/frame_0000.png", frames);
    ENSURE(write_text(in, "input") && mkdir(frames, 0777) == 0 && write_text(frame0, "input"));
    output_def def = output_default_def();
    def.force = 1;
    def.input = in;
    poyo_error err;
    ENSURE(output_write_sheet(&a, in, &def, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "is the input file; refusing to overwrite it") == 0, "%s", err.msg);
    ENSURE(has_text(in, "input"));
    ENSURE(output_write(&a, in, NULL, &def, NULL, &err) == POYO_ERR_USAGE && has_text(in, "input"));
    def.input = frame0;
    ENSURE(output_write_frames(&a, frames, &def, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "frame_0000.png: is the input file; refusing to overwrite it") == 0, "%s", err.msg);
    ENSURE(has_text(frame0, "input"));
    /* with another input the same calls replace the files */
    def.input = NULL;
    ENSURE_MSG(output_write_frames(&a, frames, &def, &err) == POYO_OK, "%s", err.msg);
    ENSURE(!has_text(frame0, "input"));
    anim_free(&a);
}

static void test_failed_frames_removed(void)
{
    ENSURE(scratch());
    anim a;
    ENSURE(make_anim(&a));
    char frames[128], block[160], f0[160];
    snprintf(frames, sizeof frames, "%s/partial", dir);
    snprintf(block, sizeof block, "%s/frame_0002.png", frames);
    snprintf(f0, sizeof f0, "%s/frame_0000.png", frames);
    ENSURE(mkdir(frames, 0777) == 0 && mkdir(block, 0777) == 0);
    output_def def = output_default_def();
    poyo_error err;
    ENSURE(output_write_frames(&a, frames, &def, &err) == POYO_ERR_IO);
    ENSURE_MSG(strncmp(err.msg, "frame_0002.png: ", 16) == 0, "%s", err.msg);
    ENSURE(access(f0, F_OK) != 0);
    anim_free(&a);
}

/* Five 3x2 frames, each pixel naming its frame, x and y; holds 1 to 3 ticks at 7 fps. */
static int make_numbered(anim *a)
{
    if (anim_init(a, 3, 2, 5, 7.0, NULL) != POYO_OK)
        return 0;
    for (int i = 0; i < 5; i++) {
        for (int p = 0; p < 6; p++) {
            uint8_t *px = anim_frame(a, i) + 4 * p;
            px[0] = (uint8_t)(40 * i + 1);
            px[1] = (uint8_t)(p % 3);
            px[2] = (uint8_t)(p / 3);
            px[3] = (uint8_t)(200 + i);
        }
        a->hold[i] = 1 + i % 3;
    }
    a->loop = 3;
    return 1;
}

static void test_sheet_holds_each_frame_where_its_json_says(void)
{
    ENSURE(scratch());
    anim a;
    ENSURE(make_numbered(&a));
    char png[160], json[160];
    /* a quote, a backslash and a control character in the name: the JSON stays valid */
    snprintf(png, sizeof png, "%s/q\"b\\s\001.png", dir);
    snprintf(json, sizeof json, "%s/q\"b\\s\001.json", dir);
    output_def def = output_default_def();
    poyo_error err;
    ENSURE_MSG(output_write_sheet(&a, png, &def, &err) == POYO_OK, "%s", err.msg);
    uint8_t *data, *js;
    size_t len, jlen;
    ENSURE(file_read_all(png, FILE_MAX_BYTES, &data, &len, &err) == POYO_OK);
    int w, h, c;
    uint8_t *sheet = stbi_load_from_memory(data, (int)len, &w, &h, &c, 4);
    free(data);
    ENSURE(sheet != NULL);
    /* 5 frames: 3 columns, 2 rows */
    ENSURE_MSG(w == 9 && h == 4, "%dx%d", w, h);
    ENSURE(file_read_all(json, FILE_MAX_BYTES, &js, &jlen, &err) == POYO_OK);
    char *text = malloc(jlen + 1);
    ENSURE(text);
    memcpy(text, js, jlen);
    text[jlen] = '\0';
    free(js);
    int ms[5];
    anim_delays(&a, 1000, 1, ms);
    const char *at = text;
    int covered = 0, total_ms = 0;
    for (int i = 0; i < 5; i++) {
        char key[32];
        snprintf(key, sizeof key, "\"filename\": \"frame_%04d\"", i);
        at = strstr(at, key);
        ENSURE_MSG(at, "no %s", key);
        int x, y, fw, fh, d;
        ENSURE(sscanf(strstr(at, "\"frame\""), "\"frame\": {\"x\": %d, \"y\": %d, \"w\": %d, \"h\": %d}, \"duration\": %d",
                      &x, &y, &fw, &fh, &d) == 5);
        ENSURE_MSG(fw == 3 && fh == 2 && d == ms[i], "frame %d: %dx%d, %d ms", i, fw, fh, d);
        for (int yy = 0; yy < 2; yy++)
            for (int xx = 0; xx < 3; xx++)
                ENSURE_MSG(memcmp(sheet + ((size_t)(y + yy) * 9 + (size_t)(x + xx)) * 4,
                                  anim_frame(&a, i) + (yy * 3 + xx) * 4, 4) == 0, "frame %d pixel %d,%d", i, xx, yy);
        covered += fw * fh;
        total_ms += d;
    }
    /* the rest of the sheet is clear */
    int clear = 0;
    for (int p = 0; p < 36; p++)
        clear += sheet[4 * p + 3] == 0;
    ENSURE(clear == 36 - covered);
    char meta[256];
    snprintf(meta, sizeof meta,
             "\"meta\": {\"image\": \"q\\\"b\\\\s\\u0001.png\", \"size\": {\"w\": 9, \"h\": 4}, \"frame_count\": 5, "
             "\"fps\": 7, \"loop\": 3, \"duration_ms\": %d}", total_ms);
    ENSURE_MSG(strstr(text, meta) != NULL, "%s", text);
    ENSURE_NEAR(total_ms, anim_duration(&a) * 1000.0, 0.5);
    stbi_image_free(sheet);
    free(text);
    anim_free(&a);
}

static void test_sheet_and_frame_folder_refusals(void)
{
    ENSURE(scratch());
    anim a;
    output_def def = output_default_def();
    poyo_error err;
    char path[160];
    /* 17 frames of 4000 px: 5 columns make a sheet wider than 16384 */
    ENSURE(anim_init(&a, 4000, 2, 17, 10.0, NULL) == POYO_OK);
    snprintf(path, sizeof path, "%s/wide.png", dir);
    ENSURE(output_write_sheet(&a, path, &def, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "a 20000x8 sprite sheet is too large (16384 pixels per side at most)") == 0, "%s", err.msg);
    ENSURE(access(path, F_OK) != 0);
    anim_free(&a);
    ENSURE(make_anim(&a));
    ENSURE(output_write_frames(&a, "", &def, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "the frame directory name is empty") == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/plain", dir);
    ENSURE(write_text(path, "x"));
    ENSURE(output_write_frames(&a, path, &def, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "is not a directory") == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/missing/frames", dir);
    ENSURE(output_write_frames(&a, path, &def, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "cannot create the directory: No such file or directory") == 0, "%s", err.msg);
    /* a folder named with a trailing slash takes no second one */
    snprintf(path, sizeof path, "%s/slash/", dir);
    ENSURE_MSG(output_write_frames(&a, path, &def, &err) == POYO_OK, "%s", err.msg);
    snprintf(path, sizeof path, "%s/slash/frame_0002.png", dir);
    ENSURE(access(path, F_OK) == 0);
    anim_free(&a);
}

const struct test_case test_cases[] = {
    { "input_never_overwritten", test_input_never_overwritten },
    { "failed_frames_removed", test_failed_frames_removed },
    { "sheet_holds_each_frame_where_its_json_says", test_sheet_holds_each_frame_where_its_json_says },
    { "sheet_and_frame_folder_refusals", test_sheet_and_frame_folder_refusals },
    { NULL, NULL },
};
