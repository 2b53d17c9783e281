/*
 * Dependency bumps. Each side of a manifest is read into entries (name ->
 * spec), the two sides are matched by name, and each transition is
 * classified in its ecosystem's terms (version.c). Every manifest format
 * has a small reader of its own that knows only as much of the format as
 * dependencies need (deps_manifest.c). Lock files are read for the exact
 * versions they resolve (lock.h): their transitions take the place of the
 * manifest's specs where both move a package, and stand on their own,
 * direct or transitive, where only the lock file does. A bot's commit
 * message is held against them, never believed over them.
 */
#include "deps.h"
#include "array.h"
#include "deps_manifest.h"
#include "botcommit.h"
#include "lock.h"
#include "status.h"
#include "utf8.h"
#include "version.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* ------------------------------------------------------------------ names */

static const struct {
	const char *name, *osv;
} ecosystem_names[] = {
#define DEPS_ECO_ROW(id, name, osv) [id] = { name, osv },
	DEPS_ECOSYSTEMS(DEPS_ECO_ROW)
#undef DEPS_ECO_ROW
};

static const char *const bump_names[] = {
#define DEPS_BUMP_ROW(id, name) [id] = name,
	DEPS_BUMPS(DEPS_BUMP_ROW)
#undef DEPS_BUMP_ROW
};

static const char *const relation_names[] = {
#define DEPS_REL_ROW(id, name) [id] = name,
	DEPS_RELATIONS(DEPS_REL_ROW)
#undef DEPS_REL_ROW
};

static const char *const confidence_names[] = {
#define DEPS_CONF_ROW(id, name) [id] = name,
	DEPS_CONFIDENCES(DEPS_CONF_ROW)
#undef DEPS_CONF_ROW
};

const char *deps_ecosystem_name(enum deps_ecosystem eco)
{
	return (unsigned)eco < ECO_COUNT ? ecosystem_names[eco].name : "unknown";
}

const char *deps_ecosystem_osv(enum deps_ecosystem eco)
{
	return (unsigned)eco < ECO_COUNT ? ecosystem_names[eco].osv : "unknown";
}

const char *deps_bump_name(enum deps_bump bump)
{
	return (unsigned)bump < COUNT(bump_names) ? bump_names[bump] : "unknown";
}

const char *deps_relation_name(enum deps_relation relation)
{
	return (unsigned)relation < COUNT(relation_names) ? relation_names[relation] : "unknown";
}

const char *deps_advisory_effect(const struct deps_advisory *advisory)
{
	return advisory->fixed ? "fixed by this bump" : advisory->introduced ? "brought by this bump" : "still open";
}

const char *deps_confidence_name(enum deps_confidence confidence)
{
	return (unsigned)confidence < COUNT(confidence_names) ? confidence_names[confidence] : "unknown";
}

/* ------------------------------------------------------------------ files */

static const struct {
	const char *name;
	enum deps_file_kind kind;
	enum deps_ecosystem eco;
} known_files[] = {
	{ "package.json", DEPS_FILE_MANIFEST, ECO_NPM },
	{ "package-lock.json", DEPS_FILE_LOCK, ECO_NPM },
	{ "npm-shrinkwrap.json", DEPS_FILE_LOCK, ECO_NPM },
	{ "yarn.lock", DEPS_FILE_LOCK, ECO_NPM },
	{ "pnpm-lock.yaml", DEPS_FILE_LOCK, ECO_NPM },
	{ "bun.lock", DEPS_FILE_LOCK, ECO_NPM },
	{ "bun.lockb", DEPS_FILE_LOCK, ECO_NPM },
	{ "go.mod", DEPS_FILE_MANIFEST, ECO_GO },
	{ "go.sum", DEPS_FILE_LOCK, ECO_GO },
	{ "go.work.sum", DEPS_FILE_LOCK, ECO_GO },
	{ "Cargo.toml", DEPS_FILE_MANIFEST, ECO_CARGO },
	{ "Cargo.lock", DEPS_FILE_LOCK, ECO_CARGO },
	{ "pyproject.toml", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "Pipfile.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "poetry.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "uv.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "pdm.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "Gemfile", DEPS_FILE_MANIFEST, ECO_RUBYGEMS },
	{ "Gemfile.lock", DEPS_FILE_LOCK, ECO_RUBYGEMS },
	{ "gems.rb", DEPS_FILE_MANIFEST, ECO_RUBYGEMS },
	{ "gems.locked", DEPS_FILE_LOCK, ECO_RUBYGEMS },
	{ "composer.json", DEPS_FILE_MANIFEST, ECO_COMPOSER },
	{ "composer.lock", DEPS_FILE_LOCK, ECO_COMPOSER },
};


/* requirements.txt, requirements-dev.txt, and any .txt in a requirements/ directory. */
static bool is_requirements(const char *path, const char *base)
{
	static const char dir[] = "requirements/";
	size_t n = strlen(base), d = sizeof(dir) - 1;

	if (n < 5 || strcmp(base + n - 4, ".txt"))
		return false;
	if (!strncmp(base, "requirements", 12))
		return true;
	return (size_t)(base - path) >= d && !strncmp(base - d, dir, d) &&
	       ((size_t)(base - path) == d || base[-(ptrdiff_t)d - 1] == '/');
}

enum deps_file_kind deps_file_kind(const char *path, enum deps_ecosystem *eco)
{
	const char *base;
	size_t i;

	if (!path)
		return DEPS_FILE_OTHER;
	base = base_name(path);
	for (i = 0; i < COUNT(known_files); i++)
		if (!strcmp(base, known_files[i].name)) {
			if (eco)
				*eco = known_files[i].eco;
			return known_files[i].kind;
		}
	if (is_requirements(path, base)) {
		if (eco)
			*eco = ECO_PIP;
		return DEPS_FILE_MANIFEST;
	}
	return DEPS_FILE_OTHER;
}

/* ----------------------------------------------------------------- bumps */

enum deps_bump deps_classify(enum deps_ecosystem eco, const char *from, const char *to)
{
	struct version a, b;

	if (!version_parse(&a, eco, from) || !version_parse(&b, eco, to))
		return BUMP_UNKNOWN;
	return version_distance(&a, &b);
}

/* ------------------------------------------------------------- packages */

/* One side of a transition: absent (added or removed), a version spec, or a source that is no version. */
struct side {
	const char *spec;
	bool present, versioned;
};

static struct side side_of(const struct dep *dep)
{
	struct side s = { NULL, false, false };

	if (dep) {
		s.spec = dep_spec(dep);
		s.present = true;
		s.versioned = dep->version != NULL;
	}
	return s;
}

struct analysis {
	struct deps_analysis *out;
	size_t alloc;           /* room in out->packages */
};

void deps_advisories_release(struct deps_package *p)
{
	size_t i;

	for (i = 0; i < p->nadvisories; i++) {
		free(p->advisories[i].id);
		free(p->advisories[i].summary);
		free(p->advisories[i].severity);
	}
	free(p->advisories);
	p->advisories = NULL;
	p->nadvisories = 0;
}

static void package_release(struct deps_package *p)
{
	free(p->name);
	free(p->manifest);
	free(p->from);
	free(p->to);
	free(p->from_version);
	free(p->to_version);
	free(p->via);
	free(p->lock);
	free(p->claimed);
	deps_advisories_release(p);
	memset(p, 0, sizeof(*p));
}

static void package_remove(struct deps_analysis *out, size_t i)
{
	package_release(&out->packages[i]);
	memmove(&out->packages[i], &out->packages[i + 1], (out->npackages - i - 1) * sizeof(*out->packages));
	out->npackages--;
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *copy;

	if (!s)
		return NULL;
	if (!(copy = strdup(s)))
		*failed = true;
	return copy;
}

/* The version a spec names, as the manifest writes it ("6.1.4.1", "1.0rc1"), or NULL. */
static char *version_text(const struct side *s, enum deps_ecosystem eco, struct version *v, bool *read,
			  bool *failed)
{
	*read = s->versioned && version_parse(v, eco, s->spec);
	return *read ? dup_or_null(v->text, failed) : NULL;
}

static int package_add(struct analysis *a, enum deps_ecosystem eco, const char *name, const char *manifest,
		       struct side from, struct side to)
{
	struct deps_analysis *out = a->out;
	struct deps_package *p;
	struct version fv, tv;
	bool failed = false, from_read, to_read;
	int error;

	if ((error = ARRAY_GROW(out->packages, a->alloc, out->npackages + 1)) < 0)
		return error;
	p = &out->packages[out->npackages++];
	memset(p, 0, sizeof(*p));
	p->ecosystem = eco;
	p->name = dup_or_null(name, &failed);
	p->manifest = dup_or_null(manifest, &failed);
	p->from = dup_or_null(from.spec, &failed);
	p->to = dup_or_null(to.spec, &failed);
	p->from_version = version_text(&from, eco, &fv, &from_read, &failed);
	p->to_version = version_text(&to, eco, &tv, &to_read, &failed);
	if (!from.present)
		p->bump = BUMP_ADDED;
	else if (!to.present)
		p->bump = BUMP_REMOVED;
	else
		p->bump = from.versioned && to.versioned ? deps_classify(eco, from.spec, to.spec) : BUMP_UNKNOWN;
	p->downgrade = from.present && to.present && from_read && to_read && version_compare(&tv, &fv) < 0;
	return failed ? error_nomem() : 0;
}

/*
 * A Go module's major version 2 and later is part of its path
 * ("github.com/x/y/v2", "gopkg.in/yaml.v3"): the length of the path
 * without it, which names the module across majors.
 */
static size_t go_base_len(const char *name)
{
	size_t n = strlen(name), i = n;

	while (i && isdigit((unsigned char)name[i - 1]))
		i--;
	if (i == n || i < 2 || name[i - 1] != 'v' || (name[i - 2] != '/' && name[i - 2] != '.'))
		return n;
	return i - 2;
}

static bool go_same_module(const char *a, const char *b)
{
	size_t n = go_base_len(a);

	return n == go_base_len(b) && !strncmp(a, b, n);
}

static int go_pair(struct analysis *a, size_t removed, size_t added)
{
	struct deps_package *r = &a->out->packages[removed], *n = &a->out->packages[added];
	struct side from = { r->from, true, r->from != NULL }, to = { n->to, true, n->to != NULL };
	int error;

	if ((error = package_add(a, ECO_GO, a->out->packages[added].name, a->out->packages[added].manifest,
				 from, to)) < 0)
		return error;
	package_remove(a->out, removed > added ? removed : added);
	package_remove(a->out, removed > added ? added : removed);
	return 0;
}

/*
 * A module removed under one major's path and added under another's is one
 * bump. The pair's transition goes to the end; position i is looked at
 * again, as the next package has moved into it.
 */
static int go_pair_majors(struct analysis *a, size_t start)
{
	struct deps_package *p;
	size_t i = start, j;
	int error;

	while (i < a->out->npackages) {
		for (j = start; a->out->packages[i].bump == BUMP_REMOVED && j < a->out->npackages; j++) {
			p = &a->out->packages[j];
			if (p->bump == BUMP_ADDED && go_same_module(p->name, a->out->packages[i].name))
				break;
		}
		if (a->out->packages[i].bump != BUMP_REMOVED || j == a->out->npackages) {
			i++;
			continue;
		}
		if ((error = go_pair(a, i, j)) < 0)
			return error;
	}
	return 0;
}

/* By name as people read them: "black" before "Django". */
static int package_by_name(const void *x, const void *y)
{
	const char *a = ((const struct deps_package *)x)->name, *b = ((const struct deps_package *)y)->name;
	int c = strcasecmp(a, b);

	return c ? c : strcmp(a, b);
}

/* The two sides matched by name: what changed, what came, what went. */
static int compare_sides(struct analysis *a, const struct deps_file *file, enum deps_ecosystem eco,
			 struct dep **old, size_t nold, struct dep **new, size_t nnew)
{
	size_t i = 0, j = 0;
	int c, error = 0;

	while (!error && (i < nold || j < nnew)) {
		c = i == nold ? 1 : j == nnew ? -1 : strcmp(old[i]->key, new[j]->key);
		size_t before = a->out->npackages;
		const struct dep *d;

		if (c < 0) {
			error = package_add(a, eco, (d = old[i])->name, file->path, side_of(old[i]), side_of(NULL));
			i++;
		} else if (c > 0) {
			error = package_add(a, eco, (d = new[j])->name, file->path, side_of(NULL), side_of(new[j]));
			j++;
		} else {
			if (!deps_same_spec(dep_spec(old[i]), dep_spec(new[j])) || !old[i]->version != !new[j]->version)
				error = package_add(a, eco, new[j]->name, file->path, side_of(old[i]),
						    side_of(new[j]));
			d = new[j];
			i++;
			j++;
		}
		/* go.mod's "// indirect" requirements are there for other modules. */
		if (!error && a->out->npackages > before && d->indirect)
			a->out->packages[before].relation = RELATION_TRANSITIVE;
	}
	return error;
}

int deps_problem_add(struct deps_analysis *out, const char *path, const char *side, const char *why)
{
	struct buf text = BUF_INIT;
	int error;

	if ((error = ARRAY_GROW(out->problems, out->problems_alloc, out->nproblems + 1)) < 0)
		return error;
	if (buf_printf(&text, "%s (%s side): %s; its dependencies are left out", path, side, why) < 0)
		return error_nomem();
	out->problems[out->nproblems++] = buf_detach(&text);
	return 0;
}

static int compare_manifest(struct analysis *a, const struct deps_file *file, enum deps_ecosystem eco)
{
	struct depmap old = { .n = 0 }, new = { .n = 0 };
	struct dep **o = NULL, **n = NULL;
	size_t no, nn, start = a->out->npackages;
	int error;

	depmap_read(&old, file->path, eco, file->old_text, file->old_len);
	depmap_read(&new, file->path, eco, file->new_text, file->new_len);
	if ((error = old.error ? old.error : new.error) < 0)
		goto done;
	/* A side that cannot be read would make every dependency look added or removed: said, and skipped. */
	if (old.malformed || new.malformed) {
		error = deps_problem_add(a->out, file->path, old.malformed ? "old" : "new",
				    old.malformed ? old.why : new.why);
		goto done;
	}
	if ((error = depmap_representatives(&old, &o, &no)) < 0 || (error = depmap_representatives(&new, &n, &nn)) < 0)
		goto done;
	if ((error = compare_sides(a, file, eco, o, no, n, nn)) < 0)
		goto done;
	if (eco == ECO_GO && (error = go_pair_majors(a, start)) < 0)
		goto done;
	if (a->out->npackages > start)
		qsort(a->out->packages + start, a->out->npackages - start, sizeof(*a->out->packages),
		      package_by_name);
done:
	free(o);
	free(n);
	depmap_release(&old);
	depmap_release(&new);
	return error;
}

/* ----------------------------------------------------------------- bots */

/* ------------------------------------------------------------ lock files */

static bool same_dir(const char *a, const char *b)
{
	size_t n = (size_t)(base_name(a) - a);

	return n == (size_t)(base_name(b) - b) && !strncmp(a, b, n);
}

static void replace_text(char **field, const char *value, bool *failed)
{
	free(*field);
	*field = dup_or_null(value, failed);
}

/* The manifest's rows beside a lock file, by their names' keys (lock_key), then in their order. */
struct row_index {
	struct row_key {
		const char *key;
		size_t row;
	} *v;
	size_t n;
};

static int row_key_order(const void *x, const void *y)
{
	const struct row_key *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : a->row < b->row ? -1 : a->row > b->row;
}

/* The rows of the manifests beside file among the first end, keyed in lock's arena: a change's row found in log time. */
static int rows_index(struct row_index *out, const struct analysis *a, struct lock *lock, const struct deps_file *file,
		      enum deps_ecosystem eco, size_t end)
{
	const struct deps_package *p;
	size_t i;

	out->n = 0;
	if (!end)
		return 0;
	if (!(out->v = calloc(end, sizeof(*out->v))))
		return error_nomem();
	for (i = 0; i < end; i++) {
		p = &a->out->packages[i];
		if (p->ecosystem != eco || p->lock || !same_dir(p->manifest, file->path))
			continue;
		if (!(out->v[out->n].key = lock_key(lock, p->name, strlen(p->name))))
			return error_nomem();
		out->v[out->n++].row = i;
	}
	qsort(out->v, out->n, sizeof(*out->v), row_key_order);
	return 0;
}

/* Whether the manifest's spec and the lock file's version are of one major line (a lock file may hold two). */
static bool same_line(enum deps_ecosystem eco, const struct deps_package *p, const struct lock_change *c)
{
	if (p->to_version && c->to)
		return deps_classify(eco, p->to_version, c->to) != BUMP_MAJOR;
	if (p->from_version && c->from)
		return deps_classify(eco, p->from_version, c->from) != BUMP_MAJOR;
	return true;
}

/* The manifest's row of the package the lock file moved, not matched yet: it takes the lock file's exact versions. */
static struct deps_package *manifest_row(struct analysis *a, const struct row_index *rows, const struct lock_change *c,
					 enum deps_ecosystem eco)
{
	size_t lo = 0, hi = rows->n, mid;

	/* What the lock file says another package pulls in is not the manifest's, whatever its name. */
	if (c->relation == RELATION_TRANSITIVE)
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(rows->v[mid].key, c->key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < rows->n && !strcmp(rows->v[lo].key, c->key); lo++)
		if (!a->out->packages[rows->v[lo].row].lock && same_line(eco, &a->out->packages[rows->v[lo].row], c))
			return &a->out->packages[rows->v[lo].row];
	return NULL;
}

static int lock_row(struct analysis *a, const struct deps_file *file, enum deps_ecosystem eco,
		    const struct lock_change *c, const struct row_index *rows)
{
	struct deps_package *p = manifest_row(a, rows, c, eco);
	struct version fv, tv;
	bool failed = false;
	int error;

	if (!p) {
		if ((error = package_add(a, eco, c->name, file->path, (struct side){ c->from, c->from != NULL, true },
					 (struct side){ c->to, c->to != NULL, true })) < 0)
			return error;
		p = &a->out->packages[a->out->npackages - 1];
		p->relation = c->relation;
		if (c->relation == RELATION_TRANSITIVE)
			replace_text(&p->via, c->via, &failed);
	} else {
		if (c->from)
			replace_text(&p->from_version, c->from, &failed);
		if (c->to)
			replace_text(&p->to_version, c->to, &failed);
		if (p->from && p->to && c->from && c->to) {
			p->bump = deps_classify(eco, c->from, c->to);
			p->downgrade = version_parse(&fv, eco, c->from) && version_parse(&tv, eco, c->to) &&
				       version_compare(&tv, &fv) < 0;
		}
	}
	replace_text(&p->lock, file->path, &failed);
	return failed ? error_nomem() : 0;
}

/* Transitive ones under the direct one that pulls them in, each group by name, the direct one first. */
static int lock_row_order(const void *x, const void *y)
{
	const struct deps_package *a = x, *b = y;
	const char *ga = a->relation == RELATION_TRANSITIVE && a->via ? a->via : a->name;
	const char *gb = b->relation == RELATION_TRANSITIVE && b->via ? b->via : b->name;
	int c = strcasecmp(ga, gb);

	if (c)
		return c;
	if ((a->relation == RELATION_TRANSITIVE) != (b->relation == RELATION_TRANSITIVE))
		return a->relation == RELATION_TRANSITIVE ? 1 : -1;
	return package_by_name(a, b);
}

/* The manifest beside the lock file, for which packages are direct. */
static void lock_roots(struct lock *lock, const struct deps_file *file, const char *text, size_t len)
{
	const char *name = lock_manifest_name(file->path);
	struct buf path = BUF_INIT;

	if (lock->roots || !name || !text)
		return;
	if (buf_printf(&path, "%.*s%s", (int)(base_name(file->path) - file->path), file->path, name) < 0) {
		lock->error = error_nomem();
		return;
	}
	lock_read_manifest(lock, path.ptr, text, len);
	buf_release(&path);
}

static int compare_lock(struct analysis *a, const struct deps_file *file, enum deps_ecosystem eco, size_t manifests)
{
	struct lock old, new;
	struct lock_changes changes = { NULL, 0, 0 };
	struct row_index rows = { NULL, 0 };
	size_t i, start = a->out->npackages;
	int error = 0;

	lock_init(&old, eco);
	lock_init(&new, eco);
	lock_read(&old, file->path, file->old_text, file->old_len);
	lock_read(&new, file->path, file->new_text, file->new_len);
	if (!old.malformed && !new.malformed) {
		lock_roots(&old, file, file->manifest_old, file->manifest_old_len);
		lock_roots(&new, file, file->manifest_new, file->manifest_new_len);
	}
	if ((error = old.error ? old.error : new.error) < 0)
		goto done;
	/* A side that cannot be read would make every package look added or removed: said, and skipped. */
	if (old.malformed || new.malformed) {
		error = deps_problem_add(a->out, file->path, old.malformed ? "old" : "new",
					 old.malformed ? old.why : new.why);
		goto done;
	}
	if ((!file->old_text && !file->new_text) || (error = lock_diff(&changes, &old, &new)) < 0 ||
	    (error = rows_index(&rows, a, &new, file, eco, manifests)) < 0)
		goto done;
	for (i = 0; i < changes.n && !error; i++)
		error = lock_row(a, file, eco, &changes.items[i], &rows);
	if (!error && a->out->npackages > start)
		qsort(a->out->packages + start, a->out->npackages - start, sizeof(*a->out->packages), lock_row_order);
done:
	free(rows.v);
	lock_changes_release(&changes);
	lock_release(&old);
	lock_release(&new);
	return error;
}

/* ----------------------------------------------------------------- bots */

/* A claim, once (a grouped update's body can name a bump twice). */
static int claim_add(struct deps_analysis *out, char *text)
{
	size_t i;
	int error;

	if (!text)
		return error_nomem();
	for (i = 0; i < out->nclaims; i++)
		if (!strcmp(out->claims[i], text)) {
			free(text);
			return 0;
		}
	if ((error = ARRAY_GROW(out->claims, out->claims_alloc, out->nclaims + 1)) < 0) {
		free(text);
		return error;
	}
	out->claims[out->nclaims++] = text;
	return 0;
}

/* The claim's version and the package's name the same version (in its ecosystem's terms). */
static bool same_version(enum deps_ecosystem eco, struct botcommit_span claim, const char *version)
{
	struct version a, b;
	char spec[DEPS_SPEC_MAX + 1];
	size_t n = (size_t)(claim.end - claim.p);

	if (!version || n > DEPS_SPEC_MAX)
		return false;
	memcpy(spec, claim.p, n);
	spec[n] = '\0';
	if (!version_parse(&a, eco, spec) || !version_parse(&b, eco, version))
		return !strcmp(spec, version);
	return version_compare(&a, &b) == 0;
}

/*
 * A bot's "Bump X from A to B", held against what the manifests and lock
 * files show: nothing when they agree, a note on the package when they
 * disagree, a claim of the analysis when none of them moves X. The
 * message never adds a package.
 */
static int check_claim(struct analysis *a, const struct botcommit_bump *b)
{
	int nlen = (int)(b->name.end - b->name.p), flen = (int)(b->from.end - b->from.p);
	int tlen = (int)(b->to.end - b->to.p);
	struct deps_package *p = NULL;
	struct buf text = BUF_INIT;
	char name[DEPS_SPEC_MAX + 1];
	size_t i;

	if (nlen > DEPS_SPEC_MAX)
		return 0;
	memcpy(name, b->name.p, (size_t)nlen);
	name[nlen] = '\0';
	for (i = 0; i < a->out->npackages && !p; i++)
		if (deps_same_name(a->out->packages[i].name, name))
			p = &a->out->packages[i];
	if (p && same_version(p->ecosystem, b->from, p->from_version) && same_version(p->ecosystem, b->to, p->to_version))
		return 0;
	if (p && p->claimed)
		return 0;
	if (buf_printf(&text, "%.*s -> %.*s", flen, b->from.p, tlen, b->to.p) < 0)
		return error_nomem();
	if (p) {
		p->claimed = buf_detach(&text);
		return p->claimed ? 0 : error_nomem();
	}
	buf_clear(&text);
	if (buf_printf(&text, "the commit message says %s %.*s -> %.*s; no manifest or lock file of the change moves %s",
		       name, flen, b->from.p, tlen, b->to.p, name) < 0)
		return error_nomem();
	return claim_add(a->out, buf_detach(&text));
}

static int set_bot(struct deps_analysis *out, const char *bot)
{
	if (out->bot)
		return 0;
	return (out->bot = strdup(bot)) ? 0 : error_nomem();
}

static bool bot_branch(const char *branch, const char *bot)
{
	size_t n = strlen(bot);

	if (!strncmp(branch, "refs/heads/", 11))
		branch += 11;
	return !strncmp(branch, bot, n) && branch[n] == '/';
}

static int read_messages(struct analysis *a, const char *branch, const char *messages)
{
	const char *p, *end, *e;
	struct botcommit_bump b;
	int kind, error = 0;

	if (branch && bot_branch(branch, "dependabot"))
		error = set_bot(a->out, "dependabot");
	else if (branch && bot_branch(branch, "renovate"))
		error = set_bot(a->out, "renovate");
	if (!messages)
		return error;
	end = messages + strlen(messages);
	for (p = messages; !error && p < end; p = next_line(e, end)) {
		e = line_end(p, end);
		p = skip_blank(p, e);
		if ((kind = botcommit_dependabot(&b, p, e))) {
			if (!(error = set_bot(a->out, "dependabot")) && kind == 2)
				error = check_claim(a, &b);
		} else if (botcommit_renovate(p, e)) {
			error = set_bot(a->out, "renovate");
		}
	}
	return error;
}

/* ------------------------------------------------------------- breaking */

static const char *find_ci(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; (size_t)(end - p) >= n; p++)
		if (!strncasecmp(p, needle, n))
			return p;
	return NULL;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* name stands as a word of its own in [p, end) ("@types/express" does not name express). */
static bool names_package(const char *p, const char *end, const char *name)
{
	size_t n = strlen(name);
	const char *start = p, *hit;

	if (!n)
		return false;
	for (; (hit = find_ci(p, end, name)); p = hit + 1) {
		if (hit != start && (name_char(hit[-1]) || is_one_of(hit[-1], "./@")))
			continue;
		/* "lodash-es" and "lodash.merge" are other packages; "lodash." ends a sentence. */
		if (hit + n < end && (name_char(hit[n]) || (hit[n] == '.' && hit + n + 1 < end &&
							    isalnum((unsigned char)hit[n + 1]))))
			continue;
		return true;
	}
	return false;
}

static bool blank_line(const char *p, const char *e)
{
	return skip_blank(p, e) == e;
}

/*
 * Breaking: a major bump, or a paragraph of the messages that says
 * BREAKING (in capitals) or "breaking change" (any case) and names the package.
 */
static void mark_breaking(struct deps_analysis *out, const char *messages)
{
	const char *p, *e, *end, *start;
	size_t i;

	for (i = 0; i < out->npackages; i++)
		out->packages[i].breaking = out->packages[i].bump == BUMP_MAJOR;
	if (!messages)
		return;
	end = messages + strlen(messages);
	for (p = messages; p < end;) {
		while (p < end && blank_line(p, e = line_end(p, end)))
			p = next_line(e, end);
		for (start = p; p < end && !blank_line(p, e = line_end(p, end));)
			p = next_line(e, end);
		if (start >= p || (!memmem(start, (size_t)(p - start), "BREAKING", 8) &&
				   !find_ci(start, p, "breaking change")))
			continue;
		for (i = 0; i < out->npackages; i++)
			if (!out->packages[i].breaking && names_package(start, p, out->packages[i].name))
				out->packages[i].breaking = true;
	}
}

/* ----------------------------------------------------------- the analysis */

void deps_analysis_release(struct deps_analysis *analysis)
{
	size_t i;

	for (i = 0; i < analysis->npackages; i++)
		package_release(&analysis->packages[i]);
	free(analysis->packages);
	free(analysis->bot);
	free(analysis->reason);
	for (i = 0; i < analysis->nproblems; i++)
		free(analysis->problems[i]);
	free(analysis->problems);
	for (i = 0; i < analysis->nclaims; i++)
		free(analysis->claims[i]);
	free(analysis->claims);
	memset(analysis, 0, sizeof(*analysis));
}

int deps_analyze(struct deps_analysis *out, const struct deps_file *files, size_t nfiles,
		 const char *branch, const char *messages)
{
	struct analysis a = { out, 0 };
	enum deps_ecosystem eco;
	enum deps_file_kind kind;
	size_t i, known, manifests;
	int error = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nfiles; i++) {
		out->files++;
		if ((kind = deps_file_kind(files[i].path, &eco)) == DEPS_FILE_OTHER)
			continue;
		out->ecosystems |= 1u << eco;
		if (kind == DEPS_FILE_LOCK) {
			out->locks++;
			continue;
		}
		out->manifests++;
		if ((error = compare_manifest(&a, &files[i], eco)) < 0)
			goto done;
	}
	/* The lock files after every manifest: a package both move is one row. */
	for (i = 0, manifests = out->npackages; i < nfiles && !error; i++)
		if (deps_file_kind(files[i].path, &eco) == DEPS_FILE_LOCK && lock_file_known(files[i].path, &eco))
			error = compare_lock(&a, &files[i], eco, manifests);
	if (error < 0 || (error = read_messages(&a, branch, messages)) < 0)
		goto done;
	mark_breaking(out, messages);
	known = out->manifests + out->locks;
	out->dependency_only = out->files && (known == out->files || (out->bot && 2 * known > out->files));
	error = deps_confidence_compute(out);
done:
	if (error < 0)
		deps_analysis_release(out);
	return error;
}

/* ------------------------------------------------------------ confidence */

/* Phrases that make a reason: "a", "a and b", "a, b and c", "a, b, c and 2 more". */
static int phrase_add(struct strings *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int phrase_add(struct strings *list, const char *fmt, ...)
{
	struct buf text = BUF_INIT;
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = buf_vprintf(&text, fmt, ap);
	va_end(ap);
	if (error < 0)
		return error;
	return strings_take(list, buf_detach(&text));
}

#define REASON_NAMES 3

static int phrases_join(struct buf *out, const struct strings *list)
{
	size_t i, shown = list->count > REASON_NAMES ? REASON_NAMES : list->count;
	int error = 0;

	for (i = 0; i < shown && !error; i++)
		error = buf_printf(out, "%s%s",
				   !i ? "" : i + 1 == shown && shown == list->count ? " and " : ", ",
				   list->items[i]);
	if (!error && shown < list->count)
		error = buf_printf(out, " and %zu more", list->count - shown);
	return error;
}

/* Critical advisories first, then high ones, each "critical advisory GHSA-x in lodash". */
static int severe_phrases(struct strings *list, const struct deps_analysis *an)
{
	static const char *const levels[] = { "critical", "high" };
	const struct deps_advisory *adv;
	size_t l, i, k;
	int error = 0;

	for (l = 0; l < COUNT(levels); l++)
		for (i = 0; i < an->npackages; i++)
			for (k = 0; k < an->packages[i].nadvisories && !error; k++) {
				adv = &an->packages[i].advisories[k];
				if (adv->severity && !strcasecmp(adv->severity, levels[l]))
					error = phrase_add(list, "%s advisory %s in %s", levels[l],
							   adv->id ? adv->id : "(no id)", an->packages[i].name);
			}
	return error;
}

static int other_phrases(struct strings *majors, struct strings *advisories, const struct deps_analysis *an)
{
	const struct deps_advisory *adv;
	const char *sev;
	size_t i, k;
	int error = 0;

	for (i = 0; i < an->npackages && !error; i++)
		if (an->packages[i].bump == BUMP_MAJOR)
			error = phrase_add(majors, "%s", an->packages[i].name);
	for (i = 0; i < an->npackages; i++)
		for (k = 0; k < an->packages[i].nadvisories && !error; k++) {
			adv = &an->packages[i].advisories[k];
			sev = adv->severity && *adv->severity && strcasecmp(adv->severity, "unknown") ? adv->severity
												      : NULL;
			error = phrase_add(advisories, "%s%sadvisory %s in %s", sev ? sev : "", sev ? " " : "",
					   adv->id ? adv->id : "(no id)", an->packages[i].name);
		}
	return error;
}

/* Why the confidence is high: which bumps, and what could not be compared. */
static int high_reason(struct buf *out, const struct deps_analysis *an)
{
	struct strings unknown = STRINGS_INIT;
	size_t i, patch = 0, minor = 0;
	int error = 0;

	if (!an->npackages)
		return buf_puts(out, "no dependency changes");
	for (i = 0; i < an->npackages && !error; i++) {
		patch += an->packages[i].bump == BUMP_PATCH;
		minor += an->packages[i].bump == BUMP_MINOR;
		if (an->packages[i].bump == BUMP_UNKNOWN)
			error = phrase_add(&unknown, "%s", an->packages[i].name);
	}
	if (!error && patch + minor == an->npackages)
		error = buf_printf(out, "%s bump%s, no advisories",
				   patch && minor ? "patch and minor" : patch ? "patch" : "minor",
				   an->npackages > 1 ? "s" : "");
	else if (!error)
		error = buf_puts(out, "no major bumps, no advisories");
	if (!error && unknown.count && !(error = buf_puts(out, "; versions of ")) &&
	    !(error = phrases_join(out, &unknown)))
		error = buf_puts(out, " not comparable");
	strings_free(&unknown);
	return error;
}

int deps_confidence_compute(struct deps_analysis *analysis)
{
	struct strings high = STRINGS_INIT, majors = STRINGS_INIT, advisories = STRINGS_INIT;
	struct buf reason = BUF_INIT;
	int error;

	if ((error = severe_phrases(&high, analysis)) < 0 ||
	    (error = other_phrases(&majors, &advisories, analysis)) < 0)
		goto done;
	if (high.count) {
		analysis->confidence = CONFIDENCE_LOW;
		error = phrases_join(&reason, &high);
	} else if (majors.count || advisories.count) {
		analysis->confidence = CONFIDENCE_MEDIUM;
		if (majors.count &&
		    !(error = buf_printf(&reason, "major version bump%s in ", majors.count > 1 ? "s" : "")))
			error = phrases_join(&reason, &majors);
		if (!error && advisories.count && !(error = buf_puts(&reason, majors.count ? "; " : "")))
			error = phrases_join(&reason, &advisories);
	} else {
		analysis->confidence = CONFIDENCE_HIGH;
		error = high_reason(&reason, analysis);
	}
	if (error < 0)
		goto done;
	free(analysis->reason);
	if (!(analysis->reason = buf_detach(&reason)))
		error = error_nomem();
done:
	buf_release(&reason);
	strings_free(&high);
	strings_free(&majors);
	strings_free(&advisories);
	return error;
}

bool deps_is_lock_file(const char *path)
{
	return deps_file_kind(path, NULL) == DEPS_FILE_LOCK;
}
