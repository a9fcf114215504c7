/* dynlib.c - shared libraries opened with dlopen and their functions resolved
 * with dlsym into a table, for the libraries poyo is not linked with. */
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym's results are stored as function pointers");

/* The libraries stay loaded for the rest of the process: closing one that has
 * run its constructors (GObject types, say) would strand what they made. */
int dynlib_open(const char *const *sonames, int nlibs, const dynlib_fn *fns, size_t nfns, void *table, char *why,
                size_t cap)
{
    void *handle[16];
    if (nlibs > (int)(sizeof handle / sizeof handle[0])) {
        snprintf(why, cap, "too many libraries");
        return -1;
    }
    for (int i = 0; i < nlibs; i++) {
        if (!(handle[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL))) {
            const char *e = dlerror();
            snprintf(why, cap, "%s", e ? e : sonames[i]);
            return -1;
        }
    }
    for (size_t i = 0; i < nfns; i++) {
        dlerror();
        void *sym = dlsym(handle[fns[i].lib], fns[i].name);
        if (!sym) {
            const char *e = dlerror();
            snprintf(why, cap, "%s", e ? e : fns[i].name);
            return -1;
        }
        /* POSIX lets a dlsym result be used as a function pointer; ISO C has no cast for it */
        memcpy((char *)table + fns[i].offset, &sym, sizeof sym);
    }
    return 0;
}
