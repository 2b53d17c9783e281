#include "glob.h"
#include "glob_state.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "status.h"

/*
 * How it works: a pattern is compiled once (glob_new). Its braces are
 * expanded (glob_braces.c), then each alternative gets the anchoring rules
 * and is compiled to a few tokens that run as an NFA over the path. The NFA
 * keeps one flag per token, so a match costs at most tokens * path length
 * steps whatever the pattern: there is no backtracking to blow up on
 * "*a*a*a*a*b" and no recursion to blow the stack.
 *
 * Most patterns never need the NFA. An alternative that is one component
 * ("*.c", "test_*.py", "**" + "/tests/" + "**"), a literal path ("docs/api",
 * "vendor/" + "**") or everything ("**") is matched by comparing bytes with
 * the path's components, split once for a whole list; any other keeps the
 * NFA behind a check that the path holds its longest literal run. The
 * shortcuts give the NFA's answers: they are taken only where the tokens
 * say exactly that, with literals of well-formed UTF-8 (whose bytes
 * compare as the characters the NFA compares).
 */

/* -------------------------------------------------------------------------
 * Characters
 */

/*
 * Bytes that are not well formed UTF-8 stand for themselves above the
 * Unicode range, so two characters are equal exactly when their bytes are.
 */
#define CHAR_RAW 0x110000u

/*
 * The character at s (n > 0 bytes left) and its length in bytes. Decoding
 * lets '?' and "[éè]" take a whole "é" rather than half of it; overlong and
 * surrogate forms are refused so that no byte sequence but "/" reads as '/'.
 */
static uint32_t char_decode(const char *s, size_t n, size_t *len)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp, min;
	size_t need, i;

	*len = 1;
	if (u[0] < 0x80)
		return u[0];
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		need = 1;
		cp = u[0] & 0x1f;
		min = 0x80;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		need = 2;
		cp = u[0] & 0x0f;
		min = 0x800;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		need = 3;
		cp = u[0] & 0x07;
		min = 0x10000;
	} else {
		return CHAR_RAW + u[0];
	}
	if (n <= need)
		return CHAR_RAW + u[0];
	for (i = 1; i <= need; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return CHAR_RAW + u[0];
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return CHAR_RAW + u[0];
	*len = need + 1;
	return cp;
}

/* Columns in messages count characters, not bytes. */
static size_t text_column(const char *s, size_t pos)
{
	size_t i, col = 1;

	for (i = 0; i < pos; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			col++;
	return col;
}

/* -------------------------------------------------------------------------
 * Character classes: "[...]"
 */

/* ASCII only: the locale must not change what a pattern means. */
static bool is_upper(uint32_t c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_lower(uint32_t c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_digit(uint32_t c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(uint32_t c)
{
	return is_upper(c) || is_lower(c);
}

static bool is_alnum(uint32_t c)
{
	return is_alpha(c) || is_digit(c);
}

static bool is_blank(uint32_t c)
{
	return c == ' ' || c == '\t';
}

static bool is_cntrl(uint32_t c)
{
	return c < 0x20 || c == 0x7f;
}

static bool is_graph(uint32_t c)
{
	return c > 0x20 && c < 0x7f;
}

static bool is_print(uint32_t c)
{
	return c >= 0x20 && c < 0x7f;
}

static bool is_punct(uint32_t c)
{
	return is_graph(c) && !is_alnum(c);
}

static bool is_space(uint32_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_xdigit(uint32_t c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

typedef bool char_test(uint32_t c);

static const struct {
	const char *name;
	char_test *test;
} posix_classes[] = {
	{ "alnum", is_alnum }, { "alpha", is_alpha }, { "blank", is_blank },
	{ "cntrl", is_cntrl }, { "digit", is_digit }, { "graph", is_graph },
	{ "lower", is_lower }, { "print", is_print }, { "punct", is_punct },
	{ "space", is_space }, { "upper", is_upper }, { "xdigit", is_xdigit },
};

/* The test for "[:name:]", or NULL for a name nobody knows. */
static char_test *posix_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(posix_classes) / sizeof(posix_classes[0]); i++)
		if (strlen(posix_classes[i].name) == len &&
		    !memcmp(posix_classes[i].name, name, len))
			return posix_classes[i].test;
	return NULL;
}

/*
 * "[:name:]" at s[i] inside a class: the index just past it, or 0 when
 * s[i] starts no such item and '[' is an ordinary member. As in git's
 * wildmatch, "[:" reaches to the next ']' and is an item when a ':' comes
 * right before that ']' ("[:digit]" is not one, "[::]" is one named ""). An
 * unknown name is an item too, which makes the pattern malformed.
 */
static size_t class_posix_end(const char *s, size_t i, size_t n)
{
	const char *close;

	if (i + 1 >= n || s[i] != '[' || s[i + 1] != ':')
		return 0;
	close = memchr(s + i + 2, ']', n - i - 2);
	if (!close || close - s < (ptrdiff_t)(i + 3) || close[-1] != ':')
		return 0;
	return (size_t)(close - s) + 1;
}

/*
 * Where the class opened by s[i] == '[' is closed: the index of its ']',
 * or 0 when it never is (and the '[' is a literal). A ']' right after the
 * '[' or the negation is a member, as is anything escaped.
 */
size_t glob_class_end(const char *s, size_t i, size_t n)
{
	size_t j = i + 1, end;

	if (j < n && (s[j] == '!' || s[j] == '^'))
		j++;
	if (j < n && s[j] == ']')
		j++;
	while (j < n) {
		if (s[j] == ']')
			return j;
		if (s[j] == '\\' && j + 1 < n)
			j += 2;
		else if ((end = class_posix_end(s, j, n)))
			j = end;
		else
			j++;
	}
	return 0;
}

/* One member character of a class at set[*i], escapes resolved. */
static uint32_t class_char(const char *set, size_t n, size_t *i)
{
	uint32_t c;
	size_t len;

	if (set[*i] == '\\' && *i + 1 < n)
		(*i)++;
	c = char_decode(set + *i, n - *i, &len);
	*i += len;
	return c;
}

/* Whether c is in the class whose members (between the brackets) are set. */
static bool class_match(const char *set, size_t n, uint32_t c)
{
	char_test *test;
	bool negate = false, hit = false;
	size_t i = 0, end;
	uint32_t lo, hi;

	/* A class is within one path component, negated or not. */
	if (c == '/')
		return false;
	if (n && (set[0] == '!' || set[0] == '^')) {
		negate = true;
		i++;
	}
	while (i < n) {
		if ((end = class_posix_end(set, i, n))) {
			test = posix_find(set + i + 2, end - i - 4);
			hit |= test && test(c);
			i = end;
			continue;
		}
		lo = class_char(set, n, &i);
		if (i + 1 < n && set[i] == '-' && !class_posix_end(set, i + 1, n)) {
			i++;
			hi = class_char(set, n, &i);
			hit |= lo <= c && c <= hi;
		} else {
			hit |= lo == c;
		}
	}
	return hit != negate;
}

/* -------------------------------------------------------------------------
 * Malformed patterns: glob_check reports them and they match nothing, as in
 * git's wildmatch (a trailing backslash, a '[' never closed, an unknown
 * "[:name:]" such as "[:spaci:]" or "[::]")
 */

enum problem_kind {
	PROBLEM_NONE,
	PROBLEM_BACKSLASH,
	PROBLEM_BRACKET,
	PROBLEM_CLASS,
	PROBLEM_OPEN_BRACE,
	PROBLEM_CLOSE_BRACE,
};

/* The leftmost problem with a pattern, at a byte offset. */
struct problem {
	enum problem_kind kind;
	size_t pos;
	const char *name;	/* PROBLEM_CLASS: the unknown name */
	size_t name_len;
};

static void problem_note(struct problem *pb, enum problem_kind kind, size_t pos)
{
	if (pos >= pb->pos)
		return;
	pb->kind = kind;
	pb->pos = pos;
}

/* Unknown "[:name:]" in the class from s[i] ('[') to s[end] (']'). */
static void check_class(const char *s, size_t i, size_t end, struct problem *pb)
{
	size_t j = i + 1, next;

	if (s[j] == '!' || s[j] == '^')
		j++;
	if (s[j] == ']')
		j++;
	while (j < end) {
		if (s[j] == '\\') {
			j += 2;
			continue;
		}
		next = class_posix_end(s, j, end);
		if (!next) {
			j++;
			continue;
		}
		if (!posix_find(s + j + 2, next - j - 4)) {
			problem_note(pb, PROBLEM_CLASS, j);
			pb->name = s + j + 2;
			pb->name_len = next - j - 4;
			return;
		}
		j = next;
	}
}

/* The first problem with escapes and classes. */
static void check_syntax(const char *s, size_t n, struct problem *pb)
{
	size_t i, end;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\') {
			if (i + 1 == n)
				problem_note(pb, PROBLEM_BACKSLASH, i);
			i++;
		} else if (s[i] == '[') {
			end = glob_class_end(s, i, n);
			if (!end) {
				problem_note(pb, PROBLEM_BRACKET, i);
				return;
			}
			check_class(s, i, end, pb);
			if (pb->kind != PROBLEM_NONE)
				return;
			i = end;
		}
	}
}

/* -------------------------------------------------------------------------
 * One alternative: anchoring, tokens, and the NFA
 */

enum tok_kind {
	TOK_CHAR,	/* one literal character */
	TOK_ANY,	/* '?' */
	TOK_CLASS,	/* "[...]" */
	TOK_STAR,	/* '*': a run without '/' */
	TOK_GLOBSTAR,	/* "**" inside a component: any run, '/' included */
	/*
	 * "**" + "/" as a whole component: zero or more directories. It takes
	 * two states, one at a component boundary (where it may be skipped)
	 * and one inside a directory name (where it may not), so that "**" +
	 * "/x" matches "a/x" but not "ax".
	 */
	TOK_DIRSTAR,
	TOK_DIRNAME,
};

struct tok {
	enum tok_kind kind;
	uint32_t ch;		/* TOK_CHAR */
	const char *at;		/* TOK_CHAR: its bytes in the pattern, escape left out */
	size_t len;
	const char *set;	/* TOK_CLASS: the members, brackets excluded */
	size_t set_len;
};

/* Tokens for p (n bytes); toks has room for n + 2. */
static size_t alt_compile(const char *p, size_t n, bool anchored, struct tok *toks)
{
	size_t m = 0, i = 0, j, len;

	/* Unanchored is as if written after "**" + "/": at any depth. */
	if (!anchored) {
		toks[m++].kind = TOK_DIRSTAR;
		toks[m++].kind = TOK_DIRNAME;
	}
	while (i < n) {
		struct tok *t = &toks[m++];

		switch (p[i]) {
		case '*':
			for (j = i; j < n && p[j] == '*'; j++)
				;
			if (j - i == 1) {
				t->kind = TOK_STAR;
			} else if ((i == 0 || p[i - 1] == '/') && j < n && p[j] == '/') {
				t->kind = TOK_DIRSTAR;
				toks[m++].kind = TOK_DIRNAME;
				j++;
			} else {
				/* Whole trailing "/" + "**" is this too: all below. */
				t->kind = TOK_GLOBSTAR;
			}
			i = j;
			continue;
		case '?':
			t->kind = TOK_ANY;
			i++;
			continue;
		case '[':
			j = glob_class_end(p, i, n);
			if (!j)
				break;	/* never closed: malformed, not compiled */
			t->kind = TOK_CLASS;
			t->set = p + i + 1;
			t->set_len = j - i - 1;
			i = j + 1;
			continue;
		case '\\':
			/* A trailing backslash is malformed, never compiled. */
			if (i + 1 < n)
				i++;
			break;
		}
		t->kind = TOK_CHAR;
		t->ch = char_decode(p + i, n - i, &len);
		t->at = p + i;
		t->len = len;
		i += len;
	}
	return m;
}

/*
 * The NFA: a state is a token index (m: all matched). Only live states are
 * visited, kept in a list; mark[] says in which step a state was last put
 * in a list, so that no step has to clear anything.
 */
struct nfa {
	const struct tok *toks;
	size_t m;
	size_t *mark;		/* m + 1 */
	size_t *cur, *next;	/* m + 1 each */
	size_t ncur, nnext;
	size_t gen;
};

static void nfa_add(struct nfa *a, size_t state)
{
	if (a->mark[state] == a->gen)
		return;
	a->mark[state] = a->gen;
	a->next[a->nnext++] = state;
}

/* Follow the moves that take no character: past stars and "**" + "/". */
static void nfa_close(struct nfa *a)
{
	size_t j, s;

	for (j = 0; j < a->nnext; j++) {
		s = a->next[j];
		if (s == a->m)
			continue;
		if (a->toks[s].kind == TOK_STAR || a->toks[s].kind == TOK_GLOBSTAR)
			nfa_add(a, s + 1);
		else if (a->toks[s].kind == TOK_DIRSTAR)
			nfa_add(a, s + 2);
	}
}

/* Make next the current list. */
static void nfa_swap(struct nfa *a)
{
	size_t *swap = a->cur;

	a->cur = a->next;
	a->next = swap;
	a->ncur = a->nnext;
	a->nnext = 0;
	a->gen++;
}

/* The states after reading c from the current ones. */
static void nfa_step(struct nfa *a, uint32_t c)
{
	const struct tok *t;
	size_t j, s;

	for (j = 0; j < a->ncur; j++) {
		s = a->cur[j];
		if (s == a->m)
			continue;
		t = &a->toks[s];
		switch (t->kind) {
		case TOK_CHAR:
			if (t->ch == c)
				nfa_add(a, s + 1);
			break;
		case TOK_ANY:
			if (c != '/')
				nfa_add(a, s + 1);
			break;
		case TOK_CLASS:
			if (class_match(t->set, t->set_len, c))
				nfa_add(a, s + 1);
			break;
		case TOK_STAR:
			if (c != '/')
				nfa_add(a, s);
			break;
		case TOK_GLOBSTAR:
			nfa_add(a, s);
			break;
		case TOK_DIRSTAR:
			nfa_add(a, c == '/' ? s : s + 1);
			break;
		case TOK_DIRNAME:
			nfa_add(a, c == '/' ? s - 1 : s);
			break;
		}
	}
	nfa_close(a);
}

/*
 * Whether the tokens match the path or one of its leading directories
 * (gitignore: a matched directory takes everything below it); dir_only
 * (a trailing slash) allows only the directories.
 */
static bool nfa_run(struct nfa *a, const char *path, size_t n, bool dir_only)
{
	size_t t = 0, len;
	uint32_t c;

	memset(a->mark, 0, (a->m + 1) * sizeof(*a->mark));
	a->gen = 1;
	a->nnext = 0;
	nfa_add(a, 0);
	nfa_close(a);
	nfa_swap(a);
	for (;;) {
		/* The states in cur were marked in the step before gen. */
		bool done = a->mark[a->m] == a->gen - 1;

		if (done && ((t == n && !dir_only) || (t > 0 && t < n && path[t] == '/')))
			return true;
		if (t == n || !a->ncur)
			return false;
		c = char_decode(path + t, n - t, &len);
		nfa_step(a, c);
		nfa_swap(a);
		t += len;
	}
}

/* -------------------------------------------------------------------------
 * A compiled alternative
 */

enum alt_kind {
	ALT_NFA,	/* the general case: its tokens run as an NFA */
	ALT_ALL,	/* "**": every path */
	ALT_PATH,	/* a literal path from the root: "docs/api", "vendor/" + "**" */
	ALT_COMPONENT,	/* one component, the first or at any depth: "*.c", "test_*.py" */
};

/*
 * One brace-free alternative, compiled. ALT_COMPONENT compares a component
 * with pre, then (stars > 0) what lies between pre and suf holding mid
 * (stars == 2), then suf; ALT_PATH compares the path's start with pre.
 */
struct alt {
	enum alt_kind kind;
	bool dir_only;		/* a trailing slash: only a leading directory matches */
	bool any_depth;		/* ALT_COMPONENT: any component, not only the first */
	bool below;		/* ALT_PATH, ALT_COMPONENT: only when a '/' follows */
	bool slash;		/* that '/' is the pattern's ("x/" + "**"), not the directory rule's */
	int stars;		/* ALT_COMPONENT: 0 (the component is pre), 1 or 2 */
	const char *pre, *mid, *suf;	/* in lit */
	size_t pre_len, mid_len, suf_len;
	const char *need;	/* ALT_NFA: bytes every match holds (its longest literal run), or NULL */
	size_t need_len;
	struct tok *toks;	/* the tokens, in the same block as text and lit */
	size_t m;
	char *text;		/* the alternative, normalised: class tokens point into it */
	char *lit;
};

struct glob {
	struct alt *alts;
	size_t nalts, alloc;
};

struct glob_list {
	struct glob **globs;
	bool *exclude;		/* written with '!' */
	size_t count;
};

/*
 * A path split into components once, for every alternative of a list:
 * ends[k] is where component k ends (a '/' or n). A path of more components
 * than ends[] holds is left to the NFA (ncomp 0).
 */
#define PATH_COMPONENTS 64

struct path_view {
	const char *s;
	size_t n;
	size_t ncomp;
	size_t ends[PATH_COMPONENTS];
};

static void path_view_init(struct path_view *v, const char *path)
{
	const char *slash;
	size_t at = 0;

	v->s = path;
	v->n = strlen(path);
	v->ncomp = 0;
	for (;;) {
		if (v->ncomp == PATH_COMPONENTS) {
			v->ncomp = 0;
			return;
		}
		slash = memchr(path + at, '/', v->n - at);
		v->ends[v->ncomp++] = slash ? (size_t)(slash - path) : v->n;
		if (!slash)
			return;
		at = (size_t)(slash - path) + 1;
	}
}

/* Whether the tokens from..to are literal characters of well-formed UTF-8, '/' only when slash. */
static bool toks_literal(const struct tok *t, size_t from, size_t to, bool slash)
{
	size_t i;

	for (i = from; i < to; i++)
		if (t[i].kind != TOK_CHAR || t[i].ch >= CHAR_RAW || (!slash && t[i].ch == '/'))
			return false;
	return true;
}

/* The bytes of the literal tokens from..to appended at *end. */
static const char *toks_bytes(char **end, size_t *len, const struct tok *t, size_t from, size_t to)
{
	const char *start = *end;
	size_t i;

	for (i = from; i < to; i++) {
		memcpy(*end, t[i].at, t[i].len);
		*end += t[i].len;
	}
	*len = (size_t)(*end - start);
	return start;
}

/* "pre*suf" or "pre*mid*suf" over the tokens from..to: the stars' places, false for another shape. */
static bool toks_component(const struct tok *t, size_t from, size_t to, size_t star[2], int *stars)
{
	size_t i, at = from;

	*stars = 0;
	for (i = from; i <= to; i++) {
		if (i < to && t[i].kind != TOK_STAR)
			continue;
		if (!toks_literal(t, at, i, false))
			return false;
		if (i < to) {
			if (*stars == 2)
				return false;
			star[(*stars)++] = i;
		}
		at = i + 1;
	}
	return true;
}

/* The longest run of literal tokens, which every path the NFA matches holds. */
static void alt_need(struct alt *a, char **lit)
{
	size_t i, run = 0, best = 0, best_at = 0;

	for (i = 0; i < a->m; i++) {
		run = a->toks[i].kind == TOK_CHAR ? run + 1 : 0;
		if (run > best) {
			best = run;
			best_at = i + 1 - run;
		}
	}
	if (best)
		a->need = toks_bytes(lit, &a->need_len, a->toks, best_at, best_at + best);
}

/* The shortcut the tokens allow, if any (struct alt). */
static void alt_classify(struct alt *a)
{
	const struct tok *t = a->toks;
	size_t i = 0, end = a->m, star[2];
	char *lit = a->lit;

	a->kind = ALT_NFA;
	a->below = a->dir_only;
	if (end >= 2 && t[0].kind == TOK_DIRSTAR && t[1].kind == TOK_DIRNAME) {
		a->any_depth = true;
		i = 2;
	}
	if (!a->dir_only && end == i + 1 && t[i].kind == TOK_GLOBSTAR) {
		a->kind = ALT_ALL;
		return;
	}
	/* "x/" + "**": x followed by a '/', whatever comes after it. */
	if (!a->dir_only && end >= i + 3 && t[end - 1].kind == TOK_GLOBSTAR &&
	    t[end - 2].kind == TOK_CHAR && t[end - 2].ch == '/') {
		a->below = a->slash = true;
		end -= 2;
	}
	if (!a->any_depth && toks_literal(t, i, end, true)) {
		a->kind = ALT_PATH;
		a->pre = toks_bytes(&lit, &a->pre_len, t, i, end);
	} else if (end > i && toks_component(t, i, end, star, &a->stars)) {
		a->kind = ALT_COMPONENT;
		a->pre = toks_bytes(&lit, &a->pre_len, t, i, a->stars ? star[0] : end);
		a->mid = toks_bytes(&lit, &a->mid_len, t, a->stars == 2 ? star[0] + 1 : end,
				    a->stars == 2 ? star[1] : end);
		a->suf = toks_bytes(&lit, &a->suf_len, t, a->stars ? star[a->stars - 1] + 1 : end, end);
	} else {
		a->below = a->dir_only;
		a->slash = false;
		alt_need(a, &lit);
	}
}

/* Add one brace-free alternative (n bytes) to g; a malformed one adds nothing (it matches nothing). */
static int glob_add(struct glob *g, const char *p, size_t n)
{
	struct problem pb = { PROBLEM_NONE, GLOB_NONE, NULL, 0 };
	bool anchored = false, dir_only = false;
	struct alt *a;
	char *block;

	while (n >= 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		n -= 2;
	}
	if (n && p[0] == '/') {
		anchored = true;
		p++;
		n--;
	}
	while (n && p[n - 1] == '/') {
		dir_only = true;
		n--;
	}
	if (!n)
		return 0;
	check_syntax(p, n, &pb);
	if (pb.kind != PROBLEM_NONE)
		return 0;
	if (memchr(p, '/', n))
		anchored = true;
	if (ARRAY_GROW(g->alts, g->alloc, g->nalts + 1) < 0)
		return RL_ENOMEM;
	/* At most n + 2 tokens; then the text and the literals, each at most n bytes. */
	if (!(block = malloc((n + 2) * sizeof(struct tok) + 2 * (n + 1))))
		return error_nomem();
	a = &g->alts[g->nalts++];
	memset(a, 0, sizeof(*a));
	a->toks = (struct tok *)block;
	a->text = block + (n + 2) * sizeof(struct tok);
	a->lit = a->text + n + 1;
	memcpy(a->text, p, n);
	a->text[n] = '\0';
	a->dir_only = dir_only;
	a->m = alt_compile(a->text, n, anchored, a->toks);
	alt_classify(a);
	return 0;
}

/*
 * Component [start, end) of v matched: the NFA accepts there, at the end
 * of the path unless below, or before a '/' (which, as in nfa_run, leaves
 * out an empty first component unless the pattern itself reads the '/').
 */
static bool component_accepts(const struct alt *a, const struct path_view *v, size_t start, size_t end)
{
	const char *c = v->s + start;
	size_t len = end - start, inner;

	if (end == v->n ? a->below : end == 0 && !a->slash)
		return false;
	if (!a->stars)
		return len == a->pre_len && !memcmp(c, a->pre, len);
	if (len < a->pre_len + a->mid_len + a->suf_len || memcmp(c, a->pre, a->pre_len) ||
	    memcmp(c + len - a->suf_len, a->suf, a->suf_len))
		return false;
	inner = len - a->pre_len - a->suf_len;
	return a->stars == 1 || !a->mid_len || memmem(c + a->pre_len, inner, a->mid, a->mid_len);
}

static bool alt_nfa(const struct alt *a, const char *path, size_t n)
{
	size_t small[3 * 33], *lists = small;
	struct nfa nfa = { 0 };
	bool hit;

	if (a->m + 1 > 33 && !(lists = malloc(3 * (a->m + 1) * sizeof(*lists))))
		return false;
	nfa.toks = a->toks;
	nfa.m = a->m;
	nfa.mark = lists;
	nfa.cur = nfa.mark + a->m + 1;
	nfa.next = nfa.cur + a->m + 1;
	hit = nfa_run(&nfa, path, n, a->dir_only);
	if (lists != small)
		free(lists);
	return hit;
}

static bool alt_matches(const struct alt *a, const struct path_view *v)
{
	size_t k, start;

	switch (a->kind) {
	case ALT_ALL:
		return true;
	case ALT_PATH:
		return v->n >= a->pre_len && !memcmp(v->s, a->pre, a->pre_len) &&
			(v->n == a->pre_len ? !a->below : v->s[a->pre_len] == '/');
	case ALT_COMPONENT:
		if (!v->ncomp)
			break;
		for (k = 0, start = 0; k < (a->any_depth ? v->ncomp : 1); start = v->ends[k++] + 1)
			if (component_accepts(a, v, start, v->ends[k]))
				return true;
		return false;
	case ALT_NFA:
		if (a->need && !memmem(v->s, v->n, a->need, a->need_len))
			return false;
		break;
	}
	return alt_nfa(a, v->s, v->n);
}

static bool glob_view_matches(const struct glob *g, const struct path_view *v)
{
	size_t i;

	for (i = 0; i < g->nalts; i++)
		if (alt_matches(&g->alts[i], v))
			return true;
	return false;
}

/* -------------------------------------------------------------------------
 * The API
 */

int glob_new(struct glob **out, const char *pattern)
{
	struct glob_braces b;
	struct glob *g;
	int error = 0;

	*out = NULL;
	if (!(g = calloc(1, sizeof(*g))))
		return error_nomem();
	if (!pattern || !*pattern) {
		*out = g;
		return 0;
	}
	if (!strchr(pattern, '{')) {
		error = glob_add(g, pattern, strlen(pattern));
	} else if (glob_braces_init(&b, pattern)) {
		error = error_nomem();
	} else {
		if (!b.groups)
			error = glob_add(g, pattern, b.n);
		else if (!glob_braces_too_many(&b))
			do
				error = glob_add(g, b.out, glob_braces_expand(&b));
			while (!error && glob_braces_next(&b));
		glob_braces_release(&b);
	}
	if (error < 0) {
		glob_free(g);
		return error;
	}
	*out = g;
	return 0;
}

bool glob_matches(const struct glob *g, const char *path)
{
	struct path_view v;

	if (!g || !path || !*path)
		return false;
	path_view_init(&v, path);
	return glob_view_matches(g, &v);
}

void glob_free(struct glob *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->nalts; i++)
		free(g->alts[i].toks);
	free(g->alts);
	free(g);
}

int glob_list_new(struct glob_list **out, const char *const *patterns, size_t count)
{
	struct glob_list *l;
	const char *p;
	size_t i;
	int error = 0;

	*out = NULL;
	if (!(l = calloc(1, sizeof(*l))) || !(l->globs = calloc(count + 1, sizeof(*l->globs))) ||
	    !(l->exclude = calloc(count + 1, sizeof(*l->exclude)))) {
		glob_list_free(l);
		return error_nomem();
	}
	for (i = 0; i < count && !error; i++) {
		if (!(p = patterns[i]))
			continue;
		l->exclude[l->count] = p[0] == '!';
		if ((error = glob_new(&l->globs[l->count], p + (p[0] == '!'))) == 0)
			l->count++;
	}
	if (error < 0) {
		glob_list_free(l);
		return error;
	}
	*out = l;
	return 0;
}

bool glob_list_matches(const struct glob_list *l, const char *path)
{
	struct path_view v;
	size_t i;

	if (!l || !path || !*path)
		return false;
	path_view_init(&v, path);
	/* The last pattern that matches decides, so look from the end. */
	for (i = l->count; i--;)
		if (glob_view_matches(l->globs[i], &v))
			return !l->exclude[i];
	return false;
}

void glob_list_free(struct glob_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; l->globs && i < l->count; i++)
		glob_free(l->globs[i]);
	free(l->globs);
	free(l->exclude);
	free(l);
}

bool glob_match(const char *pattern, const char *path)
{
	struct glob *g;
	bool hit;

	if (!pattern || !path || !*path || glob_new(&g, pattern) < 0)
		return false;
	hit = glob_matches(g, path);
	glob_free(g);
	return hit;
}

bool glob_match_list(const char *const *patterns, size_t count, const char *path)
{
	struct glob_list *l;
	bool hit;

	if (!path || !*path || glob_list_new(&l, patterns, count) < 0)
		return false;
	hit = glob_list_matches(l, path);
	glob_list_free(l);
	return hit;
}

/* -------------------------------------------------------------------------
 * Checking
 */

static int problem_report(const struct problem *pb, const char *pattern)
{
	size_t col;

	if (pb->kind == PROBLEM_NONE)
		return 0;
	col = text_column(pattern, pb->pos);
	switch (pb->kind) {
	case PROBLEM_NONE:
		break;
	case PROBLEM_BACKSLASH:
		return error_set(RL_EPARSE, "trailing backslash at column %zu", col);
	case PROBLEM_BRACKET:
		return error_set(RL_EPARSE, "unclosed '[' at column %zu", col);
	case PROBLEM_CLASS:
		return error_set(RL_EPARSE, "unknown character class '[:%.*s:]' at column %zu",
				 (int)pb->name_len, pb->name, col);
	case PROBLEM_OPEN_BRACE:
		return error_set(RL_EPARSE, "unclosed '{' at column %zu", col);
	case PROBLEM_CLOSE_BRACE:
		return error_set(RL_EPARSE, "unmatched '}' at column %zu", col);
	}
	return 0;
}

static int check_expansion(const struct glob_braces *b)
{
	if (b->count > GLOB_MAX_ALTERNATIVES)
		return error_set(RL_EPARSE, "too many alternatives in braces (more than %d)",
				 GLOB_MAX_ALTERNATIVES);
	if (b->size > GLOB_MAX_EXPANDED)
		return error_set(RL_EPARSE, "braces expand to more than %d characters",
				 GLOB_MAX_EXPANDED);
	return 0;
}

int glob_check(const char *pattern)
{
	struct problem pb = { PROBLEM_NONE, GLOB_NONE, NULL, 0 };
	struct glob_braces b;
	int err;

	if (!pattern || !*pattern)
		return error_set(RL_EPARSE, "empty pattern");
	if (glob_braces_init(&b, pattern))
		return error_nomem();
	check_syntax(pattern, b.n, &pb);
	if (b.unclosed != GLOB_NONE)
		problem_note(&pb, PROBLEM_OPEN_BRACE, b.unclosed);
	if (b.unopened != GLOB_NONE)
		problem_note(&pb, PROBLEM_CLOSE_BRACE, b.unopened);
	err = problem_report(&pb, pattern);
	if (!err && b.groups)
		err = check_expansion(&b);
	glob_braces_release(&b);
	return err;
}
