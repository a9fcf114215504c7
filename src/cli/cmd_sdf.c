/* cmd_sdf.c - `poyo sdf [OPTIONS] [STAMP]`: parses a scene written in the scene
 * language, answers distance / normal / ray queries, draws the field, and drops a
 * stamp into the scene as a soft body (drop.h), writing the clip like the main job. */
#include "cmd.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "geom/scene.h"
#include "geom/sdf.h"
#include "image/image.h"
#include "image/memclip.h"
#include "image/output.h"
#include "sim/drop.h"
#include "util/fileio.h"
#include "util/memlimit.h"
#include "util/workers.h"

static void usage(FILE *out)
{
    fputs("Usage: poyo sdf [OPTIONS] [STAMP]\n"
          "Signed distance scenes. With STAMP (a PNG, - = standard input), drop it into the scene as a\n"
          "soft body and write the clip (STEM.gif beside it without -o). It falls, bounces, slides and\n"
          "comes to rest; the clip then shows the resting frame for --hold seconds and restarts from\n"
          "the drop (a fall cannot loop seamlessly). It ends early when the body leaves the canvas.\n"
          "Without STAMP, answer --query / --ray and draw --render. Coordinates are canvas fractions:\n"
          "0,0 top-left, 1,1 bottom-right, y down. Distances print in fractions of min(W,H).\n"
          "\n",
          out);
    cli_print_options(out, cli_command_find("sdf"), NULL, NULL);
    fputs("Exit status: 0 success, 1 some input failed, 2 usage error (a scene error names its column).\n", out);
}

typedef enum ask_kind { ASK_QUERY, ASK_RAY } ask_kind;

/* One --query or --ray, in canvas fractions. */
typedef struct ask {
    ask_kind kind;
    double v[4];
} ask;

/* Parses exactly n comma-separated finite numbers. */
static int parse_numbers(const char *opt, const char *s, int n, double *out, const char *shape)
{
    const char *t = s;
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        double v = strtod(t, &end);
        if (end == t || !isfinite(v) || errno == ERANGE || (i + 1 < n ? *end != ',' : *end != '\0')) {
            cli_error(opt, "'%s' is not %s", s, shape);
            return 0;
        }
        out[i] = v;
        t = end + 1;
    }
    return 1;
}

static int parse_color(const char *opt, const char *s, unsigned char rgb[3])
{
    const char *t = s[0] == '#' ? s + 1 : s;
    if (strlen(t) != 6 || strspn(t, "0123456789abcdefABCDEF") != 6) {
        cli_error(opt, "'%s' is not a colour like 5F6B7A", s);
        return 0;
    }
    unsigned long v = strtoul(t, NULL, 16);
    rgb[0] = (unsigned char)(v >> 16);
    rgb[1] = (unsigned char)(v >> 8);
    rgb[2] = (unsigned char)v;
    return 1;
}

/* --ray X,Y,DX,DY: four numbers, the start within 10^6 canvas fractions and a
 * direction that is not 0,0. */
static int parse_ray(const char *opt, const char *s, ask *out)
{
    out->kind = ASK_RAY;
    if (!parse_numbers(opt, s, 4, out->v, "a ray X,Y,DX,DY"))
        return 0;
    if (!(fabs(out->v[0]) <= 1e6 && fabs(out->v[1]) <= 1e6)) {
        cli_error(opt, "must be -1000000 to 1000000 in X and Y, not %s", s);
        return 0;
    }
    if (out->v[2] == 0.0 && out->v[3] == 0.0) {
        cli_error(opt, "the direction DX,DY must not be 0,0");
        return 0;
    }
    return 1;
}

/* Prints the answers to the queries, one line each. */
static void answer(const sdf_scene *scene, const ask *asks, int n, int W, int H, FILE *out)
{
    sdf_def sd = sdf_default_def();
    double unit = W < H ? W : H;
    for (int i = 0; i < n; i++) {
        const double *v = asks[i].v;
        v2 p = v2_make(v[0] * W, v[1] * H);
        if (asks[i].kind == ASK_QUERY) {
            double d = sdf_eval(scene, p);
            v2 nrm = sdf_normal(scene, p);
            fprintf(out, "distance %.6g normal %.6g %.6g\n", d / unit + 0.0, nrm.x + 0.0, nrm.y + 0.0);
        } else {
            double big = fmax(fabs(v[2]), fabs(v[3]));
            v2 dir = v2_make(v[2] / big * W, v[3] / big * H);
            double t;
            v2 hit;
            double reach = 4.0 * (W > H ? W : H);
            if (sdf_raycast(scene, p, dir, reach, sd.ray_max_steps * 4, sd.ray_eps, &t, &hit))
                fprintf(out, "hit %.6g %.6g distance %.6g\n", hit.x / W, hit.y / H, t / unit);
            else
                fprintf(out, "miss\n");
        }
    }
}

/* Draws the field picture to path; tmp is the register of its temporary name (BATCH_TMP_MAX bytes). */
static int render_field(const sdf_scene *scene, const char *path, int W, int H, double iso, const write_opts *wo,
                        char *tmp)
{
    poyo_error err;
    uint8_t *rgba = malloc((size_t)W * H * 4), *png = NULL;
    size_t len = 0;
    int rc = 1;
    if (!rgba) {
        cli_error(path, "out of memory for a %dx%d picture", W, H);
        goto done;
    }
    sdf_render_field(scene, rgba, W, H, iso);
    if (image_encode_png(rgba, W, H, &png, &len, &err) != POYO_OK ||
        file_write_atomic(path, png, len, wo, tmp, BATCH_TMP_MAX, &err) != POYO_OK) {
        cli_error(path, "%s", err.msg);
        goto done;
    }
    rc = 0;
done:
    free(rgba);
    free(png);
    return rc;
}

typedef struct drop_job {
    drop_def def;
    output_def out;
    const char *stamp, *output, *frames_dir, *sheet;
    long long max_pixels;
    long long max_memory;  /* --max-memory, bytes */
    int verbose;
} drop_job;

/* Drops the stamp and writes what was asked; 0 ok, 1 failed (message printed). */
static int run_drop(const sdf_scene *scene, const drop_job *j)
{
    const char *name = j->stamp;
    poyo_error err;
    size_t bytes = 0;
    image im = { 0 };
    drop_motion m;
    memset(&m, 0, sizeof m);
    anim a;
    memset(&a, 0, sizeof a);
    int rc = 1;
    /* an output that cannot be written costs no decoding */
    if (j->output && output_check(j->output, j->stamp, &j->out, &err) != POYO_OK) {
        cli_error(j->output, "%s", err.msg);
        goto done;
    }
    if (image_load(j->stamp, j->max_pixels, &im, &err) != POYO_OK) {
        cli_error(name, "%s", err.msg);
        goto done;
    }
    /* a clip of a given length is checked before it is filmed, with the frames it will have at least */
    poyo_status st = POYO_OK;
    if (j->def.duration > 0.0) {
        memlimit_clip least = memlimit_clip_for(&im, (int)lround(j->def.duration * j->def.fps), j->def.width,
                                                j->def.height, &j->out, j->output);
        st = memlimit_check_clip(&least, "--size, --fps or --duration", &err);
    }
    if (st == POYO_OK)
        st = drop_simulate(&im, scene, &j->def, &m, &err);
    if (st == POYO_OK) {
        memlimit_clip lc = memlimit_clip_for(&im, m.count, j->def.width, j->def.height, &j->out, j->output);
        lc.sheet = j->sheet != NULL;
        st = memlimit_check_clip(&lc, "--size, --fps or --duration", &err);
    }
    if (st != POYO_OK || drop_render(&im, scene, &m, &j->def, &a, &err) != POYO_OK) {
        cli_error(name, "%s", err.msg);
        goto done;
    }
    if (!cli_write_stills(&a, j->frames_dir, j->sheet, &j->out))
        goto done;
    if (j->output) {
        st = output_write(&a, j->output, j->stamp, &j->out, &bytes, &err);
        if (st != POYO_OK) {
            cli_error(st == POYO_ERR_IO || st == POYO_ERR_USAGE ? j->output : name, "%s", err.msg);
            goto done;
        }
    }
    if (j->verbose)
        cli_note(name, "wrote %s (%dx%d, %d frames, %.2f s, %s, %zu bytes)",
                 j->output ? j->output : "frames", a.width, a.height, a.count, anim_duration(&a),
                 m.settled ? "comes to rest" : m.left ? "leaves the canvas" : "still moving at the end", bytes);
    rc = 0;
done:
    image_free(&im);
    drop_motion_free(&m);
    anim_free(&a);
    return rc;
}

/* Reads the scene file; returns malloc'ed text or NULL (message printed). */
static char *read_scene_file(const char *path)
{
    poyo_error err;
    uint8_t *data = NULL;
    size_t len = 0;
    if (file_read_all(path, (size_t)1 << 20, &data, &len, &err) != POYO_OK) {
        cli_error(path, "%s", err.msg);
        return NULL;
    }
    if (memchr(data, '\0', len)) {
        cli_error(path, "the scene file holds a NUL byte; it must be text");
        free(data);
        return NULL;
    }
    char *text = malloc(len + 1);
    if (!text) {
        cli_error(path, "out of memory");
        free(data);
        return NULL;
    }
    memcpy(text, data, len);
    text[len] = '\0';
    free(data);
    return text;
}

/* The options of one poyo sdf run. */
typedef struct sdf_args {
    drop_job j;
    const char *scene_text, *scene_file, *render;
    double iso;
    ask *asks; /* --query and --ray, in order */
    int nasks, nstamps;
} sdf_args;

/* Reads the options into a: 1 when they parse, 0 on an error (said), -1 when
 * --help was asked (and printed). */
static int sdf_parse(sdf_args *a, int argc, char **argv)
{
    cli_parser p;
    cli_init(&p, argc, argv, cli_command_find("sdf"));
    const char *operand;
    int id, ok = 1;
    drop_def *d = &a->j.def;
    while (ok && (id = cli_next(&p, &operand)) != -1) {
        const char *v = p.value, *on = p.name;
        double n = p.num;
        if (cli_output_option(&p, &a->j.out))
            continue;
        switch (id) {
        case -2: ok = 0; break;
        case 0:
            if (a->nstamps++) {
                cli_error(operand, "one stamp at a time (a second one was given)");
                ok = 0;
            }
            a->j.stamp = operand;
            break;
        case OPT_OUTPUT: a->j.output = v; break;
        case OPT_FORCE: a->j.out.force = 1; break;
        case OPT_QUIET: a->j.verbose = 0; break;
        case OPT_VERBOSE: a->j.verbose = 1; break;
        case OPT_HELP: usage(stdout); return -1;
        case OPT_SCENE: a->scene_text = v; break;
        case OPT_SCENE_FILE: a->scene_file = v; break;
        case OPT_SIZE: d->width = p.w; d->height = p.h; break;
        case OPT_QUERY:
            a->asks[a->nasks].kind = ASK_QUERY;
            ok = parse_numbers(on, v, 2, a->asks[a->nasks].v, "a point X,Y");
            a->nasks += ok;
            break;
        case OPT_RAY: ok = parse_ray(on, v, &a->asks[a->nasks]); a->nasks += ok; break;
        case OPT_RENDER: a->render = v; break;
        case OPT_ISO: a->iso = n; break;
        case OPT_STAMP_SIZE: d->stamp_size = n; break;
        case OPT_AT: d->at = v2_make(p.x, p.y); break;
        case OPT_VELOCITY: d->velocity = v2_make(p.x, p.y); break;
        case OPT_SPIN: d->spin = n; break;
        case OPT_TILT: d->tilt = n; break;
        case OPT_GRAVITY: d->gravity = n; break;
        case OPT_RESTITUTION: d->restitution = n; break;
        case OPT_FRICTION: d->friction = n; break;
        case OPT_HZ: d->body.hz = n; break;
        case OPT_DAMPING: d->body.damping = n; break;
        case OPT_VOLUME: d->body.volume = n; break;
        case OPT_DRAG: d->body.drag = n; break;
        case OPT_GRID: d->grid = p.inum; break;
        case OPT_SUBSTEPS: d->body.substeps = p.inum; break;
        case OPT_FPS: d->fps = n; break;
        case OPT_DURATION: d->duration = n; break;
        case OPT_HOLD: d->hold = n; break;
        case OPT_LOOP: d->loop = p.inum; break;
        case OPT_NO_SCENE: d->draw_scene = 0; break;
        case OPT_SCENE_COLOR: ok = parse_color(on, v, d->scene_rgb); break;
        case OPT_FRAMES: a->j.frames_dir = v; break;
        case OPT_SHEET: a->j.sheet = v; break;
        case OPT_MAXPX: a->j.max_pixels = p.inum; break;
        case OPT_MAXMEM: a->j.max_memory = p.bytes; break;
        default: ok = 0; break;
        }
    }
    return ok;
}

/* Checks the options that parsed against each other: 1 when they hold, 0 on an
 * error (said). */
static int sdf_validate(sdf_args *a)
{
    int ok = 1;
    memlimit_set(a->j.max_memory);
    poyo_error err;
    a->j.def.threads = workers_threads_now();
    output_set_threads(&a->j.out, a->j.def.threads);
    if (ok && a->j.stamp && drop_check_def(&a->j.def, &err) != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        ok = 0;
    }
    if (ok && a->j.stamp && quantize_check_def(&a->j.out.quant, &err) != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        ok = 0;
    }
    if (ok && a->scene_text && a->scene_file) {
        cli_error("--scene-file", "give the scene as --scene TEXT or --scene-file FILE, not both");
        ok = 0;
    }
    if (ok && a->scene_file && a->j.stamp && strcmp(a->scene_file, "-") == 0 && strcmp(a->j.stamp, "-") == 0) {
        cli_error("-", "the stamp and the scene cannot both come from standard input");
        ok = 0;
    }
    if (ok && !a->j.stamp && a->nasks == 0 && !a->render) {
        cli_error(NULL, "nothing to do: give a STAMP, --query, --ray or --render (see poyo sdf --help)");
        ok = 0;
    }
    if (ok && !a->j.stamp && (a->j.output || a->j.frames_dir || a->j.sheet)) {
        cli_error(a->j.output ? "-o" : a->j.frames_dir ? "--frames" : "--sheet", "needs a STAMP to drop");
        ok = 0;
    }
    int to_stdout = (a->j.output && strcmp(a->j.output, "-") == 0) ||
                    (a->j.stamp && strcmp(a->j.stamp, "-") == 0 && !a->j.output && !a->j.frames_dir && !a->j.sheet);
    if (ok && to_stdout && a->nasks > 0) {
        cli_error("-o", "the clip and the query answers cannot share standard output");
        ok = 0;
    }
    if (ok && a->render && output_format_of(a->render) != FORMAT_APNG) {
        cli_error("--render", "writes a PNG; name it FILE.png, not %s", a->render);
        ok = 0;
    }
    return ok;
}

/* Reads the scene, answers the queries, draws the field and drops the stamp:
 * the exit status. */
static int sdf_run(sdf_args *a)
{
    char *file_text = NULL;
    sdf_scene *scene = NULL;
    poyo_error err;
    int rc = 2;
    a->j.out.input = a->j.stamp;
    if (a->scene_file) {
        file_text = read_scene_file(a->scene_file);
        if (!file_text) {
            rc = 1;
            goto done;
        }
    }
    const char *text = file_text ? file_text : a->scene_text ? a->scene_text : scene_default_text();
    if (scene_parse(text, a->j.def.width, a->j.def.height, &scene, NULL, &err) != POYO_OK) {
        cli_error(a->scene_file ? a->scene_file : "--scene", "%s", err.msg);
        goto done;
    }
    rc = 1;
    int failed = 0;
    /* from here on an interrupt removes the temporary file being written */
    a->j.out.tmp = batch_trap();
    a->j.out.tmp_cap = BATCH_TMP_MAX;
    answer(scene, a->asks, a->nasks, a->j.def.width, a->j.def.height, stdout);
    if (fflush(stdout) != 0) {
        cli_error("standard output", "%s", strerror(errno));
        failed = 1;
    }
    if (a->render) {
        write_opts wo = { a->j.out.force, a->j.stamp, a->j.out.mode };
        failed |= render_field(scene, a->render, a->j.def.width, a->j.def.height, a->iso, &wo, a->j.out.tmp);
    }
    if (a->j.stamp) {
        char *out = NULL;
        if (!a->j.output && !a->j.frames_dir && !a->j.sheet) {
            if (strcmp(a->j.stamp, "-") == 0) {
                out = strdup("-");
            } else {
                out_format fmt = a->j.out.format == FORMAT_AUTO ? FORMAT_GIF : a->j.out.format;
                out = cli_output_beside(a->j.stamp, output_extension(fmt), "poyo");
            }
            if (!out) {
                cli_error(a->j.stamp, "out of memory");
                failed = 1;
                goto finish;
            }
            a->j.output = out;
        }
        if (a->j.output && strcmp(a->j.output, "-") == 0 && isatty(STDOUT_FILENO)) {
            cli_error("-", "standard output is a terminal; use -o FILE or redirect it");
            failed = 1;
        } else {
            failed |= run_drop(scene, &a->j);
        }
        free(out);
    }
finish:
    rc = failed ? 1 : 0;
done:
    batch_untrap();
    sdf_scene_destroy(scene);
    free(file_text);
    return rc;
}

int cmd_sdf(int argc, char **argv)
{
    sdf_args a;
    memset(&a, 0, sizeof a);
    a.j.def = drop_default_def();
    a.j.out = output_default_def();
    a.j.max_pixels = IMAGE_DEFAULT_MAX_PIXELS;
    a.j.max_memory = MEMLIMIT_DEFAULT_MEMORY;
    a.j.out.mode = cli_file_mode();
    a.iso = sdf_default_def().iso_spacing_px;
    a.asks = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *a.asks);
    if (!a.asks) {
        cli_error(NULL, "out of memory");
        return 1;
    }
    int ok = sdf_parse(&a, argc, argv), rc = 0;
    if (ok > 0)
        rc = sdf_validate(&a) ? sdf_run(&a) : 2;
    else if (ok == 0)
        rc = 2;
    free(a.asks);
    return rc;
}
