/* svglib.c - librsvg and the libraries it draws with, opened with dlopen and
 * resolved with dlsym on the first SVG; poyo is not linked with them, so a
 * process that reads no SVG never loads them (45 shared objects on Debian 12). */
#include "svglib.h"

#include <pthread.h>
#include <stddef.h>

#include "dynlib.h"

enum {
#define SVGLIB_ENUM(lib, soname) lib,
    SVGLIB_SONAMES(SVGLIB_ENUM)
#undef SVGLIB_ENUM
    SVGLIB_COUNT
};

static const char *const sonames[SVGLIB_COUNT] = {
#define SVGLIB_NAME(lib, soname) [lib] = soname,
    SVGLIB_SONAMES(SVGLIB_NAME)
#undef SVGLIB_NAME
};

/* Where each function comes from and where its pointer goes. */
static const dynlib_fn functions[] = {
#define SVGLIB_ROW(lib, fn) { lib, #fn, offsetof(svglib, fn) },
    SVGLIB_FUNCTIONS(SVGLIB_ROW)
#undef SVGLIB_ROW
};

/* Written once, under svglib_once, then only read. */
static svglib table;
static char failure[256]; /* the loader's reason, or empty once loaded */
static pthread_once_t svglib_once = PTHREAD_ONCE_INIT;

/* The libraries stay loaded for the rest of the process (GObject types cannot be unregistered). */
static void svglib_open(void)
{
    if (dynlib_open(sonames, SVGLIB_COUNT, functions, sizeof functions / sizeof functions[0], &table, failure,
                    sizeof failure) == 0)
        table.xmlInitParser();
}

poyo_status svglib_load(const svglib **out, poyo_error *err)
{
    pthread_once(&svglib_once, svglib_open);
    if (*failure) {
        *out = NULL;
        return poyo_fail(err, POYO_ERR_INPUT, "SVG input needs librsvg2-2: %s", failure);
    }
    *out = &table;
    return POYO_OK;
}
