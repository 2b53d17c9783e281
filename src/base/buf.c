#include "buf.h"
#include "status.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

const char *buf_file_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFLNK: return "a symbolic link";
	default: return "of an unknown kind";
	}
}

/* Size as people say it: "1 MiB", "512 KiB", "300 bytes". */
static void size_text(char *out, size_t size, size_t n)
{
	if (n >= 1024 * 1024 && n % (1024 * 1024) == 0)
		snprintf(out, size, "%zu MiB", n / (1024 * 1024));
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(out, size, "%zu KiB", n / 1024);
	else
		snprintf(out, size, "%zu bytes", n);
}

/* "pipe: " before a message, or nothing when the caller names the file itself. */
#define SHOWN(shown) (shown), (*(shown) ? ": " : "")

static int refuse_kind(const char *shown, unsigned mode)
{
	return error_set(RL_EIO, "%s%sis %s, not a regular file: skipped", SHOWN(shown),
			 buf_file_kind(mode));
}

static int refuse_size(const char *shown, size_t max)
{
	char limit[32];

	size_text(limit, sizeof(limit), max);
	return error_set(RL_EPARSE, "%s%sis larger than %s: skipped", SHOWN(shown), limit);
}

static int read_fd(struct buf *buf, int fd, const char *shown, size_t max)
{
	size_t start = buf->len;
	ssize_t n;

	for (;;) {
		if (buf_grow(buf, 65536) < 0)
			return RL_ENOMEM;
		n = read(fd, buf->ptr + buf->len, buf->cap - buf->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_set(RL_EIO, "%s%s%s", SHOWN(shown), strerror(errno));
		if (n == 0)
			break;
		buf->len += (size_t)n;
		/* A file that grew after fstat still stops at the limit. */
		if (max && buf->len - start > max) {
			buf->len = start;
			buf->ptr[start] = '\0';
			return refuse_size(shown, max);
		}
	}
	buf->ptr[buf->len] = '\0';
	return 0;
}

int buf_read_regular(struct buf *buf, const char *path, const char *shown, size_t max)
{
	struct stat before, st;
	int fd = -1, error;

	if (!shown)
		shown = path;
	/*
	 * stat before open: opening some devices has effects of its own (a tape
	 * rewinds, a terminal becomes the controlling one), so only what is a
	 * regular file now is opened at all.
	 */
	if (stat(path, &before) < 0)
		return error_set(errno == ENOENT || errno == ENOTDIR ? RL_ENOTFOUND : RL_EIO,
				 "%s%s%s", SHOWN(shown), strerror(errno));
	if (!S_ISREG(before.st_mode))
		return refuse_kind(shown, before.st_mode);
	if (max && (uint64_t)before.st_size > max)
		return refuse_size(shown, max);
	/* O_NONBLOCK: a FIFO swapped in after the stat opens at once instead of waiting. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		return error_set(errno == ENOENT ? RL_ENOTFOUND : RL_EIO, "%s%s%s", SHOWN(shown),
				 strerror(errno));
	if (fstat(fd, &st) < 0)
		error = error_set(RL_EIO, "%s%s%s", SHOWN(shown), strerror(errno));
	else if (!S_ISREG(st.st_mode))
		error = refuse_kind(shown, st.st_mode);
	else
		error = read_fd(buf, fd, shown, max);
	close(fd);
	return error;
}

int buf_read_file(struct buf *buf, const char *path)
{
	return buf_read_regular(buf, path, NULL, 0);
}

int buf_put_quoted(struct buf *out, const char *prefix, const char *path)
{
	static const char esc[] = "\a\b\t\n\v\f\r";
	const unsigned char *s;
	bool quote = false;
	int error = 0;

	for (s = (const unsigned char *)path; *s && !quote; s++)
		quote = *s < 0x20 || *s >= 0x7f || *s == '"' || *s == '\\';
	if (!quote)
		return buf_printf(out, "%s%s", prefix, path);
	error = buf_printf(out, "\"%s", prefix);
	for (s = (const unsigned char *)path; *s && !error; s++) {
		const char *e = strchr(esc, *s);

		if (*s == '"' || *s == '\\')
			error = buf_printf(out, "\\%c", *s);
		else if (e)
			error = buf_printf(out, "\\%c", "abtnvfr"[e - esc]);
		else if (*s < 0x20 || *s >= 0x7f)
			error = buf_printf(out, "\\%03o", *s);
		else
			error = buf_putc(out, (char)*s);
	}
	return error ? error : buf_putc(out, '"');
}

int buf_write_fd(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int buf_write_file(const char *path, const char *data, size_t len, unsigned mode)
{
	struct buf tmp = BUF_INIT;
	int fd = -1, error;

	if ((error = buf_printf(&tmp, "%s.%ld.tmp", path, (long)getpid())) < 0)
		return error;
	if ((fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, (mode_t)mode)) < 0) {
		error = error_set(RL_EIO, "cannot write %s: %s", tmp.ptr, strerror(errno));
		goto done;
	}
	errno = 0;
	if (buf_write_fd(fd, data, len) < 0 || fchmod(fd, (mode_t)mode) < 0 || fsync(fd) < 0) {
		error = error_set(RL_EIO, "cannot write %s: %s", tmp.ptr, errno ? strerror(errno) : "short write");
		goto done;
	}
	if (close(fd) < 0 || rename(tmp.ptr, path) < 0)
		error = error_set(RL_EIO, "cannot write %s: %s", path, strerror(errno));
	fd = -1;
done:
	if (fd >= 0)
		close(fd);
	if (error)
		unlink(tmp.ptr);
	buf_release(&tmp);
	return error;
}
