/* test_scene.c - the scene language: the documented example, error columns, numbers,
 * whitespace, canvas scaling, large inputs and random garbage. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geom/scene.h"
#include "geom/vec2.h"

/* Parses text on a w x h canvas; returns the scene, or NULL with column and message. */
static sdf_scene *parse(const char *text, int w, int h, int *column, poyo_error *err)
{
    sdf_scene *s = NULL;
    if (scene_parse(text, w, h, &s, column, err) != POYO_OK)
        return NULL;
    return s;
}

/* Whether two scenes agree to tol at a grid of points around and beyond the canvas. */
static int same_field(const sdf_scene *a, const sdf_scene *b, int w, int h, double tol)
{
    for (int y = -10; y <= 40; y++)
        for (int x = -10; x <= 40; x++) {
            v2 p = v2_make(x * w / 30.0 + 0.37, y * h / 30.0 + 0.11);
            if (!(fabs(sdf_eval(a, p) - sdf_eval(b, p)) <= tol))
                return 0;
        }
    return 1;
}

static void test_example_matches_hand_built(void)
{
    const int W = 400, H = 300;
    const double U = 300.0;
    int col = -1;
    poyo_error err = { "" };
    sdf_scene *s = parse("floor(0.9); circle(0.5,0.3,0.1) smin(0.05) box(0.2,0.6,0.1,0.05)", W, H, &col, &err);
    ENSURE_MSG(s != NULL, "%s", err.msg);
    ENSURE(col == 0);
    ENSURE(sdf_scene_count(s) == 3);
    sdf_scene *m = NULL;
    ENSURE(sdf_scene_create(&m, NULL) == POYO_OK);
    ENSURE(sdf_scene_add(m, SDF_UNION, 0, sdf_plane(v2_make(0, 0.9 * H), v2_make(0, -1)), NULL) == POYO_OK);
    ENSURE(sdf_scene_add(m, SDF_UNION, 0, sdf_circle(v2_make(0.5 * W, 0.3 * H), 0.1 * U), NULL) == POYO_OK);
    ENSURE(sdf_scene_add(m, SDF_SMIN, 0.05 * U, sdf_box(v2_make(0.2 * W, 0.6 * H), v2_make(0.1 * U, 0.05 * U)), NULL)
           == POYO_OK);
    ENSURE(same_field(s, m, W, H, 1e-9));
    /* Spot checks in pixels: above the floor, the circle's centre, the box's centre. */
    ENSURE_NEAR(sdf_eval(s, v2_make(10, 260)), 10.0, 1e-9);
    ENSURE_NEAR(sdf_eval(s, v2_make(200, 90)), -30.0, 1e-9);
    ENSURE_NEAR(sdf_eval(s, v2_make(80, 180)), -15.0, 1e-9);
    sdf_scene_destroy(s);
    sdf_scene_destroy(m);
}

struct bad_case {
    const char *text;
    int column;
    const char *says;
};

static void test_error_columns(void)
{
    static const struct bad_case cases[] = {
        { "cirle(0.5,0.5,0.1)", 1, "unknown shape 'cirle' (expected circle, box, rbox" },
        { "floor(0.9); circle(0.5 0.3,0.1)", 24, "expected ',' after x of circle" },
        { "circle 0.5", 8, "expected '(' after circle" },
        { "circle(0.5,,0.1)", 12, "expected a number for y of circle, found ','" },
        { "circle(0.5,0.5,0.1", 19, "expected ')' after r of circle, found end of text" },
        { "circle(0.5,0.5,0.1,0.2)", 19, "expected ')' after r of circle, found ','" },
        { "circle(0.5,0.5,-0.1)", 16, "r of circle must not be negative" },
        { "box(0.5,0.5,0.1,-2)", 17, "hh of box must not be negative" },
        { "rbox(0.5,0.5,0.1,0.2,0.15)", 22, "r of rbox must not exceed" },
        { "segment(0,0,1,1 0.1)", 17, "expected ',' or ')' after y2 of segment" },
        { "segment(0,0,1,1,-1)", 17, "r of segment must not be negative" },
        { "sub circle(0.5,0.5,0.1)", 1, "'sub' needs a shape before it" },
        { "smin(0.1) circle(0.5,0.5,0.1)", 1, "'smin' needs a shape before it" },
        { "floor(0.9) smin(-0.1) circle(0,0,1)", 17, "w of smin must not be negative" },
        { "floor(0.9) smin(0.1)", 21, "expected a shape such as circle(x,y,r), found end of text" },
        { "floor(0.9) smin(0.1) sub circle(0,0,1)", 22, "found operator 'sub'" },
        { "floor(0.9) repeat(0.1,0) repeat(0.1,0) circle(0,0,1)", 26, "repeat cannot be nested" },
        { "floor(0.9) repeat(0.1,0) sub circle(0,0,1)", 26, "expected a shape after repeat" },
        { "repeat(0.1,0,1.5) circle(0,0,1)", 14, "nx of repeat must be a whole number" },
        { "repeat(0.1,0,2,-1) circle(0,0,1)", 16, "ny of repeat must be a whole number" },
        { "floor(1e)", 9, "expected the digits of an exponent in y of floor" },
        { "floor(0.9);;floor(1)", 12, "expected a shape such as circle(x,y,r), found ';'" },
        { "floor(0.9) )", 12, "found ')'" },
        { "floor(.)", 7, "expected a number for y of floor, found '.'" },
        { "floor(0.9) \x01", 12, "found byte 0x01" },
        { "floor(0.9) \xc3\xa9 circle(0,0,1)", 12, "found byte 0xC3" },
        { "", 1, "empty scene" },
        { "   \t ", 6, "empty scene" },
        { "# nothing but a comment", 24, "empty scene" },
        { "floor(nan)", 7, "y of floor must be a finite number, not 'nan'" },
        { "floor(NaN)", 7, "not 'NaN'" },
        { "floor(inf)", 7, "not 'inf'" },
        { "floor(-inf)", 7, "not '-inf'" },
        { "floor(+Infinity)", 7, "not '+Infinity'" },
        { "floor(1e400)", 7, "y of floor is 1e400; it must lie between -1e6 and 1e6" },
        { "floor(-2e6)", 7, "must lie between -1e6 and 1e6" },
        { "floor(0x10)", 8, "expected ')' after y of floor, found 'x'" },
        { "wall(0.5", 9, "expected ')' after x of wall" },
        { "plane(0.5,0.5)", 14, "expected ',' after y of plane, found ')'" },
        { "floor(0.9)\n  cirle(1,1,1)", 3, "line 2, column 3: unknown shape 'cirle'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int col = -1;
        poyo_error err = { "" };
        sdf_scene *out = (sdf_scene *)1;
        poyo_status st = scene_parse(cases[i].text, 200, 100, &out, &col, &err);
        ENSURE_MSG(st == POYO_ERR_USAGE, "'%s' parsed", cases[i].text);
        ENSURE_MSG(out == NULL, "'%s': output not cleared", cases[i].text);
        ENSURE_MSG(col == cases[i].column, "'%s': column %d, want %d (%s)", cases[i].text, col, cases[i].column,
                   err.msg);
        ENSURE_MSG(strstr(err.msg, cases[i].says) != NULL, "'%s': message '%s' lacks '%s'", cases[i].text,
                   err.msg, cases[i].says);
        /* Single-line text: the message starts with the column it reports. */
        if (!strchr(cases[i].text, '\n')) {
            char head[32];
            snprintf(head, sizeof head, "column %d: ", col);
            ENSURE_MSG(strncmp(err.msg, head, strlen(head)) == 0, "'%s': message '%s'", cases[i].text, err.msg);
        }
    }
}

static void test_bad_calls(void)
{
    int col = -1;
    poyo_error err = { "" };
    sdf_scene *out = (sdf_scene *)1;
    ENSURE(scene_parse(NULL, 10, 10, &out, &col, &err) == POYO_ERR_USAGE && out == NULL && col == 0);
    ENSURE(scene_parse("floor(0.9)", 0, 10, &out, &col, &err) == POYO_ERR_USAGE && out == NULL && col == 0);
    ENSURE(strstr(err.msg, "canvas") != NULL);
    ENSURE(scene_parse("floor(0.9)", 10, -3, &out, &col, &err) == POYO_ERR_USAGE);
    ENSURE(scene_parse("floor(0.9)", SCENE_MAX_SIDE + 1, 10, &out, &col, &err) == POYO_ERR_USAGE);
    ENSURE(scene_parse("floor(0.9)", 10, 10, NULL, &col, &err) == POYO_ERR_USAGE);
    /* A NULL column pointer and a NULL error are fine. */
    ENSURE(scene_parse("floor(", 10, 10, &out, NULL, NULL) == POYO_ERR_USAGE && out == NULL);
    ENSURE(scene_parse(scene_default_text(), 10, 10, &out, NULL, NULL) == POYO_OK && out != NULL);
    sdf_scene_destroy(out);
}

static void test_numbers(void)
{
    static const char *same[] = {
        "circle(0.5,0.3,0.1)",
        "circle(5e-1,3E-1,1.0e-1)",
        "circle(+.5,30e-2,0.01e+1)",
        "circle(0.50000000000000000000000000,0.3,.1)",
        "circle(500000e-6,0.0003e3,1e-1)",
    };
    sdf_scene *ref = parse(same[0], 300, 200, NULL, NULL);
    ENSURE(ref != NULL);
    for (size_t i = 1; i < sizeof same / sizeof same[0]; i++) {
        poyo_error err = { "" };
        sdf_scene *s = parse(same[i], 300, 200, NULL, &err);
        ENSURE_MSG(s != NULL, "'%s': %s", same[i], err.msg);
        ENSURE_MSG(same_field(ref, s, 300, 200, 1e-9), "'%s' differs", same[i]);
        sdf_scene_destroy(s);
    }
    sdf_scene_destroy(ref);
    /* "5." and "-0" are numbers too. */
    sdf_scene *s = parse("floor(1.) sub circle(-0,-0.0,5.)", 10, 10, NULL, NULL);
    ENSURE(s != NULL);
    sdf_scene_destroy(s);
    /* A very long mantissa is refused with a message rather than truncated. */
    char big[1200] = "floor(0.";
    memset(big + 8, '1', 1000);
    strcpy(big + 1008, ")");
    int col = 0;
    poyo_error err = { "" };
    ENSURE(parse(big, 10, 10, &col, &err) == NULL && col == 7 && strstr(err.msg, "too many digits"));
}

static void test_whitespace_and_comments(void)
{
    const char *compact = "floor(0.9);circle(0.5,0.3,0.1)smin(0.05)box(0.2,0.6,0.1,0.05)";
    const char *airy = "\t floor ( 0.9 ) ;\n  # the ball\n circle( 0.5 ,0.3,\r\n 0.1 ) smin ( 0.05 )box(0.2,0.6,0.1,0.05) ; \n";
    const char *no_semicolons = "floor(0.9) circle(0.5,0.3,0.1) smin(0.05) box(0.2,0.6,0.1,0.05)";
    const char *unions = "floor(0.9) union circle(0.5,0.3,0.1) smin(0.05) box(0.2,0.6,0.1,0.05)";
    sdf_scene *a = parse(compact, 120, 80, NULL, NULL);
    sdf_scene *b = parse(airy, 120, 80, NULL, NULL);
    sdf_scene *c = parse(no_semicolons, 120, 80, NULL, NULL);
    sdf_scene *d = parse(unions, 120, 80, NULL, NULL);
    ENSURE(a && b && c && d);
    ENSURE(same_field(a, b, 120, 80, 0.0) && same_field(a, c, 120, 80, 0.0) && same_field(a, d, 120, 80, 0.0));
    sdf_scene_destroy(a);
    sdf_scene_destroy(b);
    sdf_scene_destroy(c);
    sdf_scene_destroy(d);
}

static void test_shapes_in_pixels(void)
{
    const int W = 400, H = 200;
    sdf_scene *s;
    /* Points scale by W and H, lengths by min(W, H). */
    ENSURE((s = parse("circle(0.5,0.5,0.25)", W, H, NULL, NULL)) != NULL);
    ENSURE_NEAR(sdf_eval(s, v2_make(200, 50)), 0.0, 1e-9);
    ENSURE_NEAR(sdf_eval(s, v2_make(250, 100)), 0.0, 1e-9);
    sdf_scene_destroy(s);
    /* Walls, floor, ceiling and the tilted plane that generalises them. */
    struct { const char *a, *b; } eq[] = {
        { "plane(0.3,0.5,0)", "floor(0.5)" },
        { "plane(0.5,0.7,180)", "ceiling(0.7)" },
        { "plane(0.25,0.5,90)", "right(0.25)" },
        { "plane(0.25,0.1,-90)", "left(0.25)" },
        { "plane(0.8,0.1,-270)", "wall(0.8)" },
        { "wall(0.2)", "left(0.2)" },
        { "wall(0.5)", "right(0.5)" },
        { "segment(0.2,0.3,0.2,0.3,0.1)", "circle(0.2,0.3,0.1)" },
        { "rbox(0.5,0.5,0.2,0.1,0)", "box(0.5,0.5,0.2,0.1)" },
    };
    for (size_t i = 0; i < sizeof eq / sizeof eq[0]; i++) {
        sdf_scene *x = parse(eq[i].a, W, H, NULL, NULL), *y = parse(eq[i].b, W, H, NULL, NULL);
        ENSURE_MSG(x && y, "%s / %s", eq[i].a, eq[i].b);
        ENSURE_MSG(same_field(x, y, W, H, 1e-9), "%s differs from %s", eq[i].a, eq[i].b);
        sdf_scene_destroy(x);
        sdf_scene_destroy(y);
    }
    /* A tilted floor: 45 degrees counter-clockwise on screen rises to the right. */
    ENSURE((s = parse("plane(0.5,0.5,45)", W, H, NULL, NULL)) != NULL);
    ENSURE(sdf_eval(s, v2_make(200 + 50, 100 - 40)) < 0.0);   /* right and a bit up: under the slope */
    ENSURE(sdf_eval(s, v2_make(200 - 50, 100 - 40)) > 0.0);   /* left and up: in the air */
    ENSURE_NEAR(sdf_eval(s, v2_make(200, 100 - 10)), 10.0 * cos(PI / 4), 1e-9);
    sdf_scene_destroy(s);
    /* Limited repetition: three copies to the right, none beyond. */
    ENSURE((s = parse("repeat(0.1,0,3) circle(0.1,0.5,0.02)", W, H, NULL, NULL)) != NULL);
    for (int k = 0; k < 3; k++)
        ENSURE_NEAR(sdf_eval(s, v2_make(0.1 * W + k * 20.0, 100)), -4.0, 1e-9);
    ENSURE(sdf_eval(s, v2_make(0.1 * W + 60.0, 100)) > 0.0);
    ENSURE(sdf_eval(s, v2_make(0.1 * W - 20.0, 100)) > 0.0);
    sdf_scene_destroy(s);
}

static void test_blend_widths(void)
{
    /* Two circles whose boundaries are 0.2 apart: at the midpoint both are 0.1 away,
     * so smin(w) and smine(w) both sink the field there by exactly w/4 (in pixels). */
    const int W = 300, H = 200;
    const double U = 200.0;
    const char *texts[3] = { "circle(0.3,0.5,0.1) circle(0.7,0.5,0.1)", "circle(0.3,0.5,0.1) smin(0.08) circle(0.7,0.5,0.1)",
                             "circle(0.3,0.5,0.1) smine(0.08) circle(0.7,0.5,0.1)" };
    sdf_scene *s[3];
    for (int i = 0; i < 3; i++)
        ENSURE((s[i] = parse(texts[i], W, H, NULL, NULL)) != NULL);
    v2 mid = v2_make(0.5 * W, 0.5 * H);
    double plain = sdf_eval(s[0], mid);
    ENSURE_NEAR(plain, 0.5 * W - 0.3 * W - 0.1 * U, 1e-9);
    ENSURE_NEAR(plain - sdf_eval(s[1], mid), 0.08 * U / 4, 1e-9);
    ENSURE_NEAR(plain - sdf_eval(s[2], mid), 0.08 * U / 4, 1e-9);
    for (int i = 0; i < 3; i++)
        sdf_scene_destroy(s[i]);
    /* smine(0) is a plain union. */
    sdf_scene *a = parse("floor(0.5) smine(0) circle(0.5,0.3,0.1)", W, H, NULL, NULL);
    sdf_scene *b = parse("floor(0.5) circle(0.5,0.3,0.1)", W, H, NULL, NULL);
    ENSURE(a && b && same_field(a, b, W, H, 0.0));
    sdf_scene_destroy(a);
    sdf_scene_destroy(b);
}

static void test_huge_input(void)
{
    /* SCENE_MAX_SHAPES shapes, each behind a long comment, make a long text that parses. */
    enum { N = SCENE_MAX_SHAPES * 160 };
    static char text[N + 256];
    size_t len = 0;
    int items = 0;
    for (; items < SCENE_MAX_SHAPES; items++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "%scircle(%d.%03d,0.5,0.01) # %0120d\n", items % 3 == 1 ? " smin(0.01) " : "; ",
                                items % 2, items % 1000, items);
    poyo_error err = { "" };
    sdf_scene *s = parse(text + 2, 640, 480, NULL, &err);
    ENSURE_MSG(s != NULL, "%s", err.msg);
    ENSURE(sdf_scene_count(s) == items);
    ENSURE(isfinite(sdf_eval(s, v2_make(3, 4))));
    sdf_scene_destroy(s);
    /* An error far into a long text still reports the right line and column. */
    text[len] = '@';
    text[len + 1] = '\0';
    int col = 0;
    ENSURE(parse(text + 2, 640, 480, &col, &err) == NULL);
    ENSURE_MSG(col == 1 && strncmp(err.msg, "line 65, column 1: ", 19) == 0, "column %d: %s", col, err.msg);
}

/* Shapes past SCENE_MAX_SHAPES are refused at the first one too many, a repeated shape
 * weighing 3 along one axis and 9 along both. */
static void test_shape_bound(void)
{
    static char text[SCENE_MAX_SHAPES * 48 + 64];
    size_t len = 0;
    for (int i = 0; i < SCENE_MAX_SHAPES; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "circle(0.5,0.5,0.1) ");
    poyo_error err = { "" };
    sdf_scene *s = parse(text, 100, 100, NULL, &err);
    ENSURE_MSG(s != NULL, "%s", err.msg);
    sdf_scene_destroy(s);
    snprintf(text + len, sizeof text - len, "box(0.5,0.5,0.1,0.1)");
    int col = 0;
    ENSURE(parse(text, 100, 100, &col, &err) == NULL);
    ENSURE_MSG(col == (int)len + 1, "column %d, want %zu", col, len + 1);
    ENSURE_MSG(strstr(err.msg, "the scene holds more than 64 shapes") != NULL, "%s", err.msg);
    /* 7 shapes repeated on both axes (63) and one more plain shape: 64 */
    len = 0;
    for (int i = 0; i < 7; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "repeat(0.2,0.2) circle(0.5,0.5,0.1) ");
    snprintf(text + len, sizeof text - len, "floor(0.9)");
    ENSURE((s = parse(text, 100, 100, NULL, &err)) != NULL);
    sdf_scene_destroy(s);
    /* ... but a shape repeated along one axis instead is 66 */
    snprintf(text + len, sizeof text - len, "repeat(0,0.2) circle(0.5,0.5,0.1)");
    ENSURE(parse(text, 100, 100, &col, &err) == NULL && col == (int)len + 15);
}

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;

static uint32_t rnd_u32(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (uint32_t)((g_rng * 0x2545F4914F6CDD1Dull) >> 32);
}

/* Checks the parse contract for one text: a scene with finite values, or NULL and a column. */
static int parse_is_sane(const char *text)
{
    int col = -1;
    poyo_error err = { "" };
    sdf_scene *out = (sdf_scene *)1;
    poyo_status st = scene_parse(text, 97, 61, &out, &col, &err);
    if (st == POYO_OK) {
        int ok = out != NULL && col == 0 && !isnan(sdf_eval(out, v2_make(10, 20)));
        sdf_scene_destroy(out);
        return ok;
    }
    return st == POYO_ERR_USAGE && out == NULL && col >= 1 && col <= (int)strlen(text) + 1 && err.msg[0] != '\0';
}

static void test_fuzz_random_bytes(void)
{
    static const char *tokens[] = { "circle", "box", "rbox", "segment", "floor", "ceiling", "left", "right",
                                    "wall", "plane", "repeat", "smin", "smine", "sub", "union", "(", ")", ",",
                                    ";", " ", "\n", "#", "0.5", "-1e3", "1e", ".", "+", "nan", "inf", "7",
                                    "1e999", "0.25", "\xff", "\xc3" };
    char text[512];
    int parsed = 0;
    for (int i = 0; i < 3000; i++) {
        size_t len = 0;
        int mode = i % 3, n = (int)(rnd_u32() % 60);
        for (int k = 0; k < n && len < sizeof text - 16; k++) {
            if (mode == 0) {
                text[len++] = (char)(1 + rnd_u32() % 255);
            } else {
                const char *t = tokens[rnd_u32() % (sizeof tokens / sizeof tokens[0])];
                size_t tl = strlen(t);
                memcpy(text + len, t, tl);
                len += tl;
            }
        }
        text[len] = '\0';
        if (mode == 2) {
            /* Mutate a valid scene a few bytes at a time. */
            strcpy(text, "floor(0.9); repeat(0.2,0,3) circle(0.5,0.3,0.1) smin(0.05) rbox(0.2,0.6,0.1,0.05,0.01)");
            size_t tl = strlen(text);
            for (int k = 0; k < 1 + (int)(rnd_u32() % 3); k++)
                text[rnd_u32() % tl] = (char)(1 + rnd_u32() % 255);
        }
        ENSURE_MSG(parse_is_sane(text), "contract broken for text %d", i);
        parsed++;
    }
    ENSURE(parsed == 3000);
}

const struct test_case test_cases[] = {
    { "example_matches_hand_built", test_example_matches_hand_built },
    { "error_columns", test_error_columns },
    { "bad_calls", test_bad_calls },
    { "numbers", test_numbers },
    { "whitespace_and_comments", test_whitespace_and_comments },
    { "shapes_in_pixels", test_shapes_in_pixels },
    { "blend_widths", test_blend_widths },
    { "huge_input", test_huge_input },
    { "shape_bound", test_shape_bound },
    { "fuzz_random_bytes", test_fuzz_random_bytes },
    { NULL, NULL },
};
