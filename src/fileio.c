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

poyo_status file_read_all(const char *path, size_t max_bytes, uint8_t **data, size_t *len, poyo_error *err)
{
    *data = NULL;
    *len = 0;
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0)
        return poyo_fail(err, POYO_ERR_IO, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!is_stdin)
            close(fd);
        return poyo_fail(err, POYO_ERR_IO, "is a directory, not an image file");
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
                return poyo_fail(err, POYO_ERR_INPUT, "file is larger than %zu bytes", max_bytes);
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
        return poyo_fail(err, POYO_ERR_INPUT, "file is larger than %zu bytes", max_bytes);
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
    struct stat out_st;
    int exists = lstat(path, &out_st) == 0;
    if (exists && S_ISDIR(out_st.st_mode))
        return poyo_fail(err, POYO_ERR_IO, "is a directory");
    if (o->input_path && strcmp(o->input_path, "-") != 0) {
        struct stat in_st;
        if (exists && stat(path, &out_st) == 0 && stat(o->input_path, &in_st) == 0 &&
            in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
            return poyo_fail(err, POYO_ERR_USAGE, "is the input file; refusing to overwrite it");
    }
    if (exists && !o->force)
        return poyo_fail(err, POYO_ERR_IO, "already exists (use -f to overwrite)");
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = slash ? slash + 1 : path;
    size_t need = dirlen + strlen(base) + 16;
    /* the name is made in the caller's register when it fits, so a signal
     * handler can remove the file from the moment it exists */
    int own = !(tmp_out && need <= tmp_cap);
    char *tmp = own ? malloc(need) : tmp_out;
    if (!tmp)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory");
    snprintf(tmp, need, "%.*s.%s.XXXXXX", (int)dirlen, path, base);
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
    if (!e && fchmod(fd, o->mode) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e)
        unlink(tmp);
    if (own)
        free(tmp);
    else
        tmp_out[0] = '\0';
    if (e)
        return poyo_fail(err, POYO_ERR_IO, "cannot write: %s", strerror(e));
    return POYO_OK;
}
