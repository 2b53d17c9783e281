/*
 * The driver of bench_patch.py: the time from accepting a fix (the call to
 * patch_apply, the snippet taken and the answer re-indented before) to the
 * file renamed on disk, over many runs, with the file put back between
 * them. libgit2 is held initialised, as the program holds it while a
 * repository is open (patch_apply itself no longer uses it; the preview
 * does).
 *
 *     patch_bench WORKDIR PATH FIRST LAST ANSWER RUNS PATCH_OUT
 *
 * Writes the preview diff to PATCH_OUT (for `git apply`), prints a line a
 * run: the latency and the CPU time of the call in microseconds (the rest
 * is waiting for the disk), and leaves the file fixed.
 */
#include "patch.h"
#include "status.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Synced, so that no earlier write is left for the next run's fsync to flush. */
static int write_file(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "wb");
	int ok = fp && fwrite(data, 1, len, fp) == len && fflush(fp) == 0 && fsync(fileno(fp)) == 0;

	if (fp && fclose(fp) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

static int fail(const char *what)
{
	fprintf(stderr, "patch_bench: %s: %s\n", what, error_message());
	return 1;
}

int main(int argc, char **argv)
{
	struct buf before = BUF_INIT, answer = BUF_INIT, repl = BUF_INIT, diff = BUF_INIT, full = BUF_INIT;
	struct patch_snippet snippet;
	struct patch_undo undo;
	double t0, cpu0;
	int runs, i;

	if (argc != 8) {
		fprintf(stderr, "usage: patch_bench WORKDIR PATH FIRST LAST ANSWER RUNS PATCH_OUT\n");
		return 2;
	}
	git_libgit2_init();
	runs = atoi(argv[6]);
	buf_printf(&full, "%s/%s", argv[1], argv[2]);
	if (patch_read(&before, NULL, argv[1], argv[2]) < 0)
		return fail(argv[2]);
	if (buf_read_file(&answer, argv[5]) < 0)
		return fail(argv[5]);
	if (patch_snippet_take(&snippet, argv[2], before.ptr, before.len, atoi(argv[3]), atoi(argv[4])) < 0 ||
	    patch_reindent(&repl, &snippet, answer.ptr, answer.len) < 0 ||
	    patch_preview(&diff, &snippet, before.ptr, before.len, repl.ptr, repl.len) < 0)
		return fail("snippet");
	if (write_file(argv[7], diff.ptr, diff.len) < 0) {
		fprintf(stderr, "patch_bench: cannot write %s\n", argv[7]);
		return 1;
	}
	for (i = 0; i < runs; i++) {
		if (i && write_file(full.ptr, before.ptr, before.len) < 0) {
			fprintf(stderr, "patch_bench: cannot restore %s\n", full.ptr);
			return 1;
		}
		t0 = now_us(CLOCK_MONOTONIC);
		cpu0 = now_us(CLOCK_PROCESS_CPUTIME_ID);
		if (patch_apply(&undo, argv[1], &snippet, repl.ptr, repl.len) < 0)
			return fail("apply");
		printf("%.1f %.1f\n", now_us(CLOCK_MONOTONIC) - t0, now_us(CLOCK_PROCESS_CPUTIME_ID) - cpu0);
		patch_undo_release(&undo);
	}
	patch_snippet_release(&snippet);
	buf_release(&before);
	buf_release(&answer);
	buf_release(&repl);
	buf_release(&diff);
	buf_release(&full);
	git_libgit2_shutdown();
	return 0;
}
