/* dynlib.h - a table of functions filled from shared libraries opened with
 * dlopen, for the libraries poyo loads only when a command first needs them
 * (svglib.c, textlib.c). */
#ifndef POYO_DYNLIB_H
#define POYO_DYNLIB_H

#include <stddef.h>

/* One function of a table: the library it is in (an index into the sonames),
 * its name, and where its pointer goes in the table. */
typedef struct dynlib_fn {
    int lib;
    const char *name;
    size_t offset;
} dynlib_fn;

/* Opens the nlibs libraries in order (RTLD_NOW, RTLD_LOCAL; they stay loaded)
 * and stores the address of each of the nfns functions at table + offset.
 * Returns 0, or -1 with the loader's reason in why (cap bytes). */
int dynlib_open(const char *const *sonames, int nlibs, const dynlib_fn *fns, size_t nfns, void *table, char *why,
                size_t cap);

#endif
