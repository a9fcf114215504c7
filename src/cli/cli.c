/* cli.c - option scanning and strict value parsing for every subcommand; the
 * one place messages take the form "poyo: WHAT: what went wrong". */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "util/memlimit.h"

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

/* Prints "poyo: what: message" as one write, every part made safe for a terminal. */
static void say(const char *what, const char *fmt, va_list ap)
{
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

void cli_init(cli_parser *p, int argc, char **argv, const cli_option *opts)
{
    memset(p, 0, sizeof *p);
    p->argc = argc;
    p->argv = argv;
    p->i = 1;
    p->opts = opts;
}

int cli_next(cli_parser *p, const char **operand)
{
    p->value = NULL;
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
    const cli_option *o = NULL;
    const char *inline_value = NULL;
    if (arg[1] == '-') {
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        snprintf(p->name, sizeof p->name, "--%.*s", (int)(len < 60 ? len : 60), name);
        for (const cli_option *t = p->opts; t->name; t++)
            if (strlen(t->name) == len && strncmp(t->name, name, len) == 0) {
                o = t;
                break;
            }
        if (!o) {
            if (!p->silent)
                cli_error(p->name, "unknown option (see poyo --help)");
            return -2;
        }
        if (eq)
            inline_value = eq + 1;
    } else {
        snprintf(p->name, sizeof p->name, "-%c", arg[1]);
        for (const cli_option *t = p->opts; t->name; t++)
            if (t->short_name && t->short_name == arg[1]) {
                o = t;
                break;
            }
        if (!o) {
            if (!p->silent)
                cli_error(p->name, "unknown option (see poyo --help)");
            return -2;
        }
        if (arg[2] != '\0') {
            if (!o->has_arg) {
                if (!p->silent)
                    cli_error(arg, "unknown option (short options cannot be combined)");
                return -2;
            }
            inline_value = arg + 2;
        }
    }
    if (o->has_arg) {
        if (inline_value) {
            p->value = inline_value;
        } else if (p->i < p->argc) {
            p->value = p->argv[p->i++];
        } else {
            if (!p->silent)
                cli_error(p->name, "needs a value");
            return -2;
        }
    } else if (inline_value) {
        if (!p->silent)
            cli_error(p->name, "takes no value");
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

int cli_int(const char *opt, const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) {
        cli_error(opt, "'%s' is not a whole number", s);
        return 0;
    }
    if (v < lo || v > hi) {
        cli_error(opt, "must be %ld to %ld, not %s", lo, hi, s);
        return 0;
    }
    *out = (int)v;
    return 1;
}

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
    if (a < 1 || a > 4096 || b < 1 || b > 4096 || errno) {
        cli_error(opt, "must be 1 to 4096 pixels per side, not %s", s);
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

int cli_bytes(const char *opt, const char *s, long long *out)
{
    double b;
    if (!parse_bytes(opt, s, &b))
        return 0;
    if (b < 1 || b > 1e12) {
        cli_error(opt, "'%s' is out of range (1 byte to 1 TB)", s);
        return 0;
    }
    *out = (long long)llround(b);
    return 1;
}

int cli_max_memory(const char *opt, const char *v, long long *out)
{
    double b;
    if (!parse_bytes(opt, v, &b))
        return 0;
    /* its own range, not --max-bytes's: 1024 GiB is more than 1 TB */
    if (!(b >= (double)MEMLIMIT_MIN_MEMORY && b <= (double)MEMLIMIT_MAX_MEMORY)) {
        cli_error(opt, "'%s' is out of range (16MiB to 1024GiB)", v);
        return 0;
    }
    *out = (long long)llround(b);
    return 1;
}

int cli_output_option(cli_outopt which, const char *opt, const char *v, output_def *out)
{
    switch (which) {
    case CLI_OUT_COLORS:
        return cli_int(opt, v, 2, 256, &out->quant.colors);
    case CLI_OUT_DITHER: {
        double d;
        if (!cli_double(opt, v, &d))
            return 0;
        if (!(d >= 0.0 && d <= 1.0)) {
            cli_error(opt, "must be 0 to 1, not %s", v);
            return 0;
        }
        out->quant.dither = d;
        return 1;
    }
    case CLI_OUT_ALPHA:
        return cli_int(opt, v, 1, 255, &out->quant.alpha_threshold);
    case CLI_OUT_LOSSY_GIF:
        return cli_int(opt, v, 0, 255, &out->quant.lossy);
    case CLI_OUT_FORMAT: {
        int f = output_format_lookup(v);
        if (f < 0) {
            cli_error(opt, "must be gif, apng, webp or webm, not '%s'", v);
            return 0;
        }
        out->format = (out_format)f;
        return 1;
    }
    case CLI_OUT_QUALITY:
        if (!cli_int(opt, v, 0, 100, &out->webp.quality))
            return 0;
        out->quant.quality_max = out->webp.quality;
        out->webp.lossy = 1;
        return 1;
    }
    return 0;
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

int cli_max_pixels(const char *opt, const char *v, long long *out)
{
    int mp;
    if (!cli_int(opt, v, 1, 1000000000, &mp))
        return 0;
    *out = mp;
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
