/* fileio.h - reading inputs whole and writing outputs atomically: a temporary
 * file beside the target, renamed into place only when complete. */
#ifndef POYO_FILEIO_H
#define POYO_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* The most an input may hold, files and standard input alike (256 MiB). */
#define FILE_MAX_BYTES ((size_t)256 << 20)

/* Reads all of path ("-" = standard input) into *data (malloc'ed, caller frees).
 * Refuses directories, FIFOs, devices and sockets given by name (without
 * waiting on them), and inputs longer than max_bytes (reading no further). */
poyo_status file_read_all(const char *path, size_t max_bytes, uint8_t **data, size_t *len, poyo_error *err);

/* How an output may be written. */
typedef struct write_opts {
    int force;               /* 1: replace an existing file */
    const char *input_path;  /* never overwrite this file (may be NULL or "-") */
    mode_t mode;             /* permissions of the new file (0666 minus the umask) */
} write_opts;

/* Writes len bytes to path ("-" = standard output) through a temporary file in
 * the same directory; on failure nothing is left behind. Only a missing path or,
 * with force, a regular file other than the input is replaced (keeping its
 * permission bits); symbolic links, FIFOs and devices are refused. Without
 * force the file is published with link(2), so a file that appears while it
 * is written is never replaced.
 * *tmp_out, when not NULL, receives the temporary name while it exists (for
 * signal-time clean-up; it is set to "" afterwards). */
poyo_status file_write_atomic(const char *path, const void *data, size_t len, const write_opts *o,
                              char *tmp_out, size_t tmp_cap, poyo_error *err);

/* The checks file_write_atomic makes of what is at path, made before any work:
 * POYO_OK when path is "-", missing or, with force, a regular file other than
 * the input; else the message the write would give. */
poyo_status file_check_target(const char *path, const write_opts *o, poyo_error *err);

/* 1 when path names an existing directory. */
int file_is_dir(const char *path);
/* 1 when path names something that is neither a regular file nor a directory
 * (a FIFO, a device or a socket), links followed. */
int file_is_special(const char *path);

#endif
