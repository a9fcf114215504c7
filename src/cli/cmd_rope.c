/* cmd_rope.c - `poyo rope [OPTIONS] [STAMP]`: a stamp hanging from a rope and
 * swinging like a phone charm (charm.h), written as a looping animation, or
 * the rope's particle positions per frame as CSV or JSON for other tools. */
#include "cmd.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "image/image.h"
#include "image/memclip.h"
#include "image/output.h"
#include "sim/charm.h"
#include "util/memlimit.h"
#include "util/workers.h"

static void usage(FILE *out)
{
    fputs("Usage: poyo rope [OPTIONS] STAMP.png        a stamp swinging on a rope (a phone charm)\n"
          "       poyo rope --csv|--json [OPTIONS] [STAMP.png]   particle positions per frame\n"
          "The stamp hangs from a rope fixed near the top of the canvas, gets a sideways kick and\n"
          "swings; it wobbles as a soft body when the swing turns. The clip is one period of the\n"
          "steady swing (frame 0: the stamp passing under the anchor), so it loops seamlessly.\n"
          "With --drag above 0 the swing dies down instead and the clip eases back to rest; so\n"
          "does a swing that never repeats (a kick above about 2.5 sends it over the top).\n"
          "STAMP is a PNG file or - for standard input. Without -o, STEM.gif is written beside it.\n"
          "Positions are canvas fractions: 0,0 top-left, 1,1 bottom-right, y down.\n"
          "\n",
          out);
    cli_print_options(out, cli_command_find("rope"), NULL, NULL);
    fputs("Exit status: 0 success, 1 the input failed, 2 usage error.\n", out);
}

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Parses #rrggbb (the # may be left out). */
static int parse_color(const char *opt, const char *s, uint8_t rgb[3])
{
    const char *p = s[0] == '#' ? s + 1 : s;
    if (strlen(p) != 6)
        goto bad;
    for (int i = 0; i < 3; i++) {
        int hi = hex_digit(p[2 * i]), lo = hex_digit(p[2 * i + 1]);
        if (hi < 0 || lo < 0)
            goto bad;
        rgb[i] = (uint8_t)(hi * 16 + lo);
    }
    return 1;
bad:
    cli_error(opt, "'%s' is not a colour like #8b5a3c", s);
    return 0;
}

/* Prints the chain's points per frame from the kick: CSV rows or one JSON document. */
static int dump(const charm_def *d, const image *stamp, int json, double seconds, const char *name)
{
    poyo_error err;
    charm *c = NULL;
    if (charm_create(d, stamp, &c, &err) != POYO_OK) {
        cli_error(name, "%s", err.msg);
        return 1;
    }
    int n = charm_point_count(c);
    v2 *p = malloc((size_t)n * sizeof *p);
    if (!p) {
        charm_destroy(c);
        cli_error(name, "out of memory");
        return 1;
    }
    int frames = (int)lround(seconds * d->fps);
    if (frames < 1)
        frames = 1;
    double W = d->width, H = d->height;
    if (json)
        printf("{\"width\": %d, \"height\": %d, \"fps\": %g, \"particles\": %d, \"stamp\": %s,\n \"frames\": [\n",
               d->width, d->height, d->fps, n, stamp ? "true" : "false");
    else
        printf("frame,time,particle,x,y\n");
    for (int f = 0; f < frames; f++) {
        if (f > 0)
            charm_step_frame(c);
        charm_points(c, p);
        double t = f / d->fps;
        if (json) {
            printf("  {\"frame\": %d, \"time\": %.6f, \"points\": [", f, t);
            for (int i = 0; i < n; i++)
                printf("%s[%.6f, %.6f]", i ? ", " : "", p[i].x / W, p[i].y / H);
            printf("]}%s\n", f + 1 < frames ? "," : "");
        } else {
            for (int i = 0; i < n; i++)
                printf("%d,%.6f,%d,%.6f,%.6f\n", f, t, i, p[i].x / W, p[i].y / H);
        }
    }
    if (json)
        printf(" ]}\n");
    free(p);
    charm_destroy(c);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("-", "cannot write: %s", strerror(errno));
        return 1;
    }
    return 0;
}

typedef struct rope_opts {
    charm_def charm;
    output_def out;
    const char *input, *output, *frames_dir, *sheet;
    int csv, json, quiet, verbose, have_duration;
    long long max_pixels;
    long long max_memory;  /* --max-memory, bytes */
} rope_opts;

/* Reads and decodes the stamp; prints the message and returns 0 on failure. */
static int load_stamp(const char *input, long long max_pixels, image *im)
{
    poyo_error err;
    if (image_load(input, max_pixels, im, &err) != POYO_OK) {
        cli_error(input, "%s", err.msg);
        return 0;
    }
    return 1;
}

/* Simulates, renders and writes the clip; 0 on success, 1 on failure (message printed). */
static int film(const rope_opts *o, const image *stamp, const char *output)
{
    const char *name = o->input ? o->input : "rope";
    poyo_error err;
    charm_clip clip;
    anim a;
    memset(&a, 0, sizeof a);
    int rc = 1;
    poyo_status st = charm_simulate(&o->charm, stamp, &clip, &err);
    if (st == POYO_OK) {
        memlimit_clip lc = memlimit_clip_for(stamp, clip.count, o->charm.width, o->charm.height, &o->out, output);
        lc.sheet = o->sheet != NULL;
        st = memlimit_check_clip(&lc, "--size, --fps or --duration", &err);
    }
    if (st != POYO_OK || charm_render(&o->charm, &clip, &a, &err) != POYO_OK) {
        cli_error(name, "%s", err.msg);
        goto done;
    }
    if (!cli_write_stills(&a, o->frames_dir, o->sheet, &o->out))
        goto done;
    size_t bytes = 0;
    if (output) {
        st = output_write(&a, output, o->input, &o->out, &bytes, &err);
        if (st != POYO_OK) {
            cli_error(st == POYO_ERR_IO || st == POYO_ERR_USAGE ? output : name, "%s", err.msg);
            goto done;
        }
    }
    if (o->verbose)
        cli_note(name, "wrote %s (%dx%d, %d frames, %.2f s, %s%zu bytes)",
                 output ? output : o->sheet ? o->sheet : o->frames_dir, a.width, a.height, a.count, anim_duration(&a),
                 clip.periodic ? "one loop of the swing, " : clip.settled ? "settled, " : "", bytes);
    rc = 0;
done:
    charm_clip_free(&clip);
    anim_free(&a);
    return rc;
}

/* Reads the options into o: 1 when they parse, 0 on an error (said), -1
 * when --help was asked (and printed). */
static int rope_parse(rope_opts *o, int argc, char **argv)
{
    cli_parser p;
    cli_init(&p, argc, argv, cli_command_find("rope"));
    const char *operand;
    int id, ok = 1;
    charm_def *c = &o->charm;
    while (ok && (id = cli_next(&p, &operand)) != -1) {
        const char *v = p.value;
        double n = p.num;
        if (cli_output_option(&p, &o->out))
            continue;
        switch (id) {
        case -2: ok = 0; break;
        case 0:
            if (o->input) {
                cli_error(operand, "poyo rope takes one stamp (already have %s)", o->input);
                ok = 0;
            }
            o->input = operand;
            break;
        case OPT_OUTPUT: o->output = v; break;
        case OPT_FORCE: o->out.force = 1; break;
        case OPT_QUIET: o->quiet = 1; o->verbose = 0; break;
        case OPT_VERBOSE: o->verbose = 1; o->quiet = 0; break;
        case OPT_HELP: usage(stdout); return -1;
        case OPT_CSV: o->csv = 1; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_SIZE: c->width = p.w; c->height = p.h; break;
        case OPT_ANCHOR_AT: c->anchor = v2_make(p.x, p.y); break;
        case OPT_LENGTH: c->length = n; break;
        case OPT_SEGMENTS: c->segments = p.inum; break;
        case OPT_STIFFNESS: c->stiffness = n; break;
        case OPT_ITERATIONS: c->iterations = p.inum; break;
        case OPT_ROPE_DAMPING: c->rope_damping = n; break;
        case OPT_DRAG: c->drag = n; break;
        case OPT_GRAVITY: c->gravity = n; break;
        case OPT_ROPE_MASS: c->rope_mass = n; break;
        case OPT_STAMP_SIZE: c->stamp_size = n; break;
        case OPT_GRID: c->grid = p.inum; break;
        case OPT_WOBBLE: c->wobble = n; break;
        case OPT_HZ: c->body.hz = n; break;
        case OPT_DAMPING: c->body.damping = n; break;
        case OPT_VOLUME: c->body.volume = n; break;
        case OPT_KICK: c->kick = n; break;
        case OPT_ANGLE: c->angle = n; break;
        case OPT_FPS: c->fps = n; break;
        case OPT_DURATION: c->duration = n; o->have_duration = 1; break;
        case OPT_LOOP: c->loop = p.inum; break;
        case OPT_ROPE_COLOR: ok = parse_color(p.name, v, c->rope_rgb); break;
        case OPT_ROPE_WIDTH: c->rope_width = n; break;
        case OPT_FRAMES: o->frames_dir = v; break;
        case OPT_SHEET: o->sheet = v; break;
        case OPT_MAXPX: o->max_pixels = p.inum; break;
        case OPT_MAXMEM: o->max_memory = p.bytes; break;
        default: ok = 0; break;
        }
    }
    return ok;
}

/* Checks the options that parsed against each other: 1 when they hold, 0 on an
 * error (said). */
static int rope_validate(rope_opts *o)
{
    int ok = 1;
    memlimit_set(o->max_memory);
    poyo_error err;
    o->charm.threads = workers_threads_now();
    output_set_threads(&o->out, o->charm.threads);
    if (ok && charm_check_def(&o->charm, &err) != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        ok = 0;
    }
    if (ok && quantize_check_def(&o->out.quant, &err) != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        ok = 0;
    }
    int dumping = o->csv || o->json;
    if (ok && o->csv && o->json) {
        cli_error("--json", "cannot be combined with --csv");
        ok = 0;
    }
    if (ok && !dumping && !o->input && !o->output && !o->frames_dir && !o->sheet) {
        cli_error(NULL, "no stamp (usage: poyo rope [OPTIONS] STAMP.png, or --csv/--json; see poyo rope --help)");
        ok = 0;
    }
    if (ok && dumping && o->output && strcmp(o->output, "-") == 0) {
        cli_error("-o", "standard output already carries the %s", o->csv ? "CSV" : "JSON");
        ok = 0;
    }
    return ok;
}

/* Loads the stamp, writes the dump and films the clip: the exit status. */
static int rope_run(rope_opts *o)
{
    o->out.input = o->input;
    image stamp = { 0 };
    int rc = 0;
    char *output = NULL;
    int dumping = o->csv || o->json;
    int writes = o->output || (!dumping && o->input && !o->frames_dir && !o->sheet);
    if (o->output) {
        output = strdup(o->output);
    } else if (writes) {
        if (strcmp(o->input, "-") == 0) {
            output = strdup("-");
        } else {
            out_format fmt = o->out.format == FORMAT_AUTO ? FORMAT_GIF : o->out.format;
            output = cli_output_beside(o->input, output_extension(fmt), "poyo");
        }
    }
    if (writes && !output) {
        cli_error(NULL, "out of memory");
        return 1;
    }
    /* an output that cannot be written costs no decoding */
    poyo_error werr;
    if (output && output_check(output, o->input, &o->out, &werr) != POYO_OK) {
        cli_error(output, "%s", werr.msg);
        free(output);
        return 1;
    }
    if (o->input && !load_stamp(o->input, o->max_pixels, &stamp)) {
        free(output);
        return 1;
    }
    const image *sp = o->input ? &stamp : NULL;
    if (dumping) {
        rc = dump(&o->charm, sp, o->json, o->have_duration ? o->charm.duration : CLI_ROPE_DUMP_SECONDS,
                  o->input ? o->input : "rope");
        if (rc != 0 || (!o->output && !o->frames_dir && !o->sheet)) {
            free(output);
            image_free(&stamp);
            return rc;
        }
    }
    if (output && strcmp(output, "-") == 0 && isatty(STDOUT_FILENO)) {
        cli_error("-", "standard output is a terminal; use -o FILE or redirect it");
        rc = 1;
    } else {
        o->out.tmp = batch_trap();
        o->out.tmp_cap = BATCH_TMP_MAX;
        rc = film(o, sp, output);
        batch_untrap();
    }
    free(output);
    image_free(&stamp);
    return rc;
}

int cmd_rope(int argc, char **argv)
{
    rope_opts o;
    memset(&o, 0, sizeof o);
    o.charm = charm_default_def();
    o.out = output_default_def();
    o.max_pixels = IMAGE_DEFAULT_MAX_PIXELS;
    o.max_memory = MEMLIMIT_DEFAULT_MEMORY;
    o.out.mode = cli_file_mode();
    int ok = rope_parse(&o, argc, argv);
    if (ok < 0)
        return 0;
    if (!ok || !rope_validate(&o))
        return 2;
    return rope_run(&o);
}
