/* svglib.c - librsvg and the libraries it draws with, opened with dlopen and
 * resolved with dlsym on the first SVG; poyo is not linked with them, so a
 * process that reads no SVG never loads them (45 shared objects on Debian 12). */
#include "svglib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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
static const struct {
    int lib;
    const char *name;
    size_t offset;
} functions[] = {
#define SVGLIB_ROW(lib, fn) { lib, #fn, offsetof(svglib, fn) },
    SVGLIB_FUNCTIONS(SVGLIB_ROW)
#undef SVGLIB_ROW
};

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym's results are stored as function pointers");

/* Written once, under svglib_once, then only read. */
static svglib table;
static char failure[256]; /* the loader's reason, or empty once loaded */
static pthread_once_t svglib_once = PTHREAD_ONCE_INIT;

/* The libraries stay loaded for the rest of the process (GObject types cannot be unregistered). */
static void svglib_open(void)
{
    void *handle[SVGLIB_COUNT];
    for (int i = 0; i < SVGLIB_COUNT; i++) {
        if (!(handle[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL))) {
            const char *why = dlerror();
            snprintf(failure, sizeof failure, "%s", why ? why : sonames[i]);
            return;
        }
    }
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        dlerror();
        void *sym = dlsym(handle[functions[i].lib], functions[i].name);
        if (!sym) {
            const char *why = dlerror();
            snprintf(failure, sizeof failure, "%s", why ? why : functions[i].name);
            return;
        }
        /* POSIX lets a dlsym result be used as a function pointer; ISO C has no cast for it */
        memcpy((char *)&table + functions[i].offset, &sym, sizeof sym);
    }
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
