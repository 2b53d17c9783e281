/*
 * OSV's side of an advisory lookup (advisory_state.h): the querybatch
 * requests and their answers (each query's advisory ids, the next pages
 * asked in batches of their own), then each advisory's details (GET
 * {base}/v1/vulns/{id}), once, while fewer than max_details were asked.
 * Every answer is checked before it is taken: a result that is not one
 * fails its query, an id that could not be one (it goes in a URL) fails
 * it too, a record about another advisory fails its detail.
 */
#include "advisory_state.h"

#include "array.h"
#include "buf.h"
#include "deps_text.h"
#include "osv_record.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OSV's ids are short (it refuses one longer than 100 bytes) and go in a URL's path. */
#define ID_MAX 100
#define TOKEN_MAX 4096

size_t advisory_vuln_place(const struct advisory *adv, const char *id, bool *found)
{
	size_t lo = 0, hi = adv->ndetails, mid;
	int cmp;

	*found = false;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (!(cmp = strcmp(adv->details[mid]->id, id))) {
			*found = true;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* --- requests ------------------------------------------------------------ */

static int request_new(struct request **out, struct advisory *adv)
{
	struct request *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r || ARRAY_GROW(adv->requests, adv->requests_alloc, adv->nrequests + 1) < 0) {
		free(r);
		return error_nomem();
	}
	adv->requests[adv->nrequests++] = r;
	*out = r;
	return 0;
}

/* POST body as JSON to url, or GET url when body is NULL. */
static int request_send(struct advisory *adv, struct request *r, const char *url, const char *body)
{
	static const char *const post_headers[] = { "Content-Type: application/json", "Accept: application/json" };
	static const char *const get_headers[] = { "Accept: application/json" };
	struct sched_request req = { 0 };
	uint64_t task;
	int error;

	req.url = url;
	req.get = !body;
	req.headers = body ? post_headers : get_headers;
	req.nheaders = body ? COUNT(post_headers) : COUNT(get_headers);
	req.body = body;
	req.body_len = body ? strlen(body) : 0;
	req.weight = req.body_len;
	if ((error = sched_add(adv->sched, &task, &req, r)) == 0)
		adv->pending++;
	return error;
}

static json_t *query_json(const struct query *q)
{
	json_t *json = json_pack("{s{ssss}ss}", "package", "name", q->package->name, "ecosystem",
				 deps_ecosystem_osv(q->package->ecosystem), "version", q->version);

	if (json && q->page_token && json_object_set_new(json, "page_token", json_string(q->page_token)) < 0) {
		json_decref(json);
		return NULL;
	}
	return json;
}

int advisory_batch_send(struct advisory *adv, struct query **queries, size_t n)
{
	json_t *list = json_array(), *body = NULL;
	struct request *r = NULL;
	char *text = NULL;
	size_t i;
	int error;

	if (!list || (error = request_new(&r, adv)) < 0 || !(r->queries = calloc(n, sizeof(*r->queries)))) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < n; i++) {
		json_t *q = query_json(queries[i]);

		if (!q || json_array_append_new(list, q) < 0) {
			error = error_nomem();
			goto done;
		}
		queries[i]->state = ST_PENDING;
		r->queries[r->n++] = queries[i];
	}
	if (!(body = json_pack("{s:O}", "queries", list)) || !(text = json_dumps(body, JSON_COMPACT))) {
		error = error_nomem();
		goto done;
	}
	error = request_send(adv, r, adv->batch_url, text);
done:
	json_decref(list);
	json_decref(body);
	free(text);
	return error;
}

static int detail_send(struct advisory *adv, struct vuln *v)
{
	struct buf url = BUF_INIT;
	struct request *r;
	int error;

	if ((error = request_new(&r, adv)) < 0)
		return error;
	r->vuln = v;
	if (buf_printf(&url, "%s/v1/vulns/%s", adv->base, v->id) < 0) {
		buf_release(&url);
		return error_nomem();
	}
	if ((error = request_send(adv, r, url.ptr, NULL)) == 0)
		v->state = ST_PENDING;
	buf_release(&url);
	return error;
}

/* The details of a query's advisories, each once, while fewer than max_details have been asked. */
static int details_ask(struct advisory *adv, const struct query *q)
{
	struct vuln *v;
	size_t k, at;
	bool found;
	int error;

	for (k = 0; k < q->nids && adv->ndetails < adv->max_details; k++) {
		if (at = advisory_vuln_place(adv, q->ids[k], &found), found)
			continue;
		if (!(v = calloc(1, sizeof(*v))) || !(v->id = strdup(q->ids[k])) ||
		    ARRAY_GROW(adv->details, adv->details_alloc, adv->ndetails + 1) < 0) {
			if (v)
				free(v->id);
			free(v);
			return error_nomem();
		}
		memmove(adv->details + at + 1, adv->details + at, (adv->ndetails - at) * sizeof(*adv->details));
		adv->details[at] = v;
		adv->ndetails++;
		if ((error = detail_send(adv, v)) < 0)
			return error;
	}
	return 0;
}

/* --- answers ------------------------------------------------------------- */

/* OSV's ids are letters, digits and -._: ("GHSA-xxxx-xxxx-xxxx", "PYSEC-2021-1"): they go in a URL's path. */
static bool id_ok(const char *id)
{
	size_t n = id ? strlen(id) : 0;

	return n && n <= ID_MAX &&
		strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._:") == n;
}

/* Whether one result of a batch is one; why not, when it is not. */
static bool result_ok(const json_t *result, char *why, size_t size)
{
	const json_t *vulns = json_object_get(result, "vulns"), *token = json_object_get(result, "next_page_token");
	const json_t *vuln;
	size_t i;

	if (!json_is_object(result))
		snprintf(why, size, "a result of the answer is not an object");
	else if (vulns && !json_is_array(vulns) && !json_is_null(vulns))
		snprintf(why, size, "the answer's vulns is not a list");
	else if (token && !json_is_null(token) && (!json_is_string(token) || json_string_length(token) > TOKEN_MAX))
		snprintf(why, size, "the answer's next_page_token is not one");
	else
		json_array_foreach(vulns, i, vuln) {
			const char *id = json_string_value(json_object_get(vuln, "id"));
			int n = 0;

			if (id_ok(id))
				continue;
			/* Up to 40 bytes of it, cut on a character. */
			while (id && id[n] && (n < 40 || ((unsigned char)id[n] & 0xc0) == 0x80))
				n++;
			if (id)
				snprintf(why, size, "an advisory id that cannot be one (%.*s%s)", n, id, id[n] ? "..." : "");
			else
				snprintf(why, size, "a vuln of the answer has no id");
			return false;
		}
	return !*why;
}

/* One result into its query: the ids (the first ADVISORY_VULNS_MAX), and the next page's token while it may ask for one. */
static int result_take(struct query *q, const json_t *result)
{
	const json_t *vulns = json_object_get(result, "vulns"), *vuln;
	const char *token = json_string_value(json_object_get(result, "next_page_token"));
	size_t i;

	json_array_foreach(vulns, i, vuln) {
		if (q->nids >= ADVISORY_VULNS_MAX) {
			q->cut = true;
			break;
		}
		if (ARRAY_GROW(q->ids, q->ids_alloc, q->nids + 1) < 0 ||
		    !(q->ids[q->nids] = strdup(json_string_value(json_object_get(vuln, "id")))))
			return error_nomem();
		q->nids++;
	}
	free(q->page_token);
	q->page_token = NULL;
	q->pages++;
	if (token && *token) {
		if (q->pages >= ADVISORY_PAGES_MAX || q->nids >= ADVISORY_VULNS_MAX)
			q->cut = true;
		else if (!(q->page_token = strdup(token)))
			return error_nomem();
	}
	return 0;
}

static void query_settle(struct advisory *adv, struct query *q, enum state state, const char *why)
{
	q->state = state == ST_CANCELLED && adv->expired ? ST_LATE : state;
	if (state == ST_FAILED && !q->failure)
		q->failure = strdup(why ? why : "?");
}

/* A batch that brought no answer: its queries failed, or are late or cancelled. */
static void batch_fail(struct advisory *adv, const struct request *r, const struct sched_event *ev, const char *why)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (ev->status == SCHED_CANCELLED && !adv->broken && !why)
			query_settle(adv, r->queries[i], ST_CANCELLED, NULL);
		else
			query_settle(adv, r->queries[i], ST_FAILED, why ? why : ev->status == SCHED_CANCELLED ?
				     adv->broken : ev->error);
}

/* Why a batch's answer is no answer to it, or false. */
static bool batch_bad(char *why, size_t size, const json_t *root, const json_error_t *jerr, size_t n)
{
	const json_t *results = json_object_get(root, "results");

	if (!json_is_object(root))
		snprintf(why, size, "the answer is not a JSON object%s%s", root ? "" : ": ", root ? "" : jerr->text);
	else if (!json_is_array(results))
		snprintf(why, size, "the answer has no list of results");
	else if (json_array_size(results) != n)
		snprintf(why, size, "the answer has %zu results for %zu queries", json_array_size(results), n);
	return *why;
}

static int on_batch(struct advisory *adv, struct request *r, const struct sched_event *ev)
{
	struct query **again = NULL;
	json_error_t jerr;
	json_t *root = NULL, *results;
	char why[256] = "";
	size_t i, nagain = 0;
	int error = 0;

	if (ev->status != SCHED_DONE) {
		batch_fail(adv, r, ev, NULL);
		return 0;
	}
	root = json_loadb(ev->body ? ev->body : "", ev->body_len, 0, &jerr);
	if (batch_bad(why, sizeof(why), root, &jerr, r->n)) {
		batch_fail(adv, r, ev, why);
		goto done;
	}
	results = json_object_get(root, "results");
	if (!(again = calloc(r->n, sizeof(*again)))) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < r->n && !error; i++) {
		struct query *q = r->queries[i];

		*why = '\0';
		if (!result_ok(json_array_get(results, i), why, sizeof(why)))
			query_settle(adv, q, ST_FAILED, why);
		else if ((error = result_take(q, json_array_get(results, i))) < 0)
			break;
		else if (q->page_token && !adv->stopping)
			again[nagain++] = q;
		else {
			query_settle(adv, q, q->page_token ? ST_CANCELLED : ST_OK, NULL);
			/* Its advisories' details at once: a slow batch does not hold up the others'. */
			if (q->state == ST_OK && !adv->stopping)
				error = details_ask(adv, q);
		}
	}
	/* The next pages, in a batch of their own. */
	if (!error && nagain)
		error = advisory_batch_send(adv, again, nagain);
done:
	free(again);
	json_decref(root);
	return error;
}

/* An advisory's details: its summary, severity and aliases; the rest of the record is not kept. */
static int on_detail(struct advisory *adv, struct request *r, const struct sched_event *ev)
{
	struct vuln *v = r->vuln;
	json_t *root = NULL, *aliases, *alias;
	const char *why = NULL;
	size_t i;
	int error = 0;

	if (ev->status == SCHED_CANCELLED && !adv->broken) {
		v->state = adv->expired ? ST_LATE : ST_CANCELLED;
		return 0;
	}
	if (ev->status == SCHED_DONE) {
		root = json_loadb(ev->body ? ev->body : "", ev->body_len, 0, NULL);
		if (!json_is_object(root))
			why = "the answer is not a JSON object";
		else if (!json_is_string(json_object_get(root, "id")) ||
			 strcmp(json_string_value(json_object_get(root, "id")), v->id))
			why = "the answer is about another advisory";
	}
	if (ev->status != SCHED_DONE || why) {
		v->state = ST_FAILED;
		if (!(v->failure = strdup(why ? why : ev->status == SCHED_CANCELLED ? adv->broken : ev->error)))
			error = error_nomem();
		goto done;
	}
	v->state = ST_OK;
	v->severity = osv_severity(root);
	if (!(v->summary = osv_summary(root)) || !(v->aliases = json_array())) {
		error = error_nomem();
		goto done;
	}
	aliases = json_object_get(root, "aliases");
	for (i = 0; i < json_array_size(aliases) && i < ADVISORY_VULNS_MAX; i++)
		if (json_is_string(alias = json_array_get(aliases, i)) && json_array_append(v->aliases, alias) < 0)
			error = error_nomem();
done:
	json_decref(root);
	return error;
}

static int on_event(struct advisory *adv, const struct sched_event *ev)
{
	struct request *r = ev->user;

	if (ev->status == SCHED_STARTED)
		return 0;
	adv->pending--;
	adv->changed = true;
	return r->vuln ? on_detail(adv, r, ev) : on_batch(adv, r, ev);
}

int advisory_drain(struct advisory *adv)
{
	struct sched_event ev;
	int error = 0, e;

	while (sched_next(adv->sched, &ev)) {
		e = on_event(adv, &ev);
		if (error == 0)
			error = e;
		sched_event_release(&ev);
	}
	return error;
}
