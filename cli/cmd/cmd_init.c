/* revline init: write a starter rule into the repository's working tree. */
#include "commands.h"
#include "rules.h"
#include "status.h"
#include "term.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INIT_DIR "threadlines"
#define INIT_FILE INIT_DIR "/example.md"

/*
 * threadlines/ as a real directory of the working tree: made when missing,
 * refused when it is a link or a file, so nothing is written elsewhere.
 */
static int init_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		cli_error("cannot create %s: %s", INIT_DIR, strerror(errno));
		return 1;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		cli_error("%s is not a directory of the working tree (a link or a file); "
			  "revline init writes only inside the working tree", INIT_DIR);
		return 1;
	}
	return 0;
}

/* Whether the current directory is the working tree's root. */
static bool at_root(const char *workdir)
{
	char *cwd = realpath(".", NULL), *root = realpath(workdir, NULL);
	bool same = cwd && root && !strcmp(cwd, root);

	free(cwd);
	free(root);
	return same;
}

const struct command_help init_help = {
	"init",
	"revline init",
	"write a starter rule to threadlines/example.md",
	"Writes threadlines/example.md at the root of the working tree: a rule with\n"
	"every field explained, to edit or copy. Refuses when the file exists.\n",
};

int cmd_init(int argc, char **argv)
{
	const struct option options[] = { OPT_END() };
	struct buf dir = BUF_INIT, file = BUF_INIT;
	struct repo *repo = NULL;
	int n, fd = -1, rc = 0;

	if ((n = parse_options(argc, argv, options, &init_help)) < 0)
		return parse_options_exit(n);
	if (n) {
		cli_error("unexpected argument '%s' (init takes none)", argv[0]);
		return 2;
	}
	if (repo_open(&repo, NULL) < 0) {
		cli_error("%s", error_message());
		return 2;
	}
	if (!repo->workdir) {
		cli_error("init needs a working tree; this repository is bare");
		rc = 2;
		goto done;
	}
	if (buf_printf(&dir, "%s%s", repo->workdir, INIT_DIR) < 0 ||
	    buf_printf(&file, "%s%s", repo->workdir, INIT_FILE) < 0) {
		cli_error("out of memory");
		rc = 3;
		goto done;
	}
	if ((rc = init_dir(dir.ptr)) != 0)
		goto done;
	/* O_EXCL: never over an existing rule; O_NOFOLLOW: never through a link. */
	fd = open(file.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno == EEXIST)
			cli_error("%s already exists; edit it, or remove it to start again", INIT_FILE);
		else
			cli_error("cannot create %s: %s", INIT_FILE, strerror(errno));
		rc = 1;
		goto done;
	}
	if (buf_write_fd(fd, rules_example, strlen(rules_example)) < 0 || close(fd) < 0) {
		cli_error("cannot write %s: %s", INIT_FILE, strerror(errno));
		fd = -1;
		unlink(file.ptr);
		rc = 1;
		goto done;
	}
	fd = -1;
	/* The working tree's path is a directory name someone chose. */
	term_printf(stdout, "wrote %s, a starter rule to edit or copy\n"
		    "  revline rules    lists the rules, this one among them\n"
		    "  revline check    reviews your changes against them\n",
		    at_root(repo->workdir) ? INIT_FILE : file.ptr);
done:
	if (fd >= 0)
		close(fd);
	buf_release(&dir);
	buf_release(&file);
	repo_free(repo);
	return rc;
}
