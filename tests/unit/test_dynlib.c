/* test_dynlib.c - tables of functions filled from shared libraries opened at
 * run time: a table that loads holds the library's own functions and is
 * readied once; a missing library, a missing function or too many libraries
 * fail with the need and the loader's reason, the same way on every call. */
#include "test.h"

#include <string.h>

#include "util/dynlib.h"

typedef struct math_table {
    double (*cos)(double);
    double (*sqrt)(double);
} math_table;

static int readied;
static void ready(void *table)
{
    (void)table;
    readied++;
}

static void test_fills_the_table_once(void)
{
    static const char *const sonames[] = { "libm.so.6" };
    static const dynlib_fn fns[] = {
        { 0, "cos", offsetof(math_table, cos) },
        { 0, "sqrt", offsetof(math_table, sqrt) },
    };
    static math_table t;
    static dynlib_set set = { sonames, 1, fns, 2, &t, ready, 0, "" };
    poyo_error err = { "" };
    readied = 0;
    ENSURE_MSG(dynlib_load(&set, "maths needs libm", &err) == POYO_OK, "%s", err.msg);
    ENSURE(t.cos && t.sqrt && t.cos(0.0) == 1.0 && t.sqrt(6.25) == 2.5);
    ENSURE(dynlib_load(&set, "maths needs libm", &err) == POYO_OK);
    ENSURE(readied == 1);
}

static void test_missing_library_names_it(void)
{
    static const char *const sonames[] = { "libm.so.6", "libpoyo-never-installed.so.0" };
    static const dynlib_fn fns[] = { { 1, "cos", 0 } };
    static math_table t;
    static dynlib_set set = { sonames, 2, fns, 1, &t, ready, 0, "" };
    poyo_error err = { "" };
    readied = 0;
    ENSURE(dynlib_load(&set, "X needs libpoyo-never-installed0", &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strncmp(err.msg, "X needs libpoyo-never-installed0: ", 34) == 0, "%s", err.msg);
    ENSURE_MSG(strstr(err.msg, "libpoyo-never-installed.so.0") != NULL, "%s", err.msg);
    /* tried once: the second call fails the same way without trying again */
    char first[sizeof err.msg];
    memcpy(first, err.msg, sizeof first);
    ENSURE(dynlib_load(&set, "X needs libpoyo-never-installed0", &err) == POYO_ERR_INPUT);
    ENSURE(strcmp(first, err.msg) == 0 && readied == 0 && t.cos == NULL);
}

static void test_missing_function_names_it(void)
{
    static const char *const sonames[] = { "libm.so.6" };
    static const dynlib_fn fns[] = {
        { 0, "cos", offsetof(math_table, cos) },
        { 0, "poyo_no_such_function", offsetof(math_table, sqrt) },
    };
    static math_table t;
    static dynlib_set set = { sonames, 1, fns, 2, &t, ready, 0, "" };
    poyo_error err = { "" };
    readied = 0;
    ENSURE(dynlib_load(&set, "maths", &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strncmp(err.msg, "maths: ", 7) == 0 && strstr(err.msg, "poyo_no_such_function"), "%s", err.msg);
    ENSURE(readied == 0);
}

static void test_too_many_libraries(void)
{
    static const char *sonames[17];
    for (int i = 0; i < 17; i++)
        sonames[i] = "libm.so.6";
    static math_table t;
    static dynlib_set set = { sonames, 17, NULL, 0, &t, NULL, 0, "" };
    poyo_error err = { "" };
    ENSURE(dynlib_load(&set, "many", &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strcmp(err.msg, "many: too many libraries") == 0, "%s", err.msg);
}

const struct test_case test_cases[] = {
    { "fills_the_table_once", test_fills_the_table_once },
    { "missing_library_names_it", test_missing_library_names_it },
    { "missing_function_names_it", test_missing_function_names_it },
    { "too_many_libraries", test_too_many_libraries },
    { NULL, NULL },
};
