/* cmd_path.c - `poyo path`: fits involute arcs through waypoints given in canvas
 * fractions and screen degrees, then draws the path as SVG, samples it at equal
 * arc-length steps, answers nearest-point queries, or carries a soft stamp along it. */
#include "cmd.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "geom/path.h"
#include "geom/vec2.h"
#include "image/image.h"
#include "image/memclip.h"
#include "image/output.h"
#include "sim/follow.h"
#include "util/bytebuf.h"
#include "util/fileio.h"
#include "util/memlimit.h"
#include "util/workers.h"

#define COORD_MAX CLI_PATH_COORD_MAX
#define MAX_WAYPOINTS CLI_PATH_WAYPOINTS_MAX

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: poyo path --through \"X,Y,DEG X,Y,DEG ...\" [OPTIONS] [STAMP]\n"
            "Fit a path of involute-curve arcs through waypoints, then draw it (--svg), sample it\n"
            "(--sample), query it (--nearest), or carry a soft STAMP (a PNG) along it at constant speed.\n"
            "\n"
            "Waypoints: X,Y is a point in canvas fractions (0,0 top-left, 1,1 bottom-right, y down;\n"
            "values outside 0..1 are allowed up to %d); DEG is the direction of travel there in\n"
            "degrees on screen, positive turning CLOCKWISE from right: 0 right, 90 down, 180 left,\n"
            "-90 (or 270) up. Separate waypoints by spaces; --through may be repeated to add more.\n"
            "A pair that would need to bend both ways (an S) is split into two arcs automatically.\n"
            "The path is closed when its last waypoint equals its first, point and angle.\n"
            "\n",
            COORD_MAX);
    /* the options, the loops, then -h after the last (empty) heading */
    cli_print_options(out, cli_command_find("path"), NULL, "");
    fprintf(out,
            "\nLoops: a closed path plays one lap, and --bounce one round trip, and both loop seamlessly.\n"
            "Otherwise the stamp starts at rest at the first waypoint, travels to the last, settles\n"
            "there (at most %g s) and the clip starts over at the first waypoint.\n",
            follow_default_def().max_hold);
    cli_print_options(out, cli_command_find("path"), "", NULL);
    fputs("Exit status: 0 success, 1 the stamp or an output failed, 2 usage error (a malformed or\n"
          "impossible --through included).\n",
          out);
}

/* A waypoint as the user gave it: canvas fractions and screen degrees. */
typedef struct waypoint {
    double x, y, deg;
} waypoint;

typedef struct waylist {
    waypoint *w;
    int n, cap;
} waylist;

/* Parses one "X,Y,DEG" token (len bytes); returns 1 on success. */
static int parse_waypoint(const char *s, size_t len, waypoint *out)
{
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    double v[3];
    const char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || !isfinite(v[i]) || errno == ERANGE)
            return 0;
        if (*end != (i < 2 ? ',' : '\0'))
            return 0;
        p = end + 1;
    }
    out->x = v[0];
    out->y = v[1];
    out->deg = v[2];
    return 1;
}

/* Appends the waypoints of one --through value; prints a message and returns 0 on error. */
static int add_waypoints(waylist *l, const char *opt, const char *s)
{
    const char *sep = " \t\n;";
    const char *p = s;
    int added = 0;
    while (*p) {
        p += strspn(p, sep);
        if (!*p)
            break;
        size_t len = strcspn(p, sep);
        waypoint w;
        int num = l->n + 1;
        if (!parse_waypoint(p, len, &w)) {
            cli_error(opt, "waypoint %d '%.*s' is not X,Y,DEG (canvas fractions and degrees)", num,
                      (int)(len < 60 ? len : 60), p);
            return 0;
        }
        if (fabs(w.x) > COORD_MAX || fabs(w.y) > COORD_MAX) {
            cli_error(opt, "waypoint %d '%.*s' lies beyond %d canvas fractions", num, (int)(len < 60 ? len : 60), p,
                      COORD_MAX);
            return 0;
        }
        if (l->n == MAX_WAYPOINTS) {
            cli_error(opt, "more than %d waypoints", MAX_WAYPOINTS);
            return 0;
        }
        if (l->n == l->cap) {
            int nc = l->cap ? 2 * l->cap : 16;
            waypoint *nw = realloc(l->w, (size_t)nc * sizeof *nw);
            if (!nw) {
                cli_error(opt, "out of memory");
                return 0;
            }
            l->w = nw;
            l->cap = nc;
        }
        l->w[l->n++] = w;
        added++;
        p += len;
    }
    if (!added) {
        cli_error(opt, "no waypoints in '%s' (give X,Y,DEG X,Y,DEG ...)", s);
        return 0;
    }
    return 1;
}

/* Screen degrees (clockwise from right, y down) to path radians in pixel space. */
static double to_radians(double deg) { return remainder(deg, 360.0) * PI / 180.0; }

/* 1 when the last waypoint repeats the first, point and angle. */
static int is_closed(const waylist *l)
{
    const waypoint *a = &l->w[0], *b = &l->w[l->n - 1];
    return l->n >= 3 && fabs(a->x - b->x) <= 1e-9 && fabs(a->y - b->y) <= 1e-9 &&
           fabs(remainder(a->deg - b->deg, 360.0)) <= 1e-9;
}

/* A number for printing: no negative zero. */
static double clean(double v) { return fabs(v) < 5e-7 ? 0.0 : v; }

/* Prints x y angle s [distance] for a point at arc length s (pixels). */
static void print_point(const path *p, double s, int w, int h, const double *dist)
{
    v2 pos;
    double angle;
    path_eval(p, s, &pos, &angle);
    double deg = angle * 180.0 / PI;
    if (dist)
        printf("%.6f %.6f %.6f %.6f %.6f\n", clean(pos.x / w), clean(pos.y / h), clean(deg), clean(s / w),
               clean(*dist / w));
    else
        printf("%.6f %.6f %.6f %.6f\n", clean(pos.x / w), clean(pos.y / h), clean(deg), clean(s / w));
}

/* Appends formatted text to an SVG under construction. */
static poyo_status svg_add(bytebuf *b, poyo_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static poyo_status svg_add(bytebuf *b, poyo_error *err, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return poyo_fail(err, POYO_ERR_USAGE, "SVG element too long");
    return bytebuf_append(b, tmp, (size_t)n, err);
}

/* The SVG picture of the path: curve, split joints, waypoints, tangents, numbers. */
static poyo_status svg_build(const path *p, const path_point *pts, int n, int closed, int w, int h, bytebuf *b,
                             poyo_error *err)
{
    char *d = NULL;
    size_t need = 0;
    double side = fmin(w, h), sw = fmax(1.0, side / 200.0), tan_len = 0.08 * side, r = 2.0 * sw;
    poyo_status st = path_svg_d(p, 1.0, 1.0, 0.05, NULL, 0, &need, err);
    if (st != POYO_OK)
        goto done;
    d = malloc(need + 1);
    if (!d) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the SVG");
        goto done;
    }
    st = path_svg_d(p, 1.0, 1.0, 0.05, d, need + 1, &need, err);
    if (st != POYO_OK)
        goto done;
    st = svg_add(b, err,
                 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
                 "<title>poyo path: %d waypoints, %d arcs, length %.4f canvas widths%s</title>\n",
                 w, h, w, h, n, path_segment_count(p), path_length(p) / w, closed ? ", closed" : "");
    if (st == POYO_OK)
        st = svg_add(b, err, "<path fill=\"none\" stroke=\"#3b6fd4\" stroke-width=\"%.2f\" stroke-linejoin=\"round\" "
                             "stroke-linecap=\"round\" d=\"", sw);
    if (st == POYO_OK)
        st = bytebuf_append(b, d, need, err);
    if (st == POYO_OK)
        st = svg_add(b, err, "\"/>\n<g fill=\"#ffffff\" stroke=\"#3b6fd4\" stroke-width=\"%.2f\">\n", 0.75 * sw);
    /* joints where a pair of waypoints was split into two arcs */
    for (int i = 1; st == POYO_OK && i < path_segment_count(p); i++) {
        v2 o = path_segment_get(p, i)->origin;
        int at_waypoint = 0;
        for (int k = 0; k < n && !at_waypoint; k++)
            at_waypoint = v2_dist(o, pts[k].p) <= 1e-6 * side;
        if (!at_waypoint)
            st = svg_add(b, err, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"/>\n", o.x, o.y, r);
    }
    if (st == POYO_OK)
        st = svg_add(b, err, "</g>\n<g fill=\"#e0457b\" stroke=\"#e0457b\" stroke-width=\"%.2f\">\n", 0.75 * sw);
    int shown = closed ? n - 1 : n;
    for (int k = 0; st == POYO_OK && k < shown; k++) {
        v2 q = pts[k].p, u = v2_from_angle(pts[k].angle), v = v2_perp(u);
        v2 base = v2_madd(q, 0.7 * tan_len, u), tip = v2_madd(q, tan_len, u);
        v2 l = v2_madd(base, 0.18 * tan_len, v), rr = v2_madd(base, -0.18 * tan_len, v);
        st = svg_add(b, err,
                     "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"/>"
                     "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
                     "<polygon points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\"/>\n",
                     q.x, q.y, r, q.x, q.y, base.x, base.y, tip.x, tip.y, l.x, l.y, rr.x, rr.y);
    }
    if (st == POYO_OK)
        st = svg_add(b, err, "</g>\n<g fill=\"#444444\" font-family=\"sans-serif\" font-size=\"%.1f\">\n",
                     fmax(8.0, side / 24.0));
    for (int k = 0; st == POYO_OK && k < shown; k++) {
        /* the number sits on the side away from the tangent arrow */
        v2 u = v2_from_angle(pts[k].angle), at = v2_madd(pts[k].p, -0.35 * tan_len, u);
        st = svg_add(b, err,
                     "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" dominant-baseline=\"middle\">%d</text>\n",
                     at.x, at.y, k + 1);
    }
    if (st == POYO_OK)
        st = svg_add(b, err, "</g>\n</svg>\n");
done:
    free(d);
    return st;
}

typedef struct stamp_opts {
    follow_def follow;
    output_def out;
    const char *output, *frames_dir, *sheet;
    int verbose;
    long long max_pixels;
    long long max_memory;  /* --max-memory, bytes */
} stamp_opts;

/* Reads, simulates, renders and writes the stamp; returns the exit status. */
static int run_stamp(const char *input, const char *output, const path *p, const stamp_opts *o)
{
    poyo_error err;
    image im = { 0 };
    motion m;
    memset(&m, 0, sizeof m);
    anim a;
    memset(&a, 0, sizeof a);
    int rc = 1;
    size_t bytes = 0;
    /* an output that cannot be written costs no decoding */
    if (output && output_check(output, input, &o->out, &err) != POYO_OK) {
        cli_error(output, "%s", err.msg);
        goto done;
    }
    if (image_load(input, o->max_pixels, &im, &err) != POYO_OK) {
        cli_error(input, "%s", err.msg);
        goto done;
    }
    poyo_status st = follow_simulate(&im, p, &o->follow, &m, &err);
    if (st == POYO_OK) {
        memlimit_clip lc = memlimit_clip_for(&im, m.count, o->follow.width, o->follow.height, &o->out, output);
        lc.sheet = o->sheet != NULL;
        st = memlimit_check_clip(&lc, "--size, --fps or the duration", &err);
    }
    if (st == POYO_OK)
        st = follow_render(&im, &m, &o->follow, &a, &err);
    if (st != POYO_OK) {
        cli_error(input, "%s", err.msg);
        rc = st == POYO_ERR_USAGE ? 2 : 1;
        goto done;
    }
    if (!cli_write_stills(&a, o->frames_dir, o->sheet, &o->out))
        goto done;
    if (output) {
        st = output_write(&a, output, input, &o->out, &bytes, &err);
        if (st != POYO_OK) {
            cli_error(output, "%s", err.msg);
            goto done;
        }
    }
    if (o->verbose)
        cli_note(input, "wrote %s (%dx%d, %d frames, %.2f s, %zu bytes)", output ? output : "frames", a.width,
                 a.height, a.count, anim_duration(&a), bytes);
    rc = 0;
done:
    image_free(&im);
    motion_free(&m);
    anim_free(&a);
    return rc;
}

/* The options of one poyo path run. */
typedef struct path_args {
    stamp_opts o;
    waylist wl;
    v2 *near; /* the --nearest points, in order */
    int nnear, nsample, bounce;
    double speed;
    const char *svg, *stamp;
} path_args;

/* The one operand, the stamp: 1, or 0 on an error (said). */
static int path_operand(path_args *a, const char *operand)
{
    waypoint w;
    struct stat sst;
    if (parse_waypoint(operand, strlen(operand), &w) && stat(operand, &sst) != 0) {
        cli_error(operand, "looks like a waypoint; quote the whole list: --through \"X,Y,DEG X,Y,DEG ...\"");
        return 0;
    }
    if (a->stamp) {
        cli_error(operand, "one stamp at a time (already have %s)", a->stamp);
        return 0;
    }
    a->stamp = operand;
    return 1;
}

/* Reads the options into a: 1 when they parse, 0 on an error (said), -1 when
 * --help was asked (and printed). */
static int path_parse(path_args *a, int argc, char **argv)
{
    int ok = 1;
    cli_parser p;
    cli_init(&p, argc, argv, cli_command_find("path"));
    const char *operand;
    int id;
    follow_def *f = &a->o.follow;
    while (ok && (id = cli_next(&p, &operand)) != -1) {
        const char *v = p.value, *on = p.name;
        double n = p.num;
        if (cli_output_option(&p, &a->o.out))
            continue;
        switch (id) {
        case -2: ok = 0; break;
        case 0: ok = path_operand(a, operand); break;
        case OPT_THROUGH: ok = add_waypoints(&a->wl, on, v); break;
        case OPT_SVG: a->svg = v; break;
        case OPT_SAMPLE: a->nsample = p.inum; break;
        case OPT_NEAREST: a->near[a->nnear++] = v2_make(p.x, p.y); break;
        case OPT_SIZE: f->width = p.w; f->height = p.h; break;
        case OPT_OUTPUT: a->o.output = v; break;
        case OPT_FORCE: a->o.out.force = 1; break;
        case OPT_QUIET: a->o.verbose = 0; break;
        case OPT_VERBOSE: a->o.verbose = 1; break;
        case OPT_HELP: usage(stdout); return -1;
        case OPT_STAMP_SIZE: f->stamp_size = n; break;
        case OPT_DURATION: f->duration = n; a->speed = 0.0; break;
        case OPT_SPEED:
            a->speed = n;
            if (!(a->speed > 0.0)) {
                cli_error(on, "must be a positive number of canvas widths per second, not %s", v);
                ok = 0;
            }
            break;
        case OPT_BOUNCE: a->bounce = 1; break;
        case OPT_NO_TURN: f->turn = 0; break;
        case OPT_FACING:
            if (strcmp(v, "start") == 0)
                f->facing = NAN;
            else if ((ok = cli_double(on, v, &n)) != 0)
                f->facing = to_radians(n);
            break;
        case OPT_CORE: f->core = n; break;
        case OPT_HZ: f->body.hz = n; break;
        case OPT_DAMPING: f->body.damping = n; break;
        case OPT_VOLUME: f->body.volume = n; break;
        case OPT_GRID: f->grid = p.inum; break;
        case OPT_FPS: f->fps = n; break;
        case OPT_LOOP: f->loop = p.inum; break;
        case OPT_FRAMES: a->o.frames_dir = v; break;
        case OPT_SHEET: a->o.sheet = v; break;
        case OPT_MAXPX: a->o.max_pixels = p.inum; break;
        case OPT_MAXMEM: a->o.max_memory = p.bytes; break;
        default: ok = 0; break;
        }
    }
    return ok;
}

/* Checks the options that parsed against each other: 1 when they hold, 0 on an
 * error (said). */
static int path_validate(path_args *a)
{
    if (a->wl.n == 0) {
        cli_error(NULL, "no path: give --through \"X,Y,DEG X,Y,DEG ...\" (see poyo path --help)");
        return 0;
    }
    if (a->wl.n < 2) {
        cli_error("--through", "needs at least 2 waypoints, got 1");
        return 0;
    }
    if (!a->svg && !a->nsample && !a->nnear && !a->stamp) {
        cli_error(NULL, "nothing to do: give --svg FILE, --sample N, --nearest X,Y or a STAMP (see poyo path --help)");
        return 0;
    }
    if (!a->stamp && (a->o.output || a->o.frames_dir || a->o.sheet)) {
        cli_error(a->o.output ? "-o" : a->o.frames_dir ? "--frames" : "--sheet", "needs a STAMP to animate");
        return 0;
    }
    if (a->svg && strcmp(a->svg, "-") == 0 && (a->nsample || a->nnear || (a->stamp && a->o.output && strcmp(a->o.output, "-") == 0))) {
        cli_error("--svg", "standard output is taken by other output; give the SVG a file name");
        return 0;
    }
    memlimit_set(a->o.max_memory);
    poyo_error err;
    if (quantize_check_def(&a->o.out.quant, &err) != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        return 0;
    }
    return 1;
}

/* The path through the waypoints, fitted in canvas pixels so the angles asked
 * for are the angles seen: 0, or the exit status of a failure (said). */
static int path_build(const path_args *a, path_point **pts, path **pth)
{
    poyo_error err;
    int W = a->o.follow.width, H = a->o.follow.height;
    *pts = malloc((size_t)a->wl.n * sizeof **pts);
    if (!*pts) {
        cli_error("path", "out of memory");
        return 1;
    }
    for (int i = 0; i < a->wl.n; i++) {
        (*pts)[i].p = v2_make(a->wl.w[i].x * W, a->wl.w[i].y * H);
        (*pts)[i].angle = to_radians(a->wl.w[i].deg);
    }
    path_def pd = path_default_def();
    if (path_create(&pd, *pts, a->wl.n, pth, &err) != POYO_OK) {
        const char *msg = strncmp(err.msg, "path: ", 6) == 0 ? err.msg + 6 : err.msg;
        cli_error("--through", "%s", msg);
        return 2;
    }
    return 0;
}

/* The stamp's motion along the path and the name of its clip: 0, or the exit
 * status of a failure (said). */
static int path_prepare_stamp(path_args *a, const path *pth, int closed, char **outname)
{
    poyo_error err;
    a->o.out.input = a->stamp;
    a->o.follow.mode = a->bounce ? FOLLOW_BOUNCE : closed ? FOLLOW_LOOP : FOLLOW_ONCE;
    if (a->speed > 0.0) {
        double widths = path_length(pth) / a->o.follow.width;
        a->o.follow.duration = widths / a->speed;
        if (!(a->o.follow.duration >= ANIM_DURATION_MIN && a->o.follow.duration <= ANIM_DURATION_MAX)) {
            cli_error("--speed", "the path is %.4g canvas widths long, so %g per second makes a trip of %.4g s; "
                      "a trip must take %g to %g seconds", widths, a->speed, a->o.follow.duration, ANIM_DURATION_MIN,
                      ANIM_DURATION_MAX);
            return 2;
        }
    }
    a->o.follow.threads = workers_threads_now();
    output_set_threads(&a->o.out, a->o.follow.threads);
    if (follow_check_def(&a->o.follow, &err) != POYO_OK) {
        cli_error(NULL, "%s", err.msg);
        return 2;
    }
    out_format fmt = a->o.out.format;
    if (fmt == FORMAT_AUTO && a->o.output)
        fmt = output_format_of(a->o.output);
    if (fmt == FORMAT_AUTO)
        fmt = FORMAT_GIF;
    if (a->o.output)
        *outname = strdup(a->o.output);
    else if (strcmp(a->stamp, "-") == 0)
        *outname = strdup("-");
    else if (!a->o.frames_dir && !a->o.sheet)
        *outname = cli_output_beside(a->stamp, output_extension(fmt), "poyo");
    if ((a->o.output || (!a->o.frames_dir && !a->o.sheet)) && !*outname) {
        cli_error("path", "out of memory");
        return 1;
    }
    if (*outname && strcmp(*outname, "-") == 0 && (a->nsample || a->nnear)) {
        cli_error("-o", "standard output is taken by --sample/--nearest; give the clip a file name");
        return 2;
    }
    if (*outname && strcmp(*outname, "-") == 0 && isatty(STDOUT_FILENO)) {
        /* exit 1, as the other commands: the command line is fine, its standard output is not */
        cli_error("-", "standard output is a terminal; use -o FILE or redirect it");
        return 1;
    }
    return 0;
}

/* Writes what was asked: the SVG, the samples and nearest points, the clip. */
static int path_outputs(path_args *a, const path *pth, const path_point *pts, int closed, const char *outname,
                        bytebuf *svgbuf)
{
    int W = a->o.follow.width, H = a->o.follow.height;
    poyo_error err;
    /* from here on an interrupt removes the temporary file being written */
    a->o.out.tmp = batch_trap();
    a->o.out.tmp_cap = BATCH_TMP_MAX;
    if (a->svg) {
        write_opts wo = { a->o.out.force, a->stamp, a->o.out.mode };
        if (svg_build(pth, pts, a->wl.n, closed, W, H, svgbuf, &err) != POYO_OK ||
            file_write_atomic(a->svg, svgbuf->data, svgbuf->len, &wo, a->o.out.tmp, a->o.out.tmp_cap, &err) != POYO_OK) {
            cli_error(a->svg, "%s", err.msg);
            return 1;
        }
        if (a->o.verbose)
            cli_note("path", "wrote %s (%d waypoints, %d arcs)", a->svg, a->wl.n, path_segment_count(pth));
    }
    if (a->nsample) {
        double L = path_length(pth);
        for (int i = 0; i < a->nsample; i++)
            print_point(pth, a->nsample > 1 ? (i == a->nsample - 1 ? L : L * i / (a->nsample - 1)) : 0.0, W, H, NULL);
    }
    for (int i = 0; i < a->nnear; i++) {
        double s;
        double dist = path_nearest(pth, v2_make(a->near[i].x * W, a->near[i].y * H), &s, NULL);
        print_point(pth, s, W, H, &dist);
    }
    if ((a->nsample || a->nnear) && (fflush(stdout) != 0 || ferror(stdout))) {
        cli_error("standard output", "write error: %s", strerror(errno));
        return 1;
    }
    return a->stamp ? run_stamp(a->stamp, outname, pth, &a->o) : 0;
}

int cmd_path(int argc, char **argv)
{
    path_args a;
    memset(&a, 0, sizeof a);
    a.o.follow = follow_default_def();
    a.o.out = output_default_def();
    a.o.max_pixels = IMAGE_DEFAULT_MAX_PIXELS;
    a.o.max_memory = MEMLIMIT_DEFAULT_MEMORY;
    a.o.out.mode = cli_file_mode();
    a.near = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *a.near);
    if (!a.near) {
        cli_error("path", "out of memory");
        return 1;
    }
    path_point *pts = NULL;
    path *pth = NULL;
    char *outname = NULL;
    bytebuf svgbuf = { NULL, 0, 0 };
    int ok = path_parse(&a, argc, argv), rc = ok < 0 ? 0 : 2;
    if (ok > 0 && path_validate(&a) && (rc = path_build(&a, &pts, &pth)) == 0) {
        int closed = is_closed(&a.wl);
        if (!a.stamp || (rc = path_prepare_stamp(&a, pth, closed, &outname)) == 0)
            rc = path_outputs(&a, pth, pts, closed, outname, &svgbuf);
    }
    batch_untrap();
    free(a.near);
    free(a.wl.w);
    free(pts);
    free(outname);
    bytebuf_free(&svgbuf);
    path_destroy(pth);
    return rc;
}
