/* options.c - the option tables of every subcommand (the one place an option's
 * name, range, unit and help live; a range shared with a module is the module's
 * constant), the defaults each command states, and --help's option lists. */
#include "options.h"

#include <math.h>
#include <string.h>

#include "cli.h"
#include "preset.h"
#include "geom/scene.h"
#include "geom/sdf.h"
#include "image/output.h"
#include "image/quantize.h"
#include "image/text.h"
#include "sim/animate.h"
#include "sim/charm.h"
#include "sim/drop.h"
#include "sim/follow.h"
#include "sim/stagger.h"
#include "util/memlimit.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* The words of the options whose list lives in a module. */
static const char *impulse_word(int i)
{
    return i >= 0 && i < IMPULSE_COUNT ? impulse_get_info((impulse_kind)i)->name : NULL;
}

static const char *preset_word(int i)
{
    return i >= 0 && i < preset_count() ? preset_at(i)->name : NULL;
}

#define HEADING(text) { .kind = CLI_HEADING, .name = (text) }
#define END { .name = NULL }

/* ---- rows several subcommands share ---------------------------------------- */

#define ROW_OUTPUT(help_) \
    { .id = OPT_OUTPUT, .kind = CLI_FILE, .name = "output", .short_name = 'o', .arg = "FILE", \
      .files = CLI_FILES_OUTPUT, .help = (help_) }
#define ROW_FORCE(help_) { .id = OPT_FORCE, .kind = CLI_FLAG, .name = "force", .short_name = 'f', .help = (help_) }
#define ROW_QUIET(help_) { .id = OPT_QUIET, .kind = CLI_FLAG, .name = "quiet", .short_name = 'q', .help = (help_) }
#define ROW_VERBOSE(help_) \
    { .id = OPT_VERBOSE, .kind = CLI_FLAG, .name = "verbose", .short_name = 'v', .help = (help_) }
#define ROW_HELP { .id = OPT_HELP, .kind = CLI_FLAG, .name = "help", .short_name = 'h', .help = "this help" }
#define ROW_JSON(help_) { .id = OPT_JSON, .kind = CLI_FLAG, .name = "json", .help = (help_) }
#define ROW_SIZE(help_) \
    { .id = OPT_SIZE, .kind = CLI_SIZE, .name = "size", .short_name = 's', .arg = "WxH|N", .ranged = 1, .min = 1, \
      .max = ANIM_SIDE_MAX, .unit = "pixels per side", .help = (help_) }
#define ROW_FRAMES \
    { .id = OPT_FRAMES, .kind = CLI_DIR, .name = "frames", .arg = "DIR", \
      .help = "also write every frame as DIR/frame_NNNN.png" }
#define ROW_SHEET \
    { .id = OPT_SHEET, .kind = CLI_FILE, .name = "sheet", .arg = "FILE.png", .files = CLI_FILES_PNG, \
      .help = "also write a sprite sheet and FILE.json (rectangles, durations)" }
#define ROW_FORMAT(help_) \
    { .id = OPT_FORMAT, .kind = CLI_ENUM, .name = "format", .arg = "FMT", .choices = "gif apng webp webm | png", \
      .help = (help_) }
#define ROW_HZ(help_) \
    { .id = OPT_HZ, .kind = CLI_DOUBLE, .name = "hz", .arg = "F", .ranged = 1, .min = SOFTBODY_HZ_MIN, \
      .max = SOFTBODY_HZ_MAX, .help = (help_) }
#define ROW_DAMPING \
    { .id = OPT_DAMPING, .kind = CLI_DOUBLE, .name = "damping", .arg = "RATIO", .ranged = 1, .min = 0, \
      .max = SOFTBODY_DAMPING_MAX, .help = "0 rings forever, 1 no overshoot" }
#define ROW_VOLUME \
    { .id = OPT_VOLUME, .kind = CLI_DOUBLE, .name = "volume", .arg = "B", .ranged = 1, .min = 0, \
      .max = SOFTBODY_VOLUME_MAX, .help = "area-preserving squash vs. rigid return" }
#define ROW_BODY_DRAG \
    { .id = OPT_DRAG, .kind = CLI_DOUBLE, .name = "drag", .arg = "D", .ranged = 1, .min = 0, \
      .max = SOFTBODY_DRAG_MAX, .help = "plain velocity drag per second" }
#define ROW_GRID \
    { .id = OPT_GRID, .kind = CLI_INT, .name = "grid", .arg = "N", .ranged = 1, .min = LATTICE_GRID_MIN, \
      .max = LATTICE_GRID_MAX, .help = "lattice nodes along the longer side", \
      .beyond = "a coarser or finer lattice tears thin parts apart" }
#define ROW_SUBSTEPS(note_) \
    { .id = OPT_SUBSTEPS, .kind = CLI_INT, .name = "substeps", .arg = "N", .ranged = 1, .min = 1, \
      .max = SOFTBODY_SUBSTEPS_MAX, .help = "solver steps per frame at least", .note = (note_) }
#define ROW_FPS \
    { .id = OPT_FPS, .kind = CLI_DOUBLE, .name = "fps", .arg = "F", .ranged = 1, .min = ANIM_FPS_MIN, \
      .max = ANIM_FPS_MAX, .help = "frames per second" }
#define ROW_DURATION(help_, note_) \
    { .id = OPT_DURATION, .kind = CLI_DOUBLE, .name = "duration", .arg = "S", .ranged = 1, \
      .min = ANIM_DURATION_MIN, .max = ANIM_DURATION_MAX, .unit = "seconds", .help = (help_), .note = (note_) }
#define ROW_LOOP \
    { .id = OPT_LOOP, .kind = CLI_INT, .name = "loop", .arg = "N", .ranged = 1, .min = 0, .max = ANIM_LOOP_MAX, \
      .help = "times the clip plays, 0 = forever" }
#define ROW_COLORS(help_) \
    { .id = OPT_COLORS, .kind = CLI_INT, .name = "colors", .arg = "N", .ranged = 1, .min = QUANTIZE_COLORS_MIN, \
      .max = QUANTIZE_COLORS_MAX, .help = (help_) }
#define ROW_DITHER(help_) \
    { .id = OPT_DITHER, .kind = CLI_DOUBLE, .name = "dither", .arg = "LEVEL", .ranged = 1, .min = 0, \
      .max = QUANTIZE_DITHER_MAX, .help = (help_) }
#define ROW_ALPHA(help_) \
    { .id = OPT_ALPHA, .kind = CLI_INT, .name = "alpha-threshold", .arg = "N", .ranged = 1, \
      .min = QUANTIZE_ALPHA_MIN, .max = QUANTIZE_ALPHA_MAX, .help = (help_) }
#define ROW_QUALITY(help_) \
    { .id = OPT_QUALITY, .kind = CLI_INT, .name = "quality", .arg = "Q", .ranged = 1, .min = 0, \
      .max = QUANTIZE_QUALITY_MAX, .help = (help_) }
#define ROW_EFFORT \
    { .id = OPT_EFFORT, .kind = CLI_INT, .name = "effort", .arg = "N", .ranged = 1, .min = 0, \
      .max = WEBP_EFFORT_MAX, .help = "WebP encoder effort: 0 fastest to 6 smallest files" }
#define ROW_MAXPX(help_) \
    { .id = OPT_MAXPX, .kind = CLI_INT, .name = "max-pixels", .arg = "N", .ranged = 1, .min = 1, \
      .max = CLI_MAX_PIXELS_MAX, .help = (help_) }
#define ROW_MAXMEM(help_) \
    { .id = OPT_MAXMEM, .kind = CLI_BYTES, .name = "max-memory", .arg = "SIZE", .ranged = 1, \
      .min = (double)MEMLIMIT_MIN_MEMORY, .max = (double)MEMLIMIT_MAX_MEMORY, .help = (help_), \
      .note = "like 512M, 2G or 4GiB" }
#define ROW_STAMP_SIZE(lo_, hi_, help_) \
    { .id = OPT_STAMP_SIZE, .kind = CLI_DOUBLE, .name = "stamp-size", .arg = "F", .ranged = 1, .min = (lo_), \
      .max = (hi_), .help = (help_) }
#define ROW_PRESET(help_, note_) \
    { .id = OPT_PRESET, .kind = CLI_ENUM, .name = "preset", .short_name = 'p', .arg = "NAME", \
      .words = preset_word, .list_words = 1, .help = (help_), .note = (note_) }

/* ---- poyo [animate] -------------------------------------------------------- */

static const cli_opt animate_opts[] = {
    HEADING("Output:"),
    ROW_OUTPUT("output file (- = standard output); DIR/ for many inputs"),
    ROW_FORMAT("the format: gif, apng, webp or webm; -o x.jpg, x.mp4 or a clash is a usage error"),
    ROW_FRAMES,
    ROW_SHEET,
    ROW_FORCE("overwrite existing output files"),
    ROW_PRESET("a platform's size, format, fps and budget:", "an option that breaks its rules is refused"),
    { .id = OPT_MAXBYTES, .kind = CLI_BYTES, .name = "max-bytes", .arg = "SIZE", .ranged = 1, .min = 1,
      .max = CLI_MAX_BYTES_MAX,
      .help = "fit the file in SIZE bytes (128K, 256KiB, 300KB, 1M): the file as made when it fits, else the "
              "fitting candidate (colours, lossy GIF, quality, crf, frame rate, canvas) with the least PSNR "
              "lost, said in -v and --json (psnr_lost, search)" },
    HEADING("\nMany files:"),
    { .id = OPT_RECURSIVE, .kind = CLI_FLAG, .name = "recursive", .short_name = 'r',
      .help = "take images in subdirectories too; -o DIR/ mirrors them" },
    { .id = OPT_JOBS, .kind = CLI_INT, .name = "jobs", .short_name = 'j', .arg = "N", .ranged = 1, .min = 1,
      .max = CLI_JOBS_MAX, .help = "files processed at once" },
    { .id = OPT_SKIP, .kind = CLI_FLAG, .name = "skip-existing",
      .help = "leave inputs whose output exists, without reading them" },
    ROW_JSON("one JSON object per file on standard output"),
    ROW_QUIET("print nothing but errors"),
    ROW_VERBOSE("print one line per file written"),
    HEADING("\nImpulse:"),
    { .id = OPT_IMPULSE, .kind = CLI_ENUM, .name = "impulse", .short_name = 'i', .arg = "NAME",
      .words = impulse_word, .list_words = 1, .help = "how the body is kicked:",
      .note = "see --list-impulses" },
    { .id = OPT_STRENGTH, .kind = CLI_DOUBLE, .name = "strength", .arg = "S",
      .help = "size of the kick (default and range per impulse, see --list-impulses; the default of a dent, "
              "a sway, a hop or a pat grows on a wide stamp; beyond the range the body folds over itself, tears or kinks)" },
    { .id = OPT_AT, .kind = CLI_PAIR, .name = "at", .arg = "X,Y", .ranged = 1, .min = -IMPULSE_AT_MAX,
      .max = IMPULSE_AT_MAX, .unit = "image fractions", .help = "point of the kick (0,0 top-left)" },
    { .id = OPT_ANGLE, .kind = CLI_DOUBLE, .name = "angle", .arg = "DEG", .ranged = 1, .min = -IMPULSE_ANGLE_MAX,
      .max = IMPULSE_ANGLE_MAX, .unit = "degrees", .help = "direction, clockwise from right" },
    { .id = OPT_RATE, .kind = CLI_DOUBLE, .name = "rate", .arg = "HZ", .ranged = 1, .min = IMPULSE_RATE_MIN,
      .max = IMPULSE_RATE_MAX, .unit = "Hz", .help = "repeats per second of wave and pat, at most --hz (default per impulse, slower below --hz 3)" },
    { .id = OPT_LIST_IMPULSES, .kind = CLI_FLAG, .name = "list-impulses",
      .help = "list the impulses with their parameters and defaults" },
    HEADING("\nBody:"),
    ROW_HZ("wobbles per second of the main wobble"),
    ROW_DAMPING,
    ROW_VOLUME,
    ROW_BODY_DRAG,
    { .id = OPT_OUTLINE_STIFFNESS, .kind = CLI_DOUBLE, .name = "outline-stiffness", .arg = "K", .ranged = 1,
      .min = 0, .max = SOFTBODY_OUTLINE_MAX, .help = "stiffness of springs along the outline, 0 = off",
      .note = "--outline K is another name for it" },
    { .id = OPT_OUTLINE_OLD, .kind = CLI_DOUBLE, .name = "outline", .arg = "K", .ranged = 1, .min = 0,
      .max = SOFTBODY_OUTLINE_MAX, .help = "the older name of --outline-stiffness", .hidden = 1 },
    ROW_GRID,
    ROW_SUBSTEPS(NULL),
    { .id = OPT_ANCHOR, .kind = CLI_ENUM, .name = "anchor", .arg = "WHERE", .choices = "bottom top none auto",
      .help = "the pinned edge: bottom, top, none or auto (the impulse's own; jump and drop: not top)" },
    HEADING("\nClip and canvas:"),
    ROW_FPS,
    ROW_DURATION("seconds of a one-shot clip", NULL),
    ROW_SIZE("canvas size"),
    { .id = OPT_FIT, .kind = CLI_ENUM, .name = "fit", .arg = "auto|none", .choices = "auto none",
      .help = "auto: full size, shrunk only as far as the motion needs; none: the still image fills the "
              "canvas" },
    ROW_LOOP,
    HEADING("\nGIF, APNG, WebP:"),
    ROW_COLORS("palette size at most"),
    ROW_DITHER("dithering"),
    ROW_ALPHA("alpha at or above N is opaque in a GIF"),
    { .id = OPT_MATTE, .kind = CLI_STRING, .name = "matte", .arg = "COLOR",
      .help = "blend soft edges onto #rrggbb, white, black, light or dark" },
    ROW_QUALITY("lossy quality: the GIF quantiser's target and lossy WebP"),
    { .id = OPT_LOSSY, .kind = CLI_FLAG, .name = "lossy", .help = "lossy WebP (default lossless)" },
    ROW_EFFORT,
    { .id = OPT_LOSSY_GIF, .kind = CLI_INT, .name = "lossy-gif", .arg = "N", .ranged = 1, .min = 0,
      .max = QUANTIZE_LOSSY_MAX,
      .help = "lossy GIF: LZW may write a pixel as a palette colour up to N away (RGB distance)",
      .note = "5 to 15 is subtle" },
    HEADING("\nInput and limits:"),
    ROW_MAXPX("refuse larger images before decoding"),
    ROW_MAXMEM("refuse, before the work, a stamp estimated to need more memory"),
    HEADING(""),
    ROW_HELP,
    END,
};

/* The defaults of the output options every subcommand shares (colours,
 * dither, alpha threshold, input pixels, memory); buf left as it is for others. */
static void output_default(int id, char *buf, size_t cap)
{
    quantize_def q = quantize_default_def();
    webp_options w = webp_default_def();
    switch (id) {
    case OPT_COLORS: snprintf(buf, cap, "%d", q.colors); break;
    case OPT_DITHER: snprintf(buf, cap, "%g", q.dither); break;
    case OPT_ALPHA: snprintf(buf, cap, "%d", q.alpha_threshold); break;
    case OPT_MAXPX: snprintf(buf, cap, "%lld", IMAGE_DEFAULT_MAX_PIXELS); break;
    case OPT_MAXMEM: cli_bytes_text((double)MEMLIMIT_DEFAULT_MEMORY, buf, cap); break;
    case OPT_EFFORT: snprintf(buf, cap, "%d lossless, %d lossy", w.lossless_method, w.method); break;
    default: break;
    }
}

static void animate_default(int id, char *buf, size_t cap)
{
    animate_def a = animate_default_def();
    quantize_def q = quantize_default_def();
    buf[0] = '\0';
    switch (id) {
    case OPT_FORMAT: snprintf(buf, cap, "the extension of -o, else the preset's, else gif"); break;
    case OPT_JOBS: snprintf(buf, cap, "the cores"); break;
    case OPT_IMPULSE: snprintf(buf, cap, "%s", impulse_get_info(a.impulse.kind)->name); break;
    case OPT_HZ: snprintf(buf, cap, "%g", a.body.hz); break;
    case OPT_DAMPING: snprintf(buf, cap, "%g", a.body.damping); break;
    case OPT_VOLUME: snprintf(buf, cap, "%g", a.body.volume); break;
    case OPT_DRAG: snprintf(buf, cap, "%g", a.body.drag); break;
    case OPT_OUTLINE_STIFFNESS: snprintf(buf, cap, "%g", a.body.outline); break;
    case OPT_GRID: snprintf(buf, cap, "%d", a.grid); break;
    case OPT_SUBSTEPS: snprintf(buf, cap, "%d", a.body.substeps); break;
    case OPT_ANCHOR: snprintf(buf, cap, "%s", a.anchor_auto ? "auto" : "bottom"); break;
    case OPT_FPS: snprintf(buf, cap, "%g", a.fps); break;
    case OPT_DURATION: snprintf(buf, cap, "while the wobble shows, 0.8 to %g s, longer below --hz 3", a.max_duration); break;
    case OPT_SIZE: snprintf(buf, cap, "the input's size"); break;
    case OPT_FIT: snprintf(buf, cap, "%s", a.fit == FIT_AUTO ? "auto" : "none"); break;
    case OPT_LOOP: snprintf(buf, cap, "%d", a.loop); break;
    case OPT_QUALITY: snprintf(buf, cap, "%d for a GIF, %d for WebP", q.quality_max, webp_default_def().quality); break;
    case OPT_LOSSY_GIF: snprintf(buf, cap, "%d, exact", q.lossy); break;
    default: output_default(id, buf, cap); break;
    }
}

/* ---- poyo text: its own options, then poyo animate's ----------------------- */

static const cli_opt text_opts[] = {
    HEADING("Text:"),
    { .id = OPT_FONT, .kind = CLI_STRING, .name = "font", .arg = "NAME|FILE",
      .help = "a fontconfig pattern (IPAexGothic, serif:bold) or a font file",
      .note = "emoji come from a colour emoji font" },
    { .id = OPT_COLOR, .kind = CLI_STRING, .name = "color", .arg = "C",
      .help = "fill colour: #rrggbb, #rgb or a name" },
    { .id = OPT_GRADIENT, .kind = CLI_STRING, .name = "gradient", .arg = "C1,C2[,ANGLE]",
      .help = "fill from C1 to C2, ANGLE degrees clockwise from right" },
    { .id = OPT_TEXT_OUTLINE, .kind = CLI_STRING, .name = "outline", .arg = "C[,WIDTH]",
      .help = "outline the letters in C, WIDTH pixels at the canvas size (more than 0, at most "
              STR(TEXT_OUTLINE_MAX) ")" },
    { .id = OPT_ALIGN, .kind = CLI_ENUM, .name = "align", .arg = "WHERE",
      .choices = "left center right top middle bottom | centre",
      .help = "left, center or right; top, middle, bottom when vertical" },
    { .id = OPT_VERTICAL, .kind = CLI_FLAG, .name = "vertical",
      .help = "top to bottom, columns right to left, vertical glyph forms" },
    { .id = OPT_TEXT_FIT, .kind = CLI_ENUM, .name = "fit", .arg = "fill|keep", .choices = "fill keep auto none",
      .help = "fill: each line stretched over its share of the canvas; keep: proportions kept",
      .note = "--fit auto|none is the canvas fit of poyo animate" },
    { .id = OPT_PER_GLYPH, .kind = CLI_FLAG, .name = "per-glyph",
      .help = "each glyph a body of its own, joined to its neighbours by soft links and kicked one after "
              "another (at most " STR(STAGGER_MAX_PARTS) ")" },
    ROW_SIZE("canvas size"),
    HEADING("\nEvery option of poyo animate applies (see poyo animate --help): -o, --format, -p,\n"
            "--max-bytes, --max-memory SIZE, --frames, --sheet, -i, --strength, --hz,\n"
            "--outline-stiffness K (the body's outline springs; --outline is the letters' outline\n"
            "here) and the rest.\n"),
    ROW_HELP,
    END,
};

static void text_default(int id, char *buf, size_t cap)
{
    text_def t = text_default_def();
    buf[0] = '\0';
    switch (id) {
    case OPT_FONT: snprintf(buf, cap, "%s", t.font); break;
    case OPT_COLOR: snprintf(buf, cap, "#%06x", t.color); break;
    case OPT_GRADIENT: snprintf(buf, cap, "ANGLE %g: top to bottom", t.angle); break;
    case OPT_TEXT_OUTLINE: snprintf(buf, cap, "WIDTH 1/40 of the shorter side"); break;
    case OPT_ALIGN: snprintf(buf, cap, "center"); break;
    case OPT_TEXT_FIT: snprintf(buf, cap, "%s", t.fit == TEXT_FIT_FILL ? "fill" : "keep"); break;
    case OPT_SIZE: snprintf(buf, cap, "%dx%d", t.width, t.height); break;
    default: animate_default(id, buf, cap); break;
    }
}

/* ---- poyo rope ------------------------------------------------------------- */

static const cli_opt rope_opts[] = {
    HEADING("Output:"),
    ROW_OUTPUT(".gif, .png (APNG), .webp or .webm; - = standard output"),
    ROW_FORCE("overwrite an existing output file"),
    ROW_FRAMES,
    ROW_SHEET,
    ROW_FORMAT("gif, apng, webp or webm"),
    { .id = OPT_CSV, .kind = CLI_FLAG, .name = "csv",
      .help = "print frame,time,particle,x,y for " STR(CLI_ROPE_DUMP_SECONDS) " s (or --duration) from the kick; "
              "particles 0 (the anchor) to --segments, then the stamp's centre" },
    ROW_JSON("the same as one JSON document"),
    ROW_QUIET("print nothing but errors"),
    ROW_VERBOSE("print a line for the file written"),
    HEADING("\nRope:"),
    { .id = OPT_ANCHOR_AT, .kind = CLI_PAIR, .name = "anchor-at", .arg = "X,Y", .ranged = 1,
      .min = CHARM_ANCHOR_MIN, .max = CHARM_ANCHOR_MAX, .help = "top of the rope, canvas fractions" },
    { .id = OPT_LENGTH, .kind = CLI_DOUBLE, .name = "length", .arg = "L", .ranged = 1, .min = CHARM_LENGTH_MIN,
      .max = CHARM_LENGTH_MAX, .unit = "canvas heights", .help = "rope length" },
    { .id = OPT_SEGMENTS, .kind = CLI_INT, .name = "segments", .arg = "N", .ranged = 1, .min = 1,
      .max = CHARM_SEGMENTS_MAX, .help = "rope segments" },
    { .id = OPT_STIFFNESS, .kind = CLI_DOUBLE, .name = "stiffness", .arg = "K", .ranged = 1,
      .min = CHARM_STIFFNESS_MIN, .max = 1, .help = "share of the stretch removed per frame, 1 = no stretch" },
    { .id = OPT_ITERATIONS, .kind = CLI_INT, .name = "iterations", .arg = "N", .ranged = 1, .min = 1,
      .max = CHARM_ITERATIONS_MAX, .help = "constraint passes per solver step" },
    { .id = OPT_ROPE_DAMPING, .kind = CLI_DOUBLE, .name = "rope-damping", .arg = "K", .ranged = 1, .min = 0,
      .max = 1, .help = "share of the rope's bending motion removed per 1/25 s; keeps the swing itself" },
    { .id = OPT_DRAG, .kind = CLI_DOUBLE, .name = "drag", .arg = "D", .ranged = 1, .min = 0,
      .max = CHARM_DRAG_MAX, .help = "air drag per second",
      .note = "above 0 the swing dies down and the clip ends at rest" },
    { .id = OPT_GRAVITY, .kind = CLI_DOUBLE, .name = "gravity", .arg = "G", .ranged = 1, .min = CHARM_GRAVITY_MIN,
      .max = CHARM_GRAVITY_MAX, .unit = "canvas heights/s^2", .help = "canvas heights per second squared" },
    { .id = OPT_ROPE_MASS, .kind = CLI_DOUBLE, .name = "rope-mass", .arg = "R", .ranged = 1,
      .min = CHARM_ROPE_MASS_MIN, .max = CHARM_ROPE_MASS_MAX, .help = "rope mass over stamp mass" },
    { .id = OPT_ROPE_COLOR, .kind = CLI_STRING, .name = "rope-color", .arg = "COLOR", .help = "#rrggbb" },
    { .id = OPT_ROPE_WIDTH, .kind = CLI_DOUBLE, .name = "rope-width", .arg = "PX", .ranged = 1,
      .min = CHARM_ROPE_WIDTH_MIN, .max = CHARM_ROPE_WIDTH_MAX, .unit = "pixels", .help = "rope thickness" },
    HEADING("\nKick:"),
    { .id = OPT_KICK, .kind = CLI_DOUBLE, .name = "kick", .arg = "S", .ranged = 1, .min = 0,
      .max = CHARM_KICK_MAX, .unit = "canvas heights/s",
      .help = "the stamp's speed after the kick, canvas heights per second", .note = "0 = hangs still" },
    { .id = OPT_ANGLE, .kind = CLI_DOUBLE, .name = "angle", .arg = "DEG", .ranged = 1, .min = -CHARM_ANGLE_MAX,
      .max = CHARM_ANGLE_MAX, .unit = "degrees", .help = "direction, degrees clockwise from right" },
    HEADING("\nStamp:"),
    ROW_STAMP_SIZE(CHARM_STAMP_SIZE_MIN, 1, "the stamp's longer side over the canvas's shorter side"),
    { .id = OPT_WOBBLE, .kind = CLI_DOUBLE, .name = "wobble", .arg = "G", .ranged = 1, .min = 0,
      .max = CHARM_WOBBLE_MAX, .help = "how strongly the stamp answers the swing; 1 = physical, 0 = rigid" },
    ROW_HZ("wobbles per second"),
    ROW_DAMPING,
    ROW_VOLUME,
    ROW_GRID,
    ROW_MAXPX("refuse larger images before decoding"),
    ROW_MAXMEM("refuse, before the work, a clip estimated to need more memory"),
    HEADING("\nClip and canvas:"),
    ROW_SIZE("canvas size"),
    ROW_FPS,
    ROW_DURATION("seconds: the nearest whole number of swings", NULL),
    ROW_LOOP,
    ROW_COLORS("GIF palette size at most"),
    ROW_DITHER("GIF dithering"),
    ROW_ALPHA("GIF: alpha at or above N is opaque"),
    ROW_QUALITY("lossy WebP quality"),
    ROW_EFFORT,
    HEADING(""),
    ROW_HELP,
    END,
};

static void rope_default(int id, char *buf, size_t cap)
{
    charm_def d = charm_default_def();
    buf[0] = '\0';
    switch (id) {
    case OPT_FORMAT: snprintf(buf, cap, "from the -o extension, else gif"); break;
    case OPT_ANCHOR_AT: snprintf(buf, cap, "%g,%g", d.anchor.x, d.anchor.y); break;
    case OPT_LENGTH: snprintf(buf, cap, "%g", d.length); break;
    case OPT_SEGMENTS: snprintf(buf, cap, "%d", d.segments); break;
    case OPT_STIFFNESS: snprintf(buf, cap, "%g", d.stiffness); break;
    case OPT_ITERATIONS: snprintf(buf, cap, "%d", d.iterations); break;
    case OPT_ROPE_DAMPING: snprintf(buf, cap, "%g", d.rope_damping); break;
    case OPT_DRAG: snprintf(buf, cap, "%g", d.drag); break;
    case OPT_GRAVITY: snprintf(buf, cap, "%g", d.gravity); break;
    case OPT_ROPE_MASS: snprintf(buf, cap, "%g", d.rope_mass); break;
    case OPT_ROPE_COLOR: snprintf(buf, cap, "#%02x%02x%02x", d.rope_rgb[0], d.rope_rgb[1], d.rope_rgb[2]); break;
    case OPT_ROPE_WIDTH: snprintf(buf, cap, "%g", d.rope_width); break;
    case OPT_KICK: snprintf(buf, cap, "%g", d.kick); break;
    case OPT_ANGLE: snprintf(buf, cap, "%g", d.angle); break;
    case OPT_STAMP_SIZE: snprintf(buf, cap, "%g", d.stamp_size); break;
    case OPT_WOBBLE: snprintf(buf, cap, "%g", d.wobble); break;
    case OPT_HZ: snprintf(buf, cap, "%g", d.body.hz); break;
    case OPT_DAMPING: snprintf(buf, cap, "%g", d.body.damping); break;
    case OPT_VOLUME: snprintf(buf, cap, "%g", d.body.volume); break;
    case OPT_GRID: snprintf(buf, cap, "%d", d.grid); break;
    case OPT_SIZE: snprintf(buf, cap, "%dx%d", d.width, d.height); break;
    case OPT_FPS: snprintf(buf, cap, "%g", d.fps); break;
    case OPT_DURATION:
        snprintf(buf, cap, "one swing, or until it settles (at most %g s) with --drag", d.max_duration);
        break;
    case OPT_LOOP: snprintf(buf, cap, "%d", d.loop); break;
    case OPT_QUALITY: snprintf(buf, cap, "lossless"); break;
    default: output_default(id, buf, cap); break;
    }
}

/* ---- poyo path ------------------------------------------------------------- */

static const cli_opt path_opts[] = {
    HEADING("Path:"),
    { .id = OPT_THROUGH, .kind = CLI_STRING, .name = "through", .short_name = 't', .arg = "POINTS",
      .help = "the waypoints, 2 to " STR(CLI_PATH_WAYPOINTS_MAX) " (required)" },
    { .id = OPT_SVG, .kind = CLI_FILE, .name = "svg", .arg = "FILE",
      .help = "write the path, its waypoints (numbered) and their tangents as SVG" },
    { .id = OPT_SAMPLE, .kind = CLI_INT, .name = "sample", .arg = "N", .ranged = 1, .min = 1,
      .max = CLI_PATH_SAMPLES_MAX, .help = "print N points equally spaced in arc length" },
    { .id = OPT_NEAREST, .kind = CLI_PAIR, .name = "nearest", .arg = "X,Y", .ranged = 1,
      .min = -CLI_PATH_COORD_MAX, .max = CLI_PATH_COORD_MAX, .unit = "canvas fractions",
      .help = "print the point of the path nearest to X,Y (repeatable)" },
    ROW_SIZE("canvas in pixels: the aspect the path is fitted in, the SVG's size and the clip's size"),
    HEADING("\nPrinted lines, one per point, columns separated by spaces:\n"
            "  --sample:   x y angle s\n"
            "  --nearest:  x y angle s distance   (one line per --nearest, in order)\n"
            "x and y are canvas fractions, angle the tangent in degrees as above (-180 to 180], s the\n"
            "arc length from the start and distance the distance to X,Y, both in canvas widths.\n"
            "\nStamp (when STAMP is given):"),
    ROW_OUTPUT(".gif, .png (APNG), .webp or .webm; - = standard output (default STEM.gif beside STAMP)"),
    ROW_FORCE("overwrite existing output files (also --svg)"),
    ROW_QUIET("print nothing but errors"),
    ROW_VERBOSE("say what was written"),
    ROW_STAMP_SIZE(FOLLOW_STAMP_SIZE_MIN, 1, "the stamp's visible part, longer side over the canvas's shorter side"),
    ROW_DURATION("seconds for one trip from the first waypoint to the last", NULL),
    { .id = OPT_SPEED, .kind = CLI_DOUBLE, .name = "speed", .arg = "V",
      .help = "canvas widths per second (more than 0), instead of --duration" },
    { .id = OPT_BOUNCE, .kind = CLI_FLAG, .name = "bounce", .help = "go there and back instead" },
    { .id = OPT_NO_TURN, .kind = CLI_FLAG, .name = "no-turn",
      .help = "keep the stamp as drawn instead of turning it with the tangent" },
    { .id = OPT_FACING, .kind = CLI_STRING, .name = "facing", .arg = "DEG|start",
      .help = "direction of travel in which the stamp looks as drawn" },
    { .id = OPT_CORE, .kind = CLI_DOUBLE, .name = "core", .arg = "F", .ranged = 1, .min = FOLLOW_CORE_MIN,
      .max = FOLLOW_CORE_MAX, .help = "part of the body carried rigidly, as a fraction of its size; smaller sways more" },
    ROW_HZ("wobbles per second of the sway"),
    ROW_DAMPING,
    ROW_VOLUME,
    ROW_GRID,
    ROW_FPS,
    ROW_LOOP,
    ROW_FRAMES,
    ROW_SHEET,
    ROW_COLORS("GIF palette size at most"),
    ROW_DITHER("GIF dithering"),
    ROW_ALPHA("GIF: alpha at or above N is opaque"),
    ROW_QUALITY("lossy WebP quality"),
    ROW_EFFORT,
    ROW_FORMAT("gif, apng, webp or webm, instead of the output's extension"),
    ROW_MAXPX("refuse larger stamps before decoding"),
    ROW_MAXMEM("refuse, before the work, a clip estimated to need more memory"),
    HEADING(""),
    ROW_HELP,
    END,
};

static void path_default(int id, char *buf, size_t cap)
{
    follow_def f = follow_default_def();
    buf[0] = '\0';
    switch (id) {
    case OPT_SIZE: snprintf(buf, cap, "%dx%d", f.width, f.height); break;
    case OPT_STAMP_SIZE: snprintf(buf, cap, "%g", f.stamp_size); break;
    case OPT_DURATION: snprintf(buf, cap, "%g", f.duration); break;
    case OPT_FACING: snprintf(buf, cap, "start: the first waypoint's DEG"); break;
    case OPT_CORE: snprintf(buf, cap, "%g", f.core); break;
    case OPT_HZ: snprintf(buf, cap, "%g", f.body.hz); break;
    case OPT_DAMPING: snprintf(buf, cap, "%g", f.body.damping); break;
    case OPT_VOLUME: snprintf(buf, cap, "%g", f.body.volume); break;
    case OPT_GRID: snprintf(buf, cap, "%d", f.grid); break;
    case OPT_FPS: snprintf(buf, cap, "%g", f.fps); break;
    case OPT_LOOP: snprintf(buf, cap, "%d", f.loop); break;
    case OPT_QUALITY: snprintf(buf, cap, "lossless"); break;
    default: output_default(id, buf, cap); break;
    }
}

/* ---- poyo sdf -------------------------------------------------------------- */

static const cli_opt sdf_opts[] = {
    HEADING("Scene:"),
    { .id = OPT_SCENE, .kind = CLI_STRING, .name = "scene", .arg = "TEXT",
      .help = "shapes and operators, e.g. \"floor(0.9); circle(0.5,0.3,0.1) smin(0.05) box(0.2,0.6,0.1,0.05)\"; "
              "shapes: circle box rbox segment floor ceiling left right wall plane; ops: union sub smin(w) "
              "smine(w) repeat(px,py[,nx[,ny]]); see man poyo; at most " STR(SCENE_MAX_SHAPES)
              " shapes (a repeated one counts 3, or 9 if on both axes)" },
    { .id = OPT_SCENE_FILE, .kind = CLI_FILE, .name = "scene-file", .arg = "FILE",
      .help = "read the scene text from FILE (- = standard input; # comments)" },
    ROW_SIZE("canvas"),
    HEADING("\nQueries (printed in the order given; may repeat):"),
    { .id = OPT_QUERY, .kind = CLI_STRING, .name = "query", .arg = "X,Y",
      .help = "prints \"distance D normal NX NY\" (D < 0 inside; unit normal, y down)" },
    { .id = OPT_RAY, .kind = CLI_STRING, .name = "ray", .arg = "X,Y,DX,DY",
      .help = "prints \"hit X Y distance T\" or \"miss\": the ray from X,Y through X+DX,Y+DY, traced up to 4 "
              "canvas sides" },
    { .id = OPT_RENDER, .kind = CLI_FILE, .name = "render", .arg = "FILE.png", .files = CLI_FILES_PNG,
      .help = "draws the field: warm inside, cool outside, iso-lines, dark contour" },
    { .id = OPT_ISO, .kind = CLI_DOUBLE, .name = "iso", .arg = "PIXELS", .ranged = 1, .min = CLI_ISO_MIN,
      .max = ANIM_SIDE_MAX, .or_zero = 1, .help = "spacing of the iso-lines, 0 = none" },
    HEADING("\nDrop:"),
    ROW_STAMP_SIZE(DROP_STAMP_SIZE_MIN, 1, "longer side of the stamp, fraction of min(W,H)"),
    { .id = OPT_AT, .kind = CLI_PAIR, .name = "at", .arg = "X,Y", .ranged = 1, .min = -DROP_AT_MAX,
      .max = DROP_AT_MAX, .unit = "canvas fractions", .help = "start centre of the stamp" },
    { .id = OPT_VELOCITY, .kind = CLI_PAIR, .name = "velocity", .arg = "VX,VY", .ranged = 1,
      .min = -DROP_VELOCITY_MAX, .max = DROP_VELOCITY_MAX,
      .help = "start velocity, canvas widths/heights per second" },
    { .id = OPT_SPIN, .kind = CLI_DOUBLE, .name = "spin", .arg = "DEG", .ranged = 1, .min = -DROP_SPIN_MAX,
      .max = DROP_SPIN_MAX, .unit = "degrees per second", .help = "start spin, degrees per second clockwise" },
    { .id = OPT_TILT, .kind = CLI_DOUBLE, .name = "tilt", .arg = "DEG", .ranged = 1, .min = -DROP_TILT_MAX,
      .max = DROP_TILT_MAX, .unit = "degrees", .help = "start rotation, degrees clockwise" },
    { .id = OPT_GRAVITY, .kind = CLI_DOUBLE, .name = "gravity", .arg = "G", .ranged = 1, .min = -DROP_GRAVITY_MAX,
      .max = DROP_GRAVITY_MAX, .help = "canvas heights per second squared, down" },
    { .id = OPT_RESTITUTION, .kind = CLI_DOUBLE, .name = "restitution", .arg = "E", .ranged = 1, .min = 0,
      .max = 1, .help = "share of the normal speed kept in a bounce" },
    { .id = OPT_FRICTION, .kind = CLI_DOUBLE, .name = "friction", .arg = "MU", .ranged = 1, .min = 0,
      .max = DROP_FRICTION_MAX, .help = "Coulomb friction: 0 ice, 1 grips 45-degree slopes" },
    ROW_HZ("wobbles per second of the body"),
    ROW_DAMPING,
    ROW_VOLUME,
    ROW_BODY_DRAG,
    ROW_GRID,
    ROW_SUBSTEPS("raised for speed"),
    HEADING("\nClip:"),
    ROW_FPS,
    ROW_DURATION("seconds", NULL),
    { .id = OPT_HOLD, .kind = CLI_DOUBLE, .name = "hold", .arg = "S", .ranged = 1, .min = 0, .max = DROP_HOLD_MAX,
      .unit = "seconds", .help = "seconds the resting frame is shown" },
    ROW_LOOP,
    { .id = OPT_NO_SCENE, .kind = CLI_FLAG, .name = "no-scene",
      .help = "draw only the stamp on a transparent background" },
    { .id = OPT_SCENE_COLOR, .kind = CLI_STRING, .name = "scene-color", .arg = "RRGGBB",
      .help = "colour of the solid regions" },
    HEADING("\nOutput:"),
    ROW_OUTPUT(".gif, .png (APNG), .webp or .webm; - = standard output"),
    ROW_FORMAT("gif, apng, webp or webm, whatever the name says"),
    ROW_FRAMES,
    ROW_SHEET,
    ROW_FORCE("overwrite existing files"),
    ROW_QUIET("print nothing but errors"),
    ROW_VERBOSE("say what was written"),
    ROW_COLORS("GIF palette size at most"),
    ROW_DITHER("GIF dithering"),
    ROW_ALPHA("GIF: alpha at or above N is opaque"),
    ROW_QUALITY("lossy WebP quality"),
    ROW_EFFORT,
    ROW_MAXPX("refuse larger stamps before decoding"),
    ROW_MAXMEM("refuse, before the work, a clip estimated to need more memory"),
    HEADING(""),
    ROW_HELP,
    END,
};

static void sdf_default(int id, char *buf, size_t cap)
{
    drop_def d = drop_default_def();
    buf[0] = '\0';
    switch (id) {
    case OPT_SCENE: snprintf(buf, cap, "\"%s\"", scene_default_text()); break;
    case OPT_SIZE: snprintf(buf, cap, "%dx%d", d.width, d.height); break;
    case OPT_ISO: snprintf(buf, cap, "%g", sdf_default_def().iso_spacing_px); break;
    case OPT_STAMP_SIZE: snprintf(buf, cap, "%g", d.stamp_size); break;
    case OPT_AT: snprintf(buf, cap, "%g,%g", d.at.x, d.at.y); break;
    case OPT_VELOCITY: snprintf(buf, cap, "%g,%g", d.velocity.x, d.velocity.y); break;
    case OPT_SPIN: snprintf(buf, cap, "%g", d.spin); break;
    case OPT_TILT: snprintf(buf, cap, "%g", d.tilt); break;
    case OPT_GRAVITY: snprintf(buf, cap, "%g", d.gravity); break;
    case OPT_RESTITUTION: snprintf(buf, cap, "%g", d.restitution); break;
    case OPT_FRICTION: snprintf(buf, cap, "%g", d.friction); break;
    case OPT_HZ: snprintf(buf, cap, "%g", d.body.hz); break;
    case OPT_DAMPING: snprintf(buf, cap, "%g", d.body.damping); break;
    case OPT_VOLUME: snprintf(buf, cap, "%g", d.body.volume); break;
    case OPT_DRAG: snprintf(buf, cap, "%g", d.body.drag); break;
    case OPT_GRID: snprintf(buf, cap, "%d", d.grid); break;
    case OPT_SUBSTEPS: snprintf(buf, cap, "%d", d.body.substeps); break;
    case OPT_FPS: snprintf(buf, cap, "%g", d.fps); break;
    case OPT_DURATION: snprintf(buf, cap, "until it rests or leaves, at most %g s", d.max_duration); break;
    case OPT_HOLD: snprintf(buf, cap, "%g", d.hold); break;
    case OPT_LOOP: snprintf(buf, cap, "%d", d.loop); break;
    case OPT_SCENE_COLOR:
        snprintf(buf, cap, "%02X%02X%02X", d.scene_rgb[0], d.scene_rgb[1], d.scene_rgb[2]);
        break;
    case OPT_QUALITY: snprintf(buf, cap, "lossless"); break;
    default: output_default(id, buf, cap); break;
    }
}

/* ---- poyo check ------------------------------------------------------------ */

static const cli_opt check_opts[] = {
    ROW_PRESET("the platform whose rules a file is checked against:", "see --list-presets"),
    { .id = OPT_LIST_PRESETS, .kind = CLI_FLAG, .name = "list-presets",
      .help = "print every preset's limits and what poyo makes for it" },
    ROW_QUIET("print only the broken rules and errors"),
    ROW_JSON("one JSON object per file on standard output: the file's facts and each rule's verdict (pass, fail "
             "or none)"),
    ROW_MAXMEM("refuse a file whose decoded frames would need more memory"),
    ROW_HELP,
    END,
};

static void check_default(int id, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (id == OPT_MAXMEM)
        cli_bytes_text((double)MEMLIMIT_DEFAULT_MEMORY, buf, cap);
}

const cli_command cli_commands[] = {
    { "animate", animate_opts, NULL, animate_default },
    { "text", text_opts, &cli_commands[0], text_default },
    { "rope", rope_opts, NULL, rope_default },
    { "path", path_opts, NULL, path_default },
    { "sdf", sdf_opts, NULL, sdf_default },
    { "check", check_opts, NULL, check_default },
};
const int cli_command_count = (int)(sizeof cli_commands / sizeof cli_commands[0]);

const cli_command *cli_command_find(const char *name)
{
    for (int i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

const cli_opt *cli_opt_find(const cli_command *cmd, int id)
{
    for (const cli_command *c = cmd; c; c = c->inherits)
        for (const cli_opt *o = c->opts; o->name; o++)
            if (o->kind != CLI_HEADING && o->id == id)
                return o;
    return NULL;
}

const char *cli_opt_word(const cli_opt *o, int i, char *buf, size_t cap)
{
    if (o->words)
        return o->words(i);
    const char *s = o->choices;
    for (int k = 0; s && *s && *s != '|'; k++) {
        size_t n = strcspn(s, " ");
        if (k == i) {
            snprintf(buf, cap, "%.*s", (int)n, s);
            return buf;
        }
        s += n;
        s += strspn(s, " ");
    }
    return NULL;
}

void cli_opt_range_text(const cli_opt *o, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!o->ranged)
        return;
    if (o->kind == CLI_BYTES) {
        char lo[32], hi[32];
        cli_bytes_text(o->min, lo, sizeof lo);
        cli_bytes_text(o->max, hi, sizeof hi);
        snprintf(buf, cap, "%s to %s", lo, hi);
        return;
    }
    snprintf(buf, cap, "%.10g to %.10g%s%s", o->min, o->max, o->unit ? " " : "", o->unit ? o->unit : "");
}

/* Writes text from column col of a line at most 100 wide, continuing at column 27. */
static void put_wrapped(FILE *out, const char *text, int col)
{
    const int width = 100, indent = 27;
    const char *s = text;
    for (int first = 1; *s; first = 0) {
        size_t word = strcspn(s, " ");
        if (!first && col + 1 + (int)word > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, word, out);
        col += (int)word;
        s += word;
        s += strspn(s, " ");
    }
    fputc('\n', out);
}

/* Appends " a, b or c", the words of enum option o, to text (k of cap bytes used);
 * the bytes used then, at most cap - 1. */
static size_t put_word_list(const cli_opt *o, char *text, size_t k, size_t cap)
{
    char word[64], next[64];
    const char *w;
    for (int i = 0; k < cap && (w = cli_opt_word(o, i, word, sizeof word)) != NULL; i++) {
        const char *sep = i == 0 ? " " : cli_opt_word(o, i + 1, next, sizeof next) ? ", " : " or ";
        k += (size_t)snprintf(text + k, cap - k, "%s%s", sep, w);
    }
    return k < cap ? k : cap - 1;
}

/* One option's lines of --help. */
static void print_option(FILE *out, const cli_command *cmd, const cli_opt *o)
{
    char head[96], dflt[160], range[96], text[1024];
    int n = snprintf(head, sizeof head, "  %c%c%s --%s%s%s", o->short_name ? '-' : ' ',
                     o->short_name ? o->short_name : ' ', o->short_name ? "," : " ", o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
    cmd->default_of(o->id, dflt, sizeof dflt);
    cli_opt_range_text(o, range, sizeof range);
    size_t k = (size_t)snprintf(text, sizeof text, "%s", o->help);
    if (o->list_words)
        k = put_word_list(o, text, k, sizeof text);
    if (*range || *dflt)
        k += (size_t)snprintf(text + k, sizeof text - k, " (%s%s%s%s)", range, *range && *dflt ? ", " : "",
                              *dflt ? "default " : "", dflt);
    if (o->note && k < sizeof text)
        k += (size_t)snprintf(text + k, sizeof text - k, "; %s", o->note);
    if (o->beyond && k < sizeof text)
        snprintf(text + k, sizeof text - k, "; %s", o->beyond);
    fputs(head, out);
    int col = n < 25 ? 25 : n;
    fprintf(out, "%*s", col + 2 - n, "");
    put_wrapped(out, text, col + 2);
}

void cli_print_options(FILE *out, const cli_command *cmd, const char *from_heading, const char *to_heading)
{
    int on = from_heading == NULL;
    for (const cli_opt *o = cmd->opts; o->name; o++) {
        if (o->kind == CLI_HEADING) {
            if (from_heading && strcmp(o->name, from_heading) == 0)
                on = 1;
            else if (to_heading && strcmp(o->name, to_heading) == 0)
                return;
            if (on)
                fprintf(out, "%s\n", o->name);
        } else if (on && !o->hidden) {
            print_option(out, cmd, o);
        }
    }
}
