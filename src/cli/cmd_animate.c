/* cmd_animate.c - `poyo [animate] [OPTIONS] INPUT...`: parses options into the
 * modules' definition structs, then for each input reads, simulates, renders,
 * encodes and writes the output atomically. */
#include "cmd.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "budget.h"
#include "cli.h"
#include "preset.h"
#include "image/image.h"
#include "image/memclip.h"
#include "image/output.h"
#include "image/text.h"
#include "sim/animate.h"
#include "sim/stagger.h"
#include "util/bytebuf.h"
#include "util/fileio.h"
#include "util/memlimit.h"
#include "util/workers.h"

static const char *anchor_name(anchor_kind a)
{
    return a == ANCHOR_BOTTOM ? "bottom" : a == ANCHOR_TOP ? "top" : "none";
}

void cmd_list_impulses(FILE *out)
{
    fprintf(out, "%-8s %-9s %-6s %-10s %-7s %-6s  %s\n", "IMPULSE", "STRENGTH", "MAX", "--at", "--angle", "--rate",
            "WHAT IT DOES (strength unit; default anchor)");
    for (int k = 0; k < IMPULSE_COUNT; k++) {
        const impulse_info *in = impulse_get_info((impulse_kind)k);
        char at[32] = "-", angle[16] = "-", rate[16] = "-";
        if (in->uses_at)
            snprintf(at, sizeof at, "%g,%g", in->at.x, in->at.y);
        if (in->uses_angle)
            snprintf(angle, sizeof angle, isnan(in->angle) ? "inward" : "%g", in->angle);
        if (in->periodic)
            snprintf(rate, sizeof rate, "%g", in->rate);
        fprintf(out, "%-8s %-9g %-6g %-10s %-7s %-6s  %s (%s%s; anchor %s%s)\n", in->name, in->strength,
                in->strength_max, at, angle, rate, in->summary, in->strength_unit,
                in->wide_grows > 0.0 ? ", its default more on a wide stamp" : "", anchor_name(in->anchor),
                in->has_floor ? ", floor" : "");
    }
}

static void usage(FILE *out)
{
    fputs("Usage: poyo [animate] [OPTIONS] INPUT...\n"
          "Make a stamp jiggle as a soft body and write a looping animated GIF.\n"
          "INPUT is a PNG, JPEG, WebP, GIF (an animation's first frame) or SVG file (drawn at the\n"
          "size it is shown), - for standard input, or a directory (its *.png, *.jpg, *.jpeg,\n"
          "*.webp, *.gif and *.svg). Without -o, STEM.gif is written beside each input\n"
          "(standard output for standard input); an APNG, or an output with its input's\n"
          "extension, is STEM.PRESET.EXT or STEM.poyo.EXT (stamp.line.png), never the input.\n"
          "\n",
          out);
    cli_print_options(out, cli_command_find("animate"), NULL, NULL);
    fputs("poyo --version prints the version; poyo --completion bash|zsh|fish a completion script.\n"
          "Exit status: 0 success, 1 some input failed, 2 usage error.\n",
          out);
}

static void text_usage(FILE *out)
{
    fputs("Usage: poyo text [OPTIONS] TEXT...\n"
          "Draw TEXT (the words joined by spaces) as a stamp and make it jiggle like poyo animate does.\n"
          "Lines break at newlines and at the two characters \\n. Without -o, the output is named\n"
          "after the text (TEXT.gif, its letters and digits kept, the rest as _).\n"
          "\n",
          out);
    cli_print_options(out, cli_command_find("text"), NULL, NULL);
    fputs("Exit status: 0 success, 1 failure, 2 usage error (bad text, no such font).\n", out);
}

typedef struct run_opts {
    text_def text;              /* poyo text: the letters */
    image text_im;              /* poyo text: the text drawn (w = 0 for poyo animate) */
    int per_glyph;              /* poyo text --per-glyph */
    image *glyphs;              /* with it: each glyph alone (nglyphs images the size of text_im) */
    int nglyphs;
    animate_def anim;
    output_def out;
    const char *output;
    const char *frames_dir, *sheet;
    int quiet, verbose;
    long long max_pixels;
    long long max_memory;       /* --max-memory, bytes */
    long long max_bytes;        /* 0 = no budget */
    int workers;                /* -j */
    int recursive;              /* -r */
    int json;                   /* --json */
    int skip_existing;          /* --skip-existing */
    const preset_info *preset;  /* or NULL */
    int loop_set;               /* --loop given: the preset does not choose plays */
} run_opts;

/* The clip drawn again at a smaller scale, for the byte budget search. */
typedef struct rerender {
    const image *im;
    const motion *m;
    const stagger *sg;          /* glyphs as bodies of their own, or NULL */
    const animate_def *def;
} rerender;

static poyo_status rerender_scaled(void *user, double scale, anim *out, poyo_error *err)
{
    const rerender *r = user;
    animate_def d = *r->def;
    int w = d.width ? d.width : r->im->w, h = d.height ? d.height : r->im->h;
    d.width = (int)(w * scale + 0.5);
    d.height = (int)(h * scale + 0.5);
    if (d.width < 1) d.width = 1;
    if (d.height < 1) d.height = 1;
    return r->sg ? stagger_render(r->sg, &d, out, err) : animate_render(r->im, r->m, &d, out, err);
}

/* Output path for an input: -o as given, DIR/NAME, or NAME beside the input,
 * NAME being cli_output_stem's (tag: the preset's name or "poyo"). An input
 * found in a directory input (root_len > 0: the length of that directory's
 * name) keeps its place below it: DIR/SUB/NAME. */
static char *output_for(const char *input, size_t root_len, const char *output, int many, const char *ext,
                        const char *tag)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    char *out;
    if (output && !many && !(strlen(output) && output[strlen(output) - 1] == '/') && !file_is_dir(output)) {
        out = strdup(output);
    } else if (output) {
        size_t dl = strlen(output);
        int slash = dl && output[dl - 1] == '/';
        const char *sub = input + root_len;
        while (root_len && *sub == '/')
            sub++;
        size_t sublen = root_len && base > sub ? (size_t)(base - sub) : 0;
        size_t name = cli_output_stem(input, ext, tag, NULL, 0);
        size_t need = dl + 1 + sublen + name + 1;
        out = malloc(need);
        if (out) {
            int k = snprintf(out, need, "%s%s%.*s", output, slash ? "" : "/", (int)sublen, sub);
            cli_output_stem(input, ext, tag, out + k, need - (size_t)k);
        }
    } else {
        out = cli_output_beside(input, ext, tag);
    }
    return out;
}

/* A format as a sentence names it. */
static const char *format_label(out_format f)
{
    return f == FORMAT_APNG ? "APNG" : f == FORMAT_WEBP ? "WebP" : f == FORMAT_WEBM ? "WebM" : "GIF";
}

/* The extension of path's last name, with its dot, or NULL when it has none. */
static const char *name_extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : NULL;
}

/* 1 when ext (with its dot) names an image or video format poyo does not write. */
static int foreign_extension(const char *ext)
{
    static const char *const names[] = { ".jpg",  ".jpeg", ".jpe", ".jfif", ".bmp", ".tif", ".tiff", ".ico",
                                         ".svg",  ".heic", ".heif", ".avif", ".jxl", ".psd", ".mp4",  ".m4v",
                                         ".mov",  ".mkv",  ".avi", ".ogv",  ".mpg", ".mpeg", ".wmv", ".flv" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(ext, names[i]) == 0)
            return 1;
    return 0;
}

/* path with its extension replaced by f's, into buf. */
static void with_extension(const char *path, out_format f, char *buf, size_t cap)
{
    const char *dot = name_extension(path);
    size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    snprintf(buf, cap, "%.*s%s", (int)(stem < 200 ? stem : 200), path, output_extension(f));
}

/* The format to write, from --format (format_set), the name -o gives (file:
 * 1 when -o names one file) and the preset, into o->out.format: the name's
 * extension when it is one of poyo's formats, else --format, else the
 * preset's, else GIF. An extension of another image or video format (.jpg,
 * .mp4), or one that contradicts --format or the preset, is a usage error:
 * one line saying what would work, and 0. */
static int choose_format(run_opts *o, int format_set, int file)
{
    const preset_info *p = o->preset;
    out_format named = FORMAT_AUTO;
    const char *dot = file ? name_extension(o->output) : NULL;
    char fix[256];
    if (dot) {
        named = output_format_of(o->output);
        if (named == FORMAT_AUTO && foreign_extension(dot)) {
            if (format_set || p) {
                with_extension(o->output, o->out.format, fix, sizeof fix);
                cli_error(o->output, "poyo cannot write %s files; use -o %s", dot, fix);
            } else {
                cli_error(o->output, "poyo cannot write %s files; name it .gif, .png (APNG), .webp or .webm", dot);
            }
            return 0;
        }
        if (format_set && named != FORMAT_AUTO && named != o->out.format) {
            with_extension(o->output, o->out.format, fix, sizeof fix);
            cli_error(o->output, "%s names a %s file but --format asks for %s; use -o %s or leave out --format", dot,
                      format_label(named), format_label(o->out.format), fix);
            return 0;
        }
    }
    out_format f = named != FORMAT_AUTO ? named : o->out.format != FORMAT_AUTO ? o->out.format : FORMAT_GIF;
    if (p) {
        unsigned bit = f == FORMAT_GIF    ? PRESET_ACCEPT_GIF
                       : f == FORMAT_APNG ? PRESET_ACCEPT_APNG
                       : f == FORMAT_WEBP ? PRESET_ACCEPT_WEBP
                                          : PRESET_ACCEPT_WEBM;
        if (!(p->accepts & bit)) {
            char takes[96];
            preset_accepts_text(p->accepts & ~(unsigned)PRESET_ACCEPT_PNG, takes, sizeof takes);
            if (named != FORMAT_AUTO) {
                with_extension(o->output, p->format, fix, sizeof fix);
                cli_error(o->output, "%s takes %s, not %s; use -o %s", p->label, takes, format_label(f), fix);
            } else {
                cli_error("--format", "%s takes %s, not %s; use --format %s or leave it out", p->label, takes,
                          format_label(f), output_format_name(p->format));
            }
            return 0;
        }
    }
    o->out.format = f;
    return 1;
}

/* With a preset: refuses, before any work, options that would make a file the
 * platform does not take (the rule and the option in one line); 0 then. */
static int preset_allows(run_opts *o, int duration_set, int bytes_set)
{
    const preset_info *p = o->preset;
    if (!p)
        return 1;
    const animate_def *ad = &o->anim;
    preset_request req = { o->out.format, ad->width, ad->height, ad->fps, duration_set ? ad->duration : 0.0,
                           ad->max_duration, 0.0, o->loop_set ? ad->loop : -1, bytes_set ? o->max_bytes : 0 };
    const impulse_info *in = impulse_get_info(ad->impulse.kind);
    if (in && in->periodic) {
        double rate = isnan(ad->impulse.rate) ? impulse_default_rate(in, ad->body.hz) : ad->impulse.rate;
        req.period = animate_period_frames(ad->fps, rate) / ad->fps;
    }
    preset_violation v;
    const char *opt = NULL;
    if (preset_request_ok(p, &req, &v, &opt)) {
        /* plays the user fixed shorten a one-shot clip to the time they share */
        if (o->loop_set && ad->loop > 0 && p->max_total_ms > 0 && !duration_set &&
            o->anim.max_duration * ad->loop > p->max_total_ms / 1000.0)
            o->anim.max_duration = p->max_total_ms / 1000.0 / ad->loop;
        return 1;
    }
    /* a period too long that no --rate asked for: the default rate slowed with --hz */
    if (opt && strcmp(opt, "--rate") == 0 && isnan(ad->impulse.rate) && in && in->periodic &&
        impulse_default_rate(in, ad->body.hz) < in->rate) {
        cli_error("--hz", "%s (on a body under --hz %g a %s repeats more slowly; give --rate)", v.text,
                  SOFTBODY_HZ_DEFAULT, in->name);
        return 0;
    }
    cli_error(opt, "%s", v.text);
    return 0;
}

/* Makes every missing directory of path (which ends in a directory name). */
static int make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            buf[i] = c;
        }
    }
    return 0;
}

/* Records a failure on the job: the message and which file it is about. */
static int job_fail(batch_job *j, const char *what, const char *msg)
{
    j->failed = 1;
    j->error_what = what;
    batch_job_say(&j->error, "%s", msg);
    return 1;
}

/* Makes one play of a last play_s seconds (a whole number of milliseconds),
 * each frame held whole milliseconds on a clock of 1000 ticks a second, so
 * that the frames and plays add up exactly as every reader counts them. */
static void retime(anim *a, double play_s)
{
    double per_tick = play_s * 1000.0 / anim_duration(a) / a->fps; /* ms per old tick */
    long ticks = 0, prev = 0;
    for (int i = 0; i < a->count; i++) {
        ticks += a->hold[i];
        long end = lround(ticks * per_tick);
        a->hold[i] = end - prev > 1 ? (int)(end - prev) : 1;
        prev += a->hold[i];
    }
    a->fps = 1000.0;
}

/* Reads the encoded file back and checks it against p, as `poyo check` does:
 * a file the platform would refuse is not written. */
static poyo_status passes_preset(const preset_info *p, const bytebuf *buf, poyo_error *err)
{
    anim back;
    anim_meta meta;
    memset(&back, 0, sizeof back);
    memset(&meta, 0, sizeof meta);
    poyo_status st = anim_read(buf->data, buf->len, &back, &meta, err);
    if (st == POYO_OK) {
        meta.file_bytes = buf->len;
        preset_violation v[PRESET_RULE_COUNT];
        int n = 0;
        st = preset_check(p, &back, &meta, v, PRESET_RULE_COUNT, &n, err);
        if (st == POYO_OK && n > 0)
            st = poyo_fail(err, POYO_ERR_INPUT, "cannot make a file %s takes: %s", p->label, v[0].text);
    }
    anim_free(&back);
    anim_meta_free(&meta);
    return st;
}

/* Checks what a job will hold against the memory bound: before filming
 * (count: the frames it will have at least) and again, with the frames known,
 * before drawing them; `extra` bytes are held besides throughout; *bytes (may
 * be NULL) gets the estimate. */
static poyo_status job_memory(const run_opts *o, const char *output, const image *im, int count, int w, int h,
                              double extra, double *bytes, poyo_error *err)
{
    memlimit_clip c = memlimit_clip_for(im, count, w, h, &o->out, output);
    c.sheet = o->sheet != NULL;
    c.extra = extra;
    if (output) {
        c.budget = o->max_bytes > 0 || o->preset;
        c.budget_max_frames = o->preset ? o->preset->max_frames : 0;
        /* the canvas is drawn again smaller where the search may shrink it (0.9 first) */
        c.budget_resize = !o->preset || preset_min_scale(o->preset, w, h) <= 0.9 + 1e-9;
    }
    if (bytes)
        *bytes = memlimit_clip_bytes(&c);
    return memlimit_check_clip(&c, "--size, --fps or --duration", err);
}

/* Frames a staggered clip holds at once while it is drawn: the whole clip's
 * and the longest part's own. */
static int stagger_frames_held(const stagger *s)
{
    int most = 0;
    for (int i = 0; i < s->n; i++)
        most = s->m[i].count > most ? s->m[i].count : most;
    return s->count + most;
}

/* Processes one job (a batch_fn): read, simulate, render, encode, write. */
/* What the budget search chose, for -v and --json ("48 colours, 12.5 fps,
 * 15 frames, 128x128"). */
static void search_words(const budget_report *rep, const run_opts *o, double shown_fps, char *what, size_t cap)
{
    size_t k = 0;
    what[0] = '\0';
    if (rep->untouched)
        k += (size_t)snprintf(what + k, cap - k, "untouched, ");
    if (!rep->untouched && rep->colors && rep->colors < o->out.quant.colors && k < cap)
        k += (size_t)snprintf(what + k, cap - k, "%d colours, ", rep->colors);
    if (!rep->untouched && rep->lossy > o->out.quant.lossy && k < cap)
        k += (size_t)snprintf(what + k, cap - k, "lossy GIF %d, ", rep->lossy);
    if (!rep->untouched && rep->crf >= 0 && k < cap)
        k += (size_t)snprintf(what + k, cap - k, "crf %d, ", rep->crf);
    if (!rep->untouched && rep->quality >= 0 && k < cap)
        k += (size_t)snprintf(what + k, cap - k, "quality %d, ", rep->quality);
    if (k < cap)
        snprintf(what + k, cap - k, "%g fps, %d frames, %dx%d", shown_fps / rep->stride, rep->frames, rep->width,
                 rep->height);
}

/* Writes a job's animation a under a byte budget or a preset's rules: the
 * preset's plays and timing, then the budget search, the preset's check and
 * the file. Returns 0 when written, with the file's size, canvas and frames in
 * *bytes and dims; else fails the job. */
static int write_budgeted(const run_opts *o, batch_job *job, anim *a, rerender *rr, const output_def *od,
                          const char *input, const char *name, char *tmp, size_t *bytes, int dims[3])
{
    const char *output = job->output;
    out_format f = o->out.format;
    double shown_fps = a->fps;
    poyo_error err;
    if (o->preset) {
        /* the plays, and the speed a whole-seconds rule asks for */
        int plays;
        double d = anim_duration(a), play_s = d;
        preset_timing(o->preset, d, o->loop_set ? o->anim.loop : -1, &plays, &play_s);
        if (!o->loop_set)
            a->loop = plays;
        if (play_s > 0.0 && play_s != d)
            retime(a, play_s);
        shown_fps = a->count / play_s;
    }
    budget_def bd = { .max_bytes = o->max_bytes,
                      .max_frames = o->preset ? o->preset->max_frames : 0,
                      .min_frames = o->preset ? o->preset->min_frames : 0,
                      .min_scale = o->preset ? preset_min_scale(o->preset, a->width, a->height) : 0.0 };
    if (bd.max_bytes <= 0)
        bd.max_bytes = o->preset->max_bytes;
    budget_report rep;
    bytebuf buf = { NULL, 0, 0 };
    poyo_status st = budget_encode(a, f, od, &bd, rerender_scaled, rr, &buf, &rep, &err);
    if (st == POYO_OK && o->preset)
        st = passes_preset(o->preset, &buf, &err);
    if (st != POYO_OK) {
        bytebuf_free(&buf);
        return job_fail(job, name, err.msg);
    }
    write_opts wo = { o->out.force, input, o->out.mode };
    st = file_write_atomic(output, buf.data, buf.len, &wo, tmp, BATCH_TMP_MAX, &err);
    *bytes = buf.len;
    bytebuf_free(&buf);
    if (st != POYO_OK)
        return job_fail(job, output, err.msg);
    char what[128];
    search_words(&rep, o, shown_fps, what, sizeof what);
    job->budgeted = 1;
    dims[0] = rep.width, dims[1] = rep.height, dims[2] = rep.frames;
    job->psnr_lost = rep.psnr_lost;
    batch_job_say(&job->search, "%s", what);
    if (!o->quiet)
        batch_job_say(&job->note, "%zu bytes (budget %lld): %s, PSNR lost %.2f dB", *bytes, bd.max_bytes, what,
                      rep.psnr_lost);
    return 0;
}

/* The job's clip simulated from src (a body in m, or the glyphs' bodies in sg), its memory
 * checked against the bound before (at least the frames --duration asks for) and after (the
 * frames it holds); what it will hold in need. */
static poyo_status simulate_job(const run_opts *o, const char *output, const image *src, motion *m, stagger *sg,
                                double *need, poyo_error *err)
{
    int least = o->anim.duration > 0.0 ? (int)lround(o->anim.duration * o->anim.fps) : 2;
    double glyphs = (double)o->nglyphs * src->w * src->h * 4.0;
    poyo_status st = job_memory(o, output, src, least < 2 ? 2 : least, o->anim.width ? o->anim.width : src->w,
                                o->anim.height ? o->anim.height : src->h, glyphs, NULL, err);
    if (st != POYO_OK)
        return st;
    if (o->nglyphs) {
        st = stagger_simulate(src, o->glyphs, o->nglyphs, &o->anim, sg, err);
        return st != POYO_OK ? st
                             : job_memory(o, output, src, stagger_frames_held(sg), sg->m[0].canvas_w,
                                          sg->m[0].canvas_h, glyphs, need, err);
    }
    st = animate_simulate(src, &o->anim, m, err);
    return st != POYO_OK ? st : job_memory(o, output, src, m->count, m->canvas_w, m->canvas_h, 0.0, need, err);
}

/* An SVG smaller than the canvas is drawn again as large as fits it, within
 * --max-pixels and once the memory bound allows it, so the body is laid over
 * the size the stamp is shown at (image_fit_size). */
static poyo_status draw_to_canvas(const run_opts *o, image *im, poyo_error *err)
{
    int w, h;
    if (!image_fit_size(im, o->anim.width, o->anim.height, o->max_pixels, &w, &h))
        return POYO_OK;
    char what[64];
    snprintf(what, sizeof what, "drawing the SVG at %dx%d", w, h);
    poyo_status st = memlimit_check(memlimit_decode(w, h), what, "--size", POYO_ERR_USAGE, err);
    return st == POYO_OK ? image_redraw(im, w, h, err) : st;
}

/* The job's clip a written: its frames, its sprite sheet, and its file (fitted to
 * --max-bytes or a preset by drawing rr again when asked), and the job's facts from it.
 * 0, or 1 when the job failed (said). */
static int write_job(const run_opts *o, batch_job *job, anim *a, rerender *rr, const output_def *od,
                     const char *input, const char *name, char *tmp)
{
    const char *output = job->output;
    poyo_error err;
    if (o->frames_dir && output_write_frames(a, o->frames_dir, od, &err) != POYO_OK) {
        job_fail(job, o->frames_dir, err.msg);
        return 1;
    }
    if (o->sheet && output_write_sheet(a, o->sheet, od, &err) != POYO_OK) {
        job_fail(job, o->sheet, err.msg);
        return 1;
    }
    size_t bytes = 0;
    int dims[3] = { 0, 0, 0 }; /* the file's canvas and frames when the budget search chose them */
    if (output && (o->max_bytes > 0 || o->preset)) {
        if (write_budgeted(o, job, a, rr, od, input, name, tmp, &bytes, dims))
            return 1;
    } else if (output) {
        poyo_status st = output_write(a, output, input, od, &bytes, &err);
        if (st != POYO_OK) {
            job_fail(job, st == POYO_ERR_IO || st == POYO_ERR_USAGE ? output : name, err.msg);
            return 1;
        }
    }
    job->bytes = bytes;
    job->width = dims[0] ? dims[0] : a->width;
    job->height = dims[1] ? dims[1] : a->height;
    job->frames = dims[2] ? dims[2] : a->count;
    job->duration = anim_duration(a);
    return 0;
}

static int animate_one(void *ctx, batch_job *job, int slot, char *tmp)
{
    const run_opts *o = ctx;
    const char *input = job->input, *output = job->output;
    const char *name = input;
    const image *src = o->text_im.w ? &o->text_im : NULL; /* text: drawn once, before the jobs */
    if (src)
        input = NULL; /* no input file to keep from being overwritten */
    (void)slot;
    output_def od = o->out;
    od.input = input;
    od.tmp = tmp;
    od.tmp_cap = BATCH_TMP_MAX;
    poyo_error err;
    image im = { 0 };
    motion m;
    memset(&m, 0, sizeof m);
    stagger sg;
    memset(&sg, 0, sizeof sg);
    anim a;
    memset(&a, 0, sizeof a);
    int rc = 1;
    double need = 0.0, held = 0.0;
    /* an output that cannot be written costs no decoding */
    if (output && output_check(output, input, &od, &err) != POYO_OK) {
        job_fail(job, output, err.msg);
        goto done;
    }
    if (!src && (image_load(input, o->max_pixels, &im, &err) != POYO_OK || draw_to_canvas(o, &im, &err) != POYO_OK)) {
        job_fail(job, name, err.msg);
        goto done;
    }
    if (!src)
        src = &im;
    if (simulate_job(o, output, src, &m, &sg, &need, &err) != POYO_OK) {
        job_fail(job, name, err.msg);
        goto done;
    }
    /* files drawn side by side share the bound */
    memlimit_reserve(need);
    held = need;
    if ((o->nglyphs ? stagger_render(&sg, &o->anim, &a, &err) : animate_render(src, &m, &o->anim, &a, &err)) !=
        POYO_OK) {
        job_fail(job, name, err.msg);
        goto done;
    }
    motion_drop_source(&m);
    rerender rr = { src, &m, o->nglyphs ? &sg : NULL, &o->anim };
    rc = write_job(o, job, &a, &rr, &od, input, name, tmp);
    job->has_strength = 1;
    job->strength = o->nglyphs ? sg.m[0].strength : m.strength;
done:
    image_free(&im);
    motion_free(&m);
    stagger_free(&sg);
    anim_free(&a);
    memlimit_release(held);
    return rc;
}

/* --matte: #rrggbb, white, black, light (a light chat theme) or dark. */
static int parse_matte(const char *opt, const char *s, int *out)
{
    static const struct { const char *name; int rgb; } named[] = {
        { "white", 0xffffff }, { "black", 0x000000 }, { "light", 0xf8f8f8 }, { "dark", 0x1a1d21 },
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(s, named[i].name) == 0) {
            *out = named[i].rgb;
            return 1;
        }
    if (s[0] == '#' && strlen(s) == 7 && strspn(s + 1, "0123456789abcdefABCDEF") == 6) {
        *out = (int)strtol(s + 1, NULL, 16);
        return 1;
    }
    cli_error(opt, "'%s' is not a colour (#rrggbb, white, black, light or dark)", s);
    return 0;
}

/* The jobs of one run; inputs found in directories are owned here. */
typedef struct job_list {
    batch_job *jobs;
    int n, cap;
} job_list;

static int jobs_add(job_list *l, const char *input, int owned)
{
    if (l->n == l->cap) {
        int nc = l->cap ? l->cap * 2 : 64;
        batch_job *p = realloc(l->jobs, (size_t)nc * sizeof *p);
        if (!p)
            return -1;
        l->jobs = p;
        l->cap = nc;
    }
    batch_job *j = &l->jobs[l->n++];
    memset(j, 0, sizeof *j);
    j->input = input;
    j->owned = owned;
    return 0;
}

static void jobs_free(job_list *l)
{
    for (int i = 0; i < l->n; i++) {
        if (l->jobs[i].owned)
            free((char *)l->jobs[i].input);
        free(l->jobs[i].output);
        free(l->jobs[i].error); /* lines a job never got to say */
        free(l->jobs[i].note);
        free(l->jobs[i].search);
    }
    free(l->jobs);
    l->jobs = NULL;
    l->n = l->cap = 0;
}

/* 1 when name ends in an image suffix a directory walk takes (any case):
 * .png, .jpg, .jpeg, .webp, .gif or .svg. The content decides how it is decoded. */
static int has_image_suffix(const char *name)
{
    static const char *const suffixes[] = { ".png", ".jpg", ".jpeg", ".webp", ".gif", ".svg" };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcasecmp(name + n - k, suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory met while expanding the inputs, by identity. */
typedef struct dir_seen {
    dev_t dev;
    ino_t ino;
    char *path;   /* as first met */
    int open;     /* 1 while the walk is inside it (an ancestor of what is read now) */
} dir_seen;

/* The state of expanding directory inputs into jobs. */
typedef struct dir_walk {
    job_list *jobs;
    int recursive, quiet;
    size_t root_len;   /* length of the directory input being walked */
    dir_seen *seen;
    size_t n, cap;
} dir_walk;

static void walk_free(dir_walk *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->seen[i].path);
    free(w->seen);
}

/* Adds a job that has already failed: dir could not be read. */
static int add_dir_failure(dir_walk *w, const char *dir, int e)
{
    char *name = strdup(dir);
    if (!name || jobs_add(w->jobs, name, 1) != 0) {
        free(name);
        return -1;
    }
    char msg[128];
    snprintf(msg, sizeof msg, "cannot read the directory: %s", strerror(e));
    job_fail(&w->jobs->jobs[w->jobs->n - 1], NULL, msg);
    return 0;
}

/* Adds the images in dir (sorted by name), and those below it when recursive.
 * A directory already met (a link back to an ancestor, or a second name for
 * one) is not read again; one that cannot be read becomes a failed job; a
 * FIFO, device or socket with an image's name is passed over with a note.
 * Returns -1 only when out of memory. */
/* Whether directory dir (st) was walked already: a link back to a folder being
 * read (a file system loop) or the same folder by another name, said unless
 * quiet. */
static int walked_before(const dir_walk *w, const char *dir, const struct stat *st)
{
    for (size_t i = 0; i < w->n; i++) {
        const dir_seen *s = &w->seen[i];
        if (s->dev != st->st_dev || s->ino != st->st_ino)
            continue;
        if (!w->quiet) {
            if (s->open)
                cli_note(dir, "leads back to %s (a file system loop); not read again", s->path);
            else
                cli_note(dir, "is the directory %s again; not read twice", s->path);
        }
        return 1;
    }
    return 0;
}

/* The entries of open directory d (named dir) a walk takes: images, and
 * folders when recursive, as full paths in *names (*n of them), hidden ones
 * left out. Returns 0, or -1 out of memory; *read_errno when reading failed. */
static int list_dir(const dir_walk *w, DIR *d, const char *dir, char ***names, size_t *n, int *read_errno)
{
    size_t cap = 0;
    struct dirent *e;
    for (;;) {
        errno = 0;
        if ((e = readdir(d)) == NULL) {
            *read_errno = errno;
            return 0;
        }
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path)
            return -1;
        snprintf(path, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        int is_dir = file_is_dir(path);
        if ((is_dir && !w->recursive) || (!is_dir && !has_image_suffix(e->d_name))) {
            free(path);
            continue;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = realloc(*names, cap * sizeof *p);
            if (!p) {
                free(path);
                return -1;
            }
            *names = p;
        }
        (*names)[(*n)++] = path;
    }
}

static int add_dir(dir_walk *w, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return add_dir_failure(w, dir, errno);
    if (walked_before(w, dir, &st))
        return 0;
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 16;
        dir_seen *p = realloc(w->seen, nc * sizeof *p);
        if (!p)
            return -1;
        w->seen = p;
        w->cap = nc;
    }
    size_t me = w->n;
    w->seen[me] = (dir_seen){ st.st_dev, st.st_ino, strdup(dir), 1 };
    if (!w->seen[me].path)
        return -1;
    w->n++;
    DIR *d = opendir(dir);
    if (!d) {
        w->seen[me].open = 0;
        return add_dir_failure(w, dir, errno);
    }
    char **names = NULL;
    size_t n = 0;
    int read_errno = 0;
    int rc = list_dir(w, d, dir, &names, &n, &read_errno);
    closedir(d);
    if (rc == 0 && read_errno)
        rc = add_dir_failure(w, dir, read_errno);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && file_is_dir(names[i])) {
            rc = add_dir(w, names[i]);
            free(names[i]);
        } else if (rc == 0 && file_is_special(names[i])) {
            if (!w->quiet)
                cli_note(names[i], "is not a regular file (a FIFO, device or socket); skipped");
            free(names[i]);
        } else if (rc == 0 && jobs_add(w->jobs, names[i], 1) == 0) {
            /* owned by the job list now */
            w->jobs->jobs[w->jobs->n - 1].root_len = w->root_len;
        } else {
            free(names[i]);
            rc = -1;
        }
    }
    free(names);
    w->seen[me].open = 0;
    return rc;
}

typedef struct file_key {
    dev_t dev;
    ino_t ino;
    int job;
} file_key;

static int cmp_key(const void *a, const void *b)
{
    const file_key *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino ? 1 : 0;
}

/* Leaves out every image found in a directory that is the output another job
 * of this run writes (the GIF an earlier run wrote beside its PNG): it is not
 * an input but the file that will be replaced. Said under -v. */
static void drop_earlier_outputs(job_list *l, int verbose)
{
    if (l->n < 1)
        return;
    file_key *keys = malloc((size_t)l->n * sizeof *keys);
    if (!keys)
        return;
    int nk = 0;
    struct stat st;
    for (int i = 0; i < l->n; i++) {
        const char *out = l->jobs[i].output;
        if (!l->jobs[i].failed && out && strcmp(out, "-") != 0 && stat(out, &st) == 0)
            keys[nk++] = (file_key){ st.st_dev, st.st_ino, i };
    }
    qsort(keys, (size_t)nk, sizeof *keys, cmp_key);
    char *drop = calloc((size_t)l->n, 1);
    for (int i = 0; drop && nk && i < l->n; i++) {
        batch_job *j = &l->jobs[i];
        if (!j->root_len || stat(j->input, &st) != 0)
            continue;
        file_key k = { st.st_dev, st.st_ino, 0 };
        const file_key *hit = bsearch(&k, keys, (size_t)nk, sizeof *keys, cmp_key);
        if (!hit)
            continue;
        /* among the jobs writing this file, one other than this input's own */
        while (hit > keys && cmp_key(hit - 1, &k) == 0)
            hit--;
        while (hit < keys + nk - 1 && hit->job == i && cmp_key(hit + 1, &k) == 0)
            hit++;
        if (hit->job == i)
            continue;
        drop[i] = 1;
        if (verbose)
            cli_note(j->input, "is the output of %s; not taken as an input", l->jobs[hit->job].input);
    }
    int n = 0;
    for (int i = 0; drop && i < l->n; i++) {
        if (drop[i]) {
            free((char *)l->jobs[i].input);
            free(l->jobs[i].output);
        } else {
            l->jobs[n++] = l->jobs[i];
        }
    }
    if (drop)
        l->n = n;
    free(drop);
    free(keys);
}

/* The stem of the output poyo text writes without -o: the text's letters and
 * digits (any script), everything else as _, at most 40 bytes. */
static char *text_output_name(const char *text)
{
    char name[48];
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && k < 40;) {
        size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : 4;
        if (*p >= 0x80 && k + n <= 40 && strnlen((const char *)p, n) == n) {
            memcpy(name + k, p, n);
            k += n;
        } else if (*p < 0x80) {
            name[k++] = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ? (char)*p : '_';
        } else {
            break;
        }
        p += n;
    }
    name[k] = '\0';
    return strdup(name);
}

/* --gradient C1,C2[,ANGLE] and --outline COLOR[,WIDTH]: a colour, a second
 * value after a comma (a colour for the gradient) and a number after that. */
static int parse_text_colours(int id, const char *opt, const char *v, text_def *t)
{
    char buf[96];
    if (strlen(v) >= sizeof buf) {
        cli_error(opt, "'%.40s...' is too long", v);
        return 0;
    }
    memcpy(buf, v, strlen(v) + 1);
    char *second = strchr(buf, ','), *third = NULL;
    if (second)
        *second++ = '\0';
    if (id == OPT_GRADIENT) {
        if (!second) {
            cli_error(opt, "needs two colours, C1,C2[,ANGLE], not '%s'", v);
            return 0;
        }
        if ((third = strchr(second, ',')))
            *third++ = '\0';
        t->gradient = 1;
        return cli_color(opt, buf, &t->color) && cli_color(opt, second, &t->color2) &&
               (!third || cli_double(opt, third, &t->angle));
    }
    t->outline = 1;
    if (!cli_color(opt, buf, &t->outline_color) || (second && !cli_double(opt, second, &t->outline_width)))
        return 0;
    if (second && !(t->outline_width > 0 && t->outline_width <= TEXT_OUTLINE_MAX)) {
        cli_error(opt, "width must be more than 0 and at most %d pixels, not %s", TEXT_OUTLINE_MAX, second);
        return 0;
    }
    return 1;
}

static void glyph_images_free(run_opts *o)
{
    for (int i = 0; i < o->nglyphs; i++)
        image_free(&o->glyphs[i]);
    free(o->glyphs);
    o->glyphs = NULL;
    o->nglyphs = 0;
}

/* --per-glyph: each glyph of the text drawn alone, for stagger.c. */
static poyo_status glyph_images(run_opts *o, poyo_error *err)
{
    int n = text_glyph_count(&o->text_im);
    if (n > STAGGER_MAX_PARTS)
        return poyo_fail(err, POYO_ERR_USAGE, "the text has %d glyphs, more than %d", n, STAGGER_MAX_PARTS);
    char what[64];
    snprintf(what, sizeof what, "%d glyphs drawn alone at %dx%d", n, o->text_im.w, o->text_im.h);
    poyo_status mst = memlimit_check((double)n * o->text_im.w * o->text_im.h * 4.0, what, "--size", POYO_ERR_USAGE, err);
    if (mst != POYO_OK)
        return mst;
    if (!(o->glyphs = calloc((size_t)n, sizeof *o->glyphs)))
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        poyo_status st = text_glyph_image(&o->text_im, i, &o->glyphs[i], err);
        o->nglyphs = i + 1;
        if (st != POYO_OK) {
            glyph_images_free(o);
            return st;
        }
    }
    return POYO_OK;
}

/* The words of poyo text joined by spaces (malloc'ed; NULL when out of memory). */
static char *join_words(const char **words, int n)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(words[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, words[i]);
    }
    return s;
}

/* What the parse saw that later checks need. */
typedef struct parse_seen {
    int format_set, duration_set, bytes_set;
} parse_seen;

/* An option of the body, the impulse or the clip (parsed by p) into o: 1, 0
 * (an error, reported), or -1 when it is not one of them. */
static int parse_body_option(run_opts *o, parse_seen *seen, const cli_parser *p)
{
    double n = p->num;
    animate_def *a = &o->anim;
    static const anchor_kind anchors[] = { ANCHOR_BOTTOM, ANCHOR_TOP, ANCHOR_NONE };
    switch (p->opt->id) {
    case OPT_IMPULSE:
        if (p->word < 0) {
            cli_error(p->name, "unknown impulse '%s' (see poyo --list-impulses)", p->value);
            return 0;
        }
        a->impulse.kind = (impulse_kind)p->word;
        break;
    case OPT_STRENGTH: a->impulse.strength = n; break;
    case OPT_AT: a->impulse.at = v2_make(p->x, p->y); break;
    case OPT_ANGLE: a->impulse.angle = n; break;
    case OPT_RATE: a->impulse.rate = n; break;
    case OPT_HZ: a->body.hz = n; break;
    case OPT_DAMPING: a->body.damping = n; break;
    case OPT_VOLUME: a->body.volume = n; break;
    case OPT_DRAG: a->body.drag = n; break;
    case OPT_OUTLINE_STIFFNESS:
    case OPT_OUTLINE_OLD: a->body.outline = n; break;
    case OPT_SUBSTEPS: a->body.substeps = p->inum; break;
    case OPT_GRID: a->grid = p->inum; break;
    case OPT_ANCHOR: /* bottom top none auto */
        a->anchor_auto = p->word == 3;
        if (p->word < 3)
            a->body.anchor = anchors[p->word];
        break;
    case OPT_FPS: a->fps = n; break;
    case OPT_DURATION: a->duration = n; seen->duration_set = 1; break;
    case OPT_SIZE: a->width = p->w; a->height = p->h; break;
    case OPT_FIT: a->fit = p->word == 0 ? FIT_AUTO : FIT_NONE; break;
    case OPT_TEXT_FIT: /* fill keep auto none */
        if (p->word < 2)
            o->text.fit = p->word == 0 ? TEXT_FIT_FILL : TEXT_FIT_KEEP;
        else
            a->fit = p->word == 2 ? FIT_AUTO : FIT_NONE;
        break;
    case OPT_LOOP: a->loop = p->inum; o->loop_set = 1; break;
    default: return -1;
    }
    return 1;
}

/* An option of the output or the run (parsed by p) into o: 1, 0 (an error,
 * reported), or -1 when it is not one of them. */
static int parse_output_option(run_opts *o, parse_seen *seen, const cli_parser *p)
{
    int id = p->opt->id;
    if (cli_output_option(p, &o->out)) {
        seen->format_set |= id == OPT_FORMAT;
        return 1;
    }
    switch (id) {
    case OPT_PRESET: break; /* applied before the other options */
    case OPT_MAXBYTES: o->max_bytes = p->bytes; seen->bytes_set = 1; break;
    case OPT_MATTE: return parse_matte(p->name, p->value, &o->out.quant.matte);
    case OPT_LOSSY: o->out.webp.lossy = 1; break;
    case OPT_JOBS: o->workers = p->inum; break;
    case OPT_RECURSIVE: o->recursive = 1; break;
    case OPT_JSON: o->json = 1; break;
    case OPT_SKIP: o->skip_existing = 1; break;
    case OPT_FRAMES:
    case OPT_SHEET:
        if (id == OPT_FRAMES)
            o->frames_dir = p->value;
        else
            o->sheet = p->value;
        if (!*p->value) {
            cli_error(p->name, "needs a file name");
            return 0;
        }
        break;
    case OPT_MAXPX: o->max_pixels = p->inum; break;
    case OPT_MAXMEM: o->max_memory = p->bytes; break;
    default: return -1;
    }
    return 1;
}

/* An option of poyo text (parsed by p) into o: 1, 0 (an error, reported), or
 * -1 when it is not one of them. */
static int parse_text_option(run_opts *o, const cli_parser *p)
{
    const char *v = p->value;
    switch (p->opt->id) {
    case OPT_FONT:
        o->text.font = v;
        if (!*v) {
            cli_error(p->name, "needs a font name or file");
            return 0;
        }
        break;
    case OPT_COLOR:
        o->text.gradient = 0;
        return cli_color(p->name, v, &o->text.color);
    case OPT_GRADIENT:
    case OPT_TEXT_OUTLINE: return parse_text_colours(p->opt->id, p->name, v, &o->text);
    case OPT_ALIGN: { /* left center right top middle bottom | centre */
        static const text_align aligns[] = { TEXT_ALIGN_LEFT,  TEXT_ALIGN_CENTER, TEXT_ALIGN_RIGHT, TEXT_ALIGN_LEFT,
                                             TEXT_ALIGN_CENTER, TEXT_ALIGN_RIGHT, TEXT_ALIGN_CENTER };
        o->text.align = aligns[p->word];
        break;
    }
    case OPT_VERTICAL: o->text.vertical = 1; break;
    case OPT_PER_GLYPH: o->per_glyph = 1; break;
    default: return -1;
    }
    return 1;
}

/* The whole command, poyo animate or (text_mode) poyo text; with parse_only it
 * stops once the options are checked, touching no file (for the option-parser
 * fuzzer). */
/* The first pass over the arguments: a preset sets its defaults first, so
 * that every other option given overrides it. Returns 0, or 2 after saying
 * that the preset is unknown. */
static int apply_preset_first(run_opts *o, int argc, char **argv, const cli_command *table)
{
    cli_parser p;
    const char *operand;
    int id;
    cli_init(&p, argc, argv, table);
    p.silent = 1; /* the full pass reports the errors */
    while ((id = cli_next(&p, &operand)) != -1 && id != -2) {
        if (id != OPT_PRESET)
            continue;
        o->preset = preset_lookup(p.value);
        if (!o->preset) {
            char names[256] = "";
            for (int i = 0; i < preset_count(); i++) {
                strncat(names, preset_at(i)->name, sizeof names - strlen(names) - 3);
                if (i + 1 < preset_count())
                    strncat(names, ", ", sizeof names - strlen(names) - 1);
            }
            cli_error(p.name, "unknown preset '%s' (one of %s)", p.value, names);
            return 2;
        }
        preset_apply(o->preset, &o->anim, &o->out, &o->max_bytes);
    }
    return 0;
}

/* Names each job's output (none with only --frames or --sheet): beside its
 * input, in -o DIR/ (mirroring its place below an input directory, whose
 * folders are made), or -o itself; refused when it is a terminal. */
static void name_outputs(job_list *jl, const run_opts *o, int many, int text_mode, int frames_only)
{
    const char *ext = output_extension(o->out.format), *tag = o->preset ? o->preset->name : "poyo";
    for (int i = 0; i < jl->n; i++) {
        batch_job *j = &jl->jobs[i];
        if (frames_only || j->failed)
            continue;
        if (text_mode) {
            /* named after the text, beside nothing: here, or in -o DIR/ */
            char *name = text_output_name(j->input);
            j->output = name ? output_for(name, 0, o->output, 0, ext, tag) : NULL;
            free(name);
        } else if (strcmp(j->input, "-") == 0 && !o->output) {
            j->output = strdup("-");
        } else {
            j->output = output_for(j->input, j->root_len, o->output, many, ext, tag);
        }
        if (!j->output) {
            job_fail(j, j->input, "out of memory");
            continue;
        }
        /* a folder below -o DIR/ mirroring the input's place in its directory */
        const char *slash = strrchr(j->output, '/');
        if (o->output && many && j->root_len && slash && slash > j->output) {
            char *dir = strndup(j->output, (size_t)(slash - j->output));
            if (!dir) {
                job_fail(j, j->input, "out of memory");
                continue;
            }
            if (!file_is_dir(dir) && make_dirs(dir) != 0) {
                char msg[300];
                snprintf(msg, sizeof msg, "cannot create the directory %.200s: %s", dir, strerror(errno));
                job_fail(j, j->output, msg);
            }
            free(dir);
        }
        if (strcmp(j->output, "-") == 0 && isatty(STDOUT_FILENO))
            job_fail(j, "-", "standard output is a terminal; use -o FILE or redirect it");
    }
}

/* poyo text: draws the text once, before the jobs, at the canvas's size (and
 * each glyph alone with --per-glyph). Returns 0, or the exit status after
 * saying what failed. */
static int draw_text(run_opts *o, const char *text)
{
    poyo_error err;
    char what[64];
    snprintf(what, sizeof what, "drawing the text at %dx%d", o->text.width, o->text.height);
    poyo_status st = memlimit_check(memlimit_decode(o->text.width, o->text.height), what, "--size", POYO_ERR_USAGE, &err);
    if (st == POYO_OK)
        st = text_image(text, &o->text, &o->text_im, &err);
    if (st != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        return st == POYO_ERR_USAGE ? 2 : 1;
    }
    if (o->per_glyph && (st = glyph_images(o, &err)) != POYO_OK) {
        cli_error("--per-glyph", "%s", err.msg);
        image_free(&o->text_im);
        return st == POYO_ERR_USAGE ? 2 : 1;
    }
    return 0;
}

/* The full pass over the arguments into o, inputs (and their count, *n).
 * Returns 1 when they parse, 0 after reporting an error, or -1 when --help or
 * --list-impulses was answered (printed unless parse_only). */
static int parse_args(run_opts *o, parse_seen *seen, int argc, char **argv, const cli_command *table,
                      const char **inputs, int *n, int parse_only, int text_mode)
{
    cli_parser p;
    const char *operand;
    int id, ok = 1;
    cli_init(&p, argc, argv, table);
    while (ok && (id = cli_next(&p, &operand)) != -1) {
        const char *v = p.value, *on = p.name;
        switch (id) {
        case -2: ok = 0; break;
        case 0:
            if (!*operand && !text_mode) {
                cli_error(NULL, "an input file name is empty");
                ok = 0;
            }
            inputs[(*n)++] = operand;
            break;
        case OPT_OUTPUT:
            o->output = v;
            if (!*v) {
                cli_error(on, "needs a file name");
                ok = 0;
            }
            break;
        case OPT_FORCE: o->out.force = 1; break;
        case OPT_QUIET: o->quiet = 1; o->verbose = 0; break;
        case OPT_VERBOSE: o->verbose = 1; o->quiet = 0; break;
        case OPT_HELP:
            if (!parse_only)
                (text_mode ? text_usage : usage)(stdout);
            return -1;
        case OPT_LIST_IMPULSES:
            if (!parse_only)
                cmd_list_impulses(stdout);
            return -1;
        default:
            ok = parse_body_option(o, seen, &p);
            if (ok < 0)
                ok = parse_output_option(o, seen, &p);
            if (ok < 0)
                ok = parse_text_option(o, &p);
            ok = ok > 0;
            break;
        }
    }
    return ok;
}

/* Whether the options suit the inputs (*many: several, or a directory):
 * one input for --frames, --sheet and standard output, a directory for -o,
 * the format and the preset's rules, and no JSON where the image goes. 1 when
 * they do, else 0 after saying why. */
static int check_outputs(run_opts *o, const parse_seen *seen, const char **inputs, int ninputs, int text_mode,
                         int *many)
{
    *many = ninputs > 1;
    for (int i = 0; i < ninputs && !*many && !text_mode; i++)
        *many = strcmp(inputs[i], "-") != 0 && file_is_dir(inputs[i]);
    if (*many && (o->frames_dir || o->sheet)) {
        cli_error(o->frames_dir ? "--frames" : "--sheet", "takes one input, not several");
        return 0;
    }
    if (*many && o->output && strcmp(o->output, "-") == 0) {
        cli_error("-o", "standard output takes one input, not %d", ninputs);
        return 0;
    }
    if (*many && o->output && !file_is_dir(o->output) && o->output[strlen(o->output) - 1] != '/') {
        cli_error(o->output, "with several inputs or a directory, -o must name a directory (end it with /)");
        return 0;
    }
    int one_file = o->output && *o->output && strcmp(o->output, "-") != 0 && !*many &&
                   o->output[strlen(o->output) - 1] != '/' && !file_is_dir(o->output);
    if (!choose_format(o, seen->format_set, one_file) || !preset_allows(o, seen->duration_set, seen->bytes_set))
        return 0;
    /* the image and the JSON lines would share standard output */
    int image_to_stdout = o->output && strcmp(o->output, "-") == 0;
    for (int i = 0; i < ninputs && !o->output && !o->frames_dir && !o->sheet && !text_mode; i++)
        image_to_stdout |= strcmp(inputs[i], "-") == 0;
    if (o->json && image_to_stdout) {
        cli_error("--json", "cannot be used when the image goes to standard output (-o - or input -); use -o FILE");
        return 0;
    }
    return 1;
}

/* The jobs: files as given, directories expanded to their images (the text,
 * whose job takes *text over). Returns 0, or 1 after saying out of memory. */
static int collect_jobs(job_list *jl, const run_opts *o, const char **inputs, int ninputs, int text_mode, char **text)
{
    dir_walk walk = { jl, o->recursive, o->quiet, 0, NULL, 0, 0 };
    for (int i = 0; i < ninputs; i++) {
        int is_dir = !text_mode && strcmp(inputs[i], "-") != 0 && file_is_dir(inputs[i]);
        walk.root_len = strlen(inputs[i]);
        if ((is_dir ? add_dir(&walk, inputs[i]) : jobs_add(jl, inputs[i], text_mode)) != 0) {
            cli_error(NULL, "out of memory");
            walk_free(&walk);
            return 1;
        }
        *text = NULL; /* the job owns it */
    }
    walk_free(&walk);
    return 0;
}

/* poyo text: the words joined into one text, the only input, and the canvas
 * it is laid out for (-s, a preset's, or 128x128). Returns 1, 0 after saying
 * what is wrong with it, or -1 out of memory. */
static int take_text(run_opts *o, const char **inputs, int *ninputs, char **text)
{
    poyo_error err;
    if (!o->anim.width) {
        o->anim.width = o->text.width;
        o->anim.height = o->text.height;
    }
    o->text.width = o->anim.width;
    o->text.height = o->anim.height;
    if (!(*text = join_words(inputs, *ninputs))) {
        cli_error(NULL, "out of memory");
        return -1;
    }
    inputs[0] = *text;
    *ninputs = 1;
    if (text_check(*text, &err) != POYO_OK || text_check_def(&o->text, &err) != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        return 0;
    }
    return 1;
}

/* Whether the settings parsed hang together: the clip's and the quantiser's
 * definitions, -f with --skip-existing, and an input (or a text) given. 1 when
 * they do, else 0 after saying why. */
static int check_settings(const run_opts *o, int ninputs, int text_mode)
{
    poyo_error err;
    if (animate_check_def(&o->anim, &err) != POYO_OK || quantize_check_def(&o->out.quant, &err) != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        return 0;
    }
    if (o->skip_existing && o->out.force) {
        cli_error("--skip-existing", "cannot be used with -f (--force)");
        return 0;
    }
    if (ninputs == 0) {
        cli_error(NULL, text_mode ? "no text (usage: poyo text [OPTIONS] TEXT...; see poyo text --help)"
                                  : "no input file (usage: poyo [animate] [OPTIONS] INPUT...; see poyo --help)");
        return 0;
    }
    return 1;
}

/* Every setting at its default: the modules' own, then the command's. */
static void run_defaults(run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->text = text_default_def();
    o->anim = animate_default_def();
    o->out = output_default_def();
    o->max_pixels = IMAGE_DEFAULT_MAX_PIXELS;
    o->max_memory = MEMLIMIT_DEFAULT_MEMORY;
    o->workers = batch_cores();
    o->out.mode = cli_file_mode();
}

/* -o DIR/ (or -o for several inputs) made when missing. 1 when it is there,
 * else 0 after saying why. */
static int make_output_dir(const run_opts *o, int many)
{
    if (o->output && (many || o->output[strlen(o->output) - 1] == '/') && !file_is_dir(o->output) &&
        make_dirs(o->output) != 0) {
        cli_error(o->output, "cannot create the directory: %s", strerror(errno));
        return 0;
    }
    return 1;
}

static int animate_main(int argc, char **argv, int parse_only, int text_mode)
{
    run_opts o;
    run_defaults(&o);
    const char **inputs = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *inputs);
    if (!inputs) {
        cli_error(NULL, "out of memory");
        return 1;
    }
    int ninputs = 0;
    const cli_command *table = cli_command_find(text_mode ? "text" : "animate");
    int ok;
    parse_seen seen = { 0, 0, 0 };
    if (apply_preset_first(&o, argc, argv, table) != 0) {
        free(inputs);
        return 2;
    }
    ok = parse_args(&o, &seen, argc, argv, table, inputs, &ninputs, parse_only, text_mode);
    if (ok < 0) {
        free(inputs);
        return 0;
    }
    memlimit_set(o.max_memory);
    if (ok)
        ok = check_settings(&o, ninputs, text_mode);
    char *text = NULL;
    if (ok && text_mode && (ok = take_text(&o, inputs, &ninputs, &text)) < 0) {
        free(inputs);
        return 1;
    }
    int many = 0;
    if (ok)
        ok = check_outputs(&o, &seen, inputs, ninputs, text_mode, &many);
    if (ok && text_mode && !parse_only) {
        int rc = draw_text(&o, text);
        if (rc) {
            free(text);
            free(inputs);
            return rc;
        }
    }
    if (!ok || parse_only) {
        free(text);
        free(inputs);
        return ok ? 0 : 2;
    }
    if (!make_output_dir(&o, many)) {
        glyph_images_free(&o);
        image_free(&o.text_im);
        free(text);
        free(inputs);
        return 1;
    }
    /* only --frames or --sheet and no -o: write just those */
    int frames_only = !o.output && (o.frames_dir || o.sheet);
    job_list jl = { NULL, 0, 0 };
    if (collect_jobs(&jl, &o, inputs, ninputs, text_mode, &text) != 0) {
        jobs_free(&jl);
        glyph_images_free(&o);
        image_free(&o.text_im);
        free(text);
        free(inputs);
        return 1;
    }
    if (jl.n == 0) {
        cli_error(inputs[0], "is a directory with no PNG, JPEG, WebP, GIF or SVG files");
        jobs_free(&jl);
        free(inputs);
        return 1;
    }
    name_outputs(&jl, &o, many, text_mode, frames_only);
    drop_earlier_outputs(&jl, o.verbose);
    /* one file: its frames are drawn on every core; many: one file per core */
    o.anim.threads = jl.n == 1 || o.workers == 1 ? workers_threads_now() : 1;
    output_set_threads(&o.out, o.anim.threads);
    batch_ui ui = { o.quiet, o.verbose, o.json, jl.n > 1, o.skip_existing };
    int failed = batch_run(jl.jobs, jl.n, o.workers, animate_one, &o, &ui);
    jobs_free(&jl);
    glyph_images_free(&o);
    image_free(&o.text_im);
    free(inputs);
    return failed ? 1 : 0;
}

int cmd_animate(int argc, char **argv)
{
    return animate_main(argc, argv, 0, 0);
}

int cmd_text(int argc, char **argv)
{
    return animate_main(argc, argv, 0, 1);
}

int cmd_animate_parse(int argc, char **argv)
{
    return animate_main(argc, argv, 1, 0);
}
