/*
 * Dependency bots' commit lines. Only the shapes their templates produce
 * are taken, so that a person's "Update README" or "Bump version to 7.1.0"
 * is not a bot's: a Renovate line ends at its version or digest (and the
 * suffixes Renovate adds), a Dependabot line names its versions with
 * "from A to B" or has one of its fixed phrasings.
 */
#include "botcommit.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/*
 * Where the line [p, end) ends: at its first CR or LF, or end. A message's
 * lines may end in CRLF (GitHub keeps a pull request body's in a squash
 * merge's message: "Updates `watchdog` from 5.0.3 to 6.0.0\r\n") or in a
 * lone CR, and a caller that splits at LF leaves the CR in the line.
 */
static const char *line_stop(const char *p, const char *end)
{
	while (p < end && *p != '\r' && *p != '\n')
		p++;
	return p;
}

static bool starts(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && !strncasecmp(p, word, n);
}

static const char *find_ci(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; (size_t)(end - p) >= n; p++)
		if (!strncasecmp(p, needle, n))
			return p;
	return NULL;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool type_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Past a conventional type ("chore(deps): ", "docker-compose(deps): ", "chore(deps) "), when there is one. */
static const char *skip_type(const char *p, const char *end)
{
	const char *q = p;
	bool scope = false;

	if (p >= end || !isalpha((unsigned char)*p))
		return p;
	while (q < end && type_char(*q))
		q++;
	if (q < end && *q == '(') {
		if (!(q = memchr(q, ')', (size_t)(end - q))))
			return p;
		q++;
		scope = true;
	}
	if (q < end && *q == '!')
		q++;
	if (q < end && *q == ':')
		return skip_blank(q + 1, end);
	/* Renovate's commitMessagePrefix "chore(deps)" gives no colon. */
	if (scope && q < end && *q == ' ')
		return skip_blank(q, end);
	return p;
}

/* Past every prefix a bot puts before its words. */
static const char *skip_prefix(const char *p, const char *end)
{
	static const char gitmoji[] = "\xe2\xac\x86\xef\xb8\x8f", lock[] = "\xf0\x9f\x94\x92";

	if (starts(p, end, gitmoji)) {
		p = skip_blank(p + sizeof(gitmoji) - 1, end);
		if (starts(p, end, lock))
			p = skip_blank(p + sizeof(lock) - 1, end);
	}
	p = skip_type(p, end);
	if (starts(p, end, "[security] "))
		p = skip_blank(p + 11, end);
	return p;
}

/* A word: to the next space ("4.17.21", and "4.17.21." at a sentence's end). */
static struct botcommit_span word_at(const char *p, const char *end)
{
	struct botcommit_span w = { p, p };

	while (w.end < end && !isspace((unsigned char)*w.end))
		w.end++;
	if (w.end - w.p > 1 && w.end[-1] == '.')
		w.end--;
	return w;
}

static bool operator_only(struct botcommit_span w)
{
	const char *p;

	for (p = w.p; p < w.end; p++)
		if (!strchr("<>=~^!", *p))
			return false;
	return w.p < w.end;
}

/* A version or a requirement: "4.17.21", "~> 1.50" (an operator alone takes the next word). */
static struct botcommit_span spec_at(const char *p, const char *end)
{
	struct botcommit_span w = word_at(p, end), next;

	if (operator_only(w) && w.end < end && *w.end == ' ') {
		next = word_at(w.end + 1, end);
		if (next.p < next.end)
			w.end = next.end;
	}
	return w;
}

static const char *past_dots(const char *p, const char *end)
{
	while (p < end && *p == '.')
		p++;
	return p;
}

static bool only_suffixes(const char *p, const char *end);

/*
 * " from A to B" after a package's name, and what Dependabot may put after
 * it: " in /dir", " in the G group", " across N directories", " (via audit
 * fix)", " (#123)", or the end of a body's sentence; nothing else ("... to
 * 1.44.1 and fix offenses" is a person's).
 */
static bool from_to(const char *p, const char *end, struct botcommit_bump *b)
{
	if (!starts(p, end, " from "))
		return false;
	b->from = spec_at(p + 6, end);
	p = past_dots(b->from.end, end);
	if (b->from.p == b->from.end || !starts(p, end, " to "))
		return false;
	b->to = spec_at(p + 4, end);
	p = b->dir.p = b->dir.end = b->to.end;
	/* A body's sentence ends there: "to 4.17.21. This release includes ..." */
	if (p < end && *p == '.')
		return b->to.p < b->to.end;
	if (starts(p, end, " in /")) {
		b->dir = word_at(p + 4, end);
		p = past_dots(b->dir.end, end);
	}
	if (starts(p, end, " in the ") || starts(p, end, " across "))
		return b->to.p < b->to.end;
	return b->to.p < b->to.end && only_suffixes(p, end);
}

/* What may follow a list of names: nothing, " in /dir", " in the G group". */
static bool names_end(const char *p, const char *end)
{
	p = skip_blank(p, end);
	return p == end || starts(p, end, "in /") || starts(p, end, "in the ") || starts(p, end, "across ");
}

/* "X and Y", "X, Y and Z": Dependabot's list of the names a bump moves together. */
static bool name_list(const char *p, const char *end)
{
	struct botcommit_span w;
	bool and = false;

	for (;;) {
		w = word_at(p, end);
		if (w.p == w.end)
			return false;
		p = w.end;
		if (and)
			return names_end(p, end);
		if (w.end[-1] == ',' && w.end - w.p > 1) {
			p = skip_blank(p, end);
			continue;
		}
		if (!starts(p, end, " and "))
			return false;
		p += 5;
		and = true;
	}
}

/*
 * " in the G group" and what may follow it (" across N directories",
 * " (#123)"): a group of one dependency, whose versions only the body says
 * ("Bump watchdog in the major-versions group").
 */
static bool in_group(const char *p, const char *end)
{
	const char *group;

	if (!starts(p, end, " in the ") || !(group = find_ci(p + 8, end, " group")) || group == p + 8)
		return false;
	p = group + 6;
	return starts(p, end, " across ") || only_suffixes(p, end);
}

static int dependabot_bump(struct botcommit_bump *b, const char *p, const char *end)
{
	const char *q;

	if (starts(p, end, "the ") && find_ci(p, end, " group"))
		return 1;
	b->name = word_at(p, end);
	if (b->name.p == b->name.end)
		return 0;
	/* "bump X from A to B", "bump X dependency set from A to B" */
	q = b->name.end;
	if (starts(q, end, " dependency set"))
		q += 15;
	if (from_to(q, end, b))
		return 2;
	memset(&b->from, 0, sizeof(b->from));
	if (starts(q, end, " in /") || starts(q, end, " across ") || in_group(q, end) || name_list(p, end))
		return 1;
	return 0;
}

/* "update X requirement from A to B", "update requirements for X[ and Y]" */
static int dependabot_requirement(struct botcommit_bump *b, const char *p, const char *end)
{
	if (starts(p, end, "requirements for "))
		return 1;
	b->name = word_at(p, end);
	if (b->name.p == b->name.end || !starts(b->name.end, end, " requirement "))
		return 0;
	if (from_to(b->name.end + 12, end, b))
		return 2;
	/* "to ~> 2.0" with no old requirement */
	return starts(b->name.end + 12, end, " to ") ? 1 : 0;
}

int botcommit_dependabot(struct botcommit_bump *b, const char *p, const char *end)
{
	const char *q;

	memset(b, 0, sizeof(*b));
	end = line_stop(p, end);
	/* The metadata block every Dependabot message ends with, after "---" (read as a type, else). */
	if (starts(p, end, "updated-dependencies:") && skip_blank(p + 21, end) == end)
		return 1;
	p = skip_prefix(p, end);
	if (starts(p, end, "bump "))
		return dependabot_bump(b, p + 5, end);
	if (starts(p, end, "update ") && !starts(p, end, "update all "))
		return dependabot_requirement(b, p + 7, end);
	if (starts(p, end, "Updates the requirements on "))
		return 1;
	if (starts(p, end, "Bumps [")) {
		b->name.p = p + 7;
		if (!(q = memchr(b->name.p, ']', (size_t)(end - b->name.p))))
			return 0;
		b->name.end = q++;
		if (q < end && *q == '(' && (q = memchr(q, ')', (size_t)(end - q))))
			q++;
		return q && b->name.p < b->name.end && from_to(q, end, b) ? 2 : 0;
	}
	if (starts(p, end, "Updates `")) {
		b->name.p = p + 9;
		if (!(q = memchr(b->name.p, '`', (size_t)(end - b->name.p))))
			return 0;
		b->name.end = q;
		return b->name.p < b->name.end && from_to(q + 1, end, b) ? 2 : 0;
	}
	return 0;
}

/* ---------------------------------------------------------------- Renovate */

/* A short digest: 7 to 40 hexadecimal digits, a letter among them (or 7 digits: Renovate's newDigestShort). */
static bool digest(struct botcommit_span w)
{
	size_t n = (size_t)(w.end - w.p), letters = 0;
	const char *p;

	if (n < 7 || n > 40)
		return false;
	for (p = w.p; p < w.end; p++) {
		if (!isxdigit((unsigned char)*p))
			return false;
		letters += isalpha((unsigned char)*p) != 0;
	}
	return letters || n == 7;
}

/*
 * What Renovate writes after "to": prettyNewVersion and prettyNewMajor
 * ("v4", "v1.2.3", "v3.13-alpine"), a range as written ("^1.2", "~> 1.2",
 * ">= 2"), or a digest. A bare "1.2.3" is a person's ("Update bundler to
 * 4.0.12"), not Renovate's.
 */
static bool renovate_version(struct botcommit_span w)
{
	const char *p = w.p;

	if (digest(w))
		return true;
	if (p < w.end && (*p == 'v' || *p == 'V'))
		return p + 1 < w.end && isdigit((unsigned char)p[1]);
	while (p < w.end && strchr("^~<>= ", *p))
		p++;
	return p > w.p && (p == w.end || isdigit((unsigned char)*p));
}

/* Renovate's suffixes: " (main)", " (#123)", " [SECURITY]", " (major)", each any number of times. */
static bool only_suffixes(const char *p, const char *end)
{
	const char *close;

	for (;;) {
		p = skip_blank(p, end);
		if (p == end)
			return true;
		if (*p != '(' && *p != '[')
			return false;
		if (!(close = memchr(p, *p == '(' ? ')' : ']', (size_t)(end - p))))
			return false;
		p = close + 1;
	}
}

/* Renovate's topics that name their kind (commitMessageTopic of its managers and datasources). */
static const char *const kind_prefixes[] = {
	"dependency ", "module ", "rust crate ", "helm release ", "helm chart ", "helm values ", "bundle ",
	"builder ", "buildpack ", "buildkite plugin ", "resource ", "vendir ", "pre-commit hook ", "terraform ",
	"terragrunt dependency ", "tflint plugin ", "homebrew formula ", "plugin ",
};
static const char *const kind_suffixes[] = {
	" action", " digest", " docker tag", " tool constraint", " constraint", " monorepo", " packages",
};
static const char *const kind_topics[] = {
	"node.js", "python", "yarn", "gradle", "rust", "nix", "go module directive", "go toolchain directive",
	"batect", "pnpm", "npm",
};

static bool kind_topic(const char *p, const char *end)
{
	size_t i, n;

	for (i = 0; i < sizeof(kind_prefixes) / sizeof(*kind_prefixes); i++)
		if (starts(p, end, kind_prefixes[i]))
			return true;
	for (i = 0; i < sizeof(kind_suffixes) / sizeof(*kind_suffixes); i++) {
		n = strlen(kind_suffixes[i]);
		if ((size_t)(end - p) > n && starts(end - n, end, kind_suffixes[i]))
			return true;
	}
	for (i = 0; i < sizeof(kind_topics) / sizeof(*kind_topics); i++)
		if ((size_t)(end - p) == strlen(kind_topics[i]) && starts(p, end, kind_topics[i]))
			return true;
	return false;
}

/*
 * "<topic> to <version>[ suffixes]": the last " to " that ends the line so,
 * with a topic before it. A bare number ("to 1.2", Cargo's range) only
 * after a topic that names its kind ("Rust crate X"); Renovate's first
 * template's "dependency X to version 1.2.3" too. A group without a
 * version: "X monorepo", "X packages".
 */
static bool topic_to_version(const char *p, const char *end)
{
	const char *to = NULL, *hit;
	struct botcommit_span w;

	for (hit = p; (hit = find_ci(hit, end, " to ")); hit++)
		to = hit;
	if (to && to > p) {
		w = spec_at(to + 4, end);
		if (starts(p, end, "dependency ") && starts(w.p, end, "version ")) {
			w = word_at(w.end + 1, end);
			if (w.p < w.end && isdigit((unsigned char)*w.p) && only_suffixes(w.end, end))
				return true;
		}
		if ((renovate_version(w) || (w.p < w.end && isdigit((unsigned char)*w.p) && kind_topic(p, to))) &&
		    only_suffixes(w.end, end))
			return true;
	}
	for (hit = p; hit < end && !isspace((unsigned char)*hit); hit++)
		;
	if (hit == p)
		return false;
	if (starts(hit, end, " monorepo"))
		return only_suffixes(hit + 9, end);
	if (starts(hit, end, " packages"))
		return only_suffixes(hit + 9, end);
	return false;
}

/* "Replace dependency X with Y v2": a version after the new name. */
static bool replacement(const char *p, const char *end)
{
	const char *with = find_ci(p, end, " with ");
	struct botcommit_span name, w;

	if (!with)
		return false;
	name = word_at(with + 6, end);
	if (name.p == name.end || name.end >= end)
		return false;
	w = spec_at(name.end + 1, end);
	return renovate_version(w) && only_suffixes(w.end, end);
}

bool botcommit_renovate(const char *p, const char *end)
{
	end = line_stop(p, end);
	p = skip_prefix(p, end);
	if (starts(p, end, "lock file maintenance") || starts(p, end, "pin dependencies"))
		return only_suffixes(p + (starts(p, end, "pin") ? 16 : 21), end);
	if (starts(p, end, "update all ") && find_ci(p, end, "dependencies"))
		return true;
	if (starts(p, end, "replace "))
		return replacement(p + 8, end);
	if (starts(p, end, "update "))
		return topic_to_version(p + 7, end);
	if (starts(p, end, "pin "))
		return topic_to_version(p + 4, end);
	if (starts(p, end, "roll back "))
		return topic_to_version(p + 10, end);
	return false;
}
