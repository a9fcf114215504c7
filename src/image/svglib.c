/* svglib.c - librsvg and the libraries it draws with, opened with dlopen and
 * resolved with dlsym on the first SVG; poyo is not linked with them, so a
 * process that reads no SVG never loads them (45 shared objects on Debian 12). */
#include "svglib.h"

#include "util/dynlib.h"

enum { SVGLIB_SONAMES(DYNLIB_ENUM) SVGLIB_COUNT };
static const char *const sonames[SVGLIB_COUNT] = { SVGLIB_SONAMES(DYNLIB_SONAME) };
#define DYNLIB_TABLE svglib
static const dynlib_fn functions[] = { SVGLIB_FUNCTIONS(DYNLIB_ROW) };

static svglib table;

/* libxml2 is set up once, before any thread parses */
static void ready(void *t)
{
    ((svglib *)t)->xmlInitParser();
}

static dynlib_set set = { sonames, SVGLIB_COUNT, functions, sizeof functions / sizeof functions[0], &table,
                          ready, 0, "" };

poyo_status svglib_load(const svglib **out, poyo_error *err)
{
    poyo_status st = dynlib_load(&set, "SVG input needs librsvg2-2", err);
    *out = st == POYO_OK ? &table : NULL;
    return st;
}
