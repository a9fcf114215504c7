/* fuzz_path.c - libFuzzer target over the path waypoints as `poyo path
 * --through` reads them: "X,Y,DEG" tokens separated by spaces, tabs, newlines
 * or ';', canvas fractions times a 64 x 48 canvas, degrees to radians; then
 * the fit, sampling, nearest points and the SVG outline. A fitted path is
 * finite, starts at the first waypoint and ends at the last. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geom/path.h"
#include "geom/vec2.h"

#define W 64
#define H 48
#define MAX_POINTS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One "X,Y,DEG" token as cmd_path.c parses it; returns 1 on success. */
static int parse_waypoint(const char *s, size_t len, double v[3])
{
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    const char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *end;
        v[i] = strtod(p, &end);
        if (end == p || !isfinite(v[i]))
            return 0;
        if (*end != (i < 2 ? ',' : '\0'))
            return 0;
        p = end + 1;
    }
    return fabs(v[0]) <= 1000.0 && fabs(v[1]) <= 1000.0;
}

static int near_point(v2 a, v2 b) { return fabs(a.x - b.x) + fabs(a.y - b.y) <= 1e-6 * (1.0 + fabs(b.x) + fabs(b.y)); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char text[4097];
    memcpy(text, data, size);
    text[size] = '\0';
    path_point pts[MAX_POINTS];
    int n = 0;
    const char *sep = " \t\n;";
    for (const char *p = text; *p && n < MAX_POINTS;) {
        p += strspn(p, sep);
        if (!*p)
            break;
        size_t len = strcspn(p, sep);
        double v[3];
        if (!parse_waypoint(p, len, v))
            return 0;
        pts[n].p = v2_make(v[0] * W, v[1] * H);
        pts[n].angle = remainder(v[2], 360.0) * PI / 180.0;
        n++;
        p += len;
    }
    if (n < 2)
        return 0;
    path_def def = path_default_def();
    path *pth = NULL;
    poyo_error err;
    if (path_create(&def, pts, n, &pth, &err) != POYO_OK)
        return 0;
    int segs = path_segment_count(pth);
    double len = path_length(pth);
    if (!pth || segs < n - 1 || !isfinite(len) || len < 0.0)
        abort();
    v2 pos[17];
    double ang[17];
    if (path_sample(pth, 17, pos, ang, &err) != POYO_OK)
        abort();
    for (int i = 0; i < 17; i++)
        if (!isfinite(pos[i].x) || !isfinite(pos[i].y) || !isfinite(ang[i]))
            abort();
    if (!near_point(pos[0], pts[0].p) || !near_point(pos[16], pts[n - 1].p))
        abort();
    double s;
    v2 q;
    double d = path_nearest(pth, v2_make(W * 0.5, H * 0.5), &s, &q);
    if (!isfinite(d) || d < 0.0 || !(s >= 0.0 && s <= len * (1.0 + 1e-9) + 1e-9))
        abort();
    size_t needed = 0;
    if (path_svg_d(pth, 1.0, 1.0, 0.5, NULL, 0, &needed, &err) == POYO_OK && needed < (1u << 20)) {
        char *buf = malloc(needed + 1);
        if (buf && path_svg_d(pth, 1.0, 1.0, 0.5, buf, needed + 1, &needed, &err) == POYO_OK &&
            strlen(buf) != needed)
            abort();
        free(buf);
    }
    path_destroy(pth);
    return 0;
}
