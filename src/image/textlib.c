/* textlib.c - FreeType, HarfBuzz and fontconfig, opened with dlopen and
 * resolved with dlsym the first time text is drawn; poyo is not linked with
 * them, so a process that draws no text never loads them. */
#include "textlib.h"

#include "util/dynlib.h"

enum { TEXTLIB_SONAMES(DYNLIB_ENUM) TEXTLIB_COUNT };
static const char *const sonames[TEXTLIB_COUNT] = { TEXTLIB_SONAMES(DYNLIB_SONAME) };
#define DYNLIB_TABLE textlib
static const dynlib_fn functions[] = { TEXTLIB_FUNCTIONS(DYNLIB_ROW) };

static textlib table;
static dynlib_set set = { sonames, TEXTLIB_COUNT, functions, sizeof functions / sizeof functions[0], &table,
                          NULL, 0, "" };

poyo_status textlib_load(const textlib **out, poyo_error *err)
{
    poyo_status st = dynlib_load(&set, "text needs libfreetype6, libharfbuzz0b and libfontconfig1", err);
    *out = st == POYO_OK ? &table : NULL;
    return st;
}
