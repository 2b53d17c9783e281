/*
 * Versions per ecosystem. A version is read once into its text and its
 * release numbers; the parts each ordering needs beyond them (SemVer's
 * pre-release, PEP 440's pre/post/dev/local, Gem::Version's segments) are
 * read again from the text when two are compared. The rules follow SemVer
 * 2.0.0 section 11, PEP 440 ("Summary of permitted suffixes and relative
 * ordering", as packaging's Version sorts), and Gem::Version#<=> with its
 * canonical segments.
 */
#include "version.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int sign(long v)
{
	return (v > 0) - (v < 0);
}

static int compare_long(long a, long b)
{
	return (a > b) - (a < b);
}

/* Digits at *pp as a number; false when there are none or too many to hold. */
static bool read_number(const char **pp, const char *end, long *out)
{
	const char *p = *pp;
	long n = 0;

	if (p >= end || !isdigit((unsigned char)*p))
		return false;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		if (n > (LONG_MAX - 9) / 10)
			return false;
		n = n * 10 + (*p - '0');
	}
	*pp = p;
	*out = n;
	return true;
}

static bool digit_at(const char *p, const char *end)
{
	return p < end && isdigit((unsigned char)*p);
}

/* "1.2.3" at *pp into out->part; false past VERSION_PARTS_MAX or a number too large. */
static bool read_release(struct version *out, const char **pp, const char *end)
{
	const char *p = *pp;

	out->nparts = 0;
	do {
		if (out->nparts == VERSION_PARTS_MAX || !read_number(&p, end, &out->part[out->nparts]))
			return false;
		out->nparts++;
	} while (p + 1 < end && *p == '.' && isdigit((unsigned char)p[1]) && ++p);
	*pp = p;
	return true;
}

static bool set_text(struct version *out, const char *s, size_t n)
{
	if (n >= sizeof(out->text))
		return false;
	memcpy(out->text, s, n);
	out->text[n] = '\0';
	return true;
}

/* ------------------------------------------------------------------ SemVer */

static bool is_wildcard(const char *p, const char *end)
{
	return p < end && (*p == 'x' || *p == 'X' || *p == '*') &&
	       (p + 1 == end || !isalnum((unsigned char)p[1]));
}

static bool prerelease_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '-';
}

/*
 * SemVer, read loosely as npm does: "4.x", "1.2", and the pre-releases
 * other ecosystems write ("1.0rc1", "7.1.0.beta1"); "1.0.post1" is its
 * release; build metadata is dropped. text is the numbers (at least three)
 * and "-" with the pre-release.
 */
static bool semver_read(struct version *out, const char *p, const char *end)
{
	const char *pre = NULL, *pend;
	char text[DEPS_SPEC_MAX + 1];
	size_t n = 0, i;
	int w;

	if (!read_release(out, &p, end))
		return false;
	if (p + 1 < end && *p == '.' && is_wildcard(p + 1, end))
		p = end;
	if (p + 1 < end && (*p == '-' || *p == '.') && isalnum((unsigned char)p[1]))
		pre = p + 1;
	else if (p < end && isalpha((unsigned char)*p))
		pre = p;
	if (pre && end - pre >= 4 && !strncasecmp(pre, "post", 4))
		pre = NULL;
	for (i = 0; i < (out->nparts > 3 ? out->nparts : 3); i++) {
		w = snprintf(text + n, sizeof(text) - n, "%s%ld", i ? "." : "", i < out->nparts ? out->part[i] : 0);
		if (w < 0 || (size_t)w >= sizeof(text) - n)
			return false;
		n += (size_t)w;
	}
	out->pre = n;
	if (pre) {
		for (pend = pre; pend < end && prerelease_char(*pend); pend++)
			;
		while (pend > pre && (pend[-1] == '.' || pend[-1] == '-'))
			pend--;
		if (pend > pre) {
			if ((size_t)(pend - pre) + 1 >= sizeof(text) - n)
				return false;
			text[n++] = '-';
			out->pre = n;
			memcpy(text + n, pre, (size_t)(pend - pre));
			n += (size_t)(pend - pre);
		}
	}
	return set_text(out, text, n);
}

static bool all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* Numeric identifiers by value (without overflow: Go's are timestamps), before alphanumeric ones. */
static int compare_identifier(const char *a, size_t alen, const char *b, size_t blen)
{
	bool anum = all_digits(a, alen), bnum = all_digits(b, blen);
	int c;

	if (anum != bnum)
		return anum ? -1 : 1;
	if (anum) {
		for (; alen > 1 && *a == '0'; a++, alen--)
			;
		for (; blen > 1 && *b == '0'; b++, blen--)
			;
		if (alen != blen)
			return alen < blen ? -1 : 1;
	}
	c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? sign(c) : sign((long)alen - (long)blen);
}

static int compare_prerelease(const char *a, const char *b)
{
	size_t alen, blen;
	int c;

	/* A release comes after its pre-releases. */
	if (!*a || !*b)
		return (!*a) - (!*b);
	while (*a && *b) {
		alen = strcspn(a, ".");
		blen = strcspn(b, ".");
		if ((c = compare_identifier(a, alen, b, blen)))
			return c;
		a += alen + (a[alen] == '.');
		b += blen + (b[blen] == '.');
	}
	return (*a != '\0') - (*b != '\0');
}

/* The release numbers, a missing one being 0. */
static int compare_release(const struct version *a, const struct version *b)
{
	size_t i, n = a->nparts > b->nparts ? a->nparts : b->nparts;
	int c;

	for (i = 0; i < n; i++)
		if ((c = compare_long(i < a->nparts ? a->part[i] : 0, i < b->nparts ? b->part[i] : 0)))
			return c;
	return 0;
}

static int semver_compare(const struct version *a, const struct version *b)
{
	int c = compare_release(a, b);

	return c ? c : compare_prerelease(a->text + a->pre, b->text + b->pre);
}

/* ---------------------------------------------------------------- PEP 440 */

struct pep440 {
	int pre;                        /* -1: none; 0 a, 1 b, 2 rc */
	long pre_n, post_n, dev_n;
	bool post, dev;
	const char *local, *local_end;  /* after "+", or NULL */
};

static bool pep440_sep(const char **pp, const char *end)
{
	if (*pp < end && (**pp == '.' || **pp == '-' || **pp == '_')) {
		(*pp)++;
		return true;
	}
	return false;
}

/* A word of words at *pp (case aside), the longest that matches; its index or -1. */
static int pep440_word(const char **pp, const char *end, const char *const *words, size_t n)
{
	size_t i, len, best = 0;
	int found = -1;

	for (i = 0; i < n; i++) {
		len = strlen(words[i]);
		if ((size_t)(end - *pp) >= len && !strncasecmp(*pp, words[i], len) && len > best) {
			best = len;
			found = (int)i;
		}
	}
	*pp += best;
	return found;
}

/* "[sep]word[sep][N]" at *pp: the word's index and N (0 when absent); *pp unmoved when there is none. */
static int pep440_suffix(const char **pp, const char *end, const char *const *words, size_t n, long *number)
{
	const char *p = *pp, *q;
	int word;

	pep440_sep(&p, end);
	if ((word = pep440_word(&p, end, words, n)) < 0)
		return -1;
	*number = 0;
	q = p;
	pep440_sep(&q, end);
	if (read_number(&q, end, number))
		p = q;
	*pp = p;
	return word;
}

static bool local_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

/* What follows the release: the whole of it must be PEP 440's, else the version is not one. */
static bool pep440_tail(struct pep440 *v, const char *p, const char *end)
{
	static const char *const pre[] = { "a", "alpha", "b", "beta", "rc", "c", "pre", "preview" };
	static const int pre_kind[] = { 0, 0, 1, 1, 2, 2, 2, 2 };
	static const char *const post[] = { "post", "rev", "r" };
	static const char *const dev[] = { "dev" };
	const char *q;
	int word;

	memset(v, 0, sizeof(*v));
	v->pre = -1;
	if ((word = pep440_suffix(&p, end, pre, sizeof(pre) / sizeof(*pre), &v->pre_n)) >= 0)
		v->pre = pre_kind[word];
	q = p + 1;
	if (p < end && *p == '-' && read_number(&q, end, &v->post_n)) {
		/* "1.0-1": a post release without the word. */
		v->post = true;
		p = q;
	} else if (pep440_suffix(&p, end, post, sizeof(post) / sizeof(*post), &v->post_n) >= 0) {
		v->post = true;
	}
	if (pep440_suffix(&p, end, dev, 1, &v->dev_n) >= 0)
		v->dev = true;
	if (p < end && *p == '+' && p + 1 < end && isalnum((unsigned char)p[1])) {
		for (v->local = ++p; p < end && local_char(*p); p++)
			;
		v->local_end = p;
		if (!isalnum((unsigned char)p[-1]))
			return false;
	}
	return p == end;
}

static bool pep440_read(struct version *out, const char *s, const char *end)
{
	const char *p = s, *bang;
	struct pep440 v;

	bang = memchr(s, '!', (size_t)(end - s));
	if (bang) {
		if (!read_number(&p, end, &out->epoch) || p != bang)
			return false;
		p++;
	}
	if (!read_release(out, &p, end))
		return false;
	/* "==1.2.*": the release the wildcard stands under. */
	if (end - p == 2 && p[0] == '.' && p[1] == '*')
		end = p;
	if (!pep440_tail(&v, p, end))
		return false;
	return set_text(out, s, (size_t)(end - s));
}

static int pep440_local_segment(const char *a, size_t alen, const char *b, size_t blen)
{
	bool anum = all_digits(a, alen), bnum = all_digits(b, blen);
	size_t i;

	/* Numbers after words; numbers by value, words case aside. */
	if (anum != bnum)
		return anum ? 1 : -1;
	if (anum)
		return compare_identifier(a, alen, b, blen);
	for (i = 0; i < alen && i < blen; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return tolower((unsigned char)a[i]) < tolower((unsigned char)b[i]) ? -1 : 1;
	return sign((long)alen - (long)blen);
}

static int pep440_local(const struct pep440 *a, const struct pep440 *b)
{
	const char *p = a->local, *q = b->local;
	size_t alen, blen;
	int c;

	if (!p || !q)
		return (p != NULL) - (q != NULL);
	while (p < a->local_end && q < b->local_end) {
		for (alen = 0; p + alen < a->local_end && isalnum((unsigned char)p[alen]); alen++)
			;
		for (blen = 0; q + blen < b->local_end && isalnum((unsigned char)q[blen]); blen++)
			;
		if ((c = pep440_local_segment(p, alen, q, blen)))
			return c;
		p += alen + (p + alen < a->local_end);
		q += blen + (q + blen < b->local_end);
	}
	return (p < a->local_end) - (q < b->local_end);
}

/* packaging's sort key past the release: pre (a dev release alone before all), post, dev, local. */
static int pep440_compare_tail(const struct pep440 *a, const struct pep440 *b)
{
	int arank = a->pre >= 0 ? 1 : !a->post && a->dev ? 0 : 2;
	int brank = b->pre >= 0 ? 1 : !b->post && b->dev ? 0 : 2;
	int c;

	if (arank != brank)
		return arank < brank ? -1 : 1;
	if (arank == 1 && ((c = compare_long(a->pre, b->pre)) || (c = compare_long(a->pre_n, b->pre_n))))
		return c;
	if (a->post != b->post)
		return a->post ? 1 : -1;
	if (a->post && (c = compare_long(a->post_n, b->post_n)))
		return c;
	if (a->dev != b->dev)
		return a->dev ? -1 : 1;
	if (a->dev && (c = compare_long(a->dev_n, b->dev_n)))
		return c;
	return pep440_local(a, b);
}

/* Past the epoch and release of a text already read. */
static const char *pep440_after_release(const char *p)
{
	const char *bang = strchr(p, '!');

	if (bang)
		p = bang + 1;
	for (; isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])); p++)
		;
	return p;
}

static int pep440_compare(const struct version *a, const struct version *b)
{
	struct pep440 x, y;
	int c;

	if ((c = compare_long(a->epoch, b->epoch)) || (c = compare_release(a, b)))
		return c;
	pep440_tail(&x, pep440_after_release(a->text), a->text + strlen(a->text));
	pep440_tail(&y, pep440_after_release(b->text), b->text + strlen(b->text));
	return pep440_compare_tail(&x, &y);
}

/* -------------------------------------------------------------- RubyGems */

/* Gem::Version's pattern: N(.alnum)*(-[alnum-]+(.[alnum-]+)*)? */
static bool gem_valid(const char *p, const char *end)
{
	const char *start;

	for (; p < end && (isalnum((unsigned char)*p) || *p == '.'); p++)
		if (*p == '.' && (p + 1 == end || !isalnum((unsigned char)p[1])))
			return false;
	if (p == end)
		return true;
	if (*p != '-' || p + 1 == end)
		return false;
	for (start = ++p; p < end; p++) {
		if (*p == '.' && (p == start || p[-1] == '.' || p + 1 == end))
			return false;
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
			return false;
	}
	return true;
}

static bool gem_read(struct version *out, const char *s, const char *end)
{
	const char *p = s;

	if (!read_release(out, &p, end) || !gem_valid(p, end))
		return false;
	return set_text(out, s, (size_t)(end - s));
}

struct gem_segment {
	const char *word;               /* NULL for a number */
	size_t len;
	long number;
};

#define GEM_SEGMENTS_MAX (DEPS_SPEC_MAX + 1)

/* The canonical segments: numbers and words ("-" as the word "pre"), trailing zeros of each half dropped. */
static size_t gem_segments(struct gem_segment *seg, const char *p)
{
	size_t n = 0, words, end;

	while (*p && n < GEM_SEGMENTS_MAX) {
		if (isdigit((unsigned char)*p)) {
			seg[n].word = NULL;
			if (!read_number(&p, p + strlen(p), &seg[n].number))
				seg[n].number = LONG_MAX;
			for (; isdigit((unsigned char)*p); p++)
				;
			n++;
		} else if (isalpha((unsigned char)*p)) {
			for (seg[n].word = p; isalpha((unsigned char)*p); p++)
				;
			seg[n].len = (size_t)(p - seg[n].word);
			seg[n++].number = 0;
		} else {
			if (*p == '-')
				seg[n++] = (struct gem_segment){ "pre", 3, 0 };
			p++;
		}
	}
	for (words = 0; words < n && !seg[words].word; words++)
		;
	for (end = words; end && seg[end - 1].number == 0; end--)
		;
	memmove(seg + end, seg + words, (n - words) * sizeof(*seg));
	n = end + (n - words);
	while (n > end && !seg[n - 1].word && seg[n - 1].number == 0)
		n--;
	return n;
}

static int gem_compare(const struct version *a, const struct version *b)
{
	struct gem_segment x[GEM_SEGMENTS_MAX], y[GEM_SEGMENTS_MAX];
	struct gem_segment zero = { NULL, 0, 0 };
	size_t nx = gem_segments(x, a->text), ny = gem_segments(y, b->text), i;
	const struct gem_segment *l, *r;
	int c;

	for (i = 0; i < nx || i < ny; i++) {
		l = i < nx ? &x[i] : &zero;
		r = i < ny ? &y[i] : &zero;
		/* A word (a pre-release) before any number. */
		if (!l->word != !r->word)
			return l->word ? -1 : 1;
		if (!l->word) {
			if ((c = compare_long(l->number, r->number)))
				return c;
			continue;
		}
		if ((c = memcmp(l->word, r->word, l->len < r->len ? l->len : r->len)))
			return sign(c);
		if (l->len != r->len)
			return l->len < r->len ? -1 : 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ specs */

bool version_read(struct version *out, enum deps_ecosystem eco, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	bool ok;

	memset(out, 0, sizeof(*out));
	out->eco = eco;
	if (end - p > 1 && (*p == 'v' || *p == 'V') && isdigit((unsigned char)p[1]))
		p++;
	if (len > DEPS_SPEC_MAX || !digit_at(p, end))
		ok = false;
	else if (eco == ECO_PIP)
		ok = pep440_read(out, p, end);
	else if (eco == ECO_RUBYGEMS)
		ok = gem_read(out, p, end);
	else
		ok = semver_read(out, p, end);
	if (!ok) {
		memset(out, 0, sizeof(*out));
		out->eco = eco;
	}
	return ok;
}

/* npm's aliases ("npm:name@^1.2") and pnpm's workspace protocol name a version after a prefix. */
static const char *skip_alias(const char *p)
{
	const char *at;

	if (!strncmp(p, "npm:", 4)) {
		at = strrchr(p + 4, '@');
		return at && at > p + 4 ? at + 1 : p + 4;
	}
	if (!strncmp(p, "workspace:", 10))
		return p + 10;
	return p;
}

static bool spec_space(char c)
{
	return c == ' ' || c == '\t';
}

/* SemVer's build metadata ends a word ("1.0.0+build"), not PEP 440's local version. */
static bool word_end(char c)
{
	return !c || strchr(" \t,|()", c);
}

bool version_parse(struct version *out, enum deps_ecosystem eco, const char *spec)
{
	struct version v;
	const char *p, *op, *word;
	bool found = false, upper = false;

	memset(out, 0, sizeof(*out));
	out->eco = eco;
	if (!spec)
		return false;
	for (p = skip_alias(spec);;) {
		while (*p && (strchr(" \t,()", *p) || (*p == '|' && p[1] != '|')))
			p++;
		/* Of alternatives, the first. */
		if (!*p || (p[0] == '|' && p[1] == '|'))
			break;
		/* "1.2.3 - 2.3.4": what follows the hyphen is the upper end. */
		if (*p == '-' && spec_space(p[1])) {
			upper = true;
			p++;
			continue;
		}
		for (op = p; *p && strchr("<>=!~^", *p); p++)
			;
		while (spec_space(*p))
			p++;
		for (word = p; !word_end(*p); p++)
			;
		if (upper || *op == '<' || *op == '!') {
			upper = false;
			continue;
		}
		/* A word that is no version ("x" of "2.0.0 | x") names nothing. */
		if (!version_read(&v, eco, word, (size_t)(p - word)))
			continue;
		if (!found || version_compare(&v, out) > 0)
			*out = v;
		found = true;
	}
	return found;
}

int version_compare(const struct version *a, const struct version *b)
{
	if (a->eco == ECO_PIP && b->eco == ECO_PIP)
		return pep440_compare(a, b);
	if (a->eco == ECO_RUBYGEMS && b->eco == ECO_RUBYGEMS)
		return gem_compare(a, b);
	return semver_compare(a, b);
}

/* The first non-zero of the first three components (3 when all are zero). */
static size_t first_nonzero(const struct version *v)
{
	size_t i;

	for (i = 0; i < 3 && i < v->nparts; i++)
		if (v->part[i])
			return i;
	return 3;
}

enum deps_bump version_distance(const struct version *a, const struct version *b)
{
	size_t n = a->nparts > b->nparts ? a->nparts : b->nparts, differ, nonzero;

	if (a->epoch != b->epoch)
		return BUMP_MAJOR;
	for (differ = 0; differ < n; differ++)
		if ((differ < a->nparts ? a->part[differ] : 0) != (differ < b->nparts ? b->part[differ] : 0))
			break;
	if (differ == n)
		return BUMP_PATCH;
	/* Below 1.0.0 the first non-zero component is the major one (npm's and Cargo's carets). */
	nonzero = first_nonzero(a) < first_nonzero(b) ? first_nonzero(a) : first_nonzero(b);
	if (differ < 3 && differ <= nonzero)
		return BUMP_MAJOR;
	return differ == 1 ? BUMP_MINOR : BUMP_PATCH;
}
