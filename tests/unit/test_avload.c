/* test_avload.c - the run-time loading of libav*: every function of the table is
 * found, the table is the one the libraries really are (it answers like them),
 * and threads that load at the same moment all get the same table. (The
 * failure path, a broken library on LD_LIBRARY_PATH, is in tests/cli/t_webm.sh.) */
#include "test.h"

#include <pthread.h>
#include <string.h>

#include "image/avload.h"

static void test_every_function_found(void)
{
    poyo_error err = { "" };
    const avlib *av = avload(&err);
    ENSURE_MSG(av != NULL, "%s", err.msg);
#define CHECK_FOUND(lib, name) ENSURE_MSG(av->name != NULL, "%s is not set", #name);
    AVLOAD_FUNCTIONS(CHECK_FOUND)
#undef CHECK_FOUND
    ENSURE(strcmp(av->avcodec_get_name(AV_CODEC_ID_VP9), "vp9") == 0);
    ENSURE(av->avcodec_find_encoder_by_name("libvpx-vp9") != NULL);
    ENSURE(av->av_find_input_format("matroska") != NULL);
    AVRational q = av->av_d2q(0.25, 100);
    ENSURE(q.num == 1 && q.den == 4);
    ENSURE(avload(&err) == av);
}

static void *load_in_thread(void *out)
{
    *(const avlib **)out = avload(NULL);
    return NULL;
}

static void test_threads_share_one_table(void)
{
    enum { N = 8 };
    pthread_t t[N];
    const avlib *got[N];
    for (int i = 0; i < N; i++)
        ENSURE(pthread_create(&t[i], NULL, load_in_thread, &got[i]) == 0);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    const avlib *av = avload(NULL);
    ENSURE(av != NULL);
    for (int i = 0; i < N; i++)
        ENSURE_MSG(got[i] == av, "thread %d got %p, not %p", i, (const void *)got[i], (const void *)av);
}

const struct test_case test_cases[] = {
    { "threads_share_one_table", test_threads_share_one_table },
    { "every_function_found", test_every_function_found },
    { NULL, NULL },
};
