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

enum {
    O_OUTPUT = 1, O_FORCE, O_QUIET, O_VERBOSE, O_HELP, O_CSV, O_JSON, O_SIZE, O_ANCHOR_AT, O_LENGTH, O_SEGMENTS,
    O_STIFFNESS, O_ITERATIONS, O_ROPE_DAMPING, O_DRAG, O_GRAVITY, O_ROPE_MASS, O_STAMP_SIZE, O_GRID, O_WOBBLE, O_HZ,
    O_DAMPING, O_VOLUME, O_KICK, O_ANGLE, O_FPS, O_DURATION, O_LOOP, O_ROPE_COLOR, O_ROPE_WIDTH, O_COLORS,
    O_DITHER, O_ALPHA, O_FORMAT, O_QUALITY, O_FRAMES, O_SHEET, O_MAXPX, O_MAXMEM
};

static const cli_option options[] = {
    { "output", 'o', 1, O_OUTPUT }, { "force", 'f', 0, O_FORCE }, { "quiet", 'q', 0, O_QUIET },
    { "verbose", 'v', 0, O_VERBOSE }, { "help", 'h', 0, O_HELP }, { "csv", 0, 0, O_CSV }, { "json", 0, 0, O_JSON },
    { "size", 's', 1, O_SIZE }, { "anchor-at", 0, 1, O_ANCHOR_AT }, { "length", 0, 1, O_LENGTH },
    { "segments", 0, 1, O_SEGMENTS }, { "stiffness", 0, 1, O_STIFFNESS }, { "iterations", 0, 1, O_ITERATIONS },
    { "rope-damping", 0, 1, O_ROPE_DAMPING }, { "drag", 0, 1, O_DRAG }, { "gravity", 0, 1, O_GRAVITY },
    { "rope-mass", 0, 1, O_ROPE_MASS }, { "stamp-size", 0, 1, O_STAMP_SIZE }, { "grid", 0, 1, O_GRID },
    { "wobble", 0, 1, O_WOBBLE },
    { "hz", 0, 1, O_HZ }, { "damping", 0, 1, O_DAMPING }, { "volume", 0, 1, O_VOLUME }, { "kick", 0, 1, O_KICK },
    { "angle", 0, 1, O_ANGLE }, { "fps", 0, 1, O_FPS }, { "duration", 0, 1, O_DURATION }, { "loop", 0, 1, O_LOOP },
    { "rope-color", 0, 1, O_ROPE_COLOR }, { "rope-width", 0, 1, O_ROPE_WIDTH }, { "colors", 0, 1, O_COLORS },
    { "dither", 0, 1, O_DITHER }, { "alpha-threshold", 0, 1, O_ALPHA }, { "format", 0, 1, O_FORMAT },
    { "quality", 0, 1, O_QUALITY }, { "frames", 0, 1, O_FRAMES }, { "sheet", 0, 1, O_SHEET },
    { "max-pixels", 0, 1, O_MAXPX }, { "max-memory", 0, 1, O_MAXMEM }, { NULL, 0, 0, 0 },
};

/* Seconds of the --csv / --json dump without --duration. */
#define DUMP_SECONDS 2.0

static void usage(FILE *out)
{
    charm_def d = charm_default_def();
    quantize_def q = quantize_default_def();
    fprintf(out,
            "Usage: poyo rope [OPTIONS] STAMP.png        a stamp swinging on a rope (a phone charm)\n"
            "       poyo rope --csv|--json [OPTIONS] [STAMP.png]   particle positions per frame\n"
            "The stamp hangs from a rope fixed near the top of the canvas, gets a sideways kick and\n"
            "swings; it wobbles as a soft body when the swing turns. The clip is one period of the\n"
            "steady swing (frame 0: the stamp passing under the anchor), so it loops seamlessly.\n"
            "With --drag above 0 the swing dies down instead and the clip eases back to rest; so\n"
            "does a swing that never repeats (a kick above about 2.5 sends it over the top).\n"
            "STAMP is a PNG file or - for standard input. Without -o, STEM.gif is written beside it.\n"
            "Positions are canvas fractions: 0,0 top-left, 1,1 bottom-right, y down.\n"
            "\n"
            "Output:\n"
            "  -o, --output FILE        .gif, .png (APNG) or .webp; - = standard output\n"
            "  -f, --force              overwrite an existing output file\n"
            "      --frames DIR         also write every frame as DIR/frame_NNNN.png\n"
            "      --sheet FILE.png     also write a sprite sheet (plus FILE.json)\n"
            "      --format NAME        gif, apng, webp or webm (default: from the -o extension, else gif)\n"
            "      --csv                print frame,time,particle,x,y for %g s (or --duration) from the kick;\n"
            "                           particles 0 (the anchor) to --segments, then the stamp's centre\n"
            "      --json               the same as one JSON document\n"
            "  -q, --quiet              print nothing but errors\n"
            "  -v, --verbose            print a line for the file written\n"
            "\n",
            DUMP_SECONDS);
    fprintf(out,
            "Rope:\n"
            "      --anchor-at X,Y      top of the rope, canvas fractions (-1 to 2, default %g,%g)\n"
            "      --length L           rope length, canvas heights (0.01 to 4, default %g)\n"
            "      --segments N         rope segments (1 to 200, default %d)\n"
            "      --stiffness K        share of the stretch removed per frame, 1 = no stretch\n"
            "                           (0.01 to 1, default %g)\n"
            "      --iterations N       constraint passes per solver step (1 to 200, default %d)\n"
            "      --rope-damping K     share of the rope's bending motion removed per 1/25 s; keeps the\n"
            "                           swing itself (0 to 1, default %g)\n"
            "      --drag D             air drag per second (0 to 100, default %g); above 0 the swing\n"
            "                           dies down and the clip ends at rest\n"
            "      --gravity G          canvas heights per second squared (0.1 to 100, default %g)\n"
            "      --rope-mass R        rope mass over stamp mass (0.01 to 10, default %g)\n"
            "      --rope-color COLOR   #rrggbb (default #%02x%02x%02x)\n"
            "      --rope-width PX      rope thickness, pixels (0.5 to 64, default %g)\n"
            "\n"
            "Kick:\n"
            "      --kick S             the stamp's speed after the kick, canvas heights per second\n"
            "                           (0 to 5, default %g; 0 = hangs still)\n"
            "      --angle DEG          direction, degrees clockwise from right (default %g)\n"
            "\n"
            "Stamp:\n"
            "      --stamp-size F       the stamp's longer side over the canvas's shorter side\n"
            "                           (0.05 to 1, default %g)\n"
            "      --wobble G           how strongly the stamp answers the swing; 1 = physical,\n"
            "                           0 = rigid (0 to 20, default %g)\n"
            "      --hz F               wobbles per second (0.1 to 20, default %g)\n"
            "      --damping RATIO      0 rings forever, 1 no overshoot (0 to 1, default %g)\n"
            "      --volume B           area-preserving squash vs. rigid return (0 to %g, default %g)\n"
            "      --grid N             lattice nodes along the longer side (3 to 64, default %d)\n"
            "      --max-pixels N       refuse larger images before decoding (default 16777216)\n"
            "      --max-memory SIZE    refuse, before the work, a clip estimated to need more memory\n"
            "                           (like 512M, 2G or 4GiB; default 1GiB)\n"
            "\n"
            "Clip and canvas:\n"
            "  -s, --size WxH|N         canvas size (1 to 4096, default %dx%d)\n"
            "      --fps F              frames per second (1 to 100, default %g)\n"
            "      --duration S         seconds (0.1 to 60): the nearest whole number of swings;\n"
            "                           default one swing, or until it settles (at most %g s) with --drag\n"
            "      --loop N             times the clip plays, 0 = forever (0 to 65535, default %d)\n"
            "      --colors N           GIF palette size at most (2 to 256, default %d)\n"
            "      --dither LEVEL       GIF dithering (0 to 1, default %g)\n"
            "      --alpha-threshold N  GIF: alpha at or above N is opaque (1 to 255, default %d)\n"
            "      --quality Q          lossy WebP quality (0 to 100; default lossless)\n"
            "\n"
            "  -h, --help               this help\n"
            "Exit status: 0 success, 1 the input failed, 2 usage error.\n",
            d.anchor.x, d.anchor.y, d.length, d.segments, d.stiffness, d.iterations, d.rope_damping,
            d.drag, d.gravity, d.rope_mass, d.rope_rgb[0], d.rope_rgb[1], d.rope_rgb[2], d.rope_width, d.kick,
            d.angle, d.stamp_size, d.wobble, d.body.hz, d.body.damping, SOFTBODY_VOLUME_MAX, d.body.volume, d.grid, d.width, d.height, d.fps,
            d.max_duration, d.loop, q.colors, q.dither, q.alpha_threshold);
}

/* Parses a number within [lo, hi]; names the option and the range on failure. */
static int range_double(const char *opt, const char *s, double lo, double hi, const char *unit, double *out)
{
    double v;
    if (!cli_double(opt, s, &v))
        return 0;
    if (!(v >= lo && v <= hi)) {
        cli_error(opt, "must be %g to %g%s%s, not %s", lo, hi, *unit ? " " : "", unit, s);
        return 0;
    }
    *out = v;
    return 1;
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
    cli_init(&p, argc, argv, options);
    const char *operand;
    int id, ok = 1;
    charm_def *c = &o->charm;
    while (ok && (id = cli_next(&p, &operand)) != -1) {
        const char *v = p.value, *on = p.name;
        switch (id) {
        case -2: ok = 0; break;
        case 0:
            if (o->input) {
                cli_error(operand, "poyo rope takes one stamp (already have %s)", o->input);
                ok = 0;
            }
            o->input = operand;
            break;
        case O_OUTPUT: o->output = v; break;
        case O_FORCE: o->out.force = 1; break;
        case O_QUIET: o->quiet = 1; o->verbose = 0; break;
        case O_VERBOSE: o->verbose = 1; o->quiet = 0; break;
        case O_HELP: usage(stdout); return -1;
        case O_CSV: o->csv = 1; break;
        case O_JSON: o->json = 1; break;
        case O_SIZE: ok = cli_size(on, v, &c->width, &c->height); break;
        case O_ANCHOR_AT:
            ok = cli_pair(on, v, &c->anchor.x, &c->anchor.y);
            if (ok && !(c->anchor.x >= -1.0 && c->anchor.x <= 2.0 && c->anchor.y >= -1.0 && c->anchor.y <= 2.0)) {
                cli_error(on, "must be -1 to 2 in both coordinates, not %s", v);
                ok = 0;
            }
            break;
        case O_LENGTH: ok = range_double(on, v, 0.01, 4.0, "canvas heights", &c->length); break;
        case O_SEGMENTS: ok = cli_int(on, v, 1, 200, &c->segments); break;
        case O_STIFFNESS: ok = range_double(on, v, 0.01, 1.0, "", &c->stiffness); break;
        case O_ITERATIONS: ok = cli_int(on, v, 1, 200, &c->iterations); break;
        case O_ROPE_DAMPING: ok = range_double(on, v, 0.0, 1.0, "", &c->rope_damping); break;
        case O_DRAG: ok = range_double(on, v, 0.0, 100.0, "", &c->drag); break;
        case O_GRAVITY: ok = range_double(on, v, 0.1, 100.0, "canvas heights/s^2", &c->gravity); break;
        case O_ROPE_MASS: ok = range_double(on, v, 0.01, 10.0, "", &c->rope_mass); break;
        case O_STAMP_SIZE: ok = range_double(on, v, 0.05, 1.0, "", &c->stamp_size); break;
        case O_GRID: ok = cli_int(on, v, 3, 64, &c->grid); break;
        case O_WOBBLE: ok = range_double(on, v, 0.0, 20.0, "", &c->wobble); break;
        case O_HZ: ok = range_double(on, v, 0.1, 20.0, "", &c->body.hz); break;
        case O_DAMPING: ok = range_double(on, v, 0.0, 1.0, "", &c->body.damping); break;
        case O_VOLUME: ok = range_double(on, v, 0.0, SOFTBODY_VOLUME_MAX, "", &c->body.volume); break;
        case O_KICK: ok = range_double(on, v, 0.0, 5.0, "canvas heights/s", &c->kick); break;
        case O_ANGLE: ok = range_double(on, v, -1e6, 1e6, "degrees", &c->angle); break;
        case O_FPS: ok = range_double(on, v, 1.0, 100.0, "", &c->fps); break;
        case O_DURATION:
            ok = range_double(on, v, 0.1, 60.0, "seconds", &c->duration);
            o->have_duration = 1;
            break;
        case O_LOOP: ok = cli_int(on, v, 0, 65535, &c->loop); break;
        case O_ROPE_COLOR: ok = parse_color(on, v, c->rope_rgb); break;
        case O_ROPE_WIDTH: ok = range_double(on, v, 0.5, 64.0, "pixels", &c->rope_width); break;
        case O_COLORS: ok = cli_output_option(CLI_OUT_COLORS, on, v, &o->out); break;
        case O_DITHER: ok = cli_output_option(CLI_OUT_DITHER, on, v, &o->out); break;
        case O_ALPHA: ok = cli_output_option(CLI_OUT_ALPHA, on, v, &o->out); break;
        case O_FORMAT: ok = cli_output_option(CLI_OUT_FORMAT, on, v, &o->out); break;
        case O_QUALITY: ok = cli_output_option(CLI_OUT_QUALITY, on, v, &o->out); break;
        case O_FRAMES: o->frames_dir = v; break;
        case O_SHEET: o->sheet = v; break;
        case O_MAXPX: ok = cli_max_pixels(on, v, &o->max_pixels); break;
        case O_MAXMEM: ok = cli_max_memory(on, v, &o->max_memory); break;
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
    o->charm.threads = batch_cores() < 8 ? batch_cores() : 8;
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
        rc = dump(&o->charm, sp, o->json, o->have_duration ? o->charm.duration : DUMP_SECONDS,
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
