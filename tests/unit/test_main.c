/* test_main.c - runs the test_cases[] of one test file: all of them, or those
 * named as arguments. Ends with "N passed, N failed". */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int g_failed_now;

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "  FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    g_failed_now = 1;
}

int test_failed(void) { return g_failed_now; }

static char g_scratch[256];

static void remove_scratch(void)
{
    if (!g_scratch[0])
        return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_scratch);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_scratch);
    g_scratch[0] = 0;
}

const char *test_scratch(const char *tag)
{
    static int registered;
    remove_scratch();
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(g_scratch, sizeof g_scratch, "%s/poyo-%s.XXXXXX", tmp, tag);
    if (!mkdtemp(g_scratch)) {
        g_scratch[0] = 0;
        return NULL;
    }
    if (!registered)
        atexit(remove_scratch);
    registered = 1;
    return g_scratch;
}

static int wanted(const char *name, int argc, char **argv)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    for (const struct test_case *t = test_cases; t->name; t++) {
        if (!wanted(t->name, argc, argv))
            continue;
        g_failed_now = 0;
        t->fn();
        if (g_failed_now) {
            failed++;
            fprintf(stderr, "not ok %s\n", t->name);
        } else {
            passed++;
            printf("ok %s\n", t->name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
