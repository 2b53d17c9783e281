#include "glob.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

/*
 * How it works: braces are expanded first (one alternative at a time, so
 * "{a,b}{c,d}" costs four small strings, never a list of them), then each
 * alternative gets the anchoring rules and is compiled to a few tokens that
 * run as an NFA over the path. The NFA keeps one flag per token, so a match
 * costs at most tokens * path length steps whatever the pattern: there is no
 * backtracking to blow up on "*a*a*a*a*b" and no recursion to blow the stack.
 */

/*
 * Beyond these a pattern matches nothing (glob_check says why). Without a
 * bound "{a,b}" written twenty times would be a million matches per path;
 * the bound on the length of all alternatives together keeps a few long
 * alternatives from costing as much (the cost of a match grows with it).
 */
#define GLOB_MAX_ALTERNATIVES 1024
#define GLOB_MAX_EXPANDED 65536

#define NONE SIZE_MAX

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
static size_t class_end(const char *s, size_t i, size_t n)
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
			end = class_end(s, i, n);
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
			j = class_end(p, i, n);
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

/* Whether one brace-free pattern (n bytes) matches the path. */
static bool alt_match(const char *p, size_t n, const char *path, size_t path_len)
{
	struct tok small_toks[32];
	size_t small_lists[3 * 33];
	struct nfa a = { 0 };
	struct problem pb = { PROBLEM_NONE, NONE, NULL, 0 };
	struct tok *toks = small_toks;
	size_t *lists = small_lists;
	bool anchored = false, dir_only = false, hit = false;

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
		return false;
	check_syntax(p, n, &pb);
	if (pb.kind != PROBLEM_NONE)
		return false;
	if (memchr(p, '/', n))
		anchored = true;

	/* At most n + 2 tokens, so n + 3 states. */
	if (n + 2 > sizeof(small_toks) / sizeof(small_toks[0])) {
		toks = malloc((n + 2) * sizeof(*toks));
		lists = malloc(3 * (n + 3) * sizeof(*lists));
		if (!toks || !lists)
			goto done;
	}
	a.toks = toks;
	a.m = alt_compile(p, n, anchored, toks);
	a.mark = lists;
	a.cur = a.mark + a.m + 1;
	a.next = a.cur + a.m + 1;
	hit = nfa_run(&a, path, path_len, dir_only);
done:
	if (toks != small_toks) {
		free(toks);
		free(lists);
	}
	return hit;
}

/* -------------------------------------------------------------------------
 * Braces
 */

enum brace_kind {
	BRACE_TEXT,	/* anything that is not part of a group */
	BRACE_OPEN,
	BRACE_SEP,
	BRACE_CLOSE,
};

/*
 * Counting a group: the alternatives of its text so far and their length
 * in characters (alts, len), and the same for the alternatives it has
 * finished (sum_*).
 */
struct count_frame {
	size_t alts, len;
	size_t sum_alts, sum_len;
};

/*
 * The groups of a pattern, found once, and the state of the expansion. A
 * '{' with its '}' and a comma between them is a group; one without a '}'
 * or without a comma is text. Arrays are indexed by byte offset and only
 * read at the offsets of a group's '{', ',' and '}'.
 */
struct braces {
	const char *pat;
	size_t n;
	unsigned char *kind;	/* enum brace_kind */
	size_t *link;		/* '{' and ',': the next ',' or '}' of the group */
	size_t *close;		/* '{' and ',': the '}' of the group */
	size_t *nalt;		/* '{': its number of alternatives */
	size_t *sel;		/* '{': the alternative being expanded */
	size_t *visited;	/* the '{' met by the last expansion, in order */
	size_t nvisited;
	struct count_frame *frames;	/* scratch for counting */
	size_t groups;
	size_t count;		/* alternatives, at most GLOB_MAX_ALTERNATIVES + 1 */
	size_t size;		/* their characters, at most GLOB_MAX_EXPANDED + 1 */
	size_t unclosed;	/* the first '{' without '}', or NONE */
	size_t unopened;	/* the first '}' without '{', or NONE */
	char *out;		/* the current alternative */
};

/* A '{' met its '}': a group when there was a comma, else plain text. */
static void braces_close(struct braces *b, size_t open, size_t close)
{
	size_t i;

	if (b->nalt[open] < 2)
		return;
	b->link[b->close[open]] = close;
	b->kind[open] = BRACE_OPEN;
	b->kind[close] = BRACE_CLOSE;
	for (i = b->link[open]; i != close; i = b->link[i]) {
		b->kind[i] = BRACE_SEP;
		b->close[i] = close;
	}
	b->close[open] = close;
	b->groups++;
}

/*
 * Find the groups. Escaped characters and classes are skipped whole, as the
 * matcher reads them, so "[{]" and "\{" are never braces. The stack of open
 * '{' lives in visited; close[] of an open '{' is its last ',' so far.
 */
static void braces_scan(struct braces *b)
{
	const char *p = b->pat;
	size_t i, end, open, depth = 0, *stack = b->visited;

	b->unopened = NONE;
	for (i = 0; i < b->n; i++) {
		switch (p[i]) {
		case '\\':
			i++;
			break;
		case '[':
			end = class_end(p, i, b->n);
			if (end)
				i = end;
			break;
		case '{':
			stack[depth++] = i;
			b->close[i] = i;
			b->nalt[i] = 1;
			break;
		case ',':
			if (!depth)
				break;
			open = stack[depth - 1];
			b->link[b->close[open]] = i;
			b->close[open] = i;
			b->nalt[open]++;
			break;
		case '}':
			if (depth)
				braces_close(b, stack[--depth], i);
			else if (b->unopened == NONE)
				b->unopened = i;
			break;
		}
	}
	b->unclosed = depth ? stack[0] : NONE;
}

/*
 * Saturating arithmetic for counting: every value stays at most its limit
 * plus one, so with 1025 * 65537 * 2 in the worst case nothing overflows.
 */
static size_t count_cap(size_t v, size_t limit)
{
	return v > limit ? limit + 1 : v;
}

/* Append the finished group g to the text of f. */
static void count_append(struct count_frame *f, const struct count_frame *g)
{
	f->len = count_cap(f->len * g->sum_alts + g->sum_len * f->alts, GLOB_MAX_EXPANDED);
	f->alts = count_cap(f->alts * g->sum_alts, GLOB_MAX_ALTERNATIVES);
}

/* The alternative so far is one more of the group's. */
static void count_end_alternative(struct count_frame *f)
{
	f->sum_alts = count_cap(f->sum_alts + f->alts, GLOB_MAX_ALTERNATIVES);
	f->sum_len = count_cap(f->sum_len + f->len, GLOB_MAX_EXPANDED);
	f->alts = 1;
	f->len = 0;
}

/*
 * How many alternatives the pattern expands to and their total length,
 * without expanding: text after n alternatives adds its length n times,
 * a group multiplies, its alternatives add up. The stack of frames is as
 * deep as the groups nest.
 */
static void braces_count(struct braces *b)
{
	struct count_frame *f = b->frames;
	size_t i;

	f->alts = 1;
	f->len = 0;
	for (i = 0; i < b->n; i++) {
		switch (b->kind[i]) {
		case BRACE_OPEN:
			f++;
			memset(f, 0, sizeof(*f));
			f->alts = 1;
			break;
		case BRACE_SEP:
			count_end_alternative(f);
			break;
		case BRACE_CLOSE:
			count_end_alternative(f);
			f--;
			count_append(f, f + 1);
			break;
		default:
			/* Characters, not bytes: the matcher works on those. */
			if (((unsigned char)b->pat[i] & 0xc0) != 0x80)
				f->len = count_cap(f->len + f->alts, GLOB_MAX_EXPANDED);
			break;
		}
	}
	b->count = f->alts;
	b->size = f->len;
}

static bool braces_too_many(const struct braces *b)
{
	return b->count > GLOB_MAX_ALTERNATIVES || b->size > GLOB_MAX_EXPANDED;
}

static void braces_release(struct braces *b)
{
	free(b->link);
}

static int braces_init(struct braces *b, const char *pattern)
{
	size_t n = strlen(pattern), words = n + 1;

	/* One block: five arrays of words, the frames, kind[] and out. */
	memset(b, 0, sizeof(*b));
	b->pat = pattern;
	b->n = n;
	b->link = calloc(1, words * (5 * sizeof(size_t) + sizeof(struct count_frame) + 2));
	if (!b->link)
		return -1;
	b->close = b->link + words;
	b->nalt = b->close + words;
	b->sel = b->nalt + words;
	b->visited = b->sel + words;
	b->frames = (struct count_frame *)(b->visited + words);
	b->kind = (unsigned char *)(b->frames + words);
	b->out = (char *)b->kind + words;
	braces_scan(b);
	braces_count(b);
	return 0;
}

/*
 * Write the alternative chosen by sel[] to out and note the groups it went
 * through. No stack is needed: the end of an alternative jumps past the
 * '}' of its group, which is where the enclosing text goes on.
 */
static size_t braces_expand(struct braces *b)
{
	size_t i = 0, j, k, len = 0;

	b->nvisited = 0;
	while (i < b->n) {
		switch (b->kind[i]) {
		case BRACE_OPEN:
			b->visited[b->nvisited++] = i;
			for (j = i, k = b->sel[i]; k; k--)
				j = b->link[j];
			i = j + 1;
			break;
		case BRACE_SEP:
			i = b->close[i] + 1;
			break;
		case BRACE_CLOSE:
			i++;
			break;
		default:
			b->out[len++] = b->pat[i++];
			break;
		}
	}
	b->out[len] = '\0';
	return len;
}

/*
 * Move sel[] to the next alternative, like an odometer over the groups the
 * last one went through: the last group that has more alternatives moves
 * on and those after it start again (groups it did not go through are
 * already at 0). False after the last alternative.
 */
static bool braces_next(struct braces *b)
{
	size_t v = b->nvisited, g;

	while (v--) {
		g = b->visited[v];
		if (b->sel[g] + 1 < b->nalt[g]) {
			b->sel[g]++;
			return true;
		}
		b->sel[g] = 0;
	}
	return false;
}

/* -------------------------------------------------------------------------
 * The API
 */

bool glob_match(const char *pattern, const char *path)
{
	struct braces b;
	size_t path_len, len;
	bool hit = false;

	if (!pattern || !path || !*path)
		return false;
	path_len = strlen(path);
	if (!strchr(pattern, '{'))
		return alt_match(pattern, strlen(pattern), path, path_len);
	if (braces_init(&b, pattern))
		return false;
	if (!b.groups) {
		hit = alt_match(pattern, b.n, path, path_len);
	} else if (!braces_too_many(&b)) {
		do {
			len = braces_expand(&b);
			hit = alt_match(b.out, len, path, path_len);
		} while (!hit && braces_next(&b));
	}
	braces_release(&b);
	return hit;
}

bool glob_match_list(const char *const *patterns, size_t count, const char *path)
{
	const char *p;
	size_t i = count;

	/* The last pattern that matches decides, so look from the end. */
	while (i--) {
		p = patterns[i];
		if (!p)
			continue;
		if (p[0] == '!') {
			if (glob_match(p + 1, path))
				return false;
		} else if (glob_match(p, path)) {
			return true;
		}
	}
	return false;
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

static int check_expansion(const struct braces *b)
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
	struct problem pb = { PROBLEM_NONE, NONE, NULL, 0 };
	struct braces b;
	int err;

	if (!pattern || !*pattern)
		return error_set(RL_EPARSE, "empty pattern");
	if (braces_init(&b, pattern))
		return error_nomem();
	check_syntax(pattern, b.n, &pb);
	if (b.unclosed != NONE)
		problem_note(&pb, PROBLEM_OPEN_BRACE, b.unclosed);
	if (b.unopened != NONE)
		problem_note(&pb, PROBLEM_CLOSE_BRACE, b.unopened);
	err = problem_report(&pb, pattern);
	if (!err && b.groups)
		err = check_expansion(&b);
	braces_release(&b);
	return err;
}
