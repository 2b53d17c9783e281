#ifndef REVLINE_TESTLIB_H
#define REVLINE_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "buf.h"

/*
 * Throw-away git repositories for tests, made with the real git command and
 * fixed author and committer dates so that hashes are the same every run.
 */

/*
 * The environment of a test that talks to the fake LLM: no user config
 * (HOME nowhere, no system git config), data from the sources, no other
 * provider, OSV URL or deadline from the caller's environment, and the
 * fake's key and model.
 */
void test_env_private(void);

/* A fresh empty directory under $TMPDIR; the caller frees the string. */
char *test_tmpdir(const char *tag);
/* Remove a directory tree made by test_tmpdir. */
void test_rmtree(const char *dir);
/* Run a shell command in dir with the fixed git environment; returns its exit status. */
int test_sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, failing the test when the command fails. */
void test_sh_ok(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Run a command and return its standard output (the caller frees it). */
char *test_capture(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write a file (parents created) relative to dir. */
void test_write(const char *dir, const char *rel, const void *data, size_t len);
void test_write_str(const char *dir, const char *rel, const char *text);
/* Read a whole file relative to dir into buf. */
void test_read(struct buf *out, const char *dir, const char *rel);
/* A new repository with a fixed identity; the caller frees the path. */
char *test_repo_new(const char *tag);
/* Stage everything and commit with the message; the date advances each commit. */
void test_commit(const char *dir, const char *message);

/*
 * A private HOME (XDG_CONFIG_HOME and XDG_DATA_HOME below it, no system
 * git config, no REVLINE_BASE_URL, REVLINE_THEME or REVLINE_CONCURRENCY from
 * the caller) with a new repository, and the directory to come back to.
 */
struct test_home {
	char *home;
	char *repo;
	char *saved_cwd;
};

struct test_home *test_home_new(const char *tag);

/*
 * A repository index (index.h) of opts' side, built to its end (at most 30 s) in a poll group of
 * its own; the test fails when it cannot start, does not end or ends in a failure.
 */
struct index;
struct index_options;
struct index *test_index_build(const struct index_options *opts);
/*
 * The asker's next ending event (not ASK_STARTED, not ASK_PROGRESS) into out, within 60 s; the
 * highest tool_turns seen in progress events into progress_turns when given.  Bounded by time,
 * not by wake-ups: a streamed answer wakes the wait once a chunk.
 */
struct asker;
struct ask_event;
void test_ask_end(struct asker *a, struct ask_event *out, int *progress_turns);
/* Back to the saved directory, both trees removed; -1 when the directory is gone. */
int test_home_free(struct test_home *h);

#endif
