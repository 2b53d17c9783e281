/* What the store knows of the process that runs a check. */
#include "store_process.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * When a process started (field 22 of /proc/PID/stat, clock ticks since
 * boot), or -1 when it cannot be read. The command name (field 2) is in
 * parentheses and may hold spaces and parentheses itself, so fields are
 * counted from the last ')'.
 */
int64_t process_start(pid_t pid)
{
	char path[64], text[1024], *p, *end;
	ssize_t len;
	int fd, field;
	long long value;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	len = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	text[len] = '\0';
	if (!(p = strrchr(text, ')')))
		return -1;
	/* p is at the end of field 2; each space starts the next field. */
	for (field = 2; field < 22 && p; field++)
		if ((p = strchr(p, ' ')))
			p++;
	if (!p)
		return -1;
	errno = 0;
	value = strtoll(p, &end, 10);
	return errno || end == p || value < 0 ? -1 : (int64_t)value;
}
