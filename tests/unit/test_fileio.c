/* test_fileio.c - whole-file reads (files, standard input, the input limit,
 * what is not a file) and atomic writes (new files get the mode asked for, an
 * existing file is replaced only with force and keeps its bits, links, FIFOs,
 * directories and the input are refused, no temporary file is ever left). */
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"

static const char *dir;

/* A scratch folder per test (test_scratch), in dir. */
static int scratch(void) { return (dir = test_scratch("fileio")) != NULL; }

/* dir/name into buf. */
static const char *at(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

static int put(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 0;
    int ok = write(fd, data, len) == (ssize_t)len;
    return close(fd) == 0 && ok;
}

/* 1 when path holds exactly len bytes equal to data. */
static int holds(const char *path, const void *data, size_t len)
{
    static uint8_t buf[1 << 16];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n == (ssize_t)len && memcmp(buf, data, len) == 0;
}

/* Files in dir whose names start with a dot: the temporary names. */
static int temp_files(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

static void test_reads_a_file_whole(void)
{
    ENSURE(scratch());
    char path[128];
    uint8_t want[3000];
    for (size_t i = 0; i < sizeof want; i++)
        want[i] = (uint8_t)(i * 7 + i / 256);
    ENSURE(put(at(path, sizeof path, "in.bin"), want, sizeof want));
    uint8_t *data = NULL;
    size_t len = 1;
    poyo_error err;
    ENSURE_MSG(file_read_all(path, FILE_MAX_BYTES, &data, &len, &err) == POYO_OK, "%s", err.msg);
    ENSURE(len == sizeof want && memcmp(data, want, len) == 0);
    free(data);
    /* exactly at the limit is allowed, one byte over is not */
    ENSURE(file_read_all(path, sizeof want, &data, &len, &err) == POYO_OK && len == sizeof want);
    free(data);
    ENSURE(file_read_all(path, sizeof want - 1, &data, &len, &err) == POYO_ERR_INPUT);
    ENSURE(data == NULL && len == 0);
    ENSURE_MSG(strcmp(err.msg, "file is larger than the 2999-byte limit on inputs") == 0, "%s", err.msg);
    /* an empty file is read as zero bytes */
    ENSURE(put(at(path, sizeof path, "empty"), "", 0));
    ENSURE(file_read_all(path, 10, &data, &len, &err) == POYO_OK && len == 0);
    free(data);
}

static void test_limit_in_mib_is_said_in_mib(void)
{
    ENSURE(scratch());
    char path[128];
    int fd = open(at(path, sizeof path, "big"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ENSURE(fd >= 0);
    ENSURE(ftruncate(fd, (1 << 20) + 1) == 0 && close(fd) == 0); /* sparse: 1 MiB and a byte */
    uint8_t *data = NULL;
    size_t len = 0;
    poyo_error err;
    ENSURE(file_read_all(path, (size_t)1 << 20, &data, &len, &err) == POYO_ERR_INPUT && data == NULL);
    ENSURE_MSG(strcmp(err.msg, "file is larger than the 1 MiB limit on inputs") == 0, "%s", err.msg);
    unlink(path);
}

static void test_refuses_what_is_not_a_file(void)
{
    ENSURE(scratch());
    char path[128];
    uint8_t *data = NULL;
    size_t len = 0;
    poyo_error err;
    ENSURE(file_read_all(at(path, sizeof path, "missing.png"), 100, &data, &len, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "cannot open: No such file or directory") == 0, "%s", err.msg);
    ENSURE(file_read_all(dir, 100, &data, &len, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "is a directory, not an image file") == 0, "%s", err.msg);
    ENSURE(file_is_dir(dir) && !file_is_special(dir));
    /* a FIFO with no writer: refused at once, never waited on */
    ENSURE(mkfifo(at(path, sizeof path, "fifo"), 0600) == 0);
    ENSURE(file_is_special(path) && !file_is_dir(path));
    ENSURE(file_read_all(path, 100, &data, &len, &err) == POYO_ERR_IO && data == NULL);
    ENSURE_MSG(strcmp(err.msg, "is not a regular file (a FIFO, device or socket); use - to read a pipe") == 0,
               "%s", err.msg);
    ENSURE(file_is_special("/dev/null") && !file_is_special("/") && !file_is_dir("/dev/null"));
    ENSURE(!file_is_dir(at(path, sizeof path, "missing.png")) && !file_is_special(path));
}

/* Writes n bytes of a pattern into the pipe fd, then closes it. */
struct feeder { int fd; size_t n; };
static void *feed(void *arg)
{
    struct feeder *f = arg;
    uint8_t chunk[4096];
    for (size_t done = 0; done < f->n;) {
        size_t k = f->n - done < sizeof chunk ? f->n - done : sizeof chunk;
        for (size_t i = 0; i < k; i++)
            chunk[i] = (uint8_t)((done + i) % 251);
        ssize_t w = write(f->fd, chunk, k);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    close(f->fd);
    return NULL;
}

/* Reads "-" from a pipe fed with n bytes by a thread, with the limit max. */
static poyo_status read_stdin_pipe(size_t n, size_t max, uint8_t **data, size_t *len, poyo_error *err)
{
    int p[2];
    if (pipe(p) != 0)
        return poyo_fail(err, POYO_ERR_IO, "pipe");
    int saved = dup(STDIN_FILENO);
    dup2(p[0], STDIN_FILENO);
    close(p[0]);
    struct feeder f = { p[1], n };
    pthread_t t;
    pthread_create(&t, NULL, feed, &f);
    poyo_status st = file_read_all("-", max, data, len, err);
    /* a refusal stops reading: drain what the feeder still writes */
    char sink[4096];
    while (read(STDIN_FILENO, sink, sizeof sink) > 0)
        ;
    pthread_join(t, NULL);
    dup2(saved, STDIN_FILENO);
    close(saved);
    return st;
}

static void test_reads_standard_input_past_one_buffer(void)
{
    ENSURE(scratch());
    /* 200000 bytes: more than the first 64 KiB buffer a pipe gets */
    uint8_t *data = NULL;
    size_t len = 0;
    poyo_error err;
    ENSURE_MSG(read_stdin_pipe(200000, FILE_MAX_BYTES, &data, &len, &err) == POYO_OK, "%s", err.msg);
    ENSURE(len == 200000);
    for (size_t i = 0; i < len; i++)
        ENSURE_MSG(data[i] == (uint8_t)(i % 251), "byte %zu", i);
    free(data);
    ENSURE(read_stdin_pipe(200000, 150000, &data, &len, &err) == POYO_ERR_INPUT && data == NULL);
    ENSURE_MSG(strcmp(err.msg, "standard input is larger than the 150000-byte limit on inputs") == 0, "%s", err.msg);
}

/* Reads "-" with standard input replaced by fd. */
static poyo_status read_stdin_from(int fd, uint8_t **data, size_t *len, poyo_error *err)
{
    int saved = dup(STDIN_FILENO);
    dup2(fd, STDIN_FILENO);
    close(fd);
    poyo_status st = file_read_all("-", 1000, data, len, err);
    dup2(saved, STDIN_FILENO);
    close(saved);
    return st;
}

static void test_standard_input_that_cannot_be_read(void)
{
    ENSURE(scratch());
    char path[128];
    uint8_t *data = NULL;
    size_t len = 0;
    poyo_error err;
    /* a folder as standard input (poyo - < dir) */
    ENSURE(read_stdin_from(open(dir, O_RDONLY), &data, &len, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "is a directory, not an image file") == 0, "%s", err.msg);
    /* standard input open only for writing (poyo - 0>file) */
    ENSURE(put(at(path, sizeof path, "w.bin"), "abc", 3));
    ENSURE(read_stdin_from(open(path, O_WRONLY), &data, &len, &err) == POYO_ERR_IO && data == NULL);
    ENSURE_MSG(strcmp(err.msg, "cannot read: Bad file descriptor") == 0, "%s", err.msg);
}

static void test_write_creates_with_the_mode_asked(void)
{
    ENSURE(scratch());
    char path[128], tmp[256] = "x";
    write_opts o = { 0, NULL, 0640 };
    poyo_error err;
    ENSURE_MSG(file_write_atomic(at(path, sizeof path, "new.gif"), "GIF89a", 6, &o, tmp, sizeof tmp, &err) == POYO_OK,
               "%s", err.msg);
    struct stat st;
    ENSURE(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
    ENSURE(holds(path, "GIF89a", 6));
    ENSURE(tmp[0] == '\0' && temp_files() == 0);
    /* without a register for the temporary name, and with one too small for it */
    ENSURE(file_write_atomic(at(path, sizeof path, "b.gif"), "b", 1, &o, NULL, 0, &err) == POYO_OK && holds(path, "b", 1));
    char small[4] = "abc";
    ENSURE(file_write_atomic(at(path, sizeof path, "c.gif"), "c", 1, &o, small, sizeof small, &err) == POYO_OK);
    ENSURE(holds(path, "c", 1) && temp_files() == 0);
}

static void test_existing_file_replaced_only_with_force(void)
{
    ENSURE(scratch());
    char path[128];
    ENSURE(put(at(path, sizeof path, "out.gif"), "old", 3) && chmod(path, 0600) == 0);
    write_opts o = { 0, NULL, 0644 };
    poyo_error err;
    ENSURE(file_check_target(path, &o, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "already exists (use -f to overwrite)") == 0, "%s", err.msg);
    ENSURE(file_write_atomic(path, "new", 3, &o, NULL, 0, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "already exists (use -f to overwrite)") == 0, "%s", err.msg);
    ENSURE(holds(path, "old", 3) && temp_files() == 0);
    o.force = 1;
    ENSURE(file_check_target(path, &o, &err) == POYO_OK);
    ENSURE_MSG(file_write_atomic(path, "newer", 5, &o, NULL, 0, &err) == POYO_OK, "%s", err.msg);
    struct stat st;
    ENSURE(holds(path, "newer", 5) && stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    ENSURE(file_check_target("-", &o, &err) == POYO_OK);
}

static void test_refuses_links_fifos_dirs_and_the_input(void)
{
    ENSURE(scratch());
    char target[128], link_[128], fifo[128], sub[128], in[128], alias[128];
    ENSURE(put(at(target, sizeof target, "target.gif"), "keep", 4));
    ENSURE(symlink(target, at(link_, sizeof link_, "link.gif")) == 0);
    ENSURE(mkfifo(at(fifo, sizeof fifo, "out.fifo"), 0600) == 0);
    ENSURE(mkdir(at(sub, sizeof sub, "sub.gif"), 0700) == 0);
    ENSURE(put(at(in, sizeof in, "in.png"), "input", 5) && link(in, at(alias, sizeof alias, "alias.png")) == 0);
    write_opts o = { 1, in, 0644 };
    poyo_error err;
    ENSURE(file_write_atomic(link_, "x", 1, &o, NULL, 0, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "is a symbolic link; refusing to replace it or write through it") == 0, "%s", err.msg);
    ENSURE(file_write_atomic(fifo, "x", 1, &o, NULL, 0, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "is not a regular file (a FIFO, device or socket); refusing to replace it") == 0,
               "%s", err.msg);
    ENSURE(file_write_atomic(sub, "x", 1, &o, NULL, 0, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "is a directory") == 0, "%s", err.msg);
    /* the input, by its own name or by another link to the same file */
    ENSURE(file_write_atomic(in, "x", 1, &o, NULL, 0, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "is the input file; refusing to overwrite it") == 0, "%s", err.msg);
    ENSURE(file_write_atomic(alias, "x", 1, &o, NULL, 0, &err) == POYO_ERR_USAGE);
    ENSURE(holds(target, "keep", 4) && holds(in, "input", 5));
    struct stat st;
    ENSURE(lstat(link_, &st) == 0 && S_ISLNK(st.st_mode));
    /* a path through a regular file as if it were a folder */
    char bad[160];
    snprintf(bad, sizeof bad, "%s/x.gif", target);
    ENSURE(file_write_atomic(bad, "x", 1, &o, NULL, 0, &err) == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "cannot write: Not a directory") == 0, "%s", err.msg);
    ENSURE(temp_files() == 0);
}

static void test_long_names_get_a_legal_temporary_name(void)
{
    ENSURE(scratch());
    /* 250 bytes: the longest legal name is 255, so ".NAME.XXXXXX" must be shortened */
    char name[251], path[400];
    memset(name, 'n', 246);
    memcpy(name + 246, ".gif", 5);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_opts o = { 0, NULL, 0644 };
    char tmp[512];
    poyo_error err;
    ENSURE_MSG(file_write_atomic(path, "long", 4, &o, tmp, sizeof tmp, &err) == POYO_OK, "%s", err.msg);
    ENSURE(holds(path, "long", 4) && temp_files() == 0);
    unlink(path);
}

static void test_write_errors_leave_nothing(void)
{
    ENSURE(scratch());
    char path[128];
    write_opts o = { 0, NULL, 0644 };
    poyo_error err;
    /* a file size limit (ulimit -f) stops the write: no output, no temporary file */
    struct rlimit old, lim;
    ENSURE(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = 4096;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    static uint8_t big[16384];
    ENSURE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    poyo_status st = file_write_atomic(at(path, sizeof path, "big.gif"), big, sizeof big, &o, NULL, 0, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    ENSURE(st == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "cannot write: File too large") == 0, "%s", err.msg);
    ENSURE(access(path, F_OK) != 0 && temp_files() == 0);
    /* standard output closed */
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    close(STDOUT_FILENO);
    st = file_write_atomic("-", "x", 1, &o, NULL, 0, &err);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ENSURE(st == POYO_ERR_IO);
    ENSURE_MSG(strcmp(err.msg, "cannot write to standard output: Bad file descriptor") == 0, "%s", err.msg);
}

static void test_writes_standard_output(void)
{
    ENSURE(scratch());
    char path[128];
    fflush(stdout);
    int fd = open(at(path, sizeof path, "stdout.bin"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ENSURE(fd >= 0);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    write_opts o = { 0, NULL, 0644 };
    poyo_error err;
    char tmp[64] = "x";
    poyo_status st = file_write_atomic("-", "frames", 6, &o, tmp, sizeof tmp, &err);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ENSURE(st == POYO_OK && tmp[0] == '\0');
    ENSURE(holds(path, "frames", 6));
}

const struct test_case test_cases[] = {
    { "reads_a_file_whole", test_reads_a_file_whole },
    { "limit_in_mib_is_said_in_mib", test_limit_in_mib_is_said_in_mib },
    { "refuses_what_is_not_a_file", test_refuses_what_is_not_a_file },
    { "reads_standard_input_past_one_buffer", test_reads_standard_input_past_one_buffer },
    { "standard_input_that_cannot_be_read", test_standard_input_that_cannot_be_read },
    { "write_creates_with_the_mode_asked", test_write_creates_with_the_mode_asked },
    { "existing_file_replaced_only_with_force", test_existing_file_replaced_only_with_force },
    { "refuses_links_fifos_dirs_and_the_input", test_refuses_links_fifos_dirs_and_the_input },
    { "long_names_get_a_legal_temporary_name", test_long_names_get_a_legal_temporary_name },
    { "write_errors_leave_nothing", test_write_errors_leave_nothing },
    { "writes_standard_output", test_writes_standard_output },
    { NULL, NULL },
};
