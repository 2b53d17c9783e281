/* What the process holds now: memory, descriptors, the clocks (the soak test's samples). */
#include "proc_sample.h"
#include "buf.h"
#include "clock.h"
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void proc_sample(struct proc_sample *out)
{
	unsigned long size = 0, resident = 0, shared = 0;
	uint64_t kib = (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
	struct timespec cpu;
	struct dirent *d;
	FILE *fp;
	DIR *dir;

	memset(out, 0, sizeof(*out));
	if ((fp = fopen("/proc/self/statm", "re"))) {
		if (fscanf(fp, "%lu %lu %lu", &size, &resident, &shared) == 3 && shared <= resident) {
			out->rss_kib = resident * kib;
			out->anon_kib = (resident - shared) * kib;
		}
		fclose(fp);
	}
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	{
		struct mallinfo2 mi = mallinfo2();

		out->heap = (uint64_t)mi.uordblks + mi.hblkhd;
	}
#endif
	out->fds = -1;
	if ((dir = opendir("/proc/self/fd"))) {
		/* Less the directory's own descriptor. */
		for (out->fds = -1; (d = readdir(dir));)
			out->fds += d->d_name[0] != '.';
		closedir(dir);
	}
	out->clock_us = clock_us();
	/* The process's CPU: what a session's growing work shows, whatever else the machine runs. */
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0)
		out->cpu_us = (int64_t)cpu.tv_sec * 1000000 + cpu.tv_nsec / 1000;
}

int proc_sample_write(const char *path, int64_t store_bytes)
{
	struct proc_sample s;
	struct buf line = BUF_INIT;
	int fd, error;

	proc_sample(&s);
	if ((error = buf_printf(&line, "%llu %llu %llu %lld %lld %lld %lld\n", (unsigned long long)s.rss_kib,
				(unsigned long long)s.anon_kib, (unsigned long long)s.heap, (long long)store_bytes,
				(long long)s.fds, (long long)s.clock_us, (long long)s.cpu_us)) < 0)
		return error;
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		error = error_set(RL_EIO, "%s: %s", path, strerror(errno));
	} else {
		if (buf_write_fd(fd, line.ptr, line.len) < 0)
			error = error_set(RL_EIO, "%s: %s", path, strerror(errno));
		if (close(fd) != 0 && !error)
			error = error_set(RL_EIO, "%s: %s", path, strerror(errno));
	}
	buf_release(&line);
	return error;
}
