/*
 * libFuzzer target: the dependency analysis on arbitrary bytes. The input
 * is cut at its first NUL byte (none: the middle) into an old and a new
 * text, which go in as both sides of every kind of manifest, one kind at a
 * time and all together with lock files and a source file; the whole input
 * is also the branch and the commit messages, and each line of it a spec
 * for version_parse, version_compare and deps_classify in every ecosystem. Nothing may crash, read out of
 * bounds or leak, and what comes out must hold together.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deps.h"
#include "version.h"
#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const manifests[] = {
	"package.json", "go.mod", "Cargo.toml", "requirements.txt", "requirements/dev.txt", "pyproject.toml",
	"Gemfile",
};

static const char *const others[] = { "package-lock.json", "go.sum", "Cargo.lock", "poetry.lock", "uv.lock", "src/main.c" };

static void check(const struct deps_analysis *an, size_t nfiles)
{
	struct buf out = BUF_INIT;
	size_t i;

	if (an->files != nfiles || an->manifests + an->locks > an->files || !an->reason)
		abort();
	if (an->bot && strcmp(an->bot, "dependabot") && strcmp(an->bot, "renovate"))
		abort();
	for (i = 0; i < an->npackages; i++) {
		const struct deps_package *p = &an->packages[i];

		if (!p->name || !p->manifest || (unsigned)p->ecosystem >= ECO_COUNT)
			abort();
		if ((p->bump == BUMP_ADDED && p->from) || (p->bump == BUMP_REMOVED && p->to))
			abort();
		if (p->bump == BUMP_MAJOR && !p->breaking)
			abort();
		if (p->downgrade && (!p->from_version || !p->to_version))
			abort();
		if (!(an->ecosystems & (1u << p->ecosystem)))
			abort();
	}
	if (deps_prompt_section(&out, an) != 0 || !out.ptr || (an->npackages && !strstr(out.ptr, "Merge confidence")))
		abort();
	buf_release(&out);
}

static void analyze(const struct deps_file *files, size_t n, const char *branch, const char *messages)
{
	struct deps_analysis an;
	int rc = deps_analyze(&an, files, n, branch, messages);

	if (rc == 0)
		check(&an, n);
	else if (rc != RL_ENOMEM)
		abort();
	deps_analysis_release(&an);
}

/* Each ecosystem's order must be one: a version equals itself, and a < b exactly when b > a. */
static void specs(const char *text)
{
	const char *p = text, *nl;
	char line[256], previous[256] = "";
	struct version a, b;
	size_t n;
	int eco;

	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		for (eco = 0; eco < ECO_COUNT; eco++) {
			if (version_parse(&a, eco, line)) {
				if (a.nparts == 0 || a.nparts > VERSION_PARTS_MAX || strlen(a.text) >= sizeof(a.text) ||
				    a.pre > strlen(a.text))
					abort();
				if (version_compare(&a, &a) != 0)
					abort();
				if (version_parse(&b, eco, previous) &&
				    (version_compare(&a, &b) > 0) != (version_compare(&b, &a) < 0))
					abort();
			}
			if ((unsigned)deps_classify(eco, previous, line) > BUMP_UNKNOWN)
				abort();
		}
		memcpy(previous, line, n + 1);
		if (!nl)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *cut = memchr(data, '\0', size);
	struct deps_file files[sizeof(manifests) / sizeof(*manifests) + sizeof(others) / sizeof(*others)];
	size_t old_len = cut ? (size_t)(cut - text) : size / 2, i, n = 0;
	const char *new_text = cut ? cut + 1 : text + old_len;
	size_t new_len = size - (size_t)(new_text - text);
	char *whole = malloc(size + 1);

	if (!whole)
		return 0;
	memcpy(whole, data, size);
	whole[size] = '\0';
	for (i = 0; i < sizeof(manifests) / sizeof(*manifests); i++) {
		files[n] = (struct deps_file){ .path = manifests[i], .old_text = text, .old_len = old_len, .new_text = new_text, .new_len = new_len };
		analyze(&files[n], 1, NULL, NULL);
		/* a new file and a deleted one */
		analyze(&(struct deps_file){ .path = manifests[i], .old_text = NULL, .old_len = 0, .new_text = new_text, .new_len = new_len }, 1, NULL, NULL);
		analyze(&(struct deps_file){ .path = manifests[i], .old_text = text, .old_len = old_len, .new_text = NULL, .new_len = 0 }, 1, NULL, NULL);
		n++;
	}
	for (i = 0; i < sizeof(others) / sizeof(*others); i++)
		files[n++] = (struct deps_file){ .path = others[i], .old_text = NULL, .old_len = 0, .new_text = NULL, .new_len = 0 };
	analyze(files, n, whole, whole);
	analyze(files + n - 5, 5, whole, whole);
	specs(whole);
	free(whole);
	return 0;
}
