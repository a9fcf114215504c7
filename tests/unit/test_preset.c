/* test_preset.c - every preset's own settings pass its own check, and a file
 * made to break one rule is refused with that rule named. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cli/preset.h"

/* A synthetic decoded file plus its meta. */
typedef struct sample {
    anim a;
    anim_meta meta;
} sample;

static void sample_free(sample *s)
{
    anim_free(&s->a);
    anim_meta_free(&s->meta);
}

/* Builds the file poyo makes for p at its longest clip: p's canvas, frame
 * rate, frame count, the delays its encoder writes, the plays it writes and a
 * file exactly at the byte budget. Every frame holds one opaque pixel. */
static int sample_make(const preset_info *p, sample *s)
{
    memset(s, 0, sizeof *s);
    int frames = (int)lround(p->clip_s * p->fps);
    if (p->max_frames > 0 && frames > p->max_frames)
        frames = p->max_frames;
    if (anim_init(&s->a, p->width, p->height, frames, p->fps, NULL) != POYO_OK)
        return 0;
    for (int i = 0; i < frames; i++)
        anim_frame(&s->a, i)[3] = 255;
    s->a.loop = preset_plays_for(p, frames / p->fps);
    s->meta.delay_ms = malloc((size_t)frames * sizeof(int));
    if (!s->meta.delay_ms)
        return 0;
    int gif = p->format == FORMAT_GIF;
    anim_delays(&s->a, gif ? 100 : 1000, gif ? 2 : 1, s->meta.delay_ms);
    if (gif)
        for (int i = 0; i < frames; i++)
            s->meta.delay_ms[i] *= 10;
    snprintf(s->meta.format, sizeof s->meta.format, "%s", output_format_name(p->format));
    /* what poyo's WebM holds: VP9 with an alpha plane and no audio */
    snprintf(s->meta.codec, sizeof s->meta.codec, "%s", p->format == FORMAT_WEBM ? "vp9" : s->meta.format);
    s->meta.alpha = 1;
    s->meta.width = p->width;
    s->meta.height = p->height;
    s->meta.frames = frames;
    s->meta.loop = s->a.loop;
    s->meta.file_bytes = (size_t)p->max_bytes;
    return 1;
}

/* Sets n frames, each held delay milliseconds, keeping the pixels of frame 0. */
static int sample_frames(sample *s, int n, int delay)
{
    anim b;
    if (anim_init(&b, s->a.width, s->a.height, n, 1000.0, NULL) != POYO_OK)
        return 0;
    for (int i = 0; i < n; i++) {
        memcpy(anim_frame(&b, i), anim_frame(&s->a, 0), anim_frame_bytes(&b));
        b.hold[i] = delay > 0 ? delay : 1;
    }
    b.loop = s->a.loop;
    int *d = realloc(s->meta.delay_ms, (size_t)n * sizeof(int));
    if (!d) {
        anim_free(&b);
        return 0;
    }
    for (int i = 0; i < n; i++)
        d[i] = delay;
    anim_free(&s->a);
    s->a = b;
    s->meta.delay_ms = d;
    s->meta.frames = n;
    return 1;
}

/* Runs the check; returns a bit mask of the broken rules (-1 on error). */
static int broken(const preset_info *p, const sample *s, preset_violation *v, int *n)
{
    poyo_error err;
    if (preset_check(p, &s->a, &s->meta, v, PRESET_RULE_COUNT, n, &err) != POYO_OK)
        return -1;
    int mask = 0;
    for (int i = 0; i < *n; i++)
        mask |= 1 << v[i].rule;
    return mask;
}

#define BIT(r) (1 << (r))

/* Ensures s breaks rule r of p (and nothing outside r | also), with a
 * sentence that starts with the rule's name. */
#define ENSURE_BREAKS(p, s, r, also)                                                                       \
    do {                                                                                                   \
        preset_violation v_[PRESET_RULE_COUNT];                                                            \
        int n_ = 0, m_ = broken((p), (s), v_, &n_);                                                        \
        ENSURE_MSG(m_ >= 0 && (m_ & BIT(r)), "%s: rule %s not reported (mask %d)", (p)->name,              \
                   preset_rule_name(r), m_);                                                               \
        ENSURE_MSG((m_ & ~(BIT(r) | (also))) == 0, "%s: unexpected rules reported (mask %d): %s",         \
                   (p)->name, m_, n_ > 0 ? v_[0].text : "");                                               \
        for (int i_ = 0; i_ < n_; i_++)                                                                    \
            if (v_[i_].rule == (r))                                                                        \
                ENSURE_MSG(strncmp(v_[i_].text, preset_rule_name(r), strlen(preset_rule_name(r))) == 0,    \
                           "%s: sentence does not start with the rule: %s", (p)->name, v_[i_].text);       \
    } while (0)

static void test_names_unique_and_found(void)
{
    ENSURE(preset_count() >= 9);
    const char *want[] = { "slack", "discord", "discord-sticker", "line", "line-emoji", "telegram", "teams",
                           "mastodon" };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ENSURE_MSG(preset_lookup(want[i]) != NULL, "missing preset %s", want[i]);
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        ENSURE(p && preset_lookup(p->name) == p);
        ENSURE(p->checked && strcmp(p->checked, "2026-11-21") == 0);
        for (int j = i + 1; j < preset_count(); j++)
            ENSURE(strcmp(p->name, preset_at(j)->name) != 0);
    }
    ENSURE(preset_lookup("myspace") == NULL);
    ENSURE(preset_lookup("") == NULL);
    ENSURE(preset_lookup(NULL) == NULL);
    ENSURE(preset_at(-1) == NULL && preset_at(preset_count()) == NULL);
}

static void test_own_settings_pass(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        sample s;
        ENSURE(sample_make(p, &s));
        preset_violation v[PRESET_RULE_COUNT];
        int n = -1;
        int m = broken(p, &s, v, &n);
        sample_free(&s);
        ENSURE_MSG(m == 0 && n == 0, "%s: its own settings break %d rules: %s", p->name, n, n > 0 ? v[0].text : "");
    }
}

static void test_apply_sets_defs(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        animate_def ad = animate_default_def();
        output_def od = output_default_def();
        long long budget = -1;
        preset_apply(p, &ad, &od, &budget);
        poyo_error err;
        ENSURE_MSG(animate_check_def(&ad, &err) == POYO_OK, "%s: %s", p->name, err.msg);
        ENSURE(ad.width == p->width && ad.height == p->height && ad.fps == p->fps);
        ENSURE(ad.max_duration == p->clip_s && ad.loop == p->plays);
        ENSURE(od.format == p->format && budget == p->max_bytes);
        ENSURE(p->accepts & (od.format == FORMAT_GIF    ? PRESET_ACCEPT_GIF
                             : od.format == FORMAT_APNG ? PRESET_ACCEPT_APNG
                             : od.format == FORMAT_WEBM ? PRESET_ACCEPT_WEBM
                                                        : PRESET_ACCEPT_WEBP));
        /* NULL targets are skipped */
        preset_apply(p, NULL, NULL, NULL);
    }
}

static void test_plays_fit_total(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        if (p->max_total_ms <= 0) {
            ENSURE(preset_plays_for(p, 1.0) == p->plays);
            continue;
        }
        ENSURE(p->plays * p->clip_s * 1000.0 <= p->max_total_ms + 1e-9);
        for (double clip = 0.25; clip <= p->max_total_ms / 1000.0; clip += 0.25) {
            int k = preset_plays_for(p, clip);
            ENSURE(k >= p->min_plays && k <= p->max_plays);
            ENSURE_MSG(k * clip * 1000.0 <= p->max_total_ms + 1e-6, "%s: %d plays of %g s", p->name, k, clip);
            ENSURE_MSG(k == p->max_plays || (k + 1) * clip * 1000.0 > p->max_total_ms, "%s: %d plays of %g s could be more",
                       p->name, k, clip);
        }
    }
}

static void test_format_rule(void)
{
    const char *fmts[] = { "gif", "png", "apng", "webp", "webm" };
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        for (int f = 0; f < 5; f++) {
            if (p->accepts & (1u << f))
                continue;
            sample s;
            ENSURE(sample_make(p, &s));
            snprintf(s.meta.format, sizeof s.meta.format, "%s", fmts[f]);
            snprintf(s.meta.codec, sizeof s.meta.codec, "%s", f == 4 ? "vp9" : fmts[f]);
            /* a GIF keeps poyo's GIF delays so only the format is wrong */
            ENSURE_BREAKS(p, &s, PRESET_RULE_FORMAT, 0);
            sample_free(&s);
        }
    }
}

static void test_one_frame_apng_is_a_still_png(void)
{
    const preset_info *p = preset_lookup("slack");
    ENSURE(p);
    sample s;
    ENSURE(sample_make(p, &s));
    ENSURE(sample_frames(&s, 1, 0));
    snprintf(s.meta.format, sizeof s.meta.format, "apng");
    preset_violation v[PRESET_RULE_COUNT];
    int n = 0;
    int m = broken(p, &s, v, &n);
    ENSURE(m == 0);
    ENSURE(sample_frames(&s, 2, 100));
    ENSURE_BREAKS(p, &s, PRESET_RULE_FORMAT, 0);
    sample_free(&s);
}

static void test_size_rule(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        int bad[4][2], nb = 0;
        switch (p->canvas) {
        case CANVAS_EXACT:
            bad[nb][0] = p->canvas_w + 2, bad[nb++][1] = p->canvas_h;
            bad[nb][0] = p->canvas_w, bad[nb++][1] = p->canvas_h - 2;
            break;
        case CANVAS_SQUARE:
            bad[nb][0] = p->canvas_w * 2, bad[nb++][1] = p->canvas_w * 2;
            bad[nb][0] = p->canvas_w, bad[nb++][1] = p->canvas_w - 1;
            break;
        case CANVAS_ONE_SIDE:
            bad[nb][0] = p->canvas_w - 1, bad[nb++][1] = p->canvas_w - 1;
            bad[nb][0] = p->canvas_w + 1, bad[nb++][1] = p->canvas_w / 2;
            bad[nb][0] = p->canvas_w, bad[nb++][1] = p->canvas_w + 1;
            break;
        case CANVAS_FIT:
            bad[nb][0] = p->min_side - 1, bad[nb++][1] = p->min_side - 1;
            bad[nb][0] = p->canvas_w + 1, bad[nb++][1] = p->canvas_h;
            bad[nb][0] = p->min_side, bad[nb++][1] = p->canvas_h + 1;
            break;
        default:
            break;
        }
        for (int k = 0; k < nb; k++) {
            sample s;
            ENSURE(sample_make(p, &s));
            s.meta.width = bad[k][0];
            s.meta.height = bad[k][1];
            ENSURE_BREAKS(p, &s, PRESET_RULE_SIZE, 0);
            sample_free(&s);
        }
    }
}

static void test_size_rule_accepts_other_shapes(void)
{
    /* one side exactly 512 may be either side; a smaller square is fine for square rules */
    const preset_info *t = preset_lookup("telegram"), *sl = preset_lookup("slack"), *ln = preset_lookup("line");
    ENSURE(t && sl && ln);
    int ok[][3] = { { 0, 512, 300 }, { 0, 300, 512 }, { 1, 64, 64 }, { 2, 270, 270 }, { 2, 320, 100 } };
    const preset_info *ps[] = { t, sl, ln };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        const preset_info *p = ps[ok[k][0]];
        sample s;
        ENSURE(sample_make(p, &s));
        s.meta.width = ok[k][1];
        s.meta.height = ok[k][2];
        preset_violation v[PRESET_RULE_COUNT];
        int n = 0;
        int m = broken(p, &s, v, &n);
        sample_free(&s);
        ENSURE_MSG(m == 0, "%s %dx%d: %s", p->name, ok[k][1], ok[k][2], n ? v[0].text : "");
    }
}

static void test_frames_rule(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        int delay = p->format == FORMAT_GIF ? 20 : 40;
        if (p->max_frames > 0) {
            sample s;
            ENSURE(sample_make(p, &s));
            ENSURE(sample_frames(&s, p->max_frames + 1, delay));
            /* more frames may also overrun a time limit */
            ENSURE_BREAKS(p, &s, PRESET_RULE_FRAMES, BIT(PRESET_RULE_DURATION) | BIT(PRESET_RULE_TOTAL));
            sample_free(&s);
        }
        if (p->min_frames > 1) {
            sample s;
            ENSURE(sample_make(p, &s));
            /* 250 ms frames: every play, and so every total, a whole second */
            ENSURE(sample_frames(&s, p->min_frames - 1, 250));
            ENSURE_BREAKS(p, &s, PRESET_RULE_FRAMES, 0);
            sample_free(&s);
        }
    }
}

static void test_duration_rule(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        if (p->max_ms <= 0)
            continue;
        sample s;
        ENSURE(sample_make(p, &s));
        int n = s.meta.frames;
        int delay = (p->max_ms + 10 * n) / n; /* just over the limit */
        ENSURE(sample_frames(&s, n, delay));
        /* where one play is also the whole allowance, the total breaks too */
        ENSURE_BREAKS(p, &s, PRESET_RULE_DURATION, BIT(PRESET_RULE_TOTAL));
        sample_free(&s);
        /* exactly at the limit passes */
        ENSURE(sample_make(p, &s));
        ENSURE(sample_frames(&s, 10, p->max_ms / 10));
        s.a.loop = 1;
        preset_violation v[PRESET_RULE_COUNT];
        int nv = 0;
        int m = broken(p, &s, v, &nv);
        sample_free(&s);
        ENSURE_MSG(m == 0, "%s at its time limit: %s", p->name, nv ? v[0].text : "");
    }
}

static void test_plays_and_total_rules(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        sample s;
        if (p->max_plays <= 0) {
            /* any loop count is fine */
            int plays[] = { 0, 1, 7 };
            for (int k = 0; k < 3; k++) {
                ENSURE(sample_make(p, &s));
                s.a.loop = plays[k];
                preset_violation v[PRESET_RULE_COUNT];
                int n = 0;
                int m = broken(p, &s, v, &n);
                sample_free(&s);
                ENSURE_MSG(m == 0, "%s plays %d: %s", p->name, plays[k], n ? v[0].text : "");
            }
            continue;
        }
        ENSURE(sample_make(p, &s));
        s.a.loop = 0;
        ENSURE_BREAKS(p, &s, PRESET_RULE_PLAYS, 0);
        sample_free(&s);
        ENSURE(sample_make(p, &s));
        s.a.loop = p->max_plays + 1;
        ENSURE_BREAKS(p, &s, PRESET_RULE_PLAYS, BIT(PRESET_RULE_TOTAL));
        sample_free(&s);
        if (p->max_total_ms > 0) {
            /* plays in range, one play in range, all plays too long */
            ENSURE(sample_make(p, &s));
            int n = p->min_frames > 1 ? p->min_frames : 5;
            int delay = p->max_total_ms / n / 2 + 10;
            ENSURE(sample_frames(&s, n, delay));
            s.a.loop = 2;
            ENSURE(2 <= p->max_plays && n * delay <= p->max_ms);
            ENSURE_BREAKS(p, &s, PRESET_RULE_TOTAL, 0);
            sample_free(&s);
        }
    }
}

static void test_fps_rule(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        if (p->max_fps <= 0)
            continue;
        sample s;
        ENSURE(sample_make(p, &s));
        ENSURE(sample_frames(&s, 20, 1000 / (2 * p->max_fps)));
        ENSURE_BREAKS(p, &s, PRESET_RULE_FPS, 0);
        sample_free(&s);
        /* the rate itself, rounded down to whole milliseconds, passes */
        ENSURE(sample_make(p, &s));
        ENSURE(sample_frames(&s, 20, 1000 / p->max_fps));
        preset_violation v[PRESET_RULE_COUNT];
        int n = 0;
        int m = broken(p, &s, v, &n);
        sample_free(&s);
        ENSURE_MSG(m == 0, "%s at %d fps: %s", p->name, p->max_fps, n ? v[0].text : "");
    }
}

static void test_gif_delay_rule(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        for (int d = 0; d <= 20; d += 10) {
            sample s;
            ENSURE(sample_make(p, &s));
            snprintf(s.meta.format, sizeof s.meta.format, "gif");
            s.meta.delay_ms[1] = d;
            preset_violation v[PRESET_RULE_COUNT];
            int n = 0;
            int m = broken(p, &s, v, &n);
            sample_free(&s);
            ENSURE(m >= 0);
            int want = d < 20;
            ENSURE_MSG(!!(m & BIT(PRESET_RULE_DELAY)) == want, "%s: GIF delay %d ms", p->name, d);
        }
        /* the same delay in another format is no GIF problem (a platform
         * with its own shortest frame has its own rule, tested below) */
        if (p->min_delay_ms > 0)
            continue;
        sample s;
        ENSURE(sample_make(p, &s));
        snprintf(s.meta.format, sizeof s.meta.format, "%s", p->format == FORMAT_GIF ? "webp" : "apng");
        s.meta.delay_ms[1] = 0;
        preset_violation v[PRESET_RULE_COUNT];
        int n = 0;
        int m = broken(p, &s, v, &n);
        sample_free(&s);
        ENSURE(m >= 0 && !(m & BIT(PRESET_RULE_DELAY)));
    }
}

static void test_first_frame_rule(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        sample s;
        ENSURE(sample_make(p, &s));
        anim_frame(&s.a, 0)[3] = 0;
        if (p->first_frame_still) {
            ENSURE_BREAKS(p, &s, PRESET_RULE_FIRST_FRAME, 0);
        } else {
            preset_violation v[PRESET_RULE_COUNT];
            int n = 0;
            ENSURE(broken(p, &s, v, &n) == 0);
        }
        sample_free(&s);
    }
}

static void test_bytes_rule(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        sample s;
        ENSURE(sample_make(p, &s));
        s.meta.file_bytes = (size_t)p->max_bytes + 1;
        ENSURE_BREAKS(p, &s, PRESET_RULE_BYTES, 0);
        sample_free(&s);
    }
    /* the units as worded: Discord's KiB, Slack's KB */
    ENSURE(preset_lookup("discord")->max_bytes == 256 * 1024);
    ENSURE(preset_lookup("slack")->max_bytes == 128 * 1000);
    ENSURE(preset_lookup("mastodon")->max_bytes < 256 * 1024);
}

static void test_animated_required(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        sample s;
        ENSURE(sample_make(p, &s));
        ENSURE(sample_frames(&s, 1, 0));
        snprintf(s.meta.format, sizeof s.meta.format, "%s", p->format == FORMAT_APNG ? "apng" : "gif");
        preset_violation v[PRESET_RULE_COUNT];
        int n = 0;
        int m = broken(p, &s, v, &n);
        sample_free(&s);
        ENSURE(m >= 0);
        if (p->animated)
            ENSURE_MSG(m & (BIT(PRESET_RULE_FRAMES) | BIT(PRESET_RULE_ANIMATED)), "%s takes a still", p->name);
        else if (p->accepts & (p->format == FORMAT_APNG ? PRESET_ACCEPT_APNG : PRESET_ACCEPT_GIF))
            ENSURE_MSG(m == 0, "%s refuses a still: %s", p->name, n ? v[0].text : "");
    }
}

static void test_every_rule_listed(void)
{
    /* a file breaking everything at once is refused on every applicable rule */
    const preset_info *p = preset_lookup("line");
    ENSURE(p);
    sample s;
    ENSURE(sample_make(p, &s));
    ENSURE(sample_frames(&s, 30, 10));
    snprintf(s.meta.format, sizeof s.meta.format, "gif");
    s.meta.width = 500;
    s.meta.height = 500;
    s.meta.file_bytes = 10000000;
    anim_frame(&s.a, 0)[3] = 0;
    s.a.loop = 0;
    preset_violation v[PRESET_RULE_COUNT];
    int n = 0;
    int m = broken(p, &s, v, &n);
    ENSURE(m == (BIT(PRESET_RULE_FORMAT) | BIT(PRESET_RULE_SIZE) | BIT(PRESET_RULE_FRAMES) | BIT(PRESET_RULE_PLAYS) |
                 BIT(PRESET_RULE_DELAY) | BIT(PRESET_RULE_FIRST_FRAME) | BIT(PRESET_RULE_BYTES)));
    /* a short out array still counts them all */
    poyo_error err;
    int n2 = 0;
    ENSURE(preset_check(p, &s.a, &s.meta, v, 2, &n2, &err) == POYO_OK && n2 == n);
    sample_free(&s);
}

static void test_video_codec_and_audio_rules(void)
{
    /* Telegram takes VP9 without sound; images have neither rule */
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        if (p->format != FORMAT_WEBM)
            continue;
        ENSURE(p->codec && strcmp(p->codec, "vp9") == 0 && p->no_audio);
        ENSURE(preset_rule_applies(p, PRESET_RULE_CODEC) && preset_rule_applies(p, PRESET_RULE_AUDIO));
        sample s;
        ENSURE(sample_make(p, &s));
        snprintf(s.meta.codec, sizeof s.meta.codec, "vp8");
        ENSURE_BREAKS(p, &s, PRESET_RULE_CODEC, 0);
        snprintf(s.meta.codec, sizeof s.meta.codec, "vp9");
        s.meta.audio_tracks = 1;
        ENSURE_BREAKS(p, &s, PRESET_RULE_AUDIO, 0);
        sample_free(&s);
    }
    const preset_info *sl = preset_lookup("slack");
    ENSURE(sl && !preset_rule_applies(sl, PRESET_RULE_CODEC) && !preset_rule_applies(sl, PRESET_RULE_AUDIO));
    ENSURE(preset_rule_applies(sl, PRESET_RULE_BYTES) && !preset_rule_applies(sl, PRESET_RULE_PLAYS));
    sample s;
    ENSURE(sample_make(sl, &s));
    s.meta.audio_tracks = 2; /* never set for an image, and never judged */
    snprintf(s.meta.codec, sizeof s.meta.codec, "whatever");
    preset_violation v[PRESET_RULE_COUNT];
    int n = 0;
    ENSURE(broken(sl, &s, v, &n) == 0);
    sample_free(&s);
}

static void test_accepts_text(void)
{
    char buf[96];
    preset_accepts_text(PRESET_ACCEPT_WEBM | PRESET_ACCEPT_PNG, buf, sizeof buf);
    ENSURE(strcmp(buf, "WebM or still PNG") == 0);
    preset_accepts_text(PRESET_ACCEPT_APNG, buf, sizeof buf);
    ENSURE(strcmp(buf, "APNG") == 0);
    preset_accepts_text(PRESET_ACCEPT_GIF | PRESET_ACCEPT_APNG | PRESET_ACCEPT_PNG, buf, sizeof buf);
    ENSURE(strcmp(buf, "GIF, APNG or still PNG") == 0);
    preset_accepts_text(15u, buf, sizeof buf);
    ENSURE(strcmp(buf, "GIF, PNG, APNG or WebP") == 0);
    preset_accepts_text(0u, buf, sizeof buf);
    ENSURE(strcmp(buf, "nothing") == 0);
    preset_accepts_text(31u, buf, 8); /* cut short, still a string */
    ENSURE(strlen(buf) == 7);
}

static void test_bad_arguments(void)
{
    const preset_info *p = preset_at(0);
    sample s;
    ENSURE(sample_make(p, &s));
    preset_violation v[PRESET_RULE_COUNT];
    int n = 0;
    poyo_error err;
    ENSURE(preset_check(NULL, &s.a, &s.meta, v, PRESET_RULE_COUNT, &n, &err) == POYO_ERR_USAGE);
    ENSURE(preset_check(p, NULL, &s.meta, v, PRESET_RULE_COUNT, &n, &err) == POYO_ERR_USAGE);
    ENSURE(preset_check(p, &s.a, NULL, v, PRESET_RULE_COUNT, &n, &err) == POYO_ERR_USAGE);
    ENSURE(preset_check(p, &s.a, &s.meta, NULL, PRESET_RULE_COUNT, &n, &err) == POYO_ERR_USAGE);
    ENSURE(preset_check(p, &s.a, &s.meta, v, PRESET_RULE_COUNT, NULL, &err) == POYO_ERR_USAGE);
    s.meta.frames = 0;
    ENSURE(preset_check(p, &s.a, &s.meta, v, PRESET_RULE_COUNT, &n, &err) == POYO_ERR_USAGE);
    ENSURE(strlen(err.msg) > 0);
    sample_free(&s);
    ENSURE(strcmp(preset_rule_name(PRESET_RULE_COUNT), "unknown") == 0);
    ENSURE(preset_plays_for(NULL, 1.0) == 0);
    preset_apply(NULL, NULL, NULL, NULL);
}

/* Long delays and billions of plays: the total rule without overflowing. */
static void test_total_rule_huge_values(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        if (p->max_total_ms <= 0)
            continue;
        sample s;
        ENSURE(sample_make(p, &s));
        ENSURE(sample_frames(&s, 3, 2147483647));
        s.a.loop = 2147483647;
        preset_violation v[PRESET_RULE_COUNT];
        int n = 0;
        int m = broken(p, &s, v, &n);
        sample_free(&s);
        ENSURE_MSG(m >= 0 && (m & BIT(PRESET_RULE_TOTAL)), "%s: total rule not reported", p->name);
        ENSURE(sample_make(p, &s));
        s.a.loop = 2147483647;
        m = broken(p, &s, v, &n);
        sample_free(&s);
        ENSURE_MSG(m >= 0 && (m & BIT(PRESET_RULE_TOTAL)), "%s: total rule not reported", p->name);
    }
}

static void test_whole_seconds_rule(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        if (!p->whole_total)
            continue;
        ENSURE(preset_rule_applies(p, PRESET_RULE_TOTAL));
        /* LINE's old wave: 4 plays of 0.8 s, 3.2 s in all */
        sample s;
        ENSURE(sample_make(p, &s));
        ENSURE(sample_frames(&s, 8, 100));
        s.a.loop = 4;
        ENSURE_BREAKS(p, &s, PRESET_RULE_TOTAL, 0);
        sample_free(&s);
        /* 4 plays of 0.75 s: 3 s */
        ENSURE(sample_make(p, &s));
        ENSURE(sample_frames(&s, 8, 94));
        s.meta.delay_ms[0] = s.meta.delay_ms[1] = 93;
        s.a.loop = 4;
        preset_violation v[PRESET_RULE_COUNT];
        int n = 0;
        int m = broken(p, &s, v, &n);
        sample_free(&s);
        ENSURE_MSG(m == 0, "%s: 3 s in all refused: %s", p->name, n ? v[0].text : "");
        /* preset_timing keeps every clip within the rule, changing its speed by at most 25 % */
        for (double clip = 0.3; clip <= 4.0; clip += 0.05)
            for (int given = -1; given <= p->max_plays; given++) {
                if (given == 0)
                    continue;
                int plays = 0;
                double t = 0.0;
                preset_timing(p, clip, given, &plays, &t);
                double ms = t * 1000.0, total = ms * plays;
                ENSURE(plays >= 1 && plays <= p->max_plays && (given < 0 || plays == given));
                ENSURE_MSG(fabs(ms - floor(ms + 0.5)) < 1e-6 && fabs(total - 1000.0 * floor(total / 1000.0 + 0.5)) < 1e-6,
                           "%s: %d plays of %g s", p->name, plays, t);
                ENSURE(total >= 1000.0 - 1e-6 && total <= p->max_total_ms + 1e-6 && ms <= p->max_ms + 1e-6);
                if (given < 0 && clip >= 0.8 && clip <= 4.0)
                    ENSURE_MSG(t / clip <= 1.25 + 1e-9 && clip / t <= 1.25 + 1e-9, "%s: %g s played as %g s", p->name,
                               clip, t);
            }
    }
    /* without the rule the clip keeps its length */
    const preset_info *sl = preset_lookup("slack");
    int plays = -1;
    double t = 0.0;
    preset_timing(sl, 1.3, -1, &plays, &t);
    ENSURE(plays == sl->plays && t == 1.3);
}

static void test_signal_and_whatsapp(void)
{
    const preset_info *sg = preset_lookup("signal"), *wa = preset_lookup("whatsapp");
    ENSURE(sg && wa);
    ENSURE(sg->format == FORMAT_APNG && sg->width == 512 && sg->height == 512 && sg->max_bytes == 300000 &&
           sg->max_ms == 3000 && sg->rgba_only);
    ENSURE(wa->format == FORMAT_WEBP && wa->width == 512 && wa->height == 512 && wa->max_bytes == 500000 &&
           wa->max_ms == 10000 && wa->min_delay_ms == 8);
    /* a paletted APNG does not animate on iOS */
    sample s;
    ENSURE(sample_make(sg, &s));
    s.meta.palette_size = 64;
    ENSURE_BREAKS(sg, &s, PRESET_RULE_FORMAT, 0);
    sample_free(&s);
    /* frames under 8 ms are refused, 8 ms passes */
    ENSURE(sample_make(wa, &s));
    s.meta.delay_ms[2] = 7;
    ENSURE_BREAKS(wa, &s, PRESET_RULE_DELAY, 0);
    s.meta.delay_ms[2] = 8;
    preset_violation v[PRESET_RULE_COUNT];
    int n = 0;
    ENSURE(broken(wa, &s, v, &n) == 0);
    sample_free(&s);
}

static void test_request_rules(void)
{
    for (int i = 0; i < preset_count(); i++) {
        const preset_info *p = preset_at(i);
        preset_request own = { p->format, p->width, p->height, p->fps, 0.0, p->clip_s, 0.0, -1, 0 };
        preset_violation v;
        const char *opt = "x";
        ENSURE_MSG(preset_request_ok(p, &own, &v, &opt) && opt == NULL, "%s refuses its own settings: %s", p->name,
                   v.text);
        preset_request r = own;
        if (p->canvas != CANVAS_ANY) {
            r.width = r.height = p->canvas_w + 1;
            ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--size") == 0 && v.rule == PRESET_RULE_SIZE);
        }
        r = own;
        r.max_bytes = p->max_bytes + 1;
        ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--max-bytes") == 0);
        r.max_bytes = p->max_bytes;
        ENSURE(preset_request_ok(p, &r, &v, &opt));
        r = own;
        r.format = p->format == FORMAT_WEBM ? FORMAT_GIF : FORMAT_WEBM;
        ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--format") == 0 && v.rule == PRESET_RULE_FORMAT);
        if (p->max_ms > 0) {
            r = own;
            r.duration = p->max_ms / 1000.0 + 0.5;
            ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--duration") == 0);
            r.duration = 0.0;
            r.period = p->max_ms / 1000.0 + 0.5;
            ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--rate") == 0);
        }
        if (p->max_fps > 0) {
            r = own;
            r.fps = p->max_fps + 1;
            ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--fps") == 0 && v.rule == PRESET_RULE_FPS);
        }
        if (p->max_plays > 0) {
            r = own;
            r.loop = 0;
            ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--loop") == 0 && v.rule == PRESET_RULE_PLAYS);
            r.loop = p->max_plays;
            r.duration = p->max_total_ms / 1000.0 / p->max_plays + 0.1;
            ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--loop") == 0 && v.rule == PRESET_RULE_TOTAL);
        }
        if (p->min_frames > 1) {
            r = own;
            r.fps = (p->min_frames - 1) / p->clip_s;
            ENSURE(!preset_request_ok(p, &r, &v, &opt) && strcmp(opt, "--fps") == 0 && v.rule == PRESET_RULE_FRAMES);
        }
    }
}

static void test_min_scale(void)
{
    /* a square may shrink freely, an exact size not at all, LINE's fit rule until its longer side is 270 */
    ENSURE(preset_min_scale(preset_lookup("slack"), 128, 128) == 0.0);
    ENSURE(preset_min_scale(preset_lookup("mastodon"), 128, 80) == 0.0);
    ENSURE(preset_min_scale(preset_lookup("discord-sticker"), 320, 320) == 1.0);
    ENSURE(preset_min_scale(preset_lookup("telegram"), 512, 512) == 1.0);
    const preset_info *ln = preset_lookup("line");
    double s = preset_min_scale(ln, 320, 270);
    ENSURE(s > 0.8 && s < 0.9);
    ENSURE((int)(320 * 0.9 + 0.5) >= ln->min_side && (int)(320 * s + 0.5) >= ln->min_side);
    ENSURE(preset_min_scale(ln, 270, 270) == 1.0);
    ENSURE(preset_min_scale(NULL, 10, 10) == 1.0);
}

const struct test_case test_cases[] = {
    { "names_unique_and_found", test_names_unique_and_found },
    { "own_settings_pass", test_own_settings_pass },
    { "apply_sets_defs", test_apply_sets_defs },
    { "plays_fit_total", test_plays_fit_total },
    { "format_rule", test_format_rule },
    { "one_frame_apng_is_a_still_png", test_one_frame_apng_is_a_still_png },
    { "size_rule", test_size_rule },
    { "size_rule_accepts_other_shapes", test_size_rule_accepts_other_shapes },
    { "frames_rule", test_frames_rule },
    { "duration_rule", test_duration_rule },
    { "plays_and_total_rules", test_plays_and_total_rules },
    { "total_rule_huge_values", test_total_rule_huge_values },
    { "fps_rule", test_fps_rule },
    { "gif_delay_rule", test_gif_delay_rule },
    { "first_frame_rule", test_first_frame_rule },
    { "bytes_rule", test_bytes_rule },
    { "animated_required", test_animated_required },
    { "every_rule_listed", test_every_rule_listed },
    { "video_codec_and_audio_rules", test_video_codec_and_audio_rules },
    { "accepts_text", test_accepts_text },
    { "bad_arguments", test_bad_arguments },
    { "whole_seconds_rule", test_whole_seconds_rule },
    { "signal_and_whatsapp", test_signal_and_whatsapp },
    { "request_rules", test_request_rules },
    { "min_scale", test_min_scale },
    { NULL, NULL },
};
