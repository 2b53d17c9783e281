/*
 * A lock file's side read into its packages (lock.h): which reader, the
 * bounds every side is held to before a reader sees it, the packages kept
 * sorted by key for the two sides to be matched, and the way from the
 * direct packages to each transitive one.
 */
#include "lock_internal.h"
#include "array.h"
#include "deps_manifest.h"
#include "status.h"
#include "utf8.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum lock_format { F_NPM, F_YARN, F_PNPM, F_BUN, F_PYTHON, F_CARGO, F_GOSUM, F_GEMFILE, F_COMPOSER };

static const struct {
	const char *name;
	enum deps_ecosystem eco;
	enum lock_format format;
	const char *manifest;   /* the manifest that names the direct packages, when the lock file does not */
} lock_files[] = {
	{ "package-lock.json", ECO_NPM, F_NPM, "package.json" },
	{ "npm-shrinkwrap.json", ECO_NPM, F_NPM, "package.json" },
	{ "yarn.lock", ECO_NPM, F_YARN, "package.json" },
	{ "pnpm-lock.yaml", ECO_NPM, F_PNPM, NULL },
	{ "bun.lock", ECO_NPM, F_BUN, NULL },
	{ "poetry.lock", ECO_PIP, F_PYTHON, "pyproject.toml" },
	{ "uv.lock", ECO_PIP, F_PYTHON, NULL },
	{ "pdm.lock", ECO_PIP, F_PYTHON, "pyproject.toml" },
	{ "Pipfile.lock", ECO_PIP, F_PYTHON, "Pipfile" },
	{ "Cargo.lock", ECO_CARGO, F_CARGO, NULL },
	{ "go.sum", ECO_GO, F_GOSUM, "go.mod" },
	{ "Gemfile.lock", ECO_RUBYGEMS, F_GEMFILE, NULL },
	{ "gems.locked", ECO_RUBYGEMS, F_GEMFILE, NULL },
	{ "composer.lock", ECO_COMPOSER, F_COMPOSER, "composer.json" },
};

static int lock_file_index(const char *path)
{
	const char *base = base_name(path);
	size_t i;

	for (i = 0; i < COUNT(lock_files); i++)
		if (!strcmp(base, lock_files[i].name))
			return (int)i;
	return -1;
}

bool lock_file_known(const char *path, enum deps_ecosystem *eco)
{
	int i = path ? lock_file_index(path) : -1;

	if (i >= 0 && eco)
		*eco = lock_files[i].eco;
	return i >= 0;
}

const char *lock_manifest_name(const char *path)
{
	int i = lock_file_index(path);

	return i >= 0 ? lock_files[i].manifest : NULL;
}

/* ------------------------------------------------------------- building */

void lock_init(struct lock *lock, enum deps_ecosystem eco)
{
	memset(lock, 0, sizeof(*lock));
	lock->eco = eco;
	arena_init(&lock->arena, 256 * 1024);
}

void lock_release(struct lock *lock)
{
	arena_release(&lock->arena);
	free(lock->items);
	free(lock->edges);
	free(lock->pending);
	free(lock->rootkeys);
	memset(lock, 0, sizeof(*lock));
}

void lock_malformed(struct lock *lock, const char *fmt, ...)
{
	va_list ap;

	if (lock->malformed)
		return;
	va_start(ap, fmt);
	vsnprintf(lock->why, sizeof(lock->why), fmt, ap);
	va_end(ap);
	lock->malformed = true;
}

bool lock_failed(const struct lock *lock)
{
	return lock->error || lock->malformed;
}

static void nomem(struct lock *lock)
{
	if (!lock->error)
		lock->error = error_nomem();
}

const char *lock_key(struct lock *lock, const char *name, size_t len)
{
	char *key = arena_alloc(&lock->arena, len + 1, 1);
	size_t i;

	if (!key) {
		nomem(lock);
		return NULL;
	}
	if (lock->eco == ECO_PIP) {
		deps_pep503_into(key, name, len);
		return key;
	}
	/* Packagist's names are lower case; Composer matches them so. */
	for (i = 0; i < len; i++)
		key[i] = lock->eco == ECO_COMPOSER ? (char)tolower((unsigned char)name[i]) : name[i];
	key[len] = '\0';
	return key;
}

static bool spec_ok(struct lock *lock, const char *what, const char *s, size_t len)
{
	if (len > DEPS_SPEC_MAX) {
		lock_malformed(lock, "a %s longer than %d bytes (%.40s...)", what, DEPS_SPEC_MAX, s);
		return false;
	}
	return true;
}

size_t lock_add(struct lock *lock, const char *name, size_t nlen, const char *version, size_t vlen)
{
	struct lock_package *p;

	if (lock_failed(lock) || !spec_ok(lock, "package name", name, nlen))
		return SIZE_MAX;
	if (lock->n >= LOCK_PACKAGES_MAX) {
		lock_malformed(lock, "more than %d packages", LOCK_PACKAGES_MAX);
		return SIZE_MAX;
	}
	if (ARRAY_GROW(lock->items, lock->alloc, lock->n + 1) < 0) {
		nomem(lock);
		return SIZE_MAX;
	}
	p = &lock->items[lock->n];
	memset(p, 0, sizeof(*p));
	p->id = lock->n;
	if (!(p->name = arena_strndup(&lock->arena, name, nlen)) || !(p->key = lock_key(lock, name, nlen))) {
		nomem(lock);
		return SIZE_MAX;
	}
	lock->n++;
	if (version)
		lock_set_version(lock, lock->n - 1, version, vlen);
	return lock_failed(lock) ? SIZE_MAX : lock->n - 1;
}

void lock_set_version(struct lock *lock, size_t pkg, const char *version, size_t len)
{
	struct lock_package *p;

	if (pkg >= lock->n || lock_failed(lock) || lock->items[pkg].version)
		return;
	p = &lock->items[pkg];
	if (!spec_ok(lock, "version", version, len))
		return;
	if (!(p->version = arena_strndup(&lock->arena, version, len)))
		nomem(lock);
}

void lock_edge(struct lock *lock, size_t pkg, const char *name, size_t len)
{
	const char *key;

	if (pkg >= lock->n || lock_failed(lock) || !spec_ok(lock, "dependency name", name, len))
		return;
	if (lock->npending >= LOCK_EDGES_MAX) {
		lock_malformed(lock, "more than %d dependencies between packages", LOCK_EDGES_MAX);
		return;
	}
	if (ARRAY_GROW(lock->pending, lock->pending_alloc, lock->npending + 1) < 0 ||
	    !(key = lock_key(lock, name, len))) {
		nomem(lock);
		return;
	}
	lock->pending[lock->npending].from = lock->items[pkg].id;
	lock->pending[lock->npending++].key = key;
}

void lock_root(struct lock *lock, const char *name, size_t len)
{
	const char *key;

	if (lock_failed(lock) || !spec_ok(lock, "dependency name", name, len))
		return;
	if (lock->nroots >= LOCK_PACKAGES_MAX) {
		lock_malformed(lock, "more than %d direct dependencies", LOCK_PACKAGES_MAX);
		return;
	}
	if (ARRAY_GROW(lock->rootkeys, lock->roots_alloc, lock->nroots + 1) < 0 || !(key = lock_key(lock, name, len))) {
		nomem(lock);
		return;
	}
	lock->rootkeys[lock->nroots++] = key;
}

/* ------------------------------------------------------------ finishing */

static int by_key_version(const void *x, const void *y)
{
	const struct lock_package *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	if (!a->version || !b->version)
		return !a->version - !b->version;
	if ((c = strcmp(a->version, b->version)))
		return c;
	return (a->id > b->id) - (a->id < b->id);
}

static int by_string(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

size_t lock_find(const struct lock *lock, const char *key, size_t *first)
{
	size_t lo = 0, hi = lock->n, mid, end;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(lock->items[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < lock->n && !strcmp(lock->items[end].key, key); end++)
		;
	*first = lo;
	return end - lo;
}

static bool is_root(const struct lock *lock, const char *key)
{
	return lock->nroots && bsearch(&key, lock->rootkeys, lock->nroots, sizeof(*lock->rootkeys), by_string);
}

/* Each package's dependencies together, in the packages' sorted order (a counting sort of the edges). */
static int gather_edges(struct lock *lock)
{
	size_t *at = NULL, *next = NULL, i, e;
	int error = 0;

	free(lock->edges);
	lock->edges = NULL;
	lock->nedges = 0;
	if (!lock->npending)
		return 0;
	/* at[id]: the sorted position of the package read id-th, then where its next edge goes. */
	if (!(at = calloc(lock->n + 1, sizeof(*at))) || !(next = calloc(lock->n + 1, sizeof(*next))) ||
	    !(lock->edges = malloc(lock->npending * sizeof(*lock->edges)))) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < lock->n; i++)
		lock->items[i].nedges = 0;
	for (i = 0; i < lock->n; i++)
		at[lock->items[i].id] = i;
	for (e = 0; e < lock->npending; e++)
		lock->items[at[lock->pending[e].from]].nedges++;
	for (i = 0, e = 0; i < lock->n; e += lock->items[i++].nedges)
		next[i] = lock->items[i].edges = e;
	for (e = 0; e < lock->npending; e++)
		lock->edges[next[at[lock->pending[e].from]]++] = lock->pending[e].key;
	lock->nedges = lock->npending;
done:
	free(at);
	free(next);
	return error;
}

int lock_finish(struct lock *lock)
{
	size_t i;

	if (lock->error)
		return lock->error;
	if (lock->n)
		qsort(lock->items, lock->n, sizeof(*lock->items), by_key_version);
	if (lock->nroots) {
		qsort(lock->rootkeys, lock->nroots, sizeof(*lock->rootkeys), by_string);
		lock->roots = true;
	}
	for (i = 0; i < lock->n; i++)
		if (!lock->items[i].nested && is_root(lock, lock->items[i].key))
			lock->items[i].direct = true;
	if ((lock->error = gather_edges(lock)) < 0)
		return lock->error;
	return 0;
}

/* -------------------------------------------------------------- the way */

int lock_via(const char ***out, const struct lock *lock)
{
	const char **via = NULL;
	size_t *queue = NULL, head = 0, tail = 0, i, e, first, count, k;
	int error = 0;

	*out = NULL;
	if (!lock->n || !lock->nedges)
		return 0;
	if (!(via = calloc(lock->n, sizeof(*via))) || !(queue = malloc(lock->n * sizeof(*queue)))) {
		error = error_nomem();
		goto done;
	}
	/* The direct ones in key order: the first by name reaches a shared package first. */
	for (i = 0; i < lock->n; i++)
		if (lock->items[i].direct) {
			via[i] = lock->items[i].key;
			queue[tail++] = i;
		}
	while (head < tail) {
		const struct lock_package *p = &lock->items[queue[head]];
		const char *from = via[queue[head++]];

		for (e = p->edges; e < p->edges + p->nedges; e++)
			for (count = lock_find(lock, lock->edges[e], &first), k = first; k < first + count; k++)
				if (!via[k]) {
					via[k] = from;
					queue[tail++] = k;
				}
	}
	*out = via;
	via = NULL;
done:
	free(via);
	free(queue);
	return error;
}

/* ----------------------------------------------------------------- TOML */

struct toml_result_t *lock_toml_parse(struct lock *lock, const char *text, size_t len)
{
	struct toml_result_t *result;
	char why[sizeof(lock->why)];
	int error = deps_toml_parse(&result, text, len, why, sizeof(why));

	if (error < 0)
		nomem(lock);
	else if (error > 0)
		lock_malformed(lock, "%s", why);
	return result;
}

size_t lock_pep508_name(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i)
		return 0;
	while (i < len && (isalnum((unsigned char)s[i]) || is_one_of(s[i], "-_.")))
		i++;
	return i;
}

/* -------------------------------------------------------------- reading */

static size_t line_at(const char *text, const char *p)
{
	size_t line = 1;

	while ((text = memchr(text, '\n', (size_t)(p - text))))
		line++, text++;
	return line;
}

/* What every side must be before a reader sees it (see lock.h). */
static bool text_ok(struct lock *lock, const char *text, size_t len)
{
	const char *nul, *p = text;
	uint32_t cp;
	size_t n;

	if (len > LOCK_TEXT_MAX) {
		lock_malformed(lock, "larger than %d MiB (%zu bytes)", LOCK_TEXT_MAX / (1024 * 1024), len);
		return false;
	}
	if ((nul = memchr(text, '\0', len))) {
		lock_malformed(lock, "a NUL byte, line %zu", line_at(text, nul));
		return false;
	}
	if (!utf8_valid(text, len)) {
		while ((n = utf8_decode(&cp, p, (size_t)(text + len - p))))
			p += n;
		lock_malformed(lock, "not valid UTF-8, line %zu", line_at(text, p));
		return false;
	}
	return true;
}

void lock_read(struct lock *lock, const char *path, const char *text, size_t len)
{
	int i = lock_file_index(path);

	if (i < 0 || !text || !text_ok(lock, text, len))
		return;
	switch (lock_files[i].format) {
	case F_NPM: lock_read_npm(lock, text, len); break;
	case F_YARN: lock_read_yarn(lock, text, len); break;
	case F_PNPM: lock_read_pnpm(lock, text, len); break;
	case F_BUN: lock_read_bun(lock, text, len); break;
	case F_PYTHON: lock_read_python(lock, lock_files[i].name, text, len); break;
	case F_CARGO: lock_read_cargo(lock, text, len); break;
	case F_GOSUM: lock_read_gosum(lock, text, len); break;
	case F_GEMFILE: lock_read_gemfile(lock, text, len); break;
	case F_COMPOSER: lock_read_composer(lock, text, len); break;
	}
	if (!lock->malformed)
		lock_finish(lock);
}

void lock_read_manifest(struct lock *lock, const char *path, const char *text, size_t len)
{
	struct depmap map = { .n = 0 };
	size_t i;

	if (!text || lock_failed(lock))
		return;
	if (!strcmp(base_name(path), "Pipfile")) {
		lock_read_pipfile(lock, text, len);
		/* A Pipfile that cannot be read leaves the lock file as it is: which packages are direct is unknown. */
		if (lock->malformed) {
			lock->malformed = false;
			lock->nroots = 0;
		}
	} else {
		depmap_read(&map, path, lock->eco, text, len);
		for (i = 0; i < map.n && !map.malformed; i++)
			if (!map.items[i].indirect)
				lock_root(lock, map.items[i].name, strlen(map.items[i].name));
		if (map.error && !lock->error)
			lock->error = map.error;
		depmap_release(&map);
	}
	lock_finish(lock);
}
