/*
 * The models' tool search: a PCRE2 regular expression over the readable
 * files a glob selects, line by line, within PCRE2's match, depth and heap
 * limits, the call's time, the question's bytes and a count of hits.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "repo_tools_state.h"
#include "glob.h"
#include "index.h"
#include "status.h"
#include "words.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a long line shown before its match. */
#define HIT_BEFORE 80

struct finder {
	struct call *c;
	const struct repo_tool_args *a;
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	struct glob *glob;      /* the call's glob, compiled, or NULL */
	bool filter;            /* the pattern is \bWORD\b...: only files whose filter may hold the word */
	uint64_t hash;          /* the word's */
	size_t files, searched, skipped;        /* the files the glob selects; those read; those the filter ruled out */
	size_t hits, shown;
	enum { GO_ON, CUT_HITS, CUT_ROOM, CUT_TIME, CUT_READ, COSTLY } stop;
	char costly[200];       /* where the pattern was too costly, and why */
	struct buf line;
};

static bool word_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/*
 * Whether every match of the pattern holds one whole word, which the
 * index's filters know: it begins with \bWORD\b (not repeated, so that the
 * boundary is not optional) and has no alternative. Its files are then
 * those whose filter may hold the word. (A word glued to a byte from 0x80
 * is part of a longer word to the filters, not to PCRE2's ASCII \b: such a
 * line may be missed, as it is by references.)
 */
static bool pattern_word(struct finder *s, const char *p)
{
	const char *w = p + 2, *e = w;

	if (strncmp(p, "\\b", 2) || strchr(p, '|'))
		return false;
	while (word_char(*e))
		e++;
	if (e == w || (size_t)(e - w) > WORDS_MAX || (*w >= '0' && *w <= '9') || strncmp(e, "\\b", 2) ||
	    (e[2] && strchr("?*+{", e[2])))
		return false;
	s->hash = words_hash(w, (size_t)(e - w));
	return true;
}

static int compile(struct finder *s)
{
	const char *pattern = s->a->pattern;
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	PCRE2_UCHAR message[256];
	PCRE2_SIZE offset = 0;
	int code = 0;

	if (!cc)
		return error_nomem();
	pcre2_set_max_pattern_length(cc, REPO_TOOLS_PATTERN_MAX);
	pcre2_set_parens_nest_limit(cc, 64);
	/* No PCRE2_UTF: files are bytes and need not be UTF-8 ((*UTF) in the pattern asks for it). */
	s->re = pcre2_compile((PCRE2_SPTR)pattern, strlen(pattern), 0, &code, &offset, cc);
	pcre2_compile_context_free(cc);
	if (!s->re) {
		if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAPLIMIT)
			return error_nomem();
		pcre2_get_error_message(code, message, sizeof(message));
		return call_fail(s->c, "the pattern is not a valid regular expression: %s at offset %zu of '%.200s' "
				 "(a literal ( ) [ { . * + ? | ^ $ or \\ is written with a backslash before it)",
				 (const char *)message, (size_t)offset, pattern) < 0 ? RL_ENOMEM : 1;
	}
	/* The JIT when there is one; its stack's bound is a limit as the others are. */
	pcre2_jit_compile(s->re, PCRE2_JIT_COMPLETE);
	if (!(s->md = pcre2_match_data_create_from_pattern(s->re, NULL)) ||
	    !(s->mc = pcre2_match_context_create(NULL)))
		return error_nomem();
	pcre2_set_match_limit(s->mc, REPO_TOOLS_MATCH_LIMIT);
	pcre2_set_depth_limit(s->mc, REPO_TOOLS_DEPTH_LIMIT);
	pcre2_set_heap_limit(s->mc, REPO_TOOLS_HEAP_LIMIT);
	s->filter = pattern_word(s, pattern);
	return s->a->glob ? glob_new(&s->glob, s->a->glob) : 0;
}

static bool costly_code(int rc)
{
	return rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
	       rc == PCRE2_ERROR_JIT_STACKLIMIT || rc == PCRE2_ERROR_NOMEMORY;
}

/* One hit: "path:line: text", a long line shown around its match. */
static int hit_put(struct finder *s, const struct index_file *f, uint32_t lineno, const char *p, size_t len)
{
	size_t from = 0, at = (size_t)pcre2_get_ovector_pointer(s->md)[0];
	int error;

	/* \K may put the match's start anywhere: shown from the line's start then. */
	if (at > len)
		at = 0;
	s->hits++;
	if (s->hits >= s->c->rt->opts.hits)
		s->stop = CUT_HITS;
	if (s->stop == CUT_ROOM)
		return 0;
	buf_clear(&s->line);
	if (len > REPO_TOOLS_HIT_SHOWN && at > HIT_BEFORE)
		for (from = at - HIT_BEFORE; from < len && ((unsigned char)p[from] & 0xC0) == 0x80; from++)
			;
	if ((error = buf_printf(&s->line, "%s:%u: %s", f->path, lineno, from ? "…" : "")) < 0 ||
	    (error = text_line(&s->line, p + from, len - from, REPO_TOOLS_HIT_SHOWN)) < 0 ||
	    (len - from > REPO_TOOLS_HIT_SHOWN && (error = buf_puts(&s->line, "…")) < 0) ||
	    (error = buf_putc(&s->line, '\n')) < 0)
		return error;
	if (!call_fits(s->c, s->line.len)) {
		s->stop = CUT_ROOM;
		return 0;
	}
	s->shown++;
	if ((error = buf_put(&s->c->out->text, s->line.ptr, s->line.len)) < 0)
		return error;
	return call_span(s->c, f->path, lineno, lineno);
}

/* The file's lines matched, until a bound. */
static int file_search(struct finder *s, const struct index_file *f, const struct buf *text)
{
	const char *p = text->ptr, *e = text->ptr + text->len;
	uint32_t lineno = 1;
	int error = 0, rc;

	for (; p < e && s->stop == GO_ON; lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(e - p);

		if (len && p[len - 1] == '\r')
			len--;
		rc = pcre2_match(s->re, (PCRE2_SPTR)p, len, 0, 0, s->md, s->mc);
		if (rc >= 0 && (error = hit_put(s, f, lineno, p, len)) < 0)
			return error;
		if (costly_code(rc)) {
			PCRE2_UCHAR message[120];

			pcre2_get_error_message(rc, message, sizeof(message));
			snprintf(s->costly, sizeof(s->costly), "on line %u of %s (%zu bytes): %s", lineno, f->path,
				 len, (const char *)message);
			s->stop = COSTLY;
		}
		/* Other failures (a line that is not UTF-8 to a (*UTF) pattern) are no match. */
		if (!(lineno & 63) && call_late(s->c))
			s->stop = CUT_TIME;
		p = nl ? nl + 1 : e;
	}
	return 0;
}

static bool selected(const struct finder *s, const struct index_file *f)
{
	return index_file_readable(f) && (!s->a->glob || glob_matches(s->glob, f->path));
}

/* Every file the glob selects, read and matched until a bound. */
static int files_search(struct finder *s)
{
	const struct index_file *files;
	struct buf text = BUF_INIT;
	size_t i, n;
	int error = 0;

	files = index_files(s->c->index, &n);
	for (i = 0; i < n; i++)
		s->files += selected(s, &files[i]);
	for (i = 0; i < n && s->stop == GO_ON && !error; i++) {
		const struct index_file *f = &files[i];

		if (!selected(s, f))
			continue;
		if (s->filter && !words_filter_has(f->words, f->words_len, s->hash)) {
			s->skipped++;
			continue;
		}
		if (call_late(s->c)) {
			s->stop = CUT_TIME;
			break;
		}
		if (f->size > call_read_left(s->c)) {
			s->stop = CUT_READ;
			break;
		}
		if ((error = call_read(&text, s->c, f)) < 0) {
			/* Binary now, or changed since it was listed: passed over. */
			error = error == RL_ENOMEM ? error : 0;
			error_clear();
			continue;
		}
		s->searched++;
		error = file_search(s, f, &text);
	}
	buf_release(&text);
	return error;
}

/* The last line: what was searched, and what a bound left out. */
static int summary(struct finder *s)
{
	struct buf *out = &s->c->out->text;
	const struct repo_tools *rt = s->c->rt;
	size_t looked = s->skipped + s->searched;

	if (s->stop != GO_ON)
		s->c->use->complete = false;
	if (s->stop == CUT_HITS)
		return buf_printf(out, "[the first %zu matching lines: there may be more; narrow the search with "
				  "path_glob or a more precise pattern]\n", s->hits);
	if (s->stop == CUT_ROOM)
		return buf_printf(out, "[%zu matching lines shown: more did not fit in this result (%zu bytes); "
				  "narrow the search with path_glob]\n", s->shown, s->c->max);
	if (s->stop == CUT_TIME)
		return buf_printf(out, "[stopped after %d ms with %zu of %zu files searched: narrow the search with "
				  "path_glob, or write an identifier as \\bname\\b]\n", rt->opts.call_ms, looked,
				  s->files);
	if (s->stop == CUT_READ)
		return buf_printf(out, "[stopped with %zu of %zu files searched: the %s of files a question's "
				  "tools may read are used up]\n", looked, s->files,
				  call_read_max(s->c));
	if (!s->files && s->a->glob)
		return buf_printf(out, "no readable file matches path_glob '%s' (gitignore-style: *.c at any depth, "
				  "src/*.c directly in src, src/**/*.c below it, src/ everything under it)\n",
				  s->a->glob);
	if (!s->hits)
		return buf_printf(out, "no line matches in the %zu file%s searched\n", s->files,
				  s->files == 1 ? "" : "s");
	return buf_printf(out, "[%zu matching line%s; %zu file%s searched]\n", s->hits, s->hits == 1 ? "" : "s",
			  s->files, s->files == 1 ? "" : "s");
}

int tool_search(struct call *c, const struct repo_tool_args *a)
{
	struct finder s;
	int error;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.a = a;
	if (!call_read_left(c))
		return call_fail(c, "not run: the %s of files a question's tools may read are used up",
				 call_read_max(c));
	if ((error = compile(&s)) != 0)
		goto done;
	if ((error = files_search(&s)) < 0)
		goto done;
	c->use->found = s.hits;
	if (s.stop == COSTLY)
		error = call_fail(c, "the pattern is too costly: it backtracks past PCRE2's limits %s. Simplify it: "
				  "no nested quantifiers such as (a+)+, anchor it, or match a literal word first",
				  s.costly);
	else
		error = summary(&s);
done:
	buf_release(&s.line);
	pcre2_match_data_free(s.md);
	pcre2_match_context_free(s.mc);
	pcre2_code_free(s.re);
	glob_free(s.glob);
	return error < 0 ? error : 0;
}
