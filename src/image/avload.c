/* avload.c - libav* opened with dlopen on first use and its functions resolved
 * with dlsym into one table, once per process (pthread_once): batch workers
 * may start encoding WebM at the same moment. */
#include "avload.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define AVLOAD_STR_(x) #x
#define AVLOAD_STR(x) AVLOAD_STR_(x)

enum { UTIL, CODEC, FORMAT, NLIBS };

/* In load order: each library needs the ones before it. */
static const char *const sonames[NLIBS] = {
    "libavutil.so." AVLOAD_STR(LIBAVUTIL_VERSION_MAJOR),
    "libavcodec.so." AVLOAD_STR(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AVLOAD_STR(LIBAVFORMAT_VERSION_MAJOR),
};

/* dlsym hands back an object pointer; POSIX guarantees it holds a function's. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym needs function pointers as wide as void *");

static avlib table;
static int loaded;            /* 1 once every pointer in table is set */
static char why[256];         /* dlerror's reason when loading failed */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlerror's text for the failure just seen, else what failed. */
static const char *dl_why(const char *what)
{
    const char *e = dlerror();
    return e ? e : what;
}

static void load(void)
{
    void *lib[NLIBS] = { NULL, NULL, NULL };
    const char *e = NULL;
    for (int i = 0; i < NLIBS && !e; i++)
        if (!(lib[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)))
            e = dl_why(sonames[i]);
#define AVLOAD_RESOLVE(l, name)                    \
    if (!e) {                                      \
        void *p = dlsym(lib[l], #name);            \
        if (p)                                     \
            memcpy(&table.name, &p, sizeof p);     \
        else                                       \
            e = dl_why(#name);                     \
    }
    AVLOAD_FUNCTIONS(AVLOAD_RESOLVE)
#undef AVLOAD_RESOLVE
    if (e) {
        /* what did load stays loaded, as it would on success: closing a
         * library that has run its constructors would strand what they
         * allocated */
        snprintf(why, sizeof why, "%s", e);
        memset(&table, 0, sizeof table);
        return;
    }
    table.av_log_set_level(AV_LOG_QUIET); /* libav would print to stderr; modules never print */
    loaded = 1;
}

const avlib *avload(poyo_error *err)
{
    pthread_once(&once, load);
    if (loaded)
        return &table;
    poyo_fail(err, POYO_ERR_IO, "WebM needs libavutil%d, libavcodec%d and libavformat%d: %s", LIBAVUTIL_VERSION_MAJOR,
              LIBAVCODEC_VERSION_MAJOR, LIBAVFORMAT_VERSION_MAJOR, why[0] ? why : "they did not load");
    return NULL;
}
