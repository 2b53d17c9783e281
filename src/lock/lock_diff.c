/* The two sides of a lock file matched into transitions (lock.h). */
#include "lock_internal.h"
#include "array.h"
#include "status.h"
#include "version.h"

#include <stdlib.h>
#include <string.h>

void lock_changes_release(struct lock_changes *changes)
{
	free(changes->items);
	memset(changes, 0, sizeof(*changes));
}

/* One side's packages of one key: its distinct versions, in the ecosystem's order. */
struct versions {
	const char **v;
	size_t n;
	struct version *parsed;
	bool *paired;
};

static int by_version(const void *x, const void *y, void *eco)
{
	struct version a, b;
	const char *s = *(const char *const *)x, *t = *(const char *const *)y;
	bool ra = version_read(&a, *(enum deps_ecosystem *)eco, s, strlen(s));
	bool rb = version_read(&b, *(enum deps_ecosystem *)eco, t, strlen(t));

	if (ra && rb)
		return version_compare(&a, &b);
	return ra != rb ? (ra ? -1 : 1) : strcmp(s, t);
}

/* The versions [first, first + count) of lock that other (may be NULL) does not have for key. */
static int versions_only(struct versions *out, const struct lock *lock, size_t first, size_t count,
			 const struct lock *other, enum deps_ecosystem eco)
{
	size_t i, ofirst, ocount, k;
	const char *v;
	bool found;

	memset(out, 0, sizeof(*out));
	if (!count)
		return 0;
	if (!(out->v = calloc(count, sizeof(*out->v))) || !(out->parsed = calloc(count, sizeof(*out->parsed))) ||
	    !(out->paired = calloc(count, sizeof(*out->paired))))
		return error_nomem();
	ocount = lock_find(other, lock->items[first].key, &ofirst);
	for (i = first; i < first + count; i++) {
		if (!(v = lock->items[i].version) || (out->n && !strcmp(out->v[out->n - 1], v)))
			continue;
		for (found = false, k = ofirst; k < ofirst + ocount && !found; k++)
			found = other->items[k].version && !strcmp(other->items[k].version, v);
		if (!found)
			out->v[out->n++] = v;
	}
	qsort_r(out->v, out->n, sizeof(*out->v), by_version, &eco);
	for (i = 0; i < out->n; i++)
		version_read(&out->parsed[i], eco, out->v[i], strlen(out->v[i]));
	return 0;
}

static void versions_release(struct versions *v)
{
	free(v->v);
	free(v->parsed);
	free(v->paired);
}

/* The major line: the first component, or below 1 the first that is not 0 (what caret ranges keep). */
static bool same_line(const struct version *a, const struct version *b)
{
	size_t i;

	if (!a->nparts || !b->nparts)
		return false;
	for (i = 0; i < a->nparts && i < b->nparts; i++) {
		if (a->part[i] != b->part[i])
			return false;
		if (a->part[i])
			return true;
	}
	return true;
}

struct side_info {
	const struct lock *lock;
	const char **via;       /* lock_via's, or NULL */
};

/* Whether the side's package i is the one of this version (any, when version is NULL). */
static bool of_version(const struct side_info *s, size_t i, const char *version)
{
	return !version || (s->lock->items[i].version && !strcmp(s->lock->items[i].version, version));
}

/* How the side's project depends on key at this version (npm installs two of a name, one direct), and through what. */
static void relation_of(const struct side_info *s, const char *key, const char *version, struct lock_change *c)
{
	size_t first, count = lock_find(s->lock, key, &first), i, d;
	const char *via = NULL;

	for (i = first; i < first + count; i++)
		if (s->lock->items[i].direct && of_version(s, i, version)) {
			c->relation = RELATION_DIRECT;
			return;
		}
	c->relation = s->lock->roots ? RELATION_TRANSITIVE : RELATION_UNKNOWN;
	for (i = first; s->via && !via && i < first + count; i++)
		if (of_version(s, i, version))
			via = s->via[i];
	/* via is the direct package's key: its name as the lock writes it. */
	if (via && lock_find(s->lock, via, &d))
		c->via = s->lock->items[d].name;
}

static int change_add(struct lock_changes *out, const char *name, const char *key, const char *from,
		      const char *to, const struct side_info *side)
{
	struct lock_change *c;

	if (ARRAY_GROW(out->items, out->alloc, out->n + 1) < 0)
		return error_nomem();
	c = &out->items[out->n++];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->key = key;
	c->from = from;
	c->to = to;
	relation_of(side, key, to ? to : from, c);
	return 0;
}

/* Pair what went with what came (see lock.h), the rest added or removed. */
static int pair(struct lock_changes *out, struct versions *gone, struct versions *came, const char *oldname,
		const char *newname, const char *key, const struct side_info *old, const struct side_info *new)
{
	size_t i, j, left_gone = 0, left_came = 0, lg = 0, lc = 0;
	int error = 0;

	for (i = 0; i < gone->n; i++) {
		for (j = 0; gone->n != came->n && j < came->n; j++)
			if (!came->paired[j] && same_line(&gone->parsed[i], &came->parsed[j]))
				break;
		if (gone->n == came->n)
			j = i;
		if (j < came->n) {
			gone->paired[i] = came->paired[j] = true;
			if ((error = change_add(out, newname, key, gone->v[i], came->v[j], new)) < 0)
				return error;
		}
	}
	for (i = 0; i < gone->n; i++)
		if (!gone->paired[i])
			left_gone++, lg = i;
	for (j = 0; j < came->n; j++)
		if (!came->paired[j])
			left_came++, lc = j;
	if (left_gone == 1 && left_came == 1) {
		gone->paired[lg] = came->paired[lc] = true;
		if ((error = change_add(out, newname, key, gone->v[lg], came->v[lc], new)) < 0)
			return error;
	}
	for (i = 0; i < gone->n && !error; i++)
		if (!gone->paired[i])
			error = change_add(out, oldname, key, gone->v[i], NULL, old);
	for (j = 0; j < came->n && !error; j++)
		if (!came->paired[j])
			error = change_add(out, newname, key, NULL, came->v[j], new);
	return error;
}

static int diff_key(struct lock_changes *out, const struct side_info *old, size_t ofirst, size_t ocount,
		    const struct side_info *new, size_t nfirst, size_t ncount)
{
	struct versions gone = { NULL, 0, NULL, NULL }, came = { NULL, 0, NULL, NULL };
	const char *key = ocount ? old->lock->items[ofirst].key : new->lock->items[nfirst].key;
	const char *oldname = ocount ? old->lock->items[ofirst].name : NULL;
	const char *newname = ncount ? new->lock->items[nfirst].name : oldname;
	size_t k;
	int error;

	/* Most packages are where they were: nothing to pair. */
	for (k = 0; ocount == ncount && k < ocount; k++)
		if (!old->lock->items[ofirst + k].version != !new->lock->items[nfirst + k].version ||
		    (old->lock->items[ofirst + k].version &&
		     strcmp(old->lock->items[ofirst + k].version, new->lock->items[nfirst + k].version)))
			break;
	if (ocount == ncount && k == ocount)
		return 0;
	if ((error = versions_only(&gone, old->lock, ofirst, ocount, new->lock, old->lock->eco)) < 0 ||
	    (error = versions_only(&came, new->lock, nfirst, ncount, old->lock, new->lock->eco)) < 0)
		goto done;
	if (gone.n || came.n)
		error = pair(out, &gone, &came, oldname ? oldname : newname, newname, key, old, new);
done:
	versions_release(&gone);
	versions_release(&came);
	return error;
}

int lock_diff(struct lock_changes *out, const struct lock *old, const struct lock *new)
{
	struct side_info o = { old, NULL }, n = { new, NULL };
	size_t i = 0, j = 0, oc, nc;
	int c, error;

	memset(out, 0, sizeof(*out));
	if ((error = lock_via(&o.via, old)) < 0 || (error = lock_via(&n.via, new)) < 0)
		goto done;
	while (!error && (i < old->n || j < new->n)) {
		c = i == old->n ? 1 : j == new->n ? -1 : strcmp(old->items[i].key, new->items[j].key);
		oc = c <= 0 ? lock_find(old, old->items[i].key, &i) : 0;
		nc = c >= 0 ? lock_find(new, new->items[j].key, &j) : 0;
		error = diff_key(out, &o, i, oc, &n, j, nc);
		i += oc;
		j += nc;
	}
done:
	free(o.via);
	free(n.via);
	if (error < 0)
		lock_changes_release(out);
	return error;
}
