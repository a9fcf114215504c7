/* cli.c - option scanning and strict value parsing for every subcommand; the
 * one place messages take the form "poyo: WHAT: what went wrong". */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <sys/stat.h>

#include "image/anim.h"

/* Appends s to line (of cap bytes, holding *k) with control characters written
 * as \ooo, so that a file name cannot move the cursor or rewrite the terminal. */
static void put_safe(char *line, size_t cap, size_t *k, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p && *k + 5 < cap; p++) {
        if (*p < 0x20 || *p == 0x7f)
            *k += (size_t)snprintf(line + *k, cap - *k, "\\%03o", *p);
        else
            line[(*k)++] = (char)*p;
    }
    line[*k] = '\0';
}

/* 1 while a silent parser checks a value: nothing is said. */
static int muted;

/* Prints "poyo: what: message" as one write, every part made safe for a terminal. */
static void say(const char *what, const char *fmt, va_list ap)
{
    if (muted)
        return;
    char msg[1024], line[4 * (4096 + sizeof msg) + 16];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t k = 0;
    put_safe(line, sizeof line, &k, "poyo: ");
    if (what && *what) {
        put_safe(line, sizeof line, &k, what);
        put_safe(line, sizeof line, &k, ": ");
    }
    put_safe(line, sizeof line, &k, msg);
    line[k++] = '\n';
    fwrite(line, 1, k, stderr);
}

void cli_error(const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(what, fmt, ap);
    va_end(ap);
}

void cli_note(const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(what, fmt, ap);
    va_end(ap);
}

void cli_init(cli_parser *p, int argc, char **argv, const cli_command *cmd)
{
    memset(p, 0, sizeof *p);
    p->argc = argc;
    p->argv = argv;
    p->i = 1;
    p->cmd = cmd;
}

/* The row of cmd (or of the command it inherits from) called by the long name
 * (len bytes) or, when len is 0, by the short letter c. */
static const cli_opt *find_option(const cli_command *cmd, const char *name, size_t len, char c)
{
    for (; cmd; cmd = cmd->inherits)
        for (const cli_opt *o = cmd->opts; o->name; o++) {
            if (o->kind == CLI_HEADING)
                continue;
            if (len ? strlen(o->name) == len && strncmp(o->name, name, len) == 0 : o->short_name == c)
                return o;
        }
    return NULL;
}

/* Prints the one message of a value out of range: "poyo: OPT: must be RANGE[ (WHY)],
 * not VALUE" (why: why the range ends there, or NULL). */
static void say_range(const char *opt, const char *range, const char *why, const char *value)
{
    cli_error(opt, "must be %s%s%s%s, not %s", range, why ? " (" : "", why ? why : "", why ? ")" : "", value);
}

void cli_range_error(const char *opt, const cli_opt *o, const char *value)
{
    char range[160];
    cli_opt_range_text(o, range, sizeof range - 24);
    if (o->kind == CLI_PAIR)
        strcat(range, " in both coordinates");
    say_range(opt, range, o->beyond, value);
}

/* 1 when v lies within o's range (or o has none). */
static int within(const cli_opt *o, double v)
{
    return !o->ranged || (v >= o->min && v <= o->max);
}

/* The i of the word v among an enum row's words (those after "|" in its
 * choices are other spellings, counted on), or -1 (said unless silent). */
static int enum_word(const cli_parser *p, const char *v)
{
    char buf[64], list[512] = "";
    const char *w;
    int n = 0;
    for (int i = 0; (w = cli_opt_word(p->opt, i, buf, sizeof buf)) != NULL; i++, n++)
        if (strcmp(w, v) == 0)
            return i;
    const char *alias = p->opt->choices ? strchr(p->opt->choices, '|') : NULL;
    for (int i = n; alias && *alias;) {
        alias += strspn(alias, "| ");
        size_t len = strcspn(alias, " ");
        if (len && strlen(v) == len && strncmp(alias, v, len) == 0)
            return i;
        i += len > 0;
        alias += len;
    }
    if (p->opt->words || p->silent)
        return -1; /* impulses and presets: the command says it, naming where to look */
    size_t k = 0;
    for (int i = 0; i < n && k < sizeof list; i++) {
        w = cli_opt_word(p->opt, i, buf, sizeof buf);
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ", w);
    }
    cli_error(p->name, "must be %s, not '%s'", list, v);
    return -1;
}

static int parse_int(const char *opt, const char *s, long lo, long hi, const char *beyond, int *out);

/* Parses p->value by the kind of p->opt and checks its range: 1, or 0 after
 * saying why (unless silent). */
static int parse_value(cli_parser *p)
{
    const cli_opt *o = p->opt;
    const char *v = p->value;
    int ok = 1;
    muted = p->silent; /* the helpers below say what is wrong; a silent parser only fails */
    switch (o->kind) {
    case CLI_DOUBLE:
        ok = cli_double(p->name, v, &p->num);
        if (ok && !within(o, p->num) && !(o->or_zero && p->num == 0.0)) {
            cli_range_error(p->name, o, v);
            ok = 0;
        }
        break;
    case CLI_INT:
        ok = parse_int(p->name, v, o->ranged ? (long)o->min : INT_MIN, o->ranged ? (long)o->max : INT_MAX, o->beyond,
                       &p->inum);
        p->num = p->inum;
        break;
    case CLI_PAIR:
        ok = cli_pair(p->name, v, &p->x, &p->y);
        if (ok && !(within(o, p->x) && within(o, p->y))) {
            cli_range_error(p->name, o, v);
            ok = 0;
        }
        break;
    case CLI_SIZE: ok = cli_size(p->name, v, &p->w, &p->h); break;
    case CLI_BYTES: ok = cli_bytes(p->name, v, o->min, o->max, &p->bytes); break;
    case CLI_ENUM: ok = (p->word = enum_word(p, v)) >= 0 || o->words; break;
    default: break;
    }
    muted = 0;
    return ok;
}

/* Reports a scanning error unless silent; -2. */
static int scan_error(const cli_parser *p, const char *what, const char *msg)
{
    if (!p->silent)
        cli_error(what, "%s", msg);
    return -2;
}

int cli_next(cli_parser *p, const char **operand)
{
    p->value = NULL;
    p->opt = NULL;
    if (p->i >= p->argc)
        return -1;
    char *arg = p->argv[p->i++];
    if (p->no_more_options || arg[0] != '-' || arg[1] == '\0') {
        *operand = arg;
        return 0;
    }
    if (strcmp(arg, "--") == 0) {
        p->no_more_options = 1;
        return cli_next(p, operand);
    }
    const cli_opt *o;
    const char *inline_value = NULL;
    if (arg[1] == '-') {
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        snprintf(p->name, sizeof p->name, "--%.*s", (int)(len < 60 ? len : 60), name);
        if (!len || !(o = find_option(p->cmd, name, len, 0)))
            return scan_error(p, p->name, "unknown option (see poyo --help)");
        if (eq)
            inline_value = eq + 1;
    } else {
        snprintf(p->name, sizeof p->name, "-%c", arg[1]);
        if (!(o = find_option(p->cmd, NULL, 0, arg[1])))
            return scan_error(p, p->name, "unknown option (see poyo --help)");
        if (arg[2] != '\0') {
            if (o->kind == CLI_FLAG)
                return scan_error(p, arg, "unknown option (short options cannot be combined)");
            inline_value = arg + 2;
        }
    }
    p->opt = o;
    if (o->kind == CLI_FLAG)
        return inline_value ? scan_error(p, p->name, "takes no value") : o->id;
    if (inline_value)
        p->value = inline_value;
    else if (p->i < p->argc)
        p->value = p->argv[p->i++];
    else
        return scan_error(p, p->name, "needs a value");
    if (!parse_value(p)) {
        p->opt = NULL;
        return -2;
    }
    return o->id;
}

int cli_color(const char *opt, const char *s, unsigned *out)
{
    static const struct { const char *name; unsigned rgb; } named[] = {
        { "black", 0x000000 }, { "white", 0xffffff }, { "gray", 0x808080 }, { "grey", 0x808080 },
        { "silver", 0xc0c0c0 }, { "red", 0xff0000 }, { "orange", 0xffa500 }, { "yellow", 0xffff00 },
        { "gold", 0xffd700 }, { "lime", 0x00ff00 }, { "green", 0x008000 }, { "cyan", 0x00ffff },
        { "aqua", 0x00ffff }, { "blue", 0x0000ff }, { "navy", 0x000080 }, { "purple", 0x800080 },
        { "magenta", 0xff00ff }, { "fuchsia", 0xff00ff }, { "pink", 0xffc0cb }, { "hotpink", 0xff69b4 },
        { "brown", 0xa52a2a }, { "skyblue", 0x87ceeb },
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcasecmp(s, named[i].name) == 0) {
            *out = named[i].rgb;
            return 1;
        }
    size_t n = strlen(s);
    if (s[0] == '#' && (n == 7 || n == 4) && strspn(s + 1, "0123456789abcdefABCDEF") == n - 1) {
        unsigned v = (unsigned)strtoul(s + 1, NULL, 16);
        *out = n == 7 ? v : (v >> 8 & 15) * 0x110000 + (v >> 4 & 15) * 0x1100 + (v & 15) * 0x11;
        return 1;
    }
    cli_error(opt, "'%s' is not a colour (#rrggbb, #rgb or a name such as red, orange, white, black)", s);
    return 0;
}

int cli_double(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || errno == ERANGE) {
        cli_error(opt, "'%s' is not a number", s);
        return 0;
    }
    *out = v;
    return 1;
}

/* cli_int, its error for a value outside lo to hi saying why the range ends there (beyond, or NULL). */
static int parse_int(const char *opt, const char *s, long lo, long hi, const char *beyond, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) {
        cli_error(opt, "'%s' is not a whole number", s);
        return 0;
    }
    if (v < lo || v > hi) {
        char range[64];
        snprintf(range, sizeof range, "%ld to %ld", lo, hi);
        say_range(opt, range, beyond, s);
        return 0;
    }
    *out = (int)v;
    return 1;
}

int cli_int(const char *opt, const char *s, long lo, long hi, int *out) { return parse_int(opt, s, lo, hi, NULL, out); }

int cli_pair(const char *opt, const char *s, double *x, double *y)
{
    char *end;
    errno = 0;
    double a = strtod(s, &end);
    if (end == s || *end != ',' || !isfinite(a)) {
        cli_error(opt, "'%s' is not a pair X,Y", s);
        return 0;
    }
    const char *t = end + 1;
    double b = strtod(t, &end);
    if (end == t || *end != '\0' || !isfinite(b)) {
        cli_error(opt, "'%s' is not a pair X,Y", s);
        return 0;
    }
    *x = a;
    *y = b;
    return 1;
}

int cli_size(const char *opt, const char *s, int *w, int *h)
{
    char *end;
    errno = 0;
    long a = strtol(s, &end, 10), b;
    if (end == s)
        goto bad;
    if (*end == 'x' || *end == 'X') {
        const char *t = end + 1;
        b = strtol(t, &end, 10);
        if (end == t || *end)
            goto bad;
    } else if (*end == '\0') {
        b = a;
    } else {
        goto bad;
    }
    if (a < 1 || a > ANIM_SIDE_MAX || b < 1 || b > ANIM_SIDE_MAX || errno) {
        char range[64];
        snprintf(range, sizeof range, "1 to %d pixels per side", ANIM_SIDE_MAX);
        say_range(opt, range, NULL, s);
        return 0;
    }
    *w = (int)a;
    *h = (int)b;
    return 1;
bad:
    cli_error(opt, "'%s' is not a size like 128x128 or 128", s);
    return 0;
}

/* Parses a number with an optional unit into bytes (not yet rounded or bounded). */
static int parse_bytes(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v <= 0) {
        cli_error(opt, "'%s' is not a size (like 128K, 256KiB, 300KB or 2G)", s);
        return 0;
    }
    double mult = 1;
    if (*end) {
        const char *u = end;
        if (strcasecmp(u, "K") == 0 || strcasecmp(u, "KB") == 0)
            mult = 1000;
        else if (strcasecmp(u, "KiB") == 0)
            mult = 1024;
        else if (strcasecmp(u, "M") == 0 || strcasecmp(u, "MB") == 0)
            mult = 1000000;
        else if (strcasecmp(u, "MiB") == 0)
            mult = 1048576;
        else if (strcasecmp(u, "G") == 0 || strcasecmp(u, "GB") == 0)
            mult = 1e9;
        else if (strcasecmp(u, "GiB") == 0)
            mult = 1073741824.0;
        else if (strcasecmp(u, "B") == 0)
            mult = 1;
        else {
            cli_error(opt, "'%s' is not a size (like 128K, 256KiB, 300KB or 2G)", s);
            return 0;
        }
    }
    *out = v * mult;
    return 1;
}

int cli_bytes(const char *opt, const char *s, double lo, double hi, long long *out)
{
    double b;
    if (!parse_bytes(opt, s, &b))
        return 0;
    if (!(b >= lo && b <= hi)) {
        char l[32], h[32], range[80];
        cli_bytes_text(lo, l, sizeof l);
        cli_bytes_text(hi, h, sizeof h);
        snprintf(range, sizeof range, "%s to %s", l, h);
        say_range(opt, range, NULL, s);
        return 0;
    }
    *out = (long long)llround(b);
    return 1;
}

void cli_bytes_text(double b, char *buf, size_t cap)
{
    const double gib = 1073741824.0, mib = 1048576.0;
    if (b == 1.0)
        snprintf(buf, cap, "1 byte");
    else if (b >= gib && fmod(b, gib) == 0.0)
        snprintf(buf, cap, "%.0fGiB", b / gib);
    else if (b >= mib && fmod(b, mib) == 0.0)
        snprintf(buf, cap, "%.0fMiB", b / mib);
    else if (b >= 1e12 && fmod(b, 1e12) == 0.0)
        snprintf(buf, cap, "%.0f TB", b / 1e12);
    else
        snprintf(buf, cap, "%.0f bytes", b);
}

int cli_output_option(const cli_parser *p, output_def *out)
{
    switch (p->opt ? p->opt->id : 0) {
    case OPT_COLORS: out->quant.colors = p->inum; return 1;
    case OPT_DITHER: out->quant.dither = p->num; return 1;
    case OPT_ALPHA: out->quant.alpha_threshold = p->inum; return 1;
    case OPT_LOSSY_GIF: out->quant.lossy = p->inum; return 1;
    case OPT_EFFORT: out->webp.method = out->webp.lossless_method = p->inum; return 1;
    case OPT_FORMAT: out->format = (out_format)output_format_lookup(p->value); return 1;
    case OPT_QUALITY:
        out->webp.quality = p->inum;
        out->quant.quality_max = p->inum;
        out->webp.lossy = 1;
        return 1;
    default: return 0;
    }
}

int cli_write_stills(const anim *a, const char *frames_dir, const char *sheet, const output_def *out)
{
    poyo_error err;
    if (frames_dir && output_write_frames(a, frames_dir, out, &err) != POYO_OK) {
        cli_error(frames_dir, "%s", err.msg);
        return 0;
    }
    if (sheet && output_write_sheet(a, sheet, out, &err) != POYO_OK) {
        cli_error(sheet, "%s", err.msg);
        return 0;
    }
    return 1;
}

size_t cli_output_stem(const char *input, const char *ext, const char *tag, char *buf, size_t cap)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t stem = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        stem = (size_t)(dot - base);
    /* an APNG is a .png, as most inputs are; any other output takes the tag
     * only when its input already has the output's extension */
    int tagged = strcmp(ext, ".png") == 0 || (dot && dot != base && strcasecmp(dot, ext) == 0);
    int n = snprintf(buf, cap, "%.*s%s%s%s", (int)stem, base, tagged ? "." : "", tagged ? tag : "", ext);
    return n < 0 ? 0 : (size_t)n;
}

char *cli_output_beside(const char *input, const char *ext, const char *tag)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t dirlen = (size_t)(base - input), need = dirlen + cli_output_stem(input, ext, tag, NULL, 0) + 1;
    char *out = malloc(need);
    if (out) {
        memcpy(out, input, dirlen);
        cli_output_stem(input, ext, tag, out + dirlen, need - dirlen);
    }
    return out;
}

mode_t cli_file_mode(void)
{
    mode_t um = umask(0);
    umask(um);
    return 0666 & ~um;
}

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not one
 * (stray continuation bytes, overlong forms, surrogates, past U+10FFFF). */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || c == 0xc0 || c == 0xc1 || c > 0xf4)
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
        (c == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        int n = utf8_len(p);
        if (n == 0) {
            fputs("\\ufffd", f);
            p++;
        } else if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p++);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(f, "\\u%04x", *p++);
        } else {
            fwrite(p, 1, (size_t)n, f);
            p += n;
        }
    }
    fputc('"', f);
}
