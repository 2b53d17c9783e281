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

#define MARK(kind) (1 << (kind))
#define FINDING_MARKS (MARK(FEEDBACK_FALSE_POSITIVE) | MARK(FEEDBACK_ACCEPT) | MARK(FEEDBACK_REJECT))
#define FIX_MARKS (MARK(FEEDBACK_FIX_CORRECT) | MARK(FEEDBACK_FIX_INCORRECT))

struct feedback_args {
	const char *finding;    /* FINDING_ID as typed */
	const char *fix;        /* --fix FIX_ID as typed */
	const char *note;
	int marks;              /* MARK(kind) of the mark given (the parser refuses two) */
	int64_t id;             /* the finding's or the fix's, once valid */
	enum feedback_kind kind;
};

/* The problem with what was asked, or NULL: a finding with one mark, or a fix with one. */
static const char *args_problem(const struct feedback_args *a)
{
	int marks = a->marks;

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
	if (!marks)
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
	if (a->fix)
		return cli_id(&a->id, a->fix, "fix", "revline fixes");
	return cli_id(&a->id, a->finding, "finding", "revline check");
}

const struct command_help feedback_help = {
	"feedback",
	"revline feedback FINDING_ID (--false-positive | --accept | --reject) [--note TEXT]\n"
	"       revline feedback --fix FIX_ID (--correct | --incorrect) [--note TEXT]",
	"mark a finding false positive, accepted or rejected, or a detected fix",
	"Records what a finding was worth (finding ids are in the output of 'revline\n"
	"check'). A finding marked false positive is hidden when it comes back (same\n"
	"rule, file and code) until a later --accept or --reject; the rule's prompt\n"
	"shows its past false positives most like the change as examples not to\n"
	"report, and accepted findings as examples to keep. With --fix, says whether\n"
	"a detected fix (an id from 'revline fixes') was right. Exit status: 0 when\n"
	"recorded, 2 for usage errors, unknown ids and a database that fails.\n",
};

/* Returns -1 after --help, 2 on a usage error. */
static int parse_args(struct feedback_args *a, int argc, char **argv)
{
	const struct option options[] = {
		OPT_SET_INT(0, "false-positive", &a->marks, MARK(FEEDBACK_FALSE_POSITIVE),
			"the finding is wrong: hide it when it comes back"),
		OPT_SET_INT(0, "accept", &a->marks, MARK(FEEDBACK_ACCEPT),
			"the finding is right: keep reporting problems like it"),
		OPT_SET_INT(0, "reject", &a->marks, MARK(FEEDBACK_REJECT), "the finding is not worth acting on (still shown)"),
		OPT_STRING(0, "note", &a->note, "TEXT", "why, in a few words (the rule's prompt shows it)"),
		OPT_ID(0, "fix", &a->fix, "FIX_ID", IDS_DETECTED_FIX, "feedback on a detected fix instead of a finding"),
		OPT_SET_INT(0, "correct", &a->marks, MARK(FEEDBACK_FIX_CORRECT), "the fix was detected rightly"),
		OPT_SET_INT(0, "incorrect", &a->marks, MARK(FEEDBACK_FIX_INCORRECT), "the fix was detected wrongly"),
		OPT_END(),
	};
	int n = parse_options(argc, argv, options, &feedback_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	if (!parse_options_at_most(n, argv, 1, &feedback_help))
		return 2;
	a->finding = n ? argv[0] : NULL;
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
	    store_open(store, path.ptr) < 0 || store_author_load(*store, config) < 0) {
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
