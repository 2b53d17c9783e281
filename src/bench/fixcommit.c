/* Which commits fix a bug: the message classifier, bot authors, and what a path holds. */
#include "fixcommit.h"
#include "botcommit.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *const why_names[] = {
#define FIXCOMMIT_WHY_NAME(id, name) name,
	FIXCOMMIT_WHY_LIST(FIXCOMMIT_WHY_NAME)
#undef FIXCOMMIT_WHY_NAME
};

const char *fixcommit_why_name(enum fixcommit_why why)
{
	return (size_t)why < sizeof(why_names) / sizeof(why_names[0]) ? why_names[why] : "";
}

/* A span of the message. */
struct span {
	const char *p, *end;
};

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether the word [p, p + n) is w, case ignored. */
static bool word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && !strncasecmp(p, w, n);
}

static bool word_in(const char *p, size_t n, const char *const *words)
{
	for (; *words; words++)
		if (word_is(p, n, *words))
			return true;
	return false;
}

static const char *const fix_words[] = { "fix", "fixes", "fixed", "fixing", "bugfix", "bugfixes", "hotfix", NULL };
static const char *const bug_words[] = { "bug", "bugs", "buggy", NULL };
static const char *const regression_words[] = { "regression", "regressions", "regressed", NULL };
/* A fix of these is not a bug's. */
static const char *const style_words[] = {
	"typo", "typos", "spelling", "misspelling", "misspelled", "grammar", "wording", "docs", "doc",
	"documentation", "docstring", "docstrings", "comment", "comments", "changelog", "readme",
	"whitespace", "indentation", "formatting", "lint", "linting", "linter", "pep8", "flake8", "codespell",
	"typing", "mypy", "pyright", NULL,
};

/* What the subject's words say: the strongest reason, and whether it speaks of style. */
static enum fixcommit_why subject_words(struct span s, bool *style)
{
	enum fixcommit_why why = FIXCOMMIT_NONE;
	const char *p = s.p;

	*style = false;
	while (p < s.end) {
		const char *w = p;

		while (p < s.end && word_char(*p))
			p++;
		if (p > w) {
			size_t n = (size_t)(p - w);

			if (word_in(w, n, fix_words) && why == FIXCOMMIT_NONE)
				why = FIXCOMMIT_WORD;
			else if (word_in(w, n, bug_words) && (why == FIXCOMMIT_NONE || why == FIXCOMMIT_WORD))
				why = FIXCOMMIT_BUG;
			else if (word_in(w, n, regression_words))
				why = FIXCOMMIT_REGRESSION;
			else if (word_in(w, n, style_words))
				*style = true;
		} else {
			p++;
		}
	}
	return why;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* "#123" or "GH-123" at p. */
static bool issue_ref(const char *p, const char *end)
{
	if (p < end && *p == '#')
		p++;
	else if (end - p >= 3 && !strncasecmp(p, "gh-", 3))
		p += 3;
	else
		return false;
	return p < end && isdigit((unsigned char)*p);
}

static size_t hex_run(const char *p, const char *end)
{
	size_t n = 0;

	while (p + n < end && n < 41 && isxdigit((unsigned char)p[n]))
		n++;
	return n;
}

/*
 * A line of the message: "Fixes #12", "fixes: GH-3", "Closes #4, fixes #5"
 * (anywhere in it); "Fixes: 1a2b3c4d (\"subject\")", the kernel's trailer.
 */
static enum fixcommit_why line_refs(struct span l)
{
	const char *p = l.p;

	for (; l.end - p >= 5; p++) {
		const char *q;
		size_t n;

		if ((p > l.p && word_char(p[-1])) || strncasecmp(p, "fix", 3))
			continue;
		q = p + 3;
		if (l.end - q >= 2 && !strncasecmp(q, "es", 2))
			q += 2;
		else if (q < l.end && (*q == 'd' || *q == 'D' || *q == 's' || *q == 'S'))
			q++;
		else if (l.end - q >= 2 && !strncasecmp(q, "ed", 2))
			q += 2;
		if (q < l.end && word_char(*q))
			continue;
		if (q < l.end && *q == ':')
			q++;
		q = skip_space(q, l.end);
		if (issue_ref(q, l.end))
			return FIXCOMMIT_ISSUE;
		n = hex_run(q, l.end);
		if (p == l.p && n >= 8 && n <= 40 && (q + n == l.end || q[n] == ' ' || q[n] == '('))
			return FIXCOMMIT_FIXES_TAG;
	}
	return FIXCOMMIT_NONE;
}

static struct span line_at(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return (struct span){ p, nl ? nl : end };
}

/* "This reverts commit <id>." in the body: the id kept. */
static bool reverts_line(struct fixcommit *out, struct span l)
{
	static const char lead[] = "This reverts commit ";
	const char *p = skip_space(l.p, l.end);
	size_t n;

	if ((size_t)(l.end - p) < sizeof(lead) - 1 || strncasecmp(p, lead, sizeof(lead) - 1))
		return false;
	p += sizeof(lead) - 1;
	n = hex_run(p, l.end);
	if (n < 7 || n > 40)
		return false;
	memcpy(out->reverts, p, n);
	out->reverts[n] = '\0';
	return true;
}

static bool starts_with(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(s.end - s.p) >= n && !strncasecmp(s.p, prefix, n);
}

static bool bot_subject(struct span s)
{
	struct botcommit_bump bump;

	return botcommit_dependabot(&bump, s.p, s.end) > 0 || botcommit_renovate(s.p, s.end);
}

void fixcommit_classify(struct fixcommit *out, const char *message, size_t len)
{
	const char *end = message + (len > FIXCOMMIT_SCAN ? FIXCOMMIT_SCAN : len), *p;
	struct span subject;
	bool style = false, revert;

	memset(out, 0, sizeof(*out));
	if (!message)
		return;
	subject = line_at(skip_space(message, end), end);
	revert = starts_with(subject, "Revert \"") || starts_with(subject, "Revert '");
	out->why = subject_words(subject, &style);
	for (p = message; p < end;) {
		struct span l = line_at(p, end);
		enum fixcommit_why ref = line_refs(l);

		if (reverts_line(out, l))
			revert = true;
		if (ref != FIXCOMMIT_NONE && (out->why == FIXCOMMIT_NONE || out->why == FIXCOMMIT_WORD))
			out->why = ref;
		p = l.end + (l.end < end);
	}
	if (revert) {
		out->why = FIXCOMMIT_REVERT;
		if (starts_with(subject, "Revert \"Revert") || starts_with(subject, "Revert 'Revert"))
			out->skip = "a revert of a revert (the change comes back)";
		return;
	}
	if (out->why != FIXCOMMIT_NONE && bot_subject(subject))
		out->skip = "a dependency bot's update";
	else if (out->why != FIXCOMMIT_NONE && style)
		out->skip = "a typo, docs or style fix";
}

static bool contains_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; s && *s; s++)
		if (!strncasecmp(s, needle, n))
			return true;
	return false;
}

bool fixcommit_bot(const char *name, const char *email)
{
	static const char *const bots[] = {
		"[bot]", "dependabot", "renovate", "pre-commit-ci", "pre-commit.ci", "greenkeeper", "snyk-bot",
		"github-actions", "mergify", "allcontributors", "imgbot", "weblate", NULL,
	};
	size_t i;

	for (i = 0; bots[i]; i++)
		if (contains_ci(name, bots[i]) || contains_ci(email, bots[i]))
			return true;
	return false;
}

/* Whether a folder of path (not its last part) is one of names. */
static bool under(const char *path, const char *const *names)
{
	const char *p = path, *slash;

	while ((slash = strchr(p, '/'))) {
		if (word_in(p, (size_t)(slash - p), names))
			return true;
		p = slash + 1;
	}
	return false;
}

static bool base_matches(const char *base, const char *const *prefixes, const char *const *infixes)
{
	size_t i;

	for (i = 0; prefixes[i]; i++)
		if (!strncasecmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	for (i = 0; infixes[i]; i++)
		if (contains_ci(base, infixes[i]))
			return true;
	return false;
}

enum fixcommit_path fixcommit_path_kind(const char *path)
{
	static const char *const test_dirs[] = { "test", "tests", "spec", "specs", "__tests__", "testing", "t", NULL };
	static const char *const test_prefixes[] = { "test_", "conftest.py", NULL };
	static const char *const test_infixes[] = { "_test.", "_tests.", ".test.", ".spec.", "Test.java", NULL };
	static const char *const doc_dirs[] = { "doc", "docs", "documentation", "man", NULL };
	/* Without an extension: README, CHANGES, ... */
	static const char *const doc_prefixes[] = { "readme", "changes", "changelog", "news", "authors",
						    "license", "copying", "contributing", NULL };
	static const char *const doc_exts[] = { ".md", ".rst", ".txt", ".adoc", ".asciidoc", ".html",
						".markdown", ".1", ".3", ".5", ".7", ".pod", ".texi", NULL };
	static const char *const none[] = { NULL };
	static const char *const config_dirs[] = { ".github", ".circleci", ".gitlab", ".devcontainer", ".azure-pipelines", NULL };
	static const char *const config_exts[] = { ".lock", ".toml", ".yaml", ".yml", ".json", ".cfg", ".ini", ".xml",
						   ".csv", ".svg", ".png", ".jpg", ".gif", ".ico", ".sum", ".mod",
						   ".editorconfig", ".gitignore", ".gitattributes", NULL };
	const char *base = strrchr(path, '/'), *dot;
	size_t i;

	base = base ? base + 1 : path;
	if (under(path, test_dirs) || base_matches(base, test_prefixes, test_infixes))
		return PATH_TEST;
	dot = strrchr(base, '.');
	if (under(path, doc_dirs) || (!dot && base_matches(base, doc_prefixes, none)))
		return PATH_DOC;
	if (dot)
		for (i = 0; doc_exts[i]; i++)
			if (!strcasecmp(dot, doc_exts[i]))
				return PATH_DOC;
	if (under(path, config_dirs) || *base == '.')
		return PATH_CONFIG;
	if (dot)
		for (i = 0; config_exts[i]; i++)
			if (!strcasecmp(dot, config_exts[i]))
				return PATH_CONFIG;
	return PATH_CODE;
}
