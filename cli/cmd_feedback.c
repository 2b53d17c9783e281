/* revline feedback: say what a finding or a detected fix was worth. */
#include "commands.h"
#include "config.h"
#include "feedback.h"
#include "status.h"
#include "store.h"
#include "term.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define MARK(kind) (1u << (kind))
#define FINDING_MARKS (MARK(FEEDBACK_FALSE_POSITIVE) | MARK(FEEDBACK_ACCEPT) | MARK(FEEDBACK_REJECT))
#define FIX_MARKS (MARK(FEEDBACK_FIX_CORRECT) | MARK(FEEDBACK_FIX_INCORRECT))

struct feedback_args {
	const char *finding;    /* FINDING_ID as typed */
	const char *fix;        /* --fix FIX_ID as typed */
	const char *note;
	unsigned marks;         /* MARK(kind) of each mark given; the same one twice is once */
	int64_t id;             /* the finding's or the fix's, once valid */
	enum feedback_kind kind;
};

static bool feedback_option(struct feedback_args *a, int id, const char *value)
{
	switch (id) {
	case OPT_FALSE_POSITIVE: a->marks |= MARK(FEEDBACK_FALSE_POSITIVE); return true;
	case OPT_ACCEPT: a->marks |= MARK(FEEDBACK_ACCEPT); return true;
	case OPT_REJECT: a->marks |= MARK(FEEDBACK_REJECT); return true;
	case OPT_CORRECT: a->marks |= MARK(FEEDBACK_FIX_CORRECT); return true;
	case OPT_INCORRECT: a->marks |= MARK(FEEDBACK_FIX_INCORRECT); return true;
	case OPT_NOTE: a->note = value; return true;
	case OPT_FIX_ID: a->fix = value; return true;
	case OPT_POSITIONAL:
		if (a->finding)
			break;
		a->finding = value;
		return true;
	}
	cli_error("unexpected argument '%s' (see 'revline help feedback')", value ? value : "");
	return false;
}

/* A positive decimal number, nothing else (no sign, no blanks, no "12abc"). */
static bool id_arg(int64_t *out, const char *value, bool fix)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(value, &end, 10);
	if (errno || *end || *value < '0' || *value > '9' || n <= 0) {
		cli_error("'%s' is not a %s id (a number, as '%s' shows)", value,
			  fix ? "fix" : "finding", fix ? "revline fixes" : "revline check");
		return false;
	}
	*out = n;
	return true;
}

/* The problem with what was asked, or NULL: a finding with one mark, or a fix with one. */
static const char *args_problem(const struct feedback_args *a)
{
	unsigned marks = a->marks;

	if (a->finding && a->fix)
		return "give a FINDING_ID or --fix FIX_ID, not both";
	if (!a->finding && !a->fix)
		return "which finding? give its id (FINDING_ID) with --false-positive, --accept or "
			"--reject, or --fix FIX_ID with --correct or --incorrect";
	if (a->finding && (marks & FIX_MARKS))
		return "--correct and --incorrect are for a fix (--fix FIX_ID)";
	if (a->fix && (marks & FINDING_MARKS))
		return "--false-positive, --accept and --reject are for a finding; a fix is "
			"--correct or --incorrect";
	if (!marks || (marks & (marks - 1)))
		return a->finding ? "say what the finding is with one of --false-positive, --accept "
			"and --reject" : "say whether the fix is --correct or --incorrect";
	return NULL;
}

static bool args_valid(struct feedback_args *a)
{
	const char *problem = args_problem(a);

	if (problem) {
		cli_error("%s", problem);
		return false;
	}
	for (a->kind = 0; !(a->marks & MARK(a->kind)); a->kind++)
		;
	return id_arg(&a->id, a->finding ? a->finding : a->fix, a->fix != NULL);
}

/* Returns -1 after --help, 2 on a usage error. */
static int parse_args(struct feedback_args *a, int argc, char **argv)
{
	struct opt_parser p = { argc, argv, 1, false, command_options("feedback") };
	const char *value;
	int id;

	while ((id = opt_next(&p, &value)) != OPT_END) {
		if (id < 0)
			return 2;
		if (id == OPT_HELP)
			return help_show("feedback") == 0 ? -1 : 2;
		if (!feedback_option(a, id, value))
			return 2;
	}
	return args_valid(a) ? 0 : 2;
}

/* The database check uses: the repository's settings count when there is one. */
static int store_setup(struct store **store)
{
	struct config *config = NULL;
	struct repo *repo = NULL;
	struct buf path = BUF_INIT;
	int rc = 0;

	if (repo_open(&repo, NULL) < 0)
		error_clear();
	if (config_open(&config, repo) < 0 || store_default_path(&path, config) < 0 ||
	    store_open(store, path.ptr) < 0) {
		cli_error("%s", error_message());
		rc = 2;
	}
	buf_release(&path);
	config_free(config);
	repo_free(repo);
	return rc;
}

static const char *outcome(enum feedback_kind kind)
{
	switch (kind) {
	case FEEDBACK_FALSE_POSITIVE: return "marked false positive: it will be hidden when it comes back";
	case FEEDBACK_ACCEPT: return "accepted: the rule will keep reporting problems like it";
	case FEEDBACK_REJECT: return "rejected: recorded; it is still shown when it comes back";
	case FEEDBACK_FIX_CORRECT: return "marked correct";
	case FEEDBACK_FIX_INCORRECT: return "marked incorrect";
	}
	return "recorded";
}

static int record(const struct feedback_args *a, struct store *store)
{
	struct buf about = BUF_INIT;
	int64_t id = 0;
	int error;

	if (a->finding)
		error = feedback_on_finding(&id, store, a->id, a->kind, a->note);
	else
		error = feedback_on_fix(&id, store, a->id, a->kind == FEEDBACK_FIX_CORRECT, a->note);
	if (error < 0 || feedback_describe(&about, store, id) < 0) {
		cli_error("%s", error_message());
		buf_release(&about);
		return 2;
	}
	/* The description quotes the finding's title, the model's words. */
	term_printf(stdout, "%s %lld%s%s%s %s\n", a->finding ? "finding" : "fix", (long long)a->id,
		    about.len ? " (" : "", about.ptr, about.len ? ")" : "", outcome(a->kind));
	buf_release(&about);
	return 0;
}

int cmd_feedback(int argc, char **argv)
{
	struct feedback_args a = { 0 };
	struct store *store = NULL;
	int rc;

	if ((rc = parse_args(&a, argc, argv)) != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = store_setup(&store)) == 0)
		rc = record(&a, store);
	store_close(store);
	if (rc == 0 && fflush(stdout) != 0)
		rc = 2;
	return rc;
}
