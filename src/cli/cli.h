/* cli.h - the command-line front end's helpers: option scanning, strict number
 * parsing with one-line messages, and the shared message format
 * "poyo: WHAT: what went wrong". Only front-end code prints. */
#ifndef POYO_CLI_H
#define POYO_CLI_H

#include <stdio.h>
#include <sys/types.h>

#include "image/output.h"

#define POYO_VERSION "0.1.0"

/* One option a command accepts. */
typedef struct cli_option {
    const char *name;   /* long name without the dashes */
    char short_name;    /* or 0 */
    int has_arg;        /* 1 when it takes a value */
    int id;             /* returned by cli_next, > 0 */
} cli_option;

/* Scanner state over argv. */
typedef struct cli_parser {
    int argc;
    char **argv;
    int i;                    /* next argv index */
    int no_more_options;      /* after "--" */
    int silent;               /* 1: report errors only by the return value */
    const cli_option *opts;   /* terminated by { NULL, 0, 0, 0 } */
    const char *value;        /* the value of the option just returned */
    char name[80];            /* how the user spelled it, for messages */
} cli_parser;

/* Starts scanning argv[1..]. */
void cli_init(cli_parser *p, int argc, char **argv, const cli_option *opts);
/* Next item: an option id (> 0, value in p->value), 0 for an operand (in *operand),
 * -1 at the end, -2 after printing a usage error. */
int cli_next(cli_parser *p, const char **operand);

/* Prints "poyo: what: message" on stderr as one line; control characters
 * (in file names, say) are shown as \ooo. */
void cli_error(const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The same for a line that reports success (-v, budgets, skipped directories). */
void cli_note(const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Writes s as a JSON string: quotes, backslashes and control characters
 * escaped, and each byte that is not part of valid UTF-8 written as U+FFFD
 * (file names on Linux are bytes; JSON is Unicode). */
void cli_json_string(FILE *f, const char *s);
/* Parses a finite number; prints a message naming opt and returns 0 on failure. */
int cli_double(const char *opt, const char *s, double *out);
/* Parses a whole number within [lo, hi]; prints a message and returns 0 on failure. */
int cli_int(const char *opt, const char *s, long lo, long hi, int *out);
/* Parses a colour, #rrggbb, #rgb or a name (red, orange, white, black, ...), into 0xRRGGBB. */
int cli_color(const char *opt, const char *s, unsigned *out);
/* Parses "X,Y" as two finite numbers. */
int cli_pair(const char *opt, const char *s, double *x, double *y);
/* Parses a canvas size "WxH" or "N" (N x N), each side 1 to 4096 pixels. */
int cli_size(const char *opt, const char *s, int *w, int *h);
/* The encoder options every subcommand shares. */
typedef enum cli_outopt { CLI_OUT_COLORS, CLI_OUT_DITHER, CLI_OUT_ALPHA, CLI_OUT_FORMAT, CLI_OUT_QUALITY,
                        CLI_OUT_LOSSY_GIF } cli_outopt;
/* Parses one of them (spelled opt, value v) into *out; prints a message and returns 0 on failure.
 * --quality sets the GIF quantiser's target and lossy WebP at that quality. */
int cli_output_option(cli_outopt which, const char *opt, const char *v, output_def *out);
/* The file name poyo gives the output of input (without its directory): STEM.EXT,
 * where ext is the format's extension with its dot. An APNG (".png", the
 * extension most inputs have), and any output whose input already has its
 * extension (a GIF made from a GIF), is STEM.TAG.EXT instead, tag being the
 * preset's name or "poyo", so the name is never the input's own. Writes it
 * into buf (cap bytes, may be 0) and returns its length. */
size_t cli_output_stem(const char *input, const char *ext, const char *tag, char *buf, size_t cap);
/* That name beside input (malloc'ed; NULL when out of memory). */
char *cli_output_beside(const char *input, const char *ext, const char *tag);
/* The permissions a new output gets: 0666 minus the umask. */
mode_t cli_file_mode(void);
/* Writes the frames into frames_dir and the sprite sheet into sheet, those of the
 * two that are not NULL: 1, or 0 after saying which could not be written. */
int cli_write_stills(const anim *a, const char *frames_dir, const char *sheet, const output_def *out);
/* Parses --max-pixels (1 to 10^9). */
int cli_max_pixels(const char *opt, const char *v, long long *out);
/* Parses a size like 128K, 256KiB, 300KB, 1M, 2G, 1GiB or 5000 into bytes. */
int cli_bytes(const char *opt, const char *s, long long *out);
/* Parses --max-memory (a size, 16 MiB to 1 TiB); the command hands it to memlimit_set. */
int cli_max_memory(const char *opt, const char *v, long long *out);

#endif
