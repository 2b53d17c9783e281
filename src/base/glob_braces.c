/* "{a,b}" in a glob: the groups found, counted and expanded one alternative at a time (glob.h). */
#include "glob_state.h"

#include <stdlib.h>
#include <string.h>

enum brace_kind {
	BRACE_TEXT,	/* anything that is not part of a group */
	BRACE_OPEN,
	BRACE_SEP,
	BRACE_CLOSE,
};

/* A '{' met its '}': a group when there was a comma, else plain text. */
static void braces_close(struct glob_braces *b, size_t open, size_t close)
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
static void braces_scan(struct glob_braces *b)
{
	const char *p = b->pat;
	size_t i, end, open, depth = 0, *stack = b->visited;

	b->unopened = GLOB_NONE;
	for (i = 0; i < b->n; i++) {
		switch (p[i]) {
		case '\\':
			i++;
			break;
		case '[':
			end = glob_class_end(p, i, b->n);
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
			else if (b->unopened == GLOB_NONE)
				b->unopened = i;
			break;
		}
	}
	b->unclosed = depth ? stack[0] : GLOB_NONE;
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
static void count_append(struct glob_count_frame *f, const struct glob_count_frame *g)
{
	f->len = count_cap(f->len * g->sum_alts + g->sum_len * f->alts, GLOB_MAX_EXPANDED);
	f->alts = count_cap(f->alts * g->sum_alts, GLOB_MAX_ALTERNATIVES);
}

/* The alternative so far is one more of the group's. */
static void count_end_alternative(struct glob_count_frame *f)
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
static void braces_count(struct glob_braces *b)
{
	struct glob_count_frame *f = b->frames;
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

bool glob_braces_too_many(const struct glob_braces *b)
{
	return b->count > GLOB_MAX_ALTERNATIVES || b->size > GLOB_MAX_EXPANDED;
}

void glob_braces_release(struct glob_braces *b)
{
	free(b->link);
}

int glob_braces_init(struct glob_braces *b, const char *pattern)
{
	size_t n = strlen(pattern), words = n + 1;

	/* One block: five arrays of words, the frames, kind[] and out. */
	memset(b, 0, sizeof(*b));
	b->pat = pattern;
	b->n = n;
	b->link = calloc(1, words * (5 * sizeof(size_t) + sizeof(struct glob_count_frame) + 2));
	if (!b->link)
		return -1;
	b->close = b->link + words;
	b->nalt = b->close + words;
	b->sel = b->nalt + words;
	b->visited = b->sel + words;
	b->frames = (struct glob_count_frame *)(b->visited + words);
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
size_t glob_braces_expand(struct glob_braces *b)
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
bool glob_braces_next(struct glob_braces *b)
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
