/* scene.c - a recursive-descent parser for the scene language of scene.h: canvas
 * fractions in, an sdf_scene in pixels out, errors that name the column. */
#include "scene.h"
#include "vec2.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_MAX_VALUE 1e6
#define SCENE_MAX_COUNT 1000000
#define SCENE_MAX_ARGS 5
#define SCENE_NUMBER_MAX 320

typedef enum word_kind {
    W_CIRCLE, W_BOX, W_RBOX, W_SEGMENT, W_FLOOR, W_CEILING, W_LEFT, W_RIGHT, W_WALL,
    W_PLANE, W_REPEAT, W_UNION, W_SUB, W_SMIN, W_SMINE, W_UNKNOWN
} word_kind;

/* Name, required and optional argument counts, argument names. */
typedef struct word_spec {
    const char *name;
    int nreq, nopt;
    const char *arg[SCENE_MAX_ARGS];
} word_spec;

static const word_spec g_words[] = {
    [W_CIRCLE] = { "circle", 3, 0, { "x", "y", "r" } },
    [W_BOX] = { "box", 4, 0, { "x", "y", "hw", "hh" } },
    [W_RBOX] = { "rbox", 5, 0, { "x", "y", "hw", "hh", "r" } },
    [W_SEGMENT] = { "segment", 4, 1, { "x1", "y1", "x2", "y2", "r" } },
    [W_FLOOR] = { "floor", 1, 0, { "y" } },
    [W_CEILING] = { "ceiling", 1, 0, { "y" } },
    [W_LEFT] = { "left", 1, 0, { "x" } },
    [W_RIGHT] = { "right", 1, 0, { "x" } },
    [W_WALL] = { "wall", 1, 0, { "x" } },
    [W_PLANE] = { "plane", 3, 0, { "x", "y", "angle" } },
    [W_REPEAT] = { "repeat", 2, 2, { "px", "py", "nx", "ny" } },
    [W_UNION] = { "union", 0, 0, { NULL } },
    [W_SUB] = { "sub", 0, 0, { NULL } },
    [W_SMIN] = { "smin", 1, 0, { "w" } },
    [W_SMINE] = { "smine", 1, 0, { "w" } },
};

#define EXPECTED_WORDS "circle, box, rbox, segment, floor, ceiling, left, right, wall, plane, " \
                       "repeat, or an operator smin, smine, sub, union"

typedef struct parser {
    const char *s;
    size_t i;
    double w, h, unit;   /* canvas width, height, min of both (pixels) */
    int shapes;          /* shapes read so far, weighed as SCENE_MAX_SHAPES says */
    int *column;
    poyo_error *err;
} parser;

const char *scene_default_text(void) { return "floor(0.92)"; }

/* Reports a syntax error at byte offset at: "column N: ...". */
static poyo_status
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    fail_at(parser *p, size_t at, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int line = 1, col = 1, multiline = strchr(p->s, '\n') != NULL;
    for (size_t k = 0; k < at && p->s[k]; k++) {
        unsigned char c = (unsigned char)p->s[k];
        if (c == '\n') {
            line++;
            col = 1;
        } else if ((c & 0xC0) != 0x80) {
            col++;
        }
    }
    if (p->column)
        *p->column = col;
    if (multiline)
        return poyo_fail(p->err, POYO_ERR_USAGE, "line %d, column %d: %s", line, col, what);
    return poyo_fail(p->err, POYO_ERR_USAGE, "column %d: %s", col, what);
}

/* Describes the text at offset at for a message: 'x', "end of text" or a byte in hex. */
static void describe_at(const parser *p, size_t at, char *buf, size_t n)
{
    unsigned char c = (unsigned char)p->s[at];
    if (c == '\0')
        snprintf(buf, n, "end of text");
    else if (isprint(c))
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02X", c);
}

static void skip_ws(parser *p)
{
    for (;;) {
        unsigned char c = (unsigned char)p->s[p->i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            p->i++;
        } else if (c == '#') {
            while (p->s[p->i] && p->s[p->i] != '\n')
                p->i++;
        } else {
            return;
        }
    }
}

static int is_word_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Reads a word at the cursor (which must start one); returns its kind. */
static word_kind read_word(parser *p, size_t *start, size_t *len)
{
    *start = p->i;
    while (is_word_char(p->s[p->i]))
        p->i++;
    *len = p->i - *start;
    for (int k = 0; k < W_UNKNOWN; k++) {
        const char *name = g_words[k].name;
        if (strlen(name) == *len && memcmp(name, p->s + *start, *len) == 0)
            return (word_kind)k;
    }
    return W_UNKNOWN;
}

/* Reads one number for argument `arg` of `owner` into *out. */
static poyo_status read_number(parser *p, const char *arg, const char *owner, double *out)
{
    const char *s = p->s;
    size_t at = p->i, j = at, digits = 0;
    char found[32];
    if (s[j] == '+' || s[j] == '-')
        j++;
    if (is_word_start(s[j])) {
        size_t w = j;
        while (is_word_char(s[w]))
            w++;
        int len = (int)(w - at) > 24 ? 24 : (int)(w - at);
        return fail_at(p, at, "%s of %s must be a finite number, not '%.*s'", arg, owner, len, s + at);
    }
    while (isdigit((unsigned char)s[j])) {
        j++;
        digits++;
    }
    if (s[j] == '.') {
        j++;
        while (isdigit((unsigned char)s[j])) {
            j++;
            digits++;
        }
    }
    if (digits == 0) {
        describe_at(p, at, found, sizeof found);
        return fail_at(p, at, "expected a number for %s of %s, found %s", arg, owner, found);
    }
    if (s[j] == 'e' || s[j] == 'E') {
        size_t e = j + 1, ed = 0;
        if (s[e] == '+' || s[e] == '-')
            e++;
        while (isdigit((unsigned char)s[e])) {
            e++;
            ed++;
        }
        if (ed == 0)
            return fail_at(p, e, "expected the digits of an exponent in %s of %s", arg, owner);
        j = e;
    }
    if (j - at >= SCENE_NUMBER_MAX)
        return fail_at(p, at, "%s of %s has too many digits", arg, owner);
    char buf[SCENE_NUMBER_MAX];
    memcpy(buf, s + at, j - at);
    buf[j - at] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v) || fabs(v) > SCENE_MAX_VALUE)
        return fail_at(p, at, "%s of %s is %s; it must lie between -1e6 and 1e6", arg, owner, buf);
    p->i = j;
    *out = v;
    return POYO_OK;
}

/* Reads "( n, n, ... )" for spec; stores values, their offsets and how many were given. */
static poyo_status read_args(parser *p, const word_spec *spec, double *val, size_t *at, int *n)
{
    char found[32];
    int max = spec->nreq + spec->nopt;
    skip_ws(p);
    if (p->s[p->i] != '(') {
        describe_at(p, p->i, found, sizeof found);
        return fail_at(p, p->i, "expected '(' after %s, found %s", spec->name, found);
    }
    p->i++;
    for (int a = 0; a < max; a++) {
        skip_ws(p);
        at[a] = p->i;
        poyo_status st = read_number(p, spec->arg[a], spec->name, &val[a]);
        if (st != POYO_OK)
            return st;
        *n = a + 1;
        skip_ws(p);
        char c = p->s[p->i];
        describe_at(p, p->i, found, sizeof found);
        if (a + 1 < spec->nreq) {
            if (c != ',')
                return fail_at(p, p->i, "expected ',' after %s of %s, found %s", spec->arg[a], spec->name, found);
        } else if (a + 1 < max) {
            if (c == ')') {
                p->i++;
                return POYO_OK;
            }
            if (c != ',')
                return fail_at(p, p->i, "expected ',' or ')' after %s of %s, found %s",
                               spec->arg[a], spec->name, found);
        } else if (c != ')') {
            return fail_at(p, p->i, "expected ')' after %s of %s, found %s", spec->arg[a], spec->name, found);
        }
        p->i++;
    }
    return POYO_OK;
}

/* Fails unless val[a] >= 0. */
static poyo_status non_negative(parser *p, const word_spec *spec, const double *val, const size_t *at, int a)
{
    if (val[a] < 0.0)
        return fail_at(p, at[a], "%s of %s must not be negative", spec->arg[a], spec->name);
    return POYO_OK;
}

/* Floor through (x, y) pixels turned a degrees counter-clockwise on screen. */
static sdf_shape tilted_floor(v2 point, double deg)
{
    double r = deg * (PI / 180.0);
    return sdf_plane(point, v2_make(-sin(r), -cos(r)));
}

/* Reads a shape word's arguments and builds it in pixels. */
static poyo_status read_shape(parser *p, word_kind kind, sdf_shape *out)
{
    const word_spec *spec = &g_words[kind];
    double v[SCENE_MAX_ARGS] = { 0 };
    size_t at[SCENE_MAX_ARGS] = { 0 };
    int n = 0;
    poyo_status st = read_args(p, spec, v, at, &n);
    if (st != POYO_OK)
        return st;
    double W = p->w, H = p->h, U = p->unit;
    switch (kind) {
    case W_CIRCLE:
        if ((st = non_negative(p, spec, v, at, 2)) != POYO_OK)
            return st;
        *out = sdf_circle(v2_make(v[0] * W, v[1] * H), v[2] * U);
        break;
    case W_BOX:
    case W_RBOX:
        for (int a = 2; a < spec->nreq; a++)
            if ((st = non_negative(p, spec, v, at, a)) != POYO_OK)
                return st;
        if (kind == W_RBOX && v[4] > fmin(v[2], v[3]))
            return fail_at(p, at[4], "r of rbox must not exceed the smaller half size %g", fmin(v[2], v[3]));
        if (kind == W_BOX)
            *out = sdf_box(v2_make(v[0] * W, v[1] * H), v2_make(v[2] * U, v[3] * U));
        else
            *out = sdf_rbox(v2_make(v[0] * W, v[1] * H), v2_make(v[2] * U, v[3] * U), v[4] * U);
        break;
    case W_SEGMENT:
        if (n == 5 && (st = non_negative(p, spec, v, at, 4)) != POYO_OK)
            return st;
        *out = sdf_segment(v2_make(v[0] * W, v[1] * H), v2_make(v[2] * W, v[3] * H), v[4] * U);
        break;
    case W_FLOOR:
        *out = sdf_floor(v[0] * H);
        break;
    case W_CEILING:
        *out = sdf_plane(v2_make(0.0, v[0] * H), v2_make(0.0, 1.0));
        break;
    case W_LEFT:
    case W_RIGHT:
    case W_WALL: {
        int left = kind == W_LEFT || (kind == W_WALL && v[0] < 0.5);
        *out = sdf_plane(v2_make(v[0] * W, 0.0), v2_make(left ? 1.0 : -1.0, 0.0));
        break;
    }
    case W_PLANE:
        *out = tilted_floor(v2_make(v[0] * W, v[1] * H), v[2]);
        break;
    default:
        return fail_at(p, p->i, "internal error: %s is not a shape", spec->name);
    }
    return POYO_OK;
}

/* What an item has read before its shape: the operator and the repeat. */
typedef struct item_state {
    sdf_op op;
    double k;       /* the operator's blend width (smooth union), scene units */
    v2 period;      /* the repeat's period, scene units */
    int count[2];   /* the repeat's copies each way */
    int repeated, have_op;
} item_state;

/* Reads an operator word (kind, read at start) and its arguments into it. */
static poyo_status read_operator(parser *p, word_kind kind, size_t start, int first, item_state *it)
{
    const word_spec *spec = &g_words[kind];
    poyo_status st;
    if (it->repeated)
        return fail_at(p, start, "expected a shape after repeat(...), found operator '%s'", spec->name);
    if (it->have_op || (kind != W_UNION && first))
        return fail_at(p, start, first ? "'%s' needs a shape before it to act on"
                                       : "expected a shape after the operator, found operator '%s'",
                       spec->name);
    it->have_op = 1;
    if (kind == W_SUB) {
        it->op = SDF_SUBTRACT;
    } else if (kind == W_SMIN || kind == W_SMINE) {
        double v[1];
        size_t at[1];
        int n = 0;
        if ((st = read_args(p, spec, v, at, &n)) != POYO_OK)
            return st;
        if ((st = non_negative(p, spec, v, at, 0)) != POYO_OK)
            return st;
        double w = v[0] * p->unit;
        if (kind == W_SMIN) {
            it->op = SDF_SMIN;
            it->k = w;
        } else if (w > 0.0) {
            it->op = SDF_SMIN_EXP;
            it->k = 4.0 * log(2.0) / w;
        }
    }
    return POYO_OK;
}

/* Reads repeat(...) (read at start) into it. */
static poyo_status read_repeat(parser *p, size_t start, item_state *it)
{
    const word_spec *spec = &g_words[W_REPEAT];
    if (it->repeated)
        return fail_at(p, start, "repeat cannot be nested; give one repeat per shape");
    double v[SCENE_MAX_ARGS] = { 0 };
    size_t at[SCENE_MAX_ARGS] = { 0 };
    int n = 0;
    poyo_status st = read_args(p, spec, v, at, &n);
    if (st != POYO_OK)
        return st;
    for (int a = 2; a < n; a++)
        if (v[a] < 0.0 || v[a] > SCENE_MAX_COUNT || v[a] != floor(v[a]))
            return fail_at(p, at[a], "%s of repeat must be a whole number from 0 to %d", spec->arg[a],
                           SCENE_MAX_COUNT);
    it->period = v2_make(v[0] * p->unit, v[1] * p->unit);
    it->count[0] = (int)v[2];
    it->count[1] = (int)v[3];
    it->repeated = 1;
    return POYO_OK;
}

/* Reads one item: [op] [repeat] shape. */
static poyo_status read_item(parser *p, sdf_scene *scene, int first)
{
    char found[32];
    item_state it = { SDF_UNION, 0.0, { 0.0, 0.0 }, { 0, 0 }, 0, 0 };
    size_t start, len;
    poyo_status st;
    for (;;) {
        skip_ws(p);
        if (!is_word_start(p->s[p->i])) {
            describe_at(p, p->i, found, sizeof found);
            return fail_at(p, p->i, "expected a shape such as circle(x,y,r), found %s", found);
        }
        word_kind kind = read_word(p, &start, &len);
        switch (kind) {
        case W_UNKNOWN: {
            int shown = len > 24 ? 24 : (int)len;
            return fail_at(p, start, "unknown shape '%.*s%s' (expected " EXPECTED_WORDS ")",
                           shown, p->s + start, len > 24 ? "..." : "");
        }
        case W_UNION:
        case W_SUB:
        case W_SMIN:
        case W_SMINE:
            if ((st = read_operator(p, kind, start, first, &it)) != POYO_OK)
                return st;
            continue;
        case W_REPEAT:
            if ((st = read_repeat(p, start, &it)) != POYO_OK)
                return st;
            continue;
        default: {
            sdf_shape shape;
            if ((st = read_shape(p, kind, &shape)) != POYO_OK)
                return st;
            if (it.repeated)
                shape = sdf_repeat(shape, it.period, it.count[0], it.count[1]);
            int weight = (it.period.x != 0.0 ? 3 : 1) * (it.period.y != 0.0 ? 3 : 1);
            if (p->shapes + weight > SCENE_MAX_SHAPES)
                return fail_at(p, start, "the scene holds more than %d shapes (a shape repeated along one axis "
                               "counts 3, along both 9)", SCENE_MAX_SHAPES);
            p->shapes += weight;
            poyo_error inner;
            st = sdf_scene_add(scene, it.op, it.k, shape, &inner);
            if (st != POYO_OK)
                return st == POYO_ERR_NOMEM ? poyo_fail(p->err, st, "%s", inner.msg)
                                            : fail_at(p, start, "%s", inner.msg);
            return POYO_OK;
        }
        }
    }
}

poyo_status scene_parse(const char *text, int width, int height, sdf_scene **out,
                        int *column, poyo_error *err)
{
    sdf_scene *scene = NULL;
    poyo_status st = POYO_OK;
    if (column)
        *column = 0;
    if (!out)
        return poyo_fail(err, POYO_ERR_USAGE, "scene_parse needs an output pointer");
    *out = NULL;
    if (!text)
        return poyo_fail(err, POYO_ERR_USAGE, "no scene text given");
    if (width < 1 || height < 1 || width > SCENE_MAX_SIDE || height > SCENE_MAX_SIDE)
        return poyo_fail(err, POYO_ERR_USAGE, "canvas %dx%d must be between 1 and %d pixels a side",
                         width, height, SCENE_MAX_SIDE);
    parser p = { text, 0, (double)width, (double)height, (double)(width < height ? width : height),
                 0, column, err };
    skip_ws(&p);
    if (text[p.i] == '\0') {
        st = fail_at(&p, p.i, "empty scene; expected a shape such as %s", scene_default_text());
        goto done;
    }
    if ((st = sdf_scene_create(&scene, err)) != POYO_OK)
        goto done;
    for (int first = 1;; first = 0) {
        if ((st = read_item(&p, scene, first)) != POYO_OK)
            goto done;
        skip_ws(&p);
        if (text[p.i] == ';') {
            p.i++;
            skip_ws(&p);
        }
        if (text[p.i] == '\0')
            break;
    }
done:
    if (st != POYO_OK) {
        sdf_scene_destroy(scene);
        return st;
    }
    *out = scene;
    return POYO_OK;
}
