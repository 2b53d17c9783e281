#ifndef REVLINE_BUF_H
#define REVLINE_BUF_H

#include <stdarg.h>
#include <stddef.h>

/* A growable byte string, always NUL-terminated when ptr is not NULL. */
struct buf {
	char *ptr;
	size_t len;
	size_t cap;
};

#define BUF_INIT { NULL, 0, 0 }

int buf_grow(struct buf *buf, size_t extra);
int buf_put(struct buf *buf, const char *data, size_t len);
int buf_puts(struct buf *buf, const char *s);
int buf_putc(struct buf *buf, char c);
int buf_printf(struct buf *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *buf, const char *fmt, va_list ap);
void buf_clear(struct buf *buf);
/* Hand the string to the caller (who frees it); the buffer is emptied. */
char *buf_detach(struct buf *buf);
void buf_release(struct buf *buf);
/*
 * A path as git prints it in a diff: prefix ("a/", "b/" or "") and path,
 * C-quoted together when the path has a byte that needs it (a control
 * character, '"', '\\', or any byte from 0x7f).
 */
int buf_put_quoted(struct buf *out, const char *prefix, const char *path);
/*
 * The one way revline reads a file by path. Only a regular file is read
 * (symbolic links followed): a FIFO, socket, device or directory is refused
 * before it is opened, and the open itself cannot block (O_NONBLOCK, the
 * type checked again on the open descriptor), so a FIFO put anywhere a file
 * is expected cannot hang a check. The message names the file as shown (the
 * path when shown is NULL; nothing when it is ""):
 *   "pipe: is a FIFO, not a regular file: skipped"
 * RL_ENOTFOUND when it does not exist, RL_EPARSE when it is larger than max
 * bytes (0: any size; nothing is read then), RL_EIO otherwise.
 */
int buf_read_regular(struct buf *buf, const char *path, const char *shown, size_t max);
/* buf_read_regular of any size, named by its path. */
int buf_read_file(struct buf *buf, const char *path);
/*
 * Write a whole file: beside it first, then renamed over it, so that the
 * file is whole or as it was; mode is the new file's (umask aside: set).
 */
int buf_write_file(const char *path, const char *data, size_t len, unsigned mode);
/* Write all of data to fd (retrying what a signal cut short); -1 with errno when it cannot. */
int buf_write_fd(int fd, const char *data, size_t len);
/* What a file's mode is, for messages ("a FIFO", "a socket", "a directory"). */
const char *buf_file_kind(unsigned mode);

#endif
