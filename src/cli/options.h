/* options.h - every option of every subcommand, declared once: its name, letter,
 * argument, kind, range, unit and help. The parser (cli_next), the range checks
 * and their messages, --help's option lists, the man page test and the shell
 * completions all read these tables; a default comes from the module's
 * *_default_def() through the command's default_of. */
#ifndef POYO_OPTIONS_H
#define POYO_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

/* What an option's value is. */
typedef enum cli_kind {
    CLI_HEADING = 0, /* not an option: a heading of --help's list (name is its text) */
    CLI_FLAG,        /* no value */
    CLI_INT,         /* a whole number, within [min, max] when ranged */
    CLI_DOUBLE,      /* a finite number, within [min, max] when ranged */
    CLI_PAIR,        /* X,Y, both within [min, max] when ranged */
    CLI_SIZE,        /* WxH or N, each side within [min, max] */
    CLI_BYTES,       /* 128K, 2GiB, 5000: bytes within [min, max] */
    CLI_ENUM,        /* one of a list of words (choices or words()) */
    CLI_STRING,      /* anything else the command parses itself */
    CLI_FILE,        /* a file name (completion offers files, see files) */
    CLI_DIR          /* a directory name */
} cli_kind;

/* Every option's id across the subcommands (the value cli_next returns). */
enum {
    OPT_OUTPUT = 1, OPT_FORCE, OPT_QUIET, OPT_VERBOSE, OPT_HELP, OPT_LIST_IMPULSES, OPT_LIST_PRESETS,
    OPT_IMPULSE, OPT_STRENGTH, OPT_AT, OPT_ANGLE, OPT_RATE, OPT_HZ, OPT_DAMPING, OPT_VOLUME, OPT_DRAG,
    OPT_OUTLINE_STIFFNESS, OPT_OUTLINE_OLD, OPT_SUBSTEPS, OPT_GRID, OPT_ANCHOR, OPT_FPS, OPT_DURATION, OPT_SIZE,
    OPT_FIT, OPT_LOOP, OPT_COLORS, OPT_DITHER, OPT_ALPHA, OPT_MAXPX, OPT_FORMAT, OPT_FRAMES, OPT_SHEET,
    OPT_QUALITY, OPT_PRESET, OPT_MAXBYTES, OPT_MATTE, OPT_LOSSY, OPT_LOSSY_GIF, OPT_EFFORT, OPT_JOBS, OPT_RECURSIVE,
    OPT_JSON, OPT_SKIP, OPT_MAXMEM,
    /* poyo text */
    OPT_FONT, OPT_COLOR, OPT_GRADIENT, OPT_TEXT_OUTLINE, OPT_ALIGN, OPT_VERTICAL, OPT_PER_GLYPH, OPT_TEXT_FIT,
    /* poyo rope */
    OPT_CSV, OPT_ANCHOR_AT, OPT_LENGTH, OPT_SEGMENTS, OPT_STIFFNESS, OPT_ITERATIONS, OPT_ROPE_DAMPING,
    OPT_GRAVITY, OPT_ROPE_MASS, OPT_STAMP_SIZE, OPT_WOBBLE, OPT_KICK, OPT_ROPE_COLOR, OPT_ROPE_WIDTH,
    /* poyo path */
    OPT_THROUGH, OPT_SVG, OPT_SAMPLE, OPT_NEAREST, OPT_SPEED, OPT_BOUNCE, OPT_NO_TURN, OPT_FACING, OPT_CORE,
    /* poyo sdf */
    OPT_SCENE, OPT_SCENE_FILE, OPT_QUERY, OPT_RAY, OPT_RENDER, OPT_ISO, OPT_VELOCITY, OPT_SPIN, OPT_TILT,
    OPT_RESTITUTION, OPT_FRICTION, OPT_HOLD, OPT_NO_SCENE, OPT_SCENE_COLOR
};

/* The ranges only the command line checks (the others are the modules' constants). */
#define CLI_JOBS_MAX 256                /* -j */
#define CLI_MAX_PIXELS_MAX 1000000000   /* --max-pixels */
#define CLI_MAX_BYTES_MAX 1e12          /* --max-bytes: 1 TB */
#define CLI_ISO_MIN 2                   /* poyo sdf --iso, pixels (or 0) */
#define CLI_PATH_SAMPLES_MAX 1000000    /* poyo path --sample */
#define CLI_PATH_WAYPOINTS_MAX 1000     /* poyo path --through: the SVG and the fit grow with them */
#define CLI_PATH_COORD_MAX 1000         /* |X|, |Y| of a waypoint or --nearest, canvas fractions */
#define CLI_ROPE_DUMP_SECONDS 2         /* poyo rope --csv / --json without --duration */

/* What completion offers for a file argument. */
typedef enum cli_files { CLI_FILES_ANY = 0, CLI_FILES_IMAGE, CLI_FILES_OUTPUT, CLI_FILES_PNG } cli_files;

/* One option (or one heading of --help's list). */
typedef struct cli_opt {
    int id;                 /* OPT_*, > 0; 0 for a heading */
    cli_kind kind;
    const char *name;       /* long name without the dashes; a heading's text */
    char short_name;        /* or 0 */
    const char *arg;        /* the value as --help names it (FILE, N, X,Y); NULL for a flag */
    int ranged;             /* 1: the value must lie within [min, max] */
    double min, max;
    const char *unit;       /* after the range in --help and messages ("seconds"), or NULL */
    const char *choices;    /* CLI_ENUM: the words, separated by spaces, then after a "|" other
                               spellings taken but not listed (or NULL with words) */
    const char *(*words)(int i); /* CLI_ENUM: the i-th word, NULL past the last (impulses, presets) */
    int list_words;         /* CLI_ENUM: --help says the words after help ("a, b or c") */
    cli_files files;        /* CLI_FILE: what completion offers */
    const char *help;       /* what it does, before the range and default */
    const char *note;       /* said after the range and default, or NULL */
    const char *beyond;     /* why the range ends where it does: said last in --help and
                               after the range in the error for a value outside it ("a
                               coarser or finer lattice tears thin parts apart"), or NULL */
    int hidden;             /* 1: parsed but not listed (an older name) */
    int or_zero;            /* 1: 0 is taken too, outside the range (--iso 0: none) */
} cli_opt;

/* One subcommand's options. */
typedef struct cli_command {
    const char *name;                    /* "animate", "text", "rope", "path", "sdf", "check" */
    const cli_opt *opts;                 /* ends with a row whose name is NULL */
    const struct cli_command *inherits;  /* whose options it also takes (its own first), or NULL */
    /* Writes option id's default as --help and the man page state it into buf
     * ("" when none is stated); the numbers come from the modules' *_default_def(). */
    void (*default_of)(int id, char *buf, size_t cap);
} cli_command;

/* The subcommands' tables, in the order poyo --help lists them. */
extern const cli_command cli_commands[];
extern const int cli_command_count;
/* The table of the subcommand called name, or NULL. */
const cli_command *cli_command_find(const char *name);
/* The row of id in cmd's table, or NULL. */
const cli_opt *cli_opt_find(const cli_command *cmd, int id);

/* The i-th word an enum option takes (i from 0), or NULL past the last. */
const char *cli_opt_word(const cli_opt *o, int i, char *buf, size_t cap);
/* The option's range as --help, the man page and messages say it: "0.1 to 20",
 * "0 to 60 seconds" ("" when it has none). */
void cli_opt_range_text(const cli_opt *o, char *buf, size_t cap);

/* Prints cmd's option list for --help: headings and "  -x, --name ARG  help
 * (range, default D) note", wrapped. from_heading/to_heading (NULL: the first /
 * the end) pick the part of the list between two headings. */
void cli_print_options(FILE *out, const cli_command *cmd, const char *from_heading, const char *to_heading);

/* Prints a completion script for shell ("bash", "zsh" or "fish"): 1, or 0 for
 * another shell. */
int cli_print_completion(FILE *out, const char *shell);

#endif
