#ifndef REVLINE_ADVISORY_STATE_H
#define REVLINE_ADVISORY_STATE_H

/*
 * Inside an advisory lookup (advisory.h): its state, shared by
 * advisory.c (which packages, the lookup's life, the packages' advisories
 * and what the lookup says went wrong) and advisory_osv.c (OSV's
 * requests and answers: the batches, their pages, the details).
 */

#include "advisory.h"
#include "deps.h"
#include "poll_group.h"
#include "sched.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum side { SIDE_OLD, SIDE_NEW };

enum state {
	ST_NONE,                /* not asked: no version on this side, or beyond the cap */
	ST_PENDING,
	ST_OK,
	ST_FAILED,              /* an HTTP error, no answer, a bad answer */
	ST_LATE,                /* cancelled when the budget ran out */
	ST_CANCELLED,           /* cancelled by the caller */
};

/* One version of one package asked of OSV. */
struct query {
	struct deps_package *package;
	const char *version;
	struct query *same;     /* the query asked for this one's package and version, or NULL */
	enum state state;
	char **ids;             /* its advisories' ids, as OSV gave them */
	size_t nids, ids_alloc;
	char *page_token;       /* the next page to ask for */
	unsigned pages;
	bool cut;               /* more advisories than kept */
	char *failure;          /* why it failed: "HTTP 500: ..." */
};

struct item {
	struct deps_package *package;
	struct query side[2];
};

/* One advisory whose details were asked, once. */
struct vuln {
	char *id;
	enum state state;
	char *summary;          /* from its details (GET /v1/vulns/{id}), once they are in */
	const char *severity;
	json_t *aliases;
	char *failure;
};

/* One request: a batch of queries, or the details of one advisory. */
struct request {
	struct query **queries; /* a batch's, in the order asked */
	size_t n;
	struct vuln *vuln;      /* a detail's */
};

struct advisory {
	struct deps_analysis *analysis;
	char *base;             /* the URL without its trailing slashes */
	char *batch_url;        /* {base}/v1/querybatch */
	size_t max_packages, max_details, batch_size;
	double request_s, total_s;

	struct item *items;
	size_t nitems;
	struct query **asked;   /* the queries sent, in order (one per package and version) */
	size_t nasked;
	struct vuln **details;  /* the advisories whose details were asked, sorted by id (max_details at most) */
	size_t ndetails, details_alloc;
	size_t nvulns;          /* advisories seen in all, once each (at the end) */
	struct request **requests;
	size_t nrequests, requests_alloc;

	struct sched *sched;
	struct poll_group *group;       /* given to advisory_new (NULL: the scheduler's own) */
	struct poll_member member;      /* takes the scheduler's events */
	int64_t deadline;       /* CLOCK_MONOTONIC ms */
	size_t pending;         /* requests not settled */
	bool started, done, expired, stopping;
	bool changed;           /* an answer came since the packages were last filled */

	size_t checked, failed, late, cancelled;
	size_t over;            /* packages left out: beyond max_packages */
	char *broken;           /* why the transport stopped, when it did */
	char *error;
};

/* The place of id among the advisories whose details were asked: where it is, or where it would go. */
size_t advisory_vuln_place(const struct advisory *adv, const char *id, bool *found);
/* One querybatch of n queries, in their order (each with its page token, when it has one). */
int advisory_batch_send(struct advisory *adv, struct query **queries, size_t n);
/* The scheduler's events taken: batches read (next pages and details asked), details read. */
int advisory_drain(struct advisory *adv);

#endif
