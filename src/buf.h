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
/* Read a whole file; the message names the path on failure. */
int buf_read_file(struct buf *buf, const char *path);

#endif
