/* dynlib.c - shared libraries opened with dlopen and their functions resolved
 * with dlsym into a table, for the libraries poyo is not linked with. */
#include "dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym's results are stored as function pointers");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The libraries stay loaded for the rest of the process, even when a later one
 * fails: closing one that has run its constructors (GObject types, say) would
 * strand what they made. */
static void open_set(dynlib_set *s)
{
    void *handle[16];
    if (s->nlibs > (int)(sizeof handle / sizeof handle[0])) {
        snprintf(s->why, sizeof s->why, "too many libraries");
        return;
    }
    for (int i = 0; i < s->nlibs; i++) {
        if (!(handle[i] = dlopen(s->sonames[i], RTLD_NOW | RTLD_LOCAL))) {
            const char *e = dlerror();
            snprintf(s->why, sizeof s->why, "%s", e ? e : s->sonames[i]);
            return;
        }
    }
    for (size_t i = 0; i < s->nfns; i++) {
        dlerror();
        void *sym = dlsym(handle[s->fns[i].lib], s->fns[i].name);
        if (!sym) {
            const char *e = dlerror();
            snprintf(s->why, sizeof s->why, "%s", e ? e : s->fns[i].name);
            return;
        }
        /* POSIX lets a dlsym result be used as a function pointer; ISO C has no cast for it */
        memcpy((char *)s->table + s->fns[i].offset, &sym, sizeof sym);
    }
    if (s->ready)
        s->ready(s->table);
}

poyo_status dynlib_load(dynlib_set *s, const char *need, poyo_error *err)
{
    pthread_mutex_lock(&lock);
    if (!s->tried) {
        open_set(s);
        s->tried = 1;
    }
    pthread_mutex_unlock(&lock);
    return *s->why ? poyo_fail(err, POYO_ERR_INPUT, "%s: %s", need, s->why) : POYO_OK;
}
