/* mkstamps.c - draws poyo's sample stamps (pudding, slime, mochi, bottle) as
 * anti-aliased RGBA PNGs from simple distance-field shapes, 4x4 supersampled.
 * Usage: mkstamps DIR   (writes DIR/pudding.png, slime.png, mochi.png, bottle.png) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#define S 160 /* stamp size in pixels */

typedef struct rgba { double r, g, b, a; } rgba;

/* Distance to an ellipse (approximate, good near the edge), negative inside. */
static double d_ellipse(double x, double y, double cx, double cy, double rx, double ry)
{
    double dx = (x - cx) / rx, dy = (y - cy) / ry;
    double k = sqrt(dx * dx + dy * dy);
    return (k - 1.0) * fmin(rx, ry);
}

/* Distance to a rounded box centred at (cx, cy) with half sizes hx, hy and radius r. */
static double d_rbox(double x, double y, double cx, double cy, double hx, double hy, double r)
{
    double qx = fabs(x - cx) - hx + r, qy = fabs(y - cy) - hy + r;
    double ox = fmax(qx, 0), oy = fmax(qy, 0);
    return sqrt(ox * ox + oy * oy) + fmin(fmax(qx, qy), 0.0) - r;
}

/* A trapezoid-ish dome: narrower at the top (pudding, bottle shoulders). */
static double d_pudding(double x, double y, double cx, double top, double bottom, double wt, double wb, double r)
{
    double t = (y - top) / (bottom - top);
    double hw = wt + (wb - wt) * fmin(fmax(t, 0), 1);
    double d = fmax(fabs(x - cx) - hw, fmax(top - y, y - bottom));
    return d - r;
}

static double smin(double a, double b, double k)
{
    double h = fmax(k - fabs(a - b), 0.0) / k;
    return fmin(a, b) - h * h * k * 0.25;
}

static void over(rgba *dst, rgba src, double cov)
{
    double a = src.a * cov;
    dst->r = src.r * a + dst->r * (1 - a);
    dst->g = src.g * a + dst->g * (1 - a);
    dst->b = src.b * a + dst->b * (1 - a);
    dst->a = a + dst->a * (1 - a);
}

static rgba col(int hex, double a)
{
    rgba c = { ((hex >> 16) & 255) / 255.0, ((hex >> 8) & 255) / 255.0, (hex & 255) / 255.0, a };
    return c;
}

/* Premultiplied colour of one sample point of stamp `which`. */
static rgba shade(int which, double x, double y)
{
    rgba p = { 0, 0, 0, 0 };
    double in;
    switch (which) {
    case 0: { /* pudding on a plate */
        in = d_ellipse(x, y, 80, 136, 66, 14) < 0;
        over(&p, col(0xf2f2f7, 1), in);
        over(&p, col(0xd8d8e6, 1), d_ellipse(x, y, 80, 139, 60, 9) < 0 && y > 136);
        double body = d_pudding(x, y, 80, 40, 128, 34, 52, 8);
        over(&p, col(0xffcf4a, 1), body < 0);
        double cap = fmax(body, y - (58 + 5 * sin(x / 9.0)));
        over(&p, col(0x7a3b12, 1), cap < 0);
        over(&p, col(0xfff3c4, 0.7), d_ellipse(x, y, 58, 80, 5, 14) < 0);
        /* face */
        over(&p, col(0x3b2314, 1), d_ellipse(x, y, 66, 92, 5, 6) < 0 || d_ellipse(x, y, 94, 92, 5, 6) < 0);
        double mouth = fabs(d_ellipse(x, y, 80, 100, 8, 7)) - 1.6;
        over(&p, col(0x3b2314, 1), mouth < 0 && y > 101);
        over(&p, col(0xff8a7a, 0.55), d_ellipse(x, y, 56, 104, 7, 4) < 0 || d_ellipse(x, y, 104, 104, 7, 4) < 0);
        break;
    }
    case 1: { /* slime */
        double body = smin(d_ellipse(x, y, 80, 92, 58, 52), d_rbox(x, y, 80, 132, 68, 10, 10), 20);
        body = smin(body, d_ellipse(x, y, 80, 40, 12, 16), 18);
        over(&p, col(0x3ccf6e, 1), body < 0);
        over(&p, col(0x2aa158, 1), body < 0 && body > -6 && y > 90);
        over(&p, col(0xc8ffd9, 0.8), d_ellipse(x, y, 52, 66, 9, 14) < 0);
        over(&p, col(0xffffff, 1), d_ellipse(x, y, 64, 92, 10, 12) < 0 || d_ellipse(x, y, 98, 92, 10, 12) < 0);
        over(&p, col(0x16301f, 1), d_ellipse(x, y, 66, 95, 5, 7) < 0 || d_ellipse(x, y, 96, 95, 5, 7) < 0);
        double mouth = fabs(d_ellipse(x, y, 81, 110, 10, 8)) - 1.8;
        over(&p, col(0x16301f, 1), mouth < 0 && y > 111);
        break;
    }
    case 2: { /* mochi */
        double body = d_ellipse(x, y, 80, 98, 66, 50);
        over(&p, col(0xfff7f2, 1), body < 0);
        over(&p, col(0xf3dcd6, 1), body < 0 && body > -5 && y > 100);
        over(&p, col(0x6fbf5a, 1), d_ellipse(x, y, 80, 50, 20, 9) < 0 && y < 52);
        over(&p, col(0xffb3c1, 0.85), d_ellipse(x, y, 48, 108, 10, 6) < 0 || d_ellipse(x, y, 112, 108, 10, 6) < 0);
        double eyes = fmin(fabs(d_ellipse(x, y, 62, 98, 7, 6)), fabs(d_ellipse(x, y, 98, 98, 7, 6))) - 1.7;
        over(&p, col(0x3a2a2a, 1), eyes < 0 && y < 98);
        double mouth = fabs(d_ellipse(x, y, 80, 108, 5, 4)) - 1.5;
        over(&p, col(0x3a2a2a, 1), mouth < 0 && y > 108);
        break;
    }
    default: { /* bottle: tall and thin */
        double body = d_rbox(x, y, 80, 100, 22, 52, 12);
        body = smin(body, d_rbox(x, y, 80, 34, 10, 22, 4), 14);
        over(&p, col(0xe8f4ff, 1), body < 0);
        over(&p, col(0x9cc9ef, 1), body < 0 && body > -4);
        over(&p, col(0xff6f61, 1), d_rbox(x, y, 80, 12, 13, 6, 3) < 0);
        over(&p, col(0x4a90d9, 1), d_rbox(x, y, 80, 108, 22, 18, 2) < 0 && body < 0);
        over(&p, col(0xffffff, 1), d_ellipse(x, y, 73, 104, 3.5, 4.5) < 0 || d_ellipse(x, y, 87, 104, 3.5, 4.5) < 0);
        over(&p, col(0xffffff, 0.7), d_rbox(x, y, 66, 80, 3, 16, 3) < 0);
        break;
    }
    }
    return p;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    const char *names[4] = { "pudding", "slime", "mochi", "bottle" };
    unsigned char *img = malloc(S * S * 4);
    if (!img)
        return 1;
    for (int which = 0; which < 4; which++) {
        for (int y = 0; y < S; y++)
            for (int x = 0; x < S; x++) {
                double r = 0, g = 0, b = 0, a = 0;
                for (int sy = 0; sy < 4; sy++)
                    for (int sx = 0; sx < 4; sx++) {
                        rgba p = shade(which, x + (sx + 0.5) / 4.0, y + (sy + 0.5) / 4.0);
                        r += p.r;
                        g += p.g;
                        b += p.b;
                        a += p.a;
                    }
                unsigned char *o = img + 4 * (y * S + x);
                o[3] = (unsigned char)(a / 16.0 * 255.0 + 0.5);
                o[0] = a > 0 ? (unsigned char)(r / a * 255.0 + 0.5) : 0;
                o[1] = a > 0 ? (unsigned char)(g / a * 255.0 + 0.5) : 0;
                o[2] = a > 0 ? (unsigned char)(b / a * 255.0 + 0.5) : 0;
            }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.png", dir, names[which]);
        if (!stbi_write_png(path, S, S, 4, img, S * 4)) {
            fprintf(stderr, "mkstamps: cannot write %s\n", path);
            return 1;
        }
    }
    free(img);
    return 0;
}
