/* fileio.c - whole-file reads and atomic writes (temporary file + rename),
 * with the permissions any tool's output has, never over the input. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int file_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int file_is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

#define NOT_REGULAR "is not a regular file (a FIFO, device or socket); use - to read a pipe"

static poyo_status too_large(int is_stdin, size_t max_bytes, poyo_error *err)
{
    if (max_bytes % ((size_t)1 << 20) == 0)
        return poyo_fail(err, POYO_ERR_INPUT, "%s larger than the %zu MiB limit on inputs",
                         is_stdin ? "standard input is" : "file is", max_bytes >> 20);
    return poyo_fail(err, POYO_ERR_INPUT, "%s larger than the %zu-byte limit on inputs",
                     is_stdin ? "standard input is" : "file is", max_bytes);
}

poyo_status file_read_all(const char *path, size_t max_bytes, uint8_t **data, size_t *len, poyo_error *err)
{
    *data = NULL;
    *len = 0;
    int is_stdin = strcmp(path, "-") == 0;
    /* a socket cannot be opened, and opening a device may act on it: look first */
    if (!is_stdin && file_is_special(path))
        return poyo_fail(err, POYO_ERR_IO, NOT_REGULAR);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return poyo_fail(err, POYO_ERR_IO, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        if (!is_stdin)
            close(fd);
        return poyo_fail(err, POYO_ERR_IO, "cannot read: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        if (!is_stdin)
            close(fd);
        return poyo_fail(err, POYO_ERR_IO, "is a directory, not an image file");
    }
    if (!is_stdin && !S_ISREG(st.st_mode)) {
        close(fd);
        return poyo_fail(err, POYO_ERR_IO, NOT_REGULAR);
    }
    size_t cap = (S_ISREG(st.st_mode) && st.st_size > 0) ? (size_t)st.st_size + 1 : 65536;
    if (cap > max_bytes + 1)
        cap = max_bytes + 1;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        if (!is_stdin)
            close(fd);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory reading the file");
    }
    size_t n = 0;
    for (;;) {
        if (n == cap) {
            if (cap > max_bytes) {
                free(buf);
                if (!is_stdin)
                    close(fd);
                return too_large(is_stdin, max_bytes, err);
            }
            size_t nc = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            uint8_t *p = realloc(buf, nc);
            if (!p) {
                free(buf);
                if (!is_stdin)
                    close(fd);
                return poyo_fail(err, POYO_ERR_NOMEM, "out of memory reading the file");
            }
            buf = p;
            cap = nc;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            if (!is_stdin)
                close(fd);
            return poyo_fail(err, POYO_ERR_IO, "cannot read: %s", strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (!is_stdin)
        close(fd);
    if (n > max_bytes) {
        free(buf);
        return too_large(is_stdin, max_bytes, err);
    }
    *data = buf;
    *len = n;
    return POYO_OK;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Longest file name the temporary names are held to (NAME_MAX on Linux). */
#define NAME_LIMIT 255

/* Checks what is at path before anything is written: only a missing path or,
 * with force, a regular file that is not the input may be replaced. *mode
 * gets the permissions to give the new file (the replaced file's own bits). */
static poyo_status check_target(const char *path, const write_opts *o, mode_t *mode, poyo_error *err)
{
    struct stat out_st;
    *mode = o->mode;
    if (lstat(path, &out_st) != 0) {
        if (errno == ENOENT)
            return POYO_OK;
        return poyo_fail(err, POYO_ERR_IO, "cannot write: %s", strerror(errno));
    }
    if (S_ISDIR(out_st.st_mode))
        return poyo_fail(err, POYO_ERR_IO, "is a directory");
    if (S_ISLNK(out_st.st_mode))
        return poyo_fail(err, POYO_ERR_IO, "is a symbolic link; refusing to replace it or write through it");
    if (!S_ISREG(out_st.st_mode))
        return poyo_fail(err, POYO_ERR_IO, "is not a regular file (a FIFO, device or socket); refusing to replace it");
    if (o->input_path && strcmp(o->input_path, "-") != 0) {
        struct stat in_st;
        if (stat(o->input_path, &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
            return poyo_fail(err, POYO_ERR_USAGE, "is the input file; refusing to overwrite it");
    }
    if (!o->force)
        return poyo_fail(err, POYO_ERR_IO, "already exists (use -f to overwrite)");
    *mode = out_st.st_mode & 0777;
    return POYO_OK;
}

poyo_status file_check_target(const char *path, const write_opts *o, poyo_error *err)
{
    mode_t mode;
    if (strcmp(path, "-") == 0)
        return POYO_OK;
    return check_target(path, o, &mode, err);
}

/* Puts the finished temporary file at path: with force by rename (which
 * replaces a file atomically and never follows a link), otherwise by link and
 * unlink, which fail rather than replace a file that appeared meanwhile. */
static int publish(const char *tmp, const char *path, int force)
{
    if (force)
        return rename(tmp, path) == 0 ? 0 : errno;
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    int e = errno;
    if (e != EPERM && e != ENOTSUP && e != EOPNOTSUPP && e != EMLINK)
        return e;
    /* a file system without hard links: check once more, then rename */
    struct stat st;
    if (lstat(path, &st) == 0)
        return EEXIST;
    return rename(tmp, path) == 0 ? 0 : errno;
}

poyo_status file_write_atomic(const char *path, const void *data, size_t len, const write_opts *o,
                              char *tmp_out, size_t tmp_cap, poyo_error *err)
{
    if (tmp_out && tmp_cap)
        tmp_out[0] = '\0';
    if (strcmp(path, "-") == 0) {
        if (write_all(STDOUT_FILENO, data, len) != 0)
            return poyo_fail(err, POYO_ERR_IO, "cannot write to standard output: %s", strerror(errno));
        return POYO_OK;
    }
    mode_t mode;
    poyo_status st = check_target(path, o, &mode, err);
    if (st != POYO_OK)
        return st;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = slash ? slash + 1 : path;
    /* ".BASE.XXXXXX": BASE shortened so that the name stays a legal one */
    size_t stem = strlen(base);
    if (stem > NAME_LIMIT - 8)
        stem = NAME_LIMIT - 8;
    size_t need = dirlen + stem + 16;
    /* the name is made in the caller's register when it fits, so a signal
     * handler can remove the file from the moment it exists */
    int own = !(tmp_out && need <= tmp_cap);
    char *tmp = own ? malloc(need) : tmp_out;
    if (!tmp)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory");
    snprintf(tmp, need, "%.*s.%.*s.XXXXXX", (int)dirlen, path, (int)stem, base);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        if (own)
            free(tmp);
        else
            tmp[0] = '\0';
        return poyo_fail(err, POYO_ERR_IO, "cannot create a file there: %s", strerror(e));
    }
    int e = 0;
    if (write_all(fd, data, len) != 0)
        e = errno;
    if (!e && fchmod(fd, mode) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    int exists = 0;
    if (!e) {
        e = publish(tmp, path, o->force);
        exists = e == EEXIST;
    }
    if (e)
        unlink(tmp);
    if (own)
        free(tmp);
    else
        tmp_out[0] = '\0';
    if (exists)
        return poyo_fail(err, POYO_ERR_IO, "already exists (use -f to overwrite)");
    if (e)
        return poyo_fail(err, POYO_ERR_IO, "cannot write: %s", strerror(e));
    return POYO_OK;
}
