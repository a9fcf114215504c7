/* dynlib.h - a table of functions filled from shared libraries opened with
 * dlopen the first time a command needs them (svglib.c, textlib.c): poyo is
 * not linked with them, so a process that never needs them never loads them. */
#ifndef POYO_DYNLIB_H
#define POYO_DYNLIB_H

#include <stddef.h>

#include "error.h"

/* One function of a table: the library it is in (an index into the sonames),
 * its name, and where its pointer goes in the table. */
typedef struct dynlib_fn {
    int lib;
    const char *name;
    size_t offset;
} dynlib_fn;

/* Helpers for a table described by X-macros X(LIB, "soname") and
 * X(LIB, function): an enum of the libraries, their sonames indexed by it,
 * and (with DYNLIB_TABLE defined as the table's type) the function rows. */
#define DYNLIB_ENUM(lib, soname) lib,
#define DYNLIB_SONAME(lib, soname) [lib] = soname,
#define DYNLIB_ROW(lib, fn) { lib, #fn, offsetof(DYNLIB_TABLE, fn) },

/* A table and what fills it; static, one per set of libraries. */
typedef struct dynlib_set {
    const char *const *sonames;
    int nlibs;
    const dynlib_fn *fns;
    size_t nfns;
    void *table;
    void (*ready)(void *table); /* called once the table is full, or NULL */
    int tried;                  /* set once loading has been tried */
    char why[256];              /* the loader's reason when it failed, else empty */
} dynlib_set;

/* Opens the libraries in order (RTLD_NOW, RTLD_LOCAL; they stay loaded) and
 * fills the table, once per process whichever thread asks first. Fails (every
 * call the same way) with POYO_ERR_INPUT, need, ": " and the loader's reason. */
poyo_status dynlib_load(dynlib_set *s, const char *need, poyo_error *err);

#endif
