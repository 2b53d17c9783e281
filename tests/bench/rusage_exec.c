/*
 * rusage_exec OUT PROGRAM [ARGS...]: run PROGRAM and write its rusage to OUT
 * ("maxrss_kb utime_s stime_s status"), then exit with its exit status.
 *
 * Why: Linux carries a process's peak RSS across fork and exec (exec_mmap
 * folds the old mm's high-water mark into the new image's ru_maxrss), so a
 * program forked from the Python harness reports at least the harness's
 * RSS. Forked from this small program instead, the floor is ~1 MB (the
 * benchmark prints it as the baseline).
 *
 * The child keeps the terminal, session and file descriptors this program
 * was given; signals that would stop the wait are ignored here.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	int status;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: rusage_exec OUT PROGRAM [ARGS...]\n");
		return 127;
	}
	pid = fork();
	if (pid < 0) {
		perror("rusage_exec: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("rusage_exec: exec");
		_exit(127);
	}
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	while (wait4(pid, &status, 0, &ru) < 0)
		;
	out = fopen(argv[1], "w");
	if (!out) {
		perror("rusage_exec: output");
		return 127;
	}
	fprintf(out, "%ld %ld.%06ld %ld.%06ld %d\n", ru.ru_maxrss, (long)ru.ru_utime.tv_sec,
		(long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec,
		status);
	fclose(out);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
