/* textlib.c - FreeType, HarfBuzz and fontconfig, opened with dlopen and
 * resolved with dlsym the first time text is drawn; poyo is not linked with
 * them, so a process that draws no text never loads them. */
#include "textlib.h"

#include <pthread.h>
#include <stddef.h>

#include "dynlib.h"

enum {
#define TEXTLIB_ENUM(lib, soname) lib,
    TEXTLIB_SONAMES(TEXTLIB_ENUM)
#undef TEXTLIB_ENUM
    TEXTLIB_COUNT
};

static const char *const sonames[TEXTLIB_COUNT] = {
#define TEXTLIB_NAME(lib, soname) [lib] = soname,
    TEXTLIB_SONAMES(TEXTLIB_NAME)
#undef TEXTLIB_NAME
};

static const dynlib_fn functions[] = {
#define TEXTLIB_ROW(lib, fn) { lib, #fn, offsetof(textlib, fn) },
    TEXTLIB_FUNCTIONS(TEXTLIB_ROW)
#undef TEXTLIB_ROW
};

/* Written once, under textlib_once, then only read. */
static textlib table;
static char failure[256]; /* the loader's reason, or empty once loaded */
static pthread_once_t textlib_once = PTHREAD_ONCE_INIT;

static void textlib_open(void)
{
    dynlib_open(sonames, TEXTLIB_COUNT, functions, sizeof functions / sizeof functions[0], &table, failure,
                sizeof failure);
}

poyo_status textlib_load(const textlib **out, poyo_error *err)
{
    pthread_once(&textlib_once, textlib_open);
    if (*failure) {
        *out = NULL;
        return poyo_fail(err, POYO_ERR_INPUT, "text needs libfreetype6, libharfbuzz0b and libfontconfig1: %s",
                         failure);
    }
    *out = &table;
    return POYO_OK;
}
