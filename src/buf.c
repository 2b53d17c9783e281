#include "buf.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int buf_grow(struct buf *buf, size_t extra)
{
	size_t need = buf->len + extra + 1, cap = buf->cap ? buf->cap : 64;
	char *ptr;

	if (need <= buf->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	ptr = realloc(buf->ptr, cap);
	if (!ptr)
		return error_nomem();
	buf->ptr = ptr;
	buf->cap = cap;
	return 0;
}

int buf_put(struct buf *buf, const char *data, size_t len)
{
	if (buf_grow(buf, len) < 0)
		return RL_ENOMEM;
	if (len)
		memcpy(buf->ptr + buf->len, data, len);
	buf->len += len;
	buf->ptr[buf->len] = '\0';
	return 0;
}

int buf_puts(struct buf *buf, const char *s)
{
	return buf_put(buf, s, strlen(s));
}

int buf_putc(struct buf *buf, char c)
{
	return buf_put(buf, &c, 1);
}

int buf_vprintf(struct buf *buf, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return error_set(RL_ERROR, "bad format '%s'", fmt);
	if (buf_grow(buf, (size_t)n) < 0)
		return RL_ENOMEM;
	vsnprintf(buf->ptr + buf->len, (size_t)n + 1, fmt, ap);
	buf->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *buf, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = buf_vprintf(buf, fmt, ap);
	va_end(ap);
	return error;
}

void buf_clear(struct buf *buf)
{
	buf->len = 0;
	if (buf->ptr)
		buf->ptr[0] = '\0';
}

char *buf_detach(struct buf *buf)
{
	char *ptr = buf->ptr;

	if (!ptr)
		ptr = calloc(1, 1);
	buf->ptr = NULL;
	buf->len = buf->cap = 0;
	return ptr;
}

void buf_release(struct buf *buf)
{
	free(buf->ptr);
	buf->ptr = NULL;
	buf->len = buf->cap = 0;
}

int buf_read_file(struct buf *buf, const char *path)
{
	FILE *fp = fopen(path, "rb");
	char chunk[65536];
	size_t n;
	int error = 0;

	if (!fp)
		return error_set(RL_EIO, "%s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if ((error = buf_put(buf, chunk, n)) < 0)
			goto done;
	}
	if (ferror(fp))
		error = error_set(RL_EIO, "%s: read failed", path);
	else if (buf_grow(buf, 0) < 0)
		error = RL_ENOMEM;
	else
		buf->ptr[buf->len] = '\0';
done:
	fclose(fp);
	return error;
}
