/* cli.h - the command-line front end's helpers: option scanning, strict number
 * parsing with one-line messages, and the shared message format
 * "poyo: WHAT: what went wrong". Only front-end code prints. */
#ifndef POYO_CLI_H
#define POYO_CLI_H

#include <stdio.h>
#include <sys/types.h>

#include "options.h"
#include "image/output.h"

#define POYO_VERSION "0.1.0"

/* Scanner state over argv, reading a command's option table (options.h). */
typedef struct cli_parser {
    int argc;
    char **argv;
    int i;                    /* next argv index */
    int no_more_options;      /* after "--" */
    int silent;               /* 1: report errors only by the return value */
    const cli_command *cmd;
    const cli_opt *opt;       /* the row of the option just returned */
    const char *value;        /* its value as given */
    char name[80];            /* how the user spelled it, for messages */
    /* its value parsed by the row's kind and checked against its range: */
    double num;               /* CLI_DOUBLE and CLI_INT */
    int inum;                 /* CLI_INT */
    double x, y;              /* CLI_PAIR */
    int w, h;                 /* CLI_SIZE */
    long long bytes;          /* CLI_BYTES */
    int word;                 /* CLI_ENUM: which word (the table's order) */
} cli_parser;

/* Starts scanning argv[1..] for cmd's options. */
void cli_init(cli_parser *p, int argc, char **argv, const cli_command *cmd);
/* Next item: an option id (> 0; its row in p->opt, its value in p->value and,
 * parsed and within its range, in the field its kind names), 0 for an operand
 * (in *operand), -1 at the end, -2 after printing a usage error. */
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
/* Parses a canvas size "WxH" or "N" (N x N), each side 1 to ANIM_SIDE_MAX pixels. */
int cli_size(const char *opt, const char *s, int *w, int *h);
/* The one message for a value out of its option's range: "poyo: OPT: must be
 * LO to HI UNIT[ in both coordinates][ (WHY)], not VALUE" (opt as the user
 * spelled it; WHY, the row's beyond, when it has one). */
void cli_range_error(const char *opt, const cli_opt *o, const char *value);
/* Applies an encoder option every subcommand shares (OPT_COLORS, OPT_DITHER,
 * OPT_ALPHA, OPT_FORMAT, OPT_QUALITY, OPT_LOSSY_GIF or OPT_EFFORT, just parsed by p)
 * to out: 1, or 0 when p's option is not one of them. --quality sets the GIF
 * quantiser's target and lossy WebP at that quality; --effort sets WebP's effort,
 * lossless and lossy alike. */
int cli_output_option(const cli_parser *p, output_def *out);
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
/* Parses a size like 128K, 256KiB, 300KB, 1M, 2G, 1GiB or 5000 into bytes within
 * [lo, hi] (the message states them as cli_bytes_text does). */
int cli_bytes(const char *opt, const char *s, double lo, double hi, long long *out);
/* A byte count as the messages and --help state it: 1GiB, 16MiB, 1 TB, 1 byte. */
void cli_bytes_text(double bytes, char *buf, size_t cap);

#endif
