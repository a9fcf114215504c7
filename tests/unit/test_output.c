/* test_output.c - writing outputs: the input named in output_def is never
 * overwritten by an animation, a frame folder or a sprite sheet, even with
 * force; a failed frame folder leaves no frames behind. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/output.h"

static char dir[64];

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

static void setup(void)
{
    snprintf(dir, sizeof dir, "%s/poyo-output.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        dir[0] = '\0';
}

static void test_all(void)
{
    setup();
    ENSURE(dir[0]);
    test_input_never_overwritten();
    test_failed_frames_removed();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ENSURE(system(cmd) == 0);
}

const struct test_case test_cases[] = {
    { "input_never_overwritten_and_partial_frames_removed", test_all },
    { NULL, NULL },
};
