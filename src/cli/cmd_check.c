/* cmd_check.c - `poyo check --preset NAME FILE...`: decodes any GIF, APNG, PNG,
 * WebP or WebM and lists every upload rule of a platform it breaks, one line
 * each (or one JSON object per file), so a build can refuse a stamp before a
 * person uploads it. */
#include "cmd.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "preset.h"
#include "image/animread.h"
#include "util/fileio.h"
#include "util/memlimit.h"

/* "slack, discord, ..." into buf. */
static void preset_names(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < preset_count() && used < cap; i++) {
        int k = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", preset_at(i)->name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

static void list_presets(FILE *out)
{
    fprintf(out, "%-15s %-6s %-8s %-4s %-7s %-11s %-6s %-10s %s\n", "PRESET", "WRITES", "SIZE", "FPS", "FRAMES",
            "SECONDS", "PLAYS", "MAX BYTES", "CANVAS RULE (formats taken)");
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        char size[48], frames[48], secs[64], plays[48], canvas[96], takes[96];
        snprintf(size, sizeof size, "%dx%d", p->width, p->height);
        if (p->max_frames > 0)
            snprintf(frames, sizeof frames, "%d-%d", p->min_frames, p->max_frames);
        else if (p->min_frames > 1)
            snprintf(frames, sizeof frames, ">=%d", p->min_frames);
        else
            snprintf(frames, sizeof frames, "any");
        if (p->max_ms > 0 && p->max_total_ms > 0)
            snprintf(secs, sizeof secs, "<=%g, %g all", p->max_ms / 1000.0, p->max_total_ms / 1000.0);
        else if (p->max_ms > 0)
            snprintf(secs, sizeof secs, "<=%g", p->max_ms / 1000.0);
        else
            snprintf(secs, sizeof secs, "any");
        if (p->max_plays > 0)
            snprintf(plays, sizeof plays, "%d-%d", p->min_plays > 1 ? p->min_plays : 1, p->max_plays);
        else
            snprintf(plays, sizeof plays, "any");
        preset_canvas_text(p, canvas, sizeof canvas);
        preset_accepts_text(p->accepts, takes, sizeof takes);
        fprintf(out, "%-15s %-6s %-8s %-4g %-7s %-11s %-6s %-10lld %s (%s)\n", p->name,
                output_format_name(p->format), size, p->fps, frames, secs, plays, p->max_bytes, canvas, takes);
    }
    fprintf(out, "Limits as published, checked %s; KB = 1000 bytes, KiB = 1024. Sources: man poyo, PRESETS.\n",
            preset_count() > 0 ? preset_at(0)->checked : "-");
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: poyo check --preset NAME [OPTIONS] FILE...\n"
            "Check GIF, APNG, PNG, WebP or WebM files (made by poyo or not) against a platform's\n"
            "upload rules. Prints \"FILE: ok (...)\" for a file that passes, else one \"FILE: fail:\n"
            "RULE ...\" line per broken rule (rules: format, codec, audio, size, animated, frames,\n"
            "duration, plays, total, fps, delay, first-frame, bytes). FILE - reads standard input.\n"
            "\n");
    cli_print_options(out, cli_command_find("check"), NULL, NULL);
    fprintf(out,
            "\n"
            "Frame counts and durations are those stored in the file. GIF frames held under\n"
            "20 ms break the delay rule: players show them for 100 ms.\n"
            "Exit status: 0 every file passes, 1 some file breaks a rule or cannot be read,\n"
            "2 usage error.\n");
}

/* "webm (vp9, alpha, no audio)" for a video, else the format, into buf. */
static void kind_text(const anim_meta *m, char *buf, size_t cap)
{
    if (strcmp(m->format, "webm") == 0)
        snprintf(buf, cap, "webm (%s, %s, %s)", m->codec[0] ? m->codec : "unknown", m->alpha ? "alpha" : "no alpha",
                 m->audio_tracks == 0 ? "no audio" : m->audio_tracks == 1 ? "1 audio track" : "audio tracks");
    else
        snprintf(buf, cap, "%s", m->format);
}

/* The file's facts and one verdict per rule, as one JSON line. */
static void print_json(const char *path, const preset_info *p, const anim_meta *m, long long ms,
                       const preset_violation *v, int n)
{
    printf("{\"file\": ");
    cli_json_string(stdout, path);
    printf(", \"preset\": \"%s\", \"ok\": %s, \"format\": \"%s\", \"codec\": ", p->name, n == 0 ? "true" : "false",
           m->format);
    cli_json_string(stdout, m->codec);
    printf(", \"width\": %d, \"height\": %d, \"frames\": %d, \"duration\": %.3f, \"fps\": %.3f, "
           "\"alpha\": %s, \"audio_tracks\": %d, \"plays\": %d, \"bytes\": %zu, \"rules\": [",
           m->width, m->height, m->frames, ms / 1000.0, ms > 0 ? m->frames * 1000.0 / ms : 0.0,
           m->alpha ? "true" : "false", m->audio_tracks, m->loop, m->file_bytes);
    for (int r = 0; r < PRESET_RULE_COUNT; r++) {
        const char *why = NULL;
        for (int i = 0; i < n && i < PRESET_RULE_COUNT; i++)
            if ((int)v[i].rule == r)
                why = v[i].text;
        printf("%s{\"rule\": \"%s\", \"verdict\": \"%s\"", r ? ", " : "", preset_rule_name((preset_rule)r),
               why ? "fail" : preset_rule_applies(p, (preset_rule)r) ? "pass" : "none");
        if (why) {
            printf(", \"why\": ");
            cli_json_string(stdout, why);
        }
        printf("}");
    }
    printf("]}\n");
}

/* Checks one file; returns 0 when it passes, 1 otherwise (lines printed). */
static int check_one(const char *path, const preset_info *p, int quiet, int json)
{
    poyo_error err;
    uint8_t *data = NULL;
    size_t len = 0;
    anim a;
    anim_meta meta;
    memset(&a, 0, sizeof a);
    memset(&meta, 0, sizeof meta);
    preset_violation v[PRESET_RULE_COUNT];
    int n = 0, rc = 1;
    if (file_read_all(path, FILE_MAX_BYTES, &data, &len, &err) != POYO_OK ||
        anim_read(data, len, &a, &meta, &err) != POYO_OK ||
        preset_check(p, &a, &meta, v, PRESET_RULE_COUNT, &n, &err) != POYO_OK) {
        cli_error(path, "%s", err.msg);
        if (json) {
            printf("{\"file\": ");
            cli_json_string(stdout, path);
            printf(", \"preset\": \"%s\", \"ok\": false, \"error\": ", p->name);
            cli_json_string(stdout, err.msg);
            printf("}\n");
        }
        goto done;
    }
    long long ms = 0;
    for (int i = 0; i < meta.frames; i++)
        ms += meta.delay_ms[i] > 0 ? meta.delay_ms[i] : 0;
    if (json) {
        print_json(path, p, &meta, ms, v, n);
        rc = n != 0;
    } else if (n == 0) {
        if (!quiet) {
            char kind[64];
            kind_text(&meta, kind, sizeof kind);
            printf("%s: ok (preset %s: %s, %dx%d, %d frame%s, %.2f s, %zu bytes)\n", path, p->name, kind, meta.width,
                   meta.height, meta.frames, meta.frames == 1 ? "" : "s", ms / 1000.0, meta.file_bytes);
        }
        rc = 0;
    } else {
        for (int i = 0; i < n && i < PRESET_RULE_COUNT; i++)
            printf("%s: fail: %s\n", path, v[i].text);
    }
done:
    fflush(stdout);
    free(data);
    anim_free(&a);
    anim_meta_free(&meta);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    const char **files = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *files);
    if (!files) {
        cli_error(NULL, "out of memory");
        return 1;
    }
    int nfiles = 0, quiet = 0, json = 0, ok = 1, id, stdin_used = 0;
    long long max_memory = MEMLIMIT_DEFAULT_MEMORY;
    const preset_info *p = NULL;
    char names[256];
    preset_names(names, sizeof names);
    cli_parser cp;
    cli_init(&cp, argc, argv, cli_command_find("check"));
    const char *operand;
    while (ok && (id = cli_next(&cp, &operand)) != -1) {
        switch (id) {
        case -2: ok = 0; break;
        case 0:
            if (strcmp(operand, "-") == 0 && stdin_used++) {
                cli_error("-", "standard input can be read only once");
                ok = 0;
            }
            files[nfiles++] = operand;
            break;
        case OPT_PRESET:
            p = preset_lookup(cp.value);
            if (!p) {
                cli_error(cp.name, "unknown preset '%s' (one of %s)", cp.value, names);
                ok = 0;
            }
            break;
        case OPT_LIST_PRESETS: list_presets(stdout); free(files); return 0;
        case OPT_QUIET: quiet = 1; break;
        case OPT_JSON: json = 1; break;
        case OPT_HELP: usage(stdout); free(files); return 0;
        case OPT_MAXMEM: max_memory = cp.bytes; break;
        default: ok = 0; break;
        }
    }
    if (ok && !p) {
        cli_error(NULL, "check needs --preset NAME (one of %s)", names);
        ok = 0;
    }
    if (ok && nfiles == 0) {
        cli_error(NULL, "no file to check (usage: poyo check --preset NAME FILE...; see poyo check --help)");
        ok = 0;
    }
    if (!ok) {
        free(files);
        return 2;
    }
    memlimit_set(max_memory);
    int failed = 0;
    for (int i = 0; i < nfiles; i++)
        failed += check_one(files[i], p, quiet, json);
    free(files);
    return failed ? 1 : 0;
}
