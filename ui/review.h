#ifndef REVLINE_REVIEW_H
#define REVLINE_REVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "feedback.h"
#include "fixdetect.h"
#include "loop.h"

/*
 * A review in the terminal UI: the engine's check (and, after it, fix
 * detection) driven from the UI's loop, with what the UI keeps of its own:
 * the user's marks on findings and which findings are on show. No review
 * logic lives here; it shows the engine's events.
 */
struct tui;
struct config;

/*
 * What the benchmark reads (REVLINE_LOOP_STATS=FILE): how long the loop
 * went without waiting for input while checks ran, and how long a rule's
 * answer took from the wait that delivered it to the screen.
 */
struct review_stats {
	struct loop_stats loop;         /* over every check, from start to done */
	int64_t settled_at_us;          /* when rules settled not yet drawn, or 0 */
	long settled;                   /* how many */
	int64_t to_screen_max_us, to_screen_sum_us;
	long to_screen_count;
	long checks;
};

struct review_mark {
	int64_t finding;
	enum feedback_kind kind;
};

struct review {
	struct tui *tui;
	struct config *config;
	struct llm_config llm;
	struct store *store;
	struct check *check;
	struct fixdetect *fixes;
	struct loop_source *source;
	bool show_hidden;               /* unverified and suppressed findings too */
	bool show_report;               /* the reduced report, not the rules */
	struct review_mark *marks;
	size_t nmarks, marks_alloc;
	char error[512];                /* why the review could not start */
	bool confirm_asked;             /* c said the estimate is over revline.confirmTokens: c again runs it */
	struct review_stats stats;
};

/* Set up (settings, database); the check starts with review_start. */
int review_init(struct review *review, struct tui *tui);
void review_release(struct review *review);

/* Start a check of the diff on screen; a running one is cancelled first. */
int review_start(struct review *review);
/* Re-run the rules that failed or timed out. */
int review_retry(struct review *review);
/* Cancel the running check, keeping what arrived. */
void review_cancel(struct review *review);
bool review_running(const struct review *review);
/* The check whose fix detection has not finished yet, or 0. */
int64_t review_fixes_unfinished(const struct review *review);

/* Whether a finding is hidden unless asked (v): unverified, or suppressed. */
bool review_hidden(const struct finding *finding);
/* Whether a finding is on show (verified and not suppressed, or all when asked). */
bool review_shows(const struct review *review, const struct finding *finding);
/* The user's mark on a finding, or -1. */
int review_mark_of(const struct review *review, int64_t finding);
/* Record feedback on a finding (stored at once). */
int review_judge(struct review *review, const struct finding *finding, enum feedback_kind kind,
		 const char *note);

/* The most severe finding on show at a new line of a file, or -1. */
int review_severity_at(const struct review *review, const char *path, int line);

/* The screen is up to date (after doupdate): answers drawn are timed. */
void review_drawn(struct review *review);
/* Write the stats as JSON to path; 0 or -1. */
int review_stats_write(const struct review *review, const char *path);

/*
 * Counts for titles and the status bar. The findings are those of the
 * findings pane, as it lists them: the rules' (under each rule), or the
 * report's (its merged findings, then, with v, the rules' findings the
 * report left out); shown is how many it lists, hidden how many it does
 * not (until v). unverified and suppressed split the hidden ones (the
 * shown ones with v) apart, each finding counted once: unverified first,
 * then suppressed (verified, but marked false positive or ignored inline).
 */
struct review_counts {
	size_t rules, settled, running, failed;
	size_t shown, hidden, unverified, suppressed;
	long tokens;
};
void review_count(const struct review *review, struct review_counts *out);

#endif
