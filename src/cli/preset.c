/* preset.c - the platform table for --preset and `poyo check`, and the checks
 * themselves. Limits follow each platform's published upload rules (sources in
 * the table below), read literally: "KB" is 1000 bytes, "KiB" 1024. */
#include "preset.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CHECKED "2026-11-21"

/* The one table. Each entry says where its numbers come from; where a platform
 * is vague the stricter reading is taken, so a file that passes is accepted.
 *
 * slack: Slack help "Add custom emoji": square images under 128 KB, animated
 *   GIF; larger pictures are shrunk to 128x128, so poyo asks for at most that.
 *   "128 KB" read as 128000 bytes (the stricter reading). Animated GIFs of more
 *   than 50 frames are refused.
 * discord: Discord server emoji: 256 KiB (262144 bytes), shown at 128x128;
 *   square of at most 128x128 is asked so nothing is resampled.
 * discord-sticker: Discord stickers: APNG (or still PNG), exactly 320x320,
 *   at most 512 KB (read as 512000 bytes), animations at most 5 s.
 * line: LINE Creators Market, animated stickers: APNG, at most 320x270 with
 *   one side at least 270, 5 to 20 frames, 1 to 4 plays, all plays together
 *   1, 2, 3 or 4 s (a whole number of seconds), at most 300 KB (300000
 *   bytes); the first frame is shown as the still image where the sticker
 *   does not play.
 * line-emoji: LINE animated emoji: APNG, exactly 180x180, 5 to 20 frames,
 *   at most 4 s; the plays (1 to 4, a whole number of seconds in all) and the
 *   300 KB limit of the animated stickers are applied too (stricter reading).
 * telegram: Telegram video stickers (core.telegram.org/stickers#video-requirements):
 *   WebM with the VP9 codec and no audio stream, one side exactly 512 and the
 *   other at most 512, at most 3 s, at most 30 fps, at most 256 KB (256000
 *   bytes). poyo writes VP9 with an alpha plane so the sticker has no box. Still
 *   stickers may be PNG (the same page).
 * telegram-emoji: Telegram custom emoji as video (the same page): exactly
 *   100x100 and otherwise the video rules above; the page states 256 KB for
 *   video stickers and emoji alike, poyo holds emoji to 64 KB (64000 bytes),
 *   the limit of Telegram's animated emoji, as the stricter reading.
 * teams: Microsoft Teams custom emoji: JPEG, PNG or GIF. Microsoft's page
 *   (learn.microsoft.com, "Custom emojis in Microsoft Teams") states no size
 *   limit; assumed: square, at most 512x512 and 256 KB (256000 bytes), the
 *   common guidance. Conservative, not a documented limit.
 * mastodon: Mastodon's CustomEmoji model: PNG, GIF or WebP, size less_than
 *   256.kilobytes (262144 bytes, so at most 262143); no canvas rule.
 * signal: Signal support, "Make your own sticker pack": animated stickers are
 *   APNG, 512x512, at most 300 KB (300000 bytes), an animation at most 3 s.
 *   An APNG stored with a palette does not animate in Signal for iOS, so the
 *   file must be RGBA (poyo's APNG always is).
 * whatsapp: WhatsApp's sticker guidelines (the README of its sticker app
 *   samples): animated stickers are WebP, exactly 512x512, at most 500 KB
 *   (500000 bytes), each frame at least 8 ms, the animation at most 10 s. */
static const preset_info presets[] = {
    {
        .name = "slack",
        .label = "Slack",
        .summary = "Slack custom emoji: GIF, square <= 128, <= 50 frames, <= 128 KB",
        .format = FORMAT_GIF,
        .accepts = PRESET_ACCEPT_GIF | PRESET_ACCEPT_PNG,
        .canvas = CANVAS_SQUARE,
        .canvas_w = 128,
        .canvas_h = 128,
        .width = 128,
        .height = 128,
        .fps = 20.0,
        .clip_s = 2.4,
        .min_frames = 1,
        .max_frames = 50,
        .max_bytes = 128000,
        .bytes_text = "128 KB",
        .checked = CHECKED,
    },
    {
        .name = "discord",
        .label = "Discord",
        .summary = "Discord emoji: GIF, square <= 128, <= 256 KiB",
        .format = FORMAT_GIF,
        .accepts = PRESET_ACCEPT_GIF | PRESET_ACCEPT_PNG,
        .canvas = CANVAS_SQUARE,
        .canvas_w = 128,
        .canvas_h = 128,
        .width = 128,
        .height = 128,
        .fps = 25.0,
        .clip_s = 3.0,
        .min_frames = 1,
        .max_bytes = 262144,
        .bytes_text = "256 KiB",
        .checked = CHECKED,
    },
    {
        .name = "discord-sticker",
        .label = "a Discord sticker",
        .summary = "Discord sticker: APNG, 320x320, <= 5 s, <= 512 KB",
        .format = FORMAT_APNG,
        .accepts = PRESET_ACCEPT_APNG | PRESET_ACCEPT_PNG,
        .canvas = CANVAS_EXACT,
        .canvas_w = 320,
        .canvas_h = 320,
        .width = 320,
        .height = 320,
        .fps = 20.0,
        .clip_s = 3.0,
        .min_frames = 1,
        .max_ms = 5000,
        .max_bytes = 512000,
        .bytes_text = "512 KB",
        .checked = CHECKED,
    },
    {
        .name = "line",
        .label = "a LINE sticker",
        .summary = "LINE animated sticker: APNG, <= 320x270 with a side >= 270, 5-20 frames, 1-4 plays, <= 4 s in all, <= 300 KB",
        .format = FORMAT_APNG,
        .accepts = PRESET_ACCEPT_APNG,
        .canvas = CANVAS_FIT,
        .canvas_w = 320,
        .canvas_h = 270,
        .min_side = 270,
        .width = 320,
        .height = 270,
        .fps = 10.0,
        .clip_s = 2.0,
        .min_frames = 5,
        .max_frames = 20,
        .max_ms = 4000,
        .max_total_ms = 4000,
        .min_plays = 1,
        .max_plays = 4,
        .plays = 2,
        .max_bytes = 300000,
        .bytes_text = "300 KB",
        .first_frame_still = 1,
        .animated = 1,
        .checked = CHECKED,
        .whole_total = 1,
    },
    {
        .name = "line-emoji",
        .label = "a LINE emoji",
        .summary = "LINE animated emoji: APNG, 180x180, 5-20 frames, 1-4 plays, <= 4 s in all, <= 300 KB",
        .format = FORMAT_APNG,
        .accepts = PRESET_ACCEPT_APNG,
        .canvas = CANVAS_EXACT,
        .canvas_w = 180,
        .canvas_h = 180,
        .width = 180,
        .height = 180,
        .fps = 10.0,
        .clip_s = 2.0,
        .min_frames = 5,
        .max_frames = 20,
        .max_ms = 4000,
        .max_total_ms = 4000,
        .min_plays = 1,
        .max_plays = 4,
        .plays = 2,
        .max_bytes = 300000,
        .bytes_text = "300 KB",
        .first_frame_still = 1,
        .animated = 1,
        .checked = CHECKED,
        .whole_total = 1,
    },
    {
        .name = "telegram",
        .label = "Telegram",
        .summary = "Telegram video sticker: WebM VP9, no audio, one side 512, <= 3 s, <= 30 fps, <= 256 KB",
        .format = FORMAT_WEBM,
        .accepts = PRESET_ACCEPT_WEBM | PRESET_ACCEPT_PNG,
        .canvas = CANVAS_ONE_SIDE,
        .canvas_w = 512,
        .canvas_h = 512,
        .width = 512,
        .height = 512,
        .fps = 25.0,
        .clip_s = 3.0,
        .min_frames = 1,
        .max_ms = 3000,
        .max_fps = 30,
        .max_bytes = 256000,
        .bytes_text = "256 KB",
        .checked = CHECKED,
        .codec = "vp9",
        .no_audio = 1,
    },
    {
        .name = "telegram-emoji",
        .label = "a Telegram emoji",
        .summary = "Telegram custom emoji: WebM VP9, no audio, 100x100, <= 3 s, <= 30 fps, <= 64 KB",
        .format = FORMAT_WEBM,
        .accepts = PRESET_ACCEPT_WEBM | PRESET_ACCEPT_PNG,
        .canvas = CANVAS_EXACT,
        .canvas_w = 100,
        .canvas_h = 100,
        .width = 100,
        .height = 100,
        .fps = 25.0,
        .clip_s = 3.0,
        .min_frames = 1,
        .max_ms = 3000,
        .max_fps = 30,
        .max_bytes = 64000,
        .bytes_text = "64 KB",
        .checked = CHECKED,
        .codec = "vp9",
        .no_audio = 1,
    },
    {
        .name = "teams",
        .label = "Teams",
        .summary = "Microsoft Teams emoji: GIF, square <= 512, <= 256 KB (assumed limits)",
        .format = FORMAT_GIF,
        .accepts = PRESET_ACCEPT_GIF | PRESET_ACCEPT_PNG,
        .canvas = CANVAS_SQUARE,
        .canvas_w = 512,
        .canvas_h = 512,
        .width = 128,
        .height = 128,
        .fps = 20.0,
        .clip_s = 3.0,
        .min_frames = 1,
        .max_bytes = 256000,
        .bytes_text = "256 KB",
        .checked = CHECKED,
    },
    {
        .name = "mastodon",
        .label = "Mastodon",
        .summary = "Mastodon custom emoji: GIF (PNG, APNG, WebP taken), under 256 KiB",
        .format = FORMAT_GIF,
        .accepts = PRESET_ACCEPT_GIF | PRESET_ACCEPT_PNG | PRESET_ACCEPT_APNG | PRESET_ACCEPT_WEBP,
        .canvas = CANVAS_ANY,
        .width = 128,
        .height = 128,
        .fps = 20.0,
        .clip_s = 3.0,
        .min_frames = 1,
        .max_bytes = 262143,
        .bytes_text = "under 256 KiB",
        .checked = CHECKED,
    },
    {
        .name = "signal",
        .label = "a Signal sticker",
        .summary = "Signal sticker: APNG (RGBA, not paletted), 512x512, <= 3 s, <= 300 KB",
        .format = FORMAT_APNG,
        .accepts = PRESET_ACCEPT_APNG | PRESET_ACCEPT_PNG,
        .canvas = CANVAS_EXACT,
        .canvas_w = 512,
        .canvas_h = 512,
        .width = 512,
        .height = 512,
        .fps = 20.0,
        .clip_s = 3.0,
        .min_frames = 1,
        .max_ms = 3000,
        .max_bytes = 300000,
        .bytes_text = "300 KB",
        .checked = CHECKED,
        .rgba_only = 1,
    },
    {
        .name = "whatsapp",
        .label = "a WhatsApp sticker",
        .summary = "WhatsApp sticker: WebP, 512x512, frames >= 8 ms, <= 10 s, <= 500 KB",
        .format = FORMAT_WEBP,
        .accepts = PRESET_ACCEPT_WEBP,
        .canvas = CANVAS_EXACT,
        .canvas_w = 512,
        .canvas_h = 512,
        .width = 512,
        .height = 512,
        .fps = 20.0,
        .clip_s = 3.0,
        .min_frames = 1,
        .max_ms = 10000,
        .max_bytes = 500000,
        .bytes_text = "500 KB",
        .animated = 1,
        .checked = CHECKED,
        .min_delay_ms = 8,
    },
};

#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

int preset_count(void) { return NPRESETS; }

const preset_info *preset_at(int i)
{
    return i >= 0 && i < NPRESETS ? &presets[i] : NULL;
}

const preset_info *preset_lookup(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < NPRESETS; i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

void preset_accepts_text(unsigned accepts, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    /* a still PNG comes last, except in the list of every image format */
    int all = (accepts & 15u) == 15u;
    const char *names[5];
    int n = 0;
    if (accepts & PRESET_ACCEPT_GIF)
        names[n++] = "GIF";
    if (all)
        names[n++] = "PNG";
    if (accepts & PRESET_ACCEPT_APNG)
        names[n++] = "APNG";
    if (accepts & PRESET_ACCEPT_WEBP)
        names[n++] = "WebP";
    if (accepts & PRESET_ACCEPT_WEBM)
        names[n++] = "WebM";
    if ((accepts & PRESET_ACCEPT_PNG) && !all)
        names[n++] = "still PNG";
    size_t used = 0;
    buf[0] = '\0';
    if (n == 0)
        snprintf(buf, cap, "nothing");
    for (int i = 0; i < n && used < cap; i++) {
        int k = snprintf(buf + used, cap - used, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

void preset_canvas_text(const preset_info *p, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    switch (p ? p->canvas : CANVAS_ANY) {
    case CANVAS_EXACT:
        snprintf(buf, cap, "exactly %dx%d", p->canvas_w, p->canvas_h);
        break;
    case CANVAS_SQUARE:
        snprintf(buf, cap, "a square of at most %dx%d", p->canvas_w, p->canvas_w);
        break;
    case CANVAS_ONE_SIDE:
        snprintf(buf, cap, "one side exactly %d and the other at most %d", p->canvas_w, p->canvas_w);
        break;
    case CANVAS_FIT:
        snprintf(buf, cap, "at most %dx%d with one side at least %d", p->canvas_w, p->canvas_h, p->min_side);
        break;
    default:
        snprintf(buf, cap, "any size");
        break;
    }
}

void preset_apply(const preset_info *p, animate_def *ad, output_def *out, long long *max_bytes)
{
    if (!p)
        return;
    if (ad) {
        ad->width = p->width;
        ad->height = p->height;
        ad->fps = p->fps;
        ad->duration = 0.0;
        ad->max_duration = p->clip_s;
        ad->max_grows = 0; /* the platform's length, whatever the --hz */
        ad->loop = p->plays;
    }
    if (out) {
        out->format = p->format;
        if (p->format == FORMAT_WEBM)
            out->webm = webm_default_def();
        if (p->format == FORMAT_WEBP) {
            /* lossless 512x512 frames cannot meet the budget; the budget search lowers quality further */
            out->webp.lossy = 1;
            out->webp.quality = 80;
        }
    }
    if (max_bytes)
        *max_bytes = p->max_bytes;
}

int preset_plays_for(const preset_info *p, double clip_s)
{
    if (!p)
        return 0;
    if (p->max_total_ms <= 0 || !(clip_s > 0.0) || !isfinite(clip_s))
        return p->plays;
    double n = floor(p->max_total_ms / (clip_s * 1000.0) + 1e-9);
    int lo = p->min_plays > 1 ? p->min_plays : 1;
    int hi = p->max_plays > 0 ? p->max_plays : 65535;
    if (n < lo)
        return lo;
    if (n > hi)
        return hi;
    return (int)n;
}

double preset_min_scale(const preset_info *p, int w, int h)
{
    if (!p || w < 1 || h < 1)
        return 1.0;
    switch (p->canvas) {
    case CANVAS_ANY:
        return 0.0;
    case CANVAS_SQUARE:
        return w == h ? 0.0 : 1.0;
    case CANVAS_FIT: {
        int longer = w > h ? w : h;
        return longer > p->min_side ? (p->min_side - 0.5) / longer : 1.0;
    }
    default:
        return 1.0;
    }
}

void preset_timing(const preset_info *p, double clip_s, int plays_given, int *plays, double *play_s)
{
    int n = plays_given >= 1 ? plays_given : preset_plays_for(p, clip_s);
    double len = clip_s;
    if (p && p->whole_total && p->max_total_ms >= 1000 && clip_s > 0.0 && isfinite(clip_s)) {
        /* every (plays, whole seconds in all) the rules allow whose plays last whole
         * milliseconds each; the least change of speed wins, then the more plays */
        int lo = p->min_plays > 1 ? p->min_plays : 1, hi = p->max_plays > 0 ? p->max_plays : 4;
        if (plays_given >= 1)
            lo = hi = plays_given;
        double best = -1.0;
        for (int k = hi; k >= lo; k--)
            for (int total = 1000; total <= p->max_total_ms; total += 1000) {
                if (total % k != 0 || (p->max_ms > 0 && total / k > p->max_ms))
                    continue;
                double t = total / 1000.0 / k;
                double change = t > clip_s ? t / clip_s : clip_s / t;
                if (best < 0.0 || change < best - 1e-12) {
                    best = change;
                    n = k;
                    len = t;
                }
            }
    }
    if (plays)
        *plays = n;
    if (play_s)
        *play_s = len;
}

const char *preset_rule_name(preset_rule r)
{
    static const char *const names[PRESET_RULE_COUNT] = {
        "format", "codec", "audio", "size",  "animated",    "frames", "duration",
        "plays",  "total", "fps",   "delay", "first-frame", "bytes",
    };
    return (int)r >= 0 && r < PRESET_RULE_COUNT ? names[r] : "unknown";
}

int preset_rule_applies(const preset_info *p, preset_rule r)
{
    if (!p)
        return 0;
    switch (r) {
    case PRESET_RULE_FORMAT: return 1;
    case PRESET_RULE_CODEC: return p->codec != NULL;
    case PRESET_RULE_AUDIO: return p->no_audio;
    case PRESET_RULE_SIZE: return p->canvas != CANVAS_ANY;
    case PRESET_RULE_ANIMATED: return p->animated;
    case PRESET_RULE_FRAMES: return p->min_frames > 1 || p->max_frames > 0;
    case PRESET_RULE_DURATION: return p->max_ms > 0;
    case PRESET_RULE_PLAYS: return p->max_plays > 0;
    case PRESET_RULE_TOTAL: return p->max_total_ms > 0;
    case PRESET_RULE_FPS: return p->max_fps > 0;
    case PRESET_RULE_DELAY: return (p->accepts & PRESET_ACCEPT_GIF) != 0 || p->min_delay_ms > 0;
    case PRESET_RULE_FIRST_FRAME: return p->first_frame_still;
    case PRESET_RULE_BYTES: return p->max_bytes > 0;
    default: return 0;
    }
}

/* Records one broken rule. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void add(preset_violation *out, int max, int *n, preset_rule rule, const char *fmt, ...)
{
    if (*n < max) {
        va_list ap;
        va_start(ap, fmt);
        out[*n].rule = rule;
        vsnprintf(out[*n].text, sizeof out[*n].text, fmt, ap);
        va_end(ap);
    }
    (*n)++;
}

static unsigned format_bit(const char *f)
{
    if (strcmp(f, "gif") == 0)
        return PRESET_ACCEPT_GIF;
    if (strcmp(f, "png") == 0)
        return PRESET_ACCEPT_PNG;
    if (strcmp(f, "apng") == 0)
        return PRESET_ACCEPT_APNG;
    if (strcmp(f, "webp") == 0)
        return PRESET_ACCEPT_WEBP;
    if (strcmp(f, "webm") == 0)
        return PRESET_ACCEPT_WEBM;
    return 0;
}

static int canvas_ok(const preset_info *p, int w, int h)
{
    switch (p->canvas) {
    case CANVAS_EXACT:
        return w == p->canvas_w && h == p->canvas_h;
    case CANVAS_SQUARE:
        return w == h && w <= p->canvas_w;
    case CANVAS_ONE_SIDE:
        return (w == p->canvas_w && h <= p->canvas_w) || (h == p->canvas_w && w <= p->canvas_w);
    case CANVAS_FIT:
        return w <= p->canvas_w && h <= p->canvas_h && (w >= p->min_side || h >= p->min_side);
    default:
        return 1;
    }
}

static int frame_blank(const anim *a, int i)
{
    const uint8_t *px = anim_frame(a, i);
    size_t n = (size_t)a->width * (size_t)a->height;
    for (size_t k = 0; k < n; k++)
        if (px[4 * k + 3])
            return 0;
    return 1;
}

static void plays_text(int plays, char *buf, size_t cap)
{
    if (plays == 0)
        snprintf(buf, cap, "forever");
    else
        snprintf(buf, cap, "%d", plays);
}

/* The rules on what kind of file it is: the format, and for a video its codec
 * and sound. */
static void check_kind(const preset_info *p, const anim_meta *meta, int animated, preset_violation *out,
                       int max, int *n)
{
    const char *who = p->label;
    unsigned bit = format_bit(meta->format);
    if (bit == PRESET_ACCEPT_APNG && !animated)
        bit = PRESET_ACCEPT_PNG; /* a one-frame APNG shows as a still PNG everywhere */
    if (!(bit & p->accepts)) {
        char takes[96];
        preset_accepts_text(p->accepts, takes, sizeof takes);
        add(out, max, n, PRESET_RULE_FORMAT, "format %s%s, %s takes %s", meta->format,
            bit == PRESET_ACCEPT_PNG ? " (still)" : "", who, takes);
    } else if (p->rgba_only && bit == PRESET_ACCEPT_APNG && meta->palette_size > 0) {
        add(out, max, n, PRESET_RULE_FORMAT,
            "format apng (paletted, %d colours), %s takes RGBA APNG only: a paletted one does not animate on iOS",
            meta->palette_size, who);
    }

    /* the codec and audio rules are about videos; an image has neither */
    int video = bit == PRESET_ACCEPT_WEBM;
    if (video && p->codec && strcmp(meta->codec, p->codec) != 0)
        add(out, max, n, PRESET_RULE_CODEC, "codec %s, %s takes %s video only", meta->codec[0] ? meta->codec : "unknown",
            who, p->codec);
    if (video && p->no_audio && meta->audio_tracks > 0)
        add(out, max, n, PRESET_RULE_AUDIO, "audio %d track%s, %s takes video without sound", meta->audio_tracks,
            meta->audio_tracks == 1 ? "" : "s", who);
}

/* The rules on the canvas and the number of frames. */
static void check_shape(const preset_info *p, const anim_meta *meta, int animated, preset_violation *out, int max,
                        int *n)
{
    const char *who = p->label;
    int frames = meta->frames;
    if (!canvas_ok(p, meta->width, meta->height)) {
        char want[96];
        preset_canvas_text(p, want, sizeof want);
        add(out, max, n, PRESET_RULE_SIZE, "size %dx%d, %s needs %s", meta->width, meta->height, who, want);
    }

    int min_frames = p->min_frames > 1 ? p->min_frames : 1;
    if (p->animated && !animated && min_frames < 2)
        add(out, max, n, PRESET_RULE_ANIMATED, "animated no (a still image), %s needs an animation", who);

    if (frames < min_frames || (p->max_frames > 0 && frames > p->max_frames)) {
        if (min_frames > 1 && p->max_frames > 0)
            add(out, max, n, PRESET_RULE_FRAMES, "frames %d, %s needs %d to %d", frames, who, min_frames,
                p->max_frames);
        else if (min_frames > 1)
            add(out, max, n, PRESET_RULE_FRAMES, "frames %d, %s needs at least %d", frames, who, min_frames);
        else
            add(out, max, n, PRESET_RULE_FRAMES, "frames %d, %s allows at most %d", frames, who, p->max_frames);
    }
}

/* What the delays add up to: the play's length, the shortest delay above 0,
 * and the delays under 20 ms (how many, the first and the shortest). */
typedef struct delay_stats {
    long long total_ms;
    int min_delay, short_delays, first_short, shortest;
} delay_stats;

/* Adds up the delays of meta's frames. */
static delay_stats count_delays(const anim_meta *meta)
{
    delay_stats s = { 0, -1, 0, -1, 0 };
    for (int i = 0; i < meta->frames; i++) {
        int d = meta->delay_ms[i] > 0 ? meta->delay_ms[i] : 0;
        s.total_ms += d;
        if (d > 0 && (s.min_delay < 0 || d < s.min_delay))
            s.min_delay = d;
        if (d < 20) {
            if (s.short_delays++ == 0) {
                s.first_short = i;
                s.shortest = d;
            }
            if (d < s.shortest)
                s.shortest = d;
        }
    }
    return s;
}

/* The rules on time, for an animation: its length, plays, the total of all
 * plays, the frame rate. */
static void check_time(const preset_info *p, const anim *a, const delay_stats *s, preset_violation *out, int max,
                       int *n)
{
    const char *who = p->label;
    long long total_ms = s->total_ms;
    int min_delay = s->min_delay;
    if (p->max_ms > 0 && total_ms > p->max_ms)
        add(out, max, n, PRESET_RULE_DURATION, "duration %.2f s, %s allows at most %g s", total_ms / 1000.0, who,
            p->max_ms / 1000.0);

    if (p->max_plays > 0 && (a->loop == 0 || a->loop < p->min_plays || a->loop > p->max_plays)) {
        char got[16];
        plays_text(a->loop, got, sizeof got);
        add(out, max, n, PRESET_RULE_PLAYS, "plays %s, %s needs %d to %d", got, who,
            p->min_plays > 1 ? p->min_plays : 1, p->max_plays);
    }

    /* total_ms * loop would overflow for a file of long delays and billions of plays */
    if (p->max_total_ms > 0 && a->loop > 0 && total_ms > p->max_total_ms / a->loop)
        add(out, max, n, PRESET_RULE_TOTAL, "total %.2f s (%d plays of %.2f s), %s allows at most %g s in all",
            (double)total_ms * a->loop / 1000.0, a->loop, total_ms / 1000.0, who, p->max_total_ms / 1000.0);
    else if (p->whole_total && a->loop > 0 && (total_ms * a->loop < 1000 || total_ms * a->loop % 1000))
        add(out, max, n, PRESET_RULE_TOTAL,
            "total %.3f s (%d play%s of %.3f s), %s needs a whole number of seconds in all (1 to %g)",
            (double)total_ms * a->loop / 1000.0, a->loop, a->loop == 1 ? "" : "s", total_ms / 1000.0, who,
            p->max_total_ms / 1000.0);

    /* a delay rounded down to whole milliseconds still counts as the rate it stands for */
    if (p->max_fps > 0 && min_delay > 0 && (long)min_delay * p->max_fps < 1000 - p->max_fps)
        add(out, max, n, PRESET_RULE_FPS, "fps %.1f (a %d ms frame), %s allows at most %d", 1000.0 / min_delay,
            min_delay, who, p->max_fps);
}

/* The rule on short delays, for an animation: a GIF's under 20 ms, which
 * players slow down, else the preset's least delay. */
static void check_delays(const preset_info *p, const anim_meta *meta, const delay_stats *s, preset_violation *out,
                         int max, int *n)
{
    /* browsers and most chat clients show GIF delays of 0 or 10 ms as 100 ms */
    if (strcmp(meta->format, "gif") == 0 && s->short_delays > 0)
        add(out, max, n, PRESET_RULE_DELAY,
            "delay %d ms (frame %d; %d of %d frames under 20 ms), GIF players show such frames for 100 ms", s->shortest,
            s->first_short + 1, s->short_delays, meta->frames);
    else if (p->min_delay_ms > 0) {
        int first = -1, least = 0;
        for (int i = 0; i < meta->frames; i++)
            if (meta->delay_ms[i] < p->min_delay_ms && (first < 0 || meta->delay_ms[i] < least)) {
                if (first < 0)
                    first = i;
                least = meta->delay_ms[i];
            }
        if (first >= 0)
            add(out, max, n, PRESET_RULE_DELAY, "delay %d ms (frame %d), %s needs every frame to last at least %d ms",
                least, first + 1, p->label, p->min_delay_ms);
    }
}

poyo_status preset_check(const preset_info *p, const anim *a, const anim_meta *meta, preset_violation *out, int max,
                         int *count, poyo_error *err)
{
    if (count)
        *count = 0;
    if (!p || !a || !meta || !count || (max > 0 && !out) || max < 0)
        return poyo_fail(err, POYO_ERR_USAGE, "preset_check needs a preset, a decoded file and a count");
    if (meta->frames < 1 || meta->width < 1 || meta->height < 1 || (meta->frames > 0 && !meta->delay_ms) ||
        a->count < 1 || !a->rgba)
        return poyo_fail(err, POYO_ERR_USAGE, "preset_check needs a decoded file with at least one frame");
    int n = 0;
    const char *who = p->label;
    int animated = meta->frames >= 2;
    check_kind(p, meta, animated, out, max, &n);
    check_shape(p, meta, animated, out, max, &n);
    delay_stats s = count_delays(meta);
    if (animated) {
        check_time(p, a, &s, out, max, &n);
        check_delays(p, meta, &s, out, max, &n);
    }

    if (p->first_frame_still && frame_blank(a, 0))
        add(out, max, &n, PRESET_RULE_FIRST_FRAME,
            "first-frame fully transparent, %s shows the first frame as the still image", who);

    if (p->max_bytes > 0 && (long long)meta->file_bytes > p->max_bytes)
        add(out, max, &n, PRESET_RULE_BYTES, "bytes %zu, %s allows at most %lld (%s)", meta->file_bytes, who,
            p->max_bytes, p->bytes_text);

    *count = n;
    return POYO_OK;
}

/* Periods and lengths are compared with this much slack, seconds: a clip of
 * whole frames may end a hair past a limit it meets in milliseconds. */
#define TIME_SLACK 0.0005

int preset_request_ok(const preset_info *p, const preset_request *req, preset_violation *v, const char **option)
{
    const char *opt = NULL;
    int n = 0;
    if (!p || !req || !v)
        return 1;
    const char *who = p->label;
    unsigned bit = req->format == FORMAT_GIF    ? PRESET_ACCEPT_GIF
                   : req->format == FORMAT_APNG ? PRESET_ACCEPT_APNG
                   : req->format == FORMAT_WEBP ? PRESET_ACCEPT_WEBP
                   : req->format == FORMAT_WEBM ? PRESET_ACCEPT_WEBM
                                                : 0;
    /* one-shot: as long as asked, else at most max_duration; periodic: one period */
    double len = req->period > 0.0 ? req->period : req->duration > 0.0 ? req->duration : req->max_duration;
    const char *len_opt = req->period > 0.0 ? "--rate" : "--duration";
    if (!(bit & p->accepts)) {
        char takes[96];
        preset_accepts_text(p->accepts & ~(unsigned)PRESET_ACCEPT_PNG, takes, sizeof takes);
        opt = "--format";
        add(v, 1, &n, PRESET_RULE_FORMAT, "format %s, %s takes %s", output_format_name(req->format), who, takes);
    } else if (!canvas_ok(p, req->width, req->height)) {
        char want[96];
        preset_canvas_text(p, want, sizeof want);
        opt = "--size";
        add(v, 1, &n, PRESET_RULE_SIZE, "size %dx%d, %s needs %s", req->width, req->height, who, want);
    } else if (p->max_fps > 0 && req->fps > p->max_fps) {
        opt = "--fps";
        add(v, 1, &n, PRESET_RULE_FPS, "fps %g, %s allows at most %d", req->fps, who, p->max_fps);
    } else if (p->min_delay_ms > 0 && req->fps * p->min_delay_ms > 1000.0) {
        opt = "--fps";
        add(v, 1, &n, PRESET_RULE_DELAY, "delay %.1f ms at %g fps, %s needs every frame to last at least %d ms",
            1000.0 / req->fps, req->fps, who, p->min_delay_ms);
    } else if (p->max_ms > 0 && len > p->max_ms / 1000.0 + TIME_SLACK) {
        opt = len_opt;
        add(v, 1, &n, PRESET_RULE_DURATION, "duration %g s%s, %s allows at most %g s", len,
            req->period > 0.0 ? " (one period)" : "", who, p->max_ms / 1000.0);
    } else if (p->min_frames > 1 && (req->period > 0.0 || req->duration > 0.0 || req->max_duration > 0.0) &&
               (int)floor(len * req->fps + 0.5) < p->min_frames) {
        opt = req->period > 0.0 || req->duration > 0.0 ? len_opt : "--fps";
        add(v, 1, &n, PRESET_RULE_FRAMES, "frames %d (%g s at %g fps), %s needs at least %d",
            (int)floor(len * req->fps + 0.5), len, req->fps, who, p->min_frames);
    } else if (req->loop >= 0 && p->max_plays > 0 &&
               (req->loop == 0 || req->loop < (p->min_plays > 1 ? p->min_plays : 1) || req->loop > p->max_plays)) {
        char got[16];
        plays_text(req->loop, got, sizeof got);
        opt = "--loop";
        add(v, 1, &n, PRESET_RULE_PLAYS, "plays %s, %s needs %d to %d", got, who, p->min_plays > 1 ? p->min_plays : 1,
            p->max_plays);
    } else if (req->loop > 0 && p->max_total_ms > 0 && (req->period > 0.0 || req->duration > 0.0) &&
               len * req->loop > p->max_total_ms / 1000.0 + TIME_SLACK) {
        opt = "--loop";
        add(v, 1, &n, PRESET_RULE_TOTAL, "total %g s (%d plays of %g s), %s allows at most %g s in all",
            len * req->loop, req->loop, len, who, p->max_total_ms / 1000.0);
    } else if (req->max_bytes > 0 && p->max_bytes > 0 && req->max_bytes > p->max_bytes) {
        opt = "--max-bytes";
        add(v, 1, &n, PRESET_RULE_BYTES, "bytes %lld, %s allows at most %lld (%s)", req->max_bytes, who,
            p->max_bytes, p->bytes_text);
    }
    if (option)
        *option = opt;
    return n == 0;
}
