/* preset.h - what chat platforms accept for custom emoji and stickers: one table
 * that both makes files (preset_apply) and checks any GIF/APNG/WebP/WebM against the
 * same rules (preset_check), naming every rule a file breaks. */
#ifndef POYO_PRESET_H
#define POYO_PRESET_H

#include "image/anim.h"
#include "image/animread.h"
#include "image/output.h"
#include "sim/animate.h"
#include "util/error.h"

/* Formats a platform takes, as bits of preset_info.accepts. */
enum {
    PRESET_ACCEPT_GIF = 1,   /* GIF, still or animated */
    PRESET_ACCEPT_PNG = 2,   /* still PNG (one frame, no animation chunks) */
    PRESET_ACCEPT_APNG = 4,  /* animated PNG */
    PRESET_ACCEPT_WEBP = 8,  /* WebP, still or animated */
    PRESET_ACCEPT_WEBM = 16  /* WebM video */
};

/* How the canvas must be shaped. */
typedef enum canvas_rule {
    CANVAS_ANY = 0,      /* no rule */
    CANVAS_EXACT,        /* exactly canvas_w x canvas_h */
    CANVAS_SQUARE,       /* square, each side at most canvas_w */
    CANVAS_ONE_SIDE,     /* one side exactly canvas_w, the other at most canvas_w */
    CANVAS_FIT           /* at most canvas_w x canvas_h, one side at least min_side */
} canvas_rule;

/* One platform's rules and the settings poyo makes its files with. */
typedef struct preset_info {
    const char *name;        /* --preset name */
    const char *label;       /* the platform inside a sentence: "Slack", "a LINE sticker" */
    const char *summary;     /* one line for --list-presets */
    out_format format;       /* format poyo writes */
    unsigned accepts;        /* PRESET_ACCEPT_* bits: formats the platform takes */
    canvas_rule canvas;      /* shape rule, with the three numbers below (pixels) */
    int canvas_w, canvas_h, min_side;
    int width, height;       /* canvas poyo makes, pixels */
    double fps;              /* frames per second poyo makes */
    double clip_s;           /* longest clip poyo makes, seconds (one play) */
    int min_frames;          /* frames in the file at least (1 = no rule) */
    int max_frames;          /* frames in the file at most, 0 = no rule */
    int max_ms;              /* one play lasts at most this, milliseconds; 0 = no rule */
    int max_total_ms;        /* all plays together at most, milliseconds; 0 = no rule */
    int max_fps;             /* frames per second at most, 0 = no rule */
    int min_plays, max_plays;/* plays allowed; max_plays 0 = any, forever included;
                                max_plays > 0 refuses endless looping */
    int plays;               /* plays poyo writes, 0 = forever */
    long long max_bytes;     /* file size at most, bytes */
    const char *bytes_text;  /* the limit as the platform words it: "128 KB" */
    int first_frame_still;   /* 1: the first frame is shown as the still image */
    int animated;            /* 1: must be an animation (2 frames or more) */
    const char *checked;     /* date the limits were last checked, YYYY-MM-DD */
    const char *codec;       /* a video (WebM) must use this codec ("vp9"), NULL = any */
    int no_audio;            /* 1: a video must have no audio track */
    int whole_total;         /* 1: all plays together last a whole number of seconds, 1 or more */
    int min_delay_ms;        /* every frame lasts at least this, milliseconds; 0 = no rule */
    int rgba_only;           /* 1: an APNG must be RGBA, not paletted */
} preset_info;

/* Number of presets in the table. */
int preset_count(void);
/* Preset i (0 to preset_count() - 1), or NULL; static storage. */
const preset_info *preset_at(int i);
/* The preset called name, or NULL; static storage. */
const preset_info *preset_lookup(const char *name);
/* Plain words for a set of PRESET_ACCEPT_* bits, "GIF or still PNG", into buf (cap bytes). */
void preset_accepts_text(unsigned accepts, char *buf, size_t cap);
/* Plain words for the canvas rule, "a square of at most 128x128", into buf (cap bytes). */
void preset_canvas_text(const preset_info *p, char *buf, size_t cap);

/* Sets the canvas, frame rate, clip length cap (duration 0 = until the body
 * settles, at most clip_s; periodic drives keep their own period), plays,
 * format and format options of p on the definition structs, and the byte
 * budget in *max_bytes. Any pointer but p may be NULL. It overwrites those
 * fields: call it before applying the user's own flags so they win. */
void preset_apply(const preset_info *p, animate_def *ad, output_def *out, long long *max_bytes);
/* The smallest fraction a w x h canvas that keeps p's canvas rule may be
 * shrunk to and still keep it: 0 for any size or a square, 1 for an exact
 * size or one exact side, and for a fit rule as far as the longer side stays
 * at its least. */
double preset_min_scale(const preset_info *p, int w, int h);
/* The most plays (1 or more; 0 = forever) p allows for a clip of clip_s
 * seconds: p->plays when there is no total limit, else as many as fit. */
int preset_plays_for(const preset_info *p, double clip_s);
/* The plays and the length of one play (seconds) a clip of clip_s seconds is
 * written with under p. Without the whole-seconds rule that is
 * preset_plays_for and clip_s itself; with it, the plays (plays_given when it
 * is 1 or more, else the best allowed) and a play length whose total over all
 * plays is a whole number of seconds within the limits, a whole number of
 * milliseconds each play, as close to clip_s as those allow. */
void preset_timing(const preset_info *p, double clip_s, int plays_given, int *plays, double *play_s);

/* What a run asks of a preset before any clip exists: the settings the
 * user's options leave on top of it. */
typedef struct preset_request {
    out_format format;       /* the format to write */
    int width, height;       /* canvas, pixels */
    double fps;              /* frames per second */
    double duration;         /* --duration, seconds; 0 = not given */
    double max_duration;     /* the longest a one-shot clip may run, seconds */
    double period;           /* a periodic drive's one period, seconds; 0 = one-shot */
    int loop;                /* --loop plays (0 = forever); -1 = not given */
    long long max_bytes;     /* --max-bytes; 0 = not given */
} preset_request;

/* The rules preset_check tests, one violation each at most. */
typedef enum preset_rule {
    PRESET_RULE_FORMAT = 0,   /* file format */
    PRESET_RULE_CODEC,        /* a video's codec */
    PRESET_RULE_AUDIO,        /* a video's audio tracks */
    PRESET_RULE_SIZE,         /* canvas size */
    PRESET_RULE_ANIMATED,     /* must be an animation */
    PRESET_RULE_FRAMES,       /* frame count */
    PRESET_RULE_DURATION,     /* one play */
    PRESET_RULE_PLAYS,        /* loop count */
    PRESET_RULE_TOTAL,        /* all plays together */
    PRESET_RULE_FPS,          /* frame rate */
    PRESET_RULE_DELAY,        /* GIF delays under 20 ms, which players slow to 100 ms */
    PRESET_RULE_FIRST_FRAME,  /* blank first frame where it is the still image */
    PRESET_RULE_BYTES,        /* file size */
    PRESET_RULE_COUNT
} preset_rule;

/* One broken rule. */
typedef struct preset_violation {
    preset_rule rule;
    char text[192];   /* one sentence starting with the rule's name and the file's value */
} preset_violation;

/* Judges a request against p before any work: 1 when every rule it can be
 * judged by holds; else 0, with the first broken rule in *v (a sentence like
 * preset_check's, starting with the rule's name) and in *option the option
 * that breaks it ("--size", "--fps", "--duration", "--rate", "--loop",
 * "--max-bytes", "--format"). */
int preset_request_ok(const preset_info *p, const preset_request *req, preset_violation *v, const char **option);

/* Short name of a rule: "format", "codec", ..., "bytes"; static storage. */
const char *preset_rule_name(preset_rule r);
/* 1 when p has rule r at all (a preset without a frame limit has no "frames"
 * rule), 0 when every file passes it. */
int preset_rule_applies(const preset_info *p, preset_rule r);
/* Tests a decoded file (a and meta from anim_read) against every rule of p.
 * Fills out[0..max-1] with the broken rules in preset_rule order and sets
 * *count to how many are broken (at most PRESET_RULE_COUNT, which out may
 * hold in full); 0 means the file passes. Frame counts and durations are those
 * stored in the file (meta->frames, meta->delay_ms); plays and the first
 * frame's pixels come from a. */
poyo_status preset_check(const preset_info *p, const anim *a, const anim_meta *meta, preset_violation *out, int max,
                         int *count, poyo_error *err);

#endif
