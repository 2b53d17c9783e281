/*
 * The text of a fix: snippets taken from a file, and the model's answer
 * put back in the snippet's shape (indentation, line ends, fences, the
 * blank lines at its end). See patch_text.h for the decisions on blank
 * lines, units and deletions.
 */
#include "patch_text.h"
#include "status.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One line of some text: its content, and the line end after it. */
struct line {
	const char *ptr;
	size_t len;             /* without the line end */
	size_t eol;             /* 0 (the last line, unended), 1 (LF) or 2 (CRLF) */
};

/* The line at pos (< len); returns where the next one starts. */
static size_t line_at(struct line *out, const char *text, size_t len, size_t pos)
{
	const char *nl = memchr(text + pos, '\n', len - pos);
	size_t end = nl ? (size_t)(nl - text) : len;

	out->ptr = text + pos;
	out->len = end - pos;
	out->eol = nl ? 1 : 0;
	if (nl && out->len && text[end - 1] == '\r') {
		out->len--;
		out->eol = 2;
	}
	return nl ? end + 1 : len;
}

static size_t lead_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static bool line_blank(const struct line *l)
{
	return lead_len(l->ptr, l->len) == l->len;
}

static bool has_prefix(const char *s, size_t n, const char *prefix, size_t plen)
{
	return n >= plen && !memcmp(s, prefix, plen);
}

static int lines_count(const char *text, size_t len)
{
	struct line l;
	size_t pos = 0;
	int n = 0;

	while (pos < len && n < INT_MAX) {
		pos = line_at(&l, text, len, pos);
		n++;
	}
	return n;
}

static bool range_find(size_t *start, size_t *end, const char *text, size_t len, int first, int last)
{
	struct line l;
	size_t pos = 0;
	int n = 0;

	while (pos < len) {
		if (++n == first)
			*start = pos;
		pos = line_at(&l, text, len, pos);
		if (n == last) {
			*end = pos;
			return true;
		}
	}
	return false;
}

bool patch_lines(size_t *start, size_t *end, const char *text, size_t len, int first, int last)
{
	return first >= 1 && last >= first && range_find(start, end, text, len, first, last);
}

/* The longest leading whitespace that every non-blank line starts with. */
static size_t base_find(const char **base, const char *text, size_t len)
{
	struct line l;
	size_t pos = 0, n = 0, lead, i;
	bool any = false;

	*base = text;
	while (pos < len) {
		pos = line_at(&l, text, len, pos);
		if (line_blank(&l))
			continue;
		lead = lead_len(l.ptr, l.len);
		if (!any) {
			*base = l.ptr;
			n = lead;
			any = true;
			continue;
		}
		for (i = 0; i < n && i < lead && (*base)[i] == l.ptr[i]; i++)
			;
		n = i;
	}
	return n;
}

/*
 * What the model sees: the base removed and LF ends. A blank line keeps the
 * whitespace past the base, so the model can keep it too; one shorter than
 * the base is empty.
 */
static int dedent(struct buf *out, const char *text, size_t len, const char *base, size_t n)
{
	struct line l;
	size_t pos = 0;
	int error = 0;

	while (pos < len && !error) {
		pos = line_at(&l, text, len, pos);
		if (has_prefix(l.ptr, l.len, base, n))
			error = buf_put(out, l.ptr + n, l.len - n);
		if (!error && l.eol)
			error = buf_putc(out, '\n');
	}
	return error ? error : buf_put(out, "", 0);        /* NUL-terminated even when empty */
}

/* 1 when most line ends are CRLF, 0 when most are LF, -1 when there are none. */
static int crlf_mostly(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	size_t crlf = 0, lf = 0;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (nl > text && nl[-1] == '\r')
			crlf++;
		else
			lf++;
		p = nl + 1;
	}
	return crlf + lf ? crlf > lf : -1;
}

/*
 * How some lines are indented: what leads indented lines, and the step in
 * spaces, the most frequent increase from a non-blank line to the next.
 * Increases over 8 are alignment, not nesting.
 */
#define STEP_MAX 8

struct style {
	size_t tabs, spaces;            /* indented lines led by a tab, by a space */
	size_t prev;                    /* the last line's width; SIZE_MAX: not all spaces */
	size_t steps[STEP_MAX + 1];
};

static void style_init(struct style *s)
{
	memset(s, 0, sizeof(*s));
	s->prev = SIZE_MAX;
}

static void style_add(struct style *s, const char *p, size_t n)
{
	size_t lead = lead_len(p, n), spaces = 0;

	if (!lead) {
		s->prev = 0;
		return;
	}
	if (p[0] == '\t')
		s->tabs++;
	else
		s->spaces++;
	while (spaces < lead && p[spaces] == ' ')
		spaces++;
	if (spaces < lead) {
		s->prev = SIZE_MAX;
		return;
	}
	if (s->prev != SIZE_MAX && spaces > s->prev && spaces - s->prev <= STEP_MAX)
		s->steps[spaces - s->prev]++;
	s->prev = spaces;
}

static void style_of(struct style *s, const char *text, size_t len)
{
	struct line l;
	size_t pos = 0;

	style_init(s);
	while (pos < len) {
		pos = line_at(&l, text, len, pos);
		if (!line_blank(&l))
			style_add(s, l.ptr, l.len);
	}
}

/* The most frequent step, the smaller on a tie; 0 when no line is deeper than the one before. */
static int style_step(const struct style *s)
{
	int best = 0, w;

	for (w = 1; w <= STEP_MAX; w++)
		if (s->steps[w] > s->steps[best])
			best = w;
	return best;
}

/*
 * The file's unit. Tabs or spaces as the snippet itself shows them (a file
 * may mix, and the fix should look like its neighbours), the file's when the
 * snippet is not indented; the step in spaces from the whole file, where the
 * evidence is.
 */
static int unit_find(const char *snip, size_t slen, const char *file, size_t flen)
{
	struct style s, f;

	style_of(&s, snip, slen);
	style_of(&f, file, flen);
	if (!s.tabs && !s.spaces)
		s = f;
	if (!s.tabs && !s.spaces)
		return 0;
	if (s.tabs > s.spaces)
		return PATCH_UNIT_TABS;
	return style_step(&f) ? style_step(&f) : style_step(&s);
}

/* Blank lines from pos on, up to the first line that is not blank. */
static int blank_lines_from(const char *text, size_t len, size_t pos)
{
	struct line l;
	int n = 0;

	while (pos < len) {
		pos = line_at(&l, text, len, pos);
		if (!line_blank(&l))
			break;
		n++;
	}
	return n;
}

/* The longest run of blank lines in some text. */
static int blank_run_longest(const char *text, size_t len)
{
	struct line l;
	size_t pos = 0;
	int run = 0, longest = 0;

	while (pos < len) {
		pos = line_at(&l, text, len, pos);
		run = line_blank(&l) ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
}

int patch_snippet_take(struct patch_snippet *out, const char *path, const char *text, size_t len,
		       int first, int last)
{
	struct buf dedented = BUF_INIT;
	const char *base;
	size_t start = 0, end = 0, nbase;
	int crlf, error = 0;

	memset(out, 0, sizeof(*out));
	if (first < 1 || last < first || !range_find(&start, &end, text, len, first, last))
		return error_set(RL_EUSAGE, "%s: lines %d-%d are not in the file (it has %d lines)",
				 path, first, last, lines_count(text, len));
	if (start == 0 && end >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		start = 3;
	out->first = first;
	out->last = last;
	out->start = start;
	out->end = end;
	out->len = end - start;
	nbase = base_find(&base, text + start, out->len);
	out->path = strdup(path);
	out->text = malloc(out->len + 1);
	out->indent = strndup(base, nbase);
	if (!out->path || !out->text || !out->indent) {
		error = error_nomem();
		goto done;
	}
	memcpy(out->text, text + start, out->len);
	out->text[out->len] = '\0';
	if ((error = dedent(&dedented, out->text, out->len, base, nbase)) < 0)
		goto done;
	out->dedented = buf_detach(&dedented);
	if ((crlf = crlf_mostly(out->text, out->len)) < 0)
		crlf = crlf_mostly(text, len);
	out->crlf = crlf > 0;
	out->unit = unit_find(out->text, out->len, text, len);
	out->at_end = end == len;
	out->blank_after = blank_lines_from(text, len, end);
	out->blank_run = blank_run_longest(text, len);
	patch_file_id(out->file_id, text, len);
done:
	buf_release(&dedented);
	if (error < 0)
		patch_snippet_release(out);
	return error;
}

void patch_snippet_release(struct patch_snippet *snippet)
{
	free(snippet->path);
	free(snippet->text);
	free(snippet->dedented);
	free(snippet->indent);
	memset(snippet, 0, sizeof(*snippet));
}

/* A fence line: up to 3 spaces, then 3 or more backticks or tildes. Its length, or 0. */
static size_t fence_open(char *c, const struct line *l)
{
	size_t i = 0, n = 0;

	while (i < l->len && i < 3 && l->ptr[i] == ' ')
		i++;
	if (i == l->len || (l->ptr[i] != '`' && l->ptr[i] != '~'))
		return 0;
	*c = l->ptr[i];
	while (i + n < l->len && l->ptr[i + n] == *c)
		n++;
	/* A backtick in the language tag makes it inline code, not a fence. */
	if (n < 3 || (*c == '`' && memchr(l->ptr + i + n, '`', l->len - i - n)))
		return 0;
	return n;
}

static bool fence_closes(const struct line *l, char c, size_t n)
{
	size_t i = 0, k = 0;

	while (i < l->len && i < 3 && l->ptr[i] == ' ')
		i++;
	while (i + k < l->len && l->ptr[i + k] == c)
		k++;
	return k >= n && lead_len(l->ptr + i + k, l->len - i - k) == l->len - i - k;
}

/*
 * The code of an answer: the inside of its first fenced block. A fence that
 * never closes counts only when it opens the answer (the end was cut off);
 * otherwise it is more likely a line of the code itself.
 */
static void fence_strip(const char **code, size_t *len)
{
	struct line l;
	size_t pos = 0, next, body = 0, fence = 0;
	bool prose = false, leading = false;
	char c = 0;

	while (pos < *len) {
		next = line_at(&l, *code, *len, pos);
		if (fence && fence_closes(&l, c, fence)) {
			*code += body;
			*len = pos - body;
			return;
		}
		if (!fence && (fence = fence_open(&c, &l))) {
			body = next;
			leading = !prose;
		} else if (!line_blank(&l)) {
			prose = true;
		}
		pos = next;
	}
	if (fence && leading) {
		*code += body;
		*len -= body;
	}
}

/* Leading whitespace from the answer's unit to the file's: whole units convert, the rest stays. */
static int indent_convert(struct buf *out, const char *lead, size_t n, int from, int to)
{
	size_t units = 0, i = 0, k;
	int error = 0;

	if (!from || !to || from == to)
		return buf_put(out, lead, n);
	if (from == PATCH_UNIT_TABS) {
		while (i < n && lead[i] == '\t')
			i++;
		units = i;
	} else {
		while (i < n && lead[i] == ' ')
			i++;
		units = i / (size_t)from;
		i = units * (size_t)from;
	}
	for (k = 0; k < units && !error; k++)
		error = to == PATCH_UNIT_TABS ? buf_putc(out, '\t') :
			buf_printf(out, "%*s", to, "");
	return error ? error : buf_put(out, lead + i, n - i);
}

/* What reindenting an answer needs to know, worked out once. */
struct shape {
	const struct patch_snippet *snippet;
	struct line *lines;
	size_t n;               /* up to the last non-blank line */
	int blank_end;          /* the answer's blank lines after it (ended ones) */
	int from, to;           /* the answer's unit, the file's */
	bool add_base;
	bool fill;              /* empty lines take the next line's indentation */
	size_t tail;            /* where the snippet's end, kept as it is, starts */
	const char *eol;
};

static int lines_split(struct shape *sh, const char *code, size_t len)
{
	size_t pos = 0, cap = 1;
	const char *p = code, *end = code + len;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))))
		p++, cap++;
	if (!(sh->lines = calloc(cap, sizeof(*sh->lines))))
		return error_nomem();
	while (pos < len) {
		pos = line_at(&sh->lines[sh->n], code, len, pos);
		sh->n++;
	}
	while (sh->n && line_blank(&sh->lines[sh->n - 1])) {
		sh->n--;
		sh->blank_end += sh->lines[sh->n].eol != 0;
	}
	return 0;
}

/*
 * The unit to convert the answer from, or 0 to leave it as it is. An answer
 * indented as the dedented snippet the model was shown stays as it is: the
 * snippet's own steps may be alignment (a hanging indent of 8 in a 4-space
 * file, spaces after tabs), and the lines the model left alone must come
 * back unchanged. It converts when the model changed the kind (spaces for
 * tabs) or the step (4 where it was shown 2). A flat answer shows no step:
 * take it to be the file's own when the file indents with spaces, else 4,
 * the width models write tabs as.
 */
static int answer_unit(const struct shape *sh)
{
	struct style s, shown;
	size_t i;
	bool tabs;

	style_init(&s);
	for (i = 0; i < sh->n; i++)
		if (!line_blank(&sh->lines[i]))
			style_add(&s, sh->lines[i].ptr, sh->lines[i].len);
	if (!s.tabs && !s.spaces)
		return 0;
	tabs = s.tabs > s.spaces;
	style_of(&shown, sh->snippet->dedented, strlen(sh->snippet->dedented));
	if ((shown.tabs || shown.spaces) && tabs == (shown.tabs > shown.spaces)) {
		if (tabs || !style_step(&s) || !style_step(&shown) || style_step(&s) == style_step(&shown))
			return 0;
		return style_step(&s);
	}
	if (tabs)
		return PATCH_UNIT_TABS;
	if (style_step(&s))
		return style_step(&s);
	return sh->to > 0 ? sh->to : 4;
}

/* The leading whitespace of the dedented snippet's first non-blank line with this content. */
static bool shown_lead(const char **lead, size_t *n, const char *dedented, const char *content, size_t len)
{
	struct line l;
	size_t pos = 0, end = strlen(dedented), k;

	while (pos < end) {
		pos = line_at(&l, dedented, end, pos);
		k = lead_len(l.ptr, l.len);
		if (k < l.len && l.len - k == len && !memcmp(l.ptr + k, content, len)) {
			*lead = l.ptr;
			*n = k;
			return true;
		}
	}
	return false;
}

/*
 * Whether the answer carries the base indentation already. The lines the
 * model kept tell best: indented as they were shown, or with the base in
 * front. An answer that only keeps a nested line once its outer lines are
 * deleted is so told apart from one that carries the base. When no line
 * was kept: whether every non-blank line starts with the base.
 */
#define ANCHOR_LINES 64         /* enough to decide; bounds the work on a whole-file window */

static int base_carried(bool *out, const struct shape *sh)
{
	const char *base = sh->snippet->indent, *shown;
	size_t nbase = strlen(base), nshown, i, k, tried = 0, carried = 0, as_shown = 0;
	struct buf lead = BUF_INIT;
	bool prefixed = true;
	int error = 0;

	for (i = 0; i < sh->n && nbase && !error; i++) {
		const struct line *l = &sh->lines[i];

		if (line_blank(l))
			continue;
		k = lead_len(l->ptr, l->len);
		buf_clear(&lead);
		if ((error = indent_convert(&lead, l->ptr, k, sh->from, sh->to)) < 0)
			break;
		prefixed = prefixed && has_prefix(lead.ptr, lead.len, base, nbase);
		if (tried++ >= ANCHOR_LINES ||
		    !shown_lead(&shown, &nshown, sh->snippet->dedented, l->ptr + k, l->len - k))
			continue;
		if (lead.len == nshown && !memcmp(lead.ptr, shown, nshown))
			as_shown++;
		else if (lead.len == nbase + nshown && has_prefix(lead.ptr, lead.len, base, nbase) &&
			 !memcmp(lead.ptr + nbase, shown, nshown))
			carried++;
	}
	buf_release(&lead);
	*out = nbase && (carried || as_shown ? carried > as_shown : prefixed);
	return error;
}

/* Where the snippet's trailing blank lines and final line end start (kept byte for byte). */
static size_t tail_start(const char *text, size_t len)
{
	struct line l;
	size_t pos = 0, next, tail = SIZE_MAX;

	while (pos < len) {
		next = line_at(&l, text, len, pos);
		if (tail == SIZE_MAX || !line_blank(&l))
			tail = pos + l.len;
		pos = next;
	}
	return tail == SIZE_MAX ? 0 : tail;
}

/* Whether most blank lines before the tail carry whitespace (an editor that indents them). */
static bool blank_lines_filled(const char *text, size_t tail)
{
	struct line l;
	size_t pos = 0, filled = 0, empty = 0;

	while (pos < tail) {
		pos = line_at(&l, text, tail, pos);
		if (line_blank(&l) && l.len)
			filled++;
		else if (line_blank(&l))
			empty++;
	}
	return filled > empty;
}

static int shape_init(struct shape *sh, const struct patch_snippet *snippet, const char *code, size_t len)
{
	int error;

	memset(sh, 0, sizeof(*sh));
	sh->snippet = snippet;
	sh->eol = snippet->crlf ? "\r\n" : "\n";
	sh->tail = tail_start(snippet->text, snippet->len);
	sh->fill = blank_lines_filled(snippet->text, sh->tail);
	sh->to = snippet->unit;
	fence_strip(&code, &len);
	if ((error = lines_split(sh, code, len)) < 0)
		return error;
	sh->from = answer_unit(sh);
	if ((error = base_carried(&sh->add_base, sh)) < 0)
		return error;
	sh->add_base = !sh->add_base;
	return 0;
}

/* One line's new indentation: the base unless the answer carries it, then its own, converted. */
static int line_indent(struct buf *out, const struct shape *sh, const struct line *l)
{
	int error = 0;

	buf_clear(out);
	if (sh->add_base)
		error = buf_puts(out, sh->snippet->indent);
	return error ? error : indent_convert(out, l->ptr, lead_len(l->ptr, l->len), sh->from, sh->to);
}

/* The snippet's blank lines after its last line (those of its tail). */
static int tail_blank_lines(const struct shape *sh)
{
	const struct patch_snippet *s = sh->snippet;
	struct line l;
	size_t pos = sh->tail;
	int n = -1;

	while (pos < s->len) {
		pos = line_at(&l, s->text, s->len, pos);
		n++;
	}
	return n < 0 ? 0 : n;
}

/* The same line but for its spaces and tabs (what E261, E225 or W291 change). */
static bool line_same_text(const struct line *a, const struct line *b)
{
	size_t i = 0, j = 0;

	for (;;) {
		i += lead_len(a->ptr + i, a->len - i);
		j += lead_len(b->ptr + j, b->len - j);
		if (i == a->len || j == b->len)
			return i == a->len && j == b->len;
		if (a->ptr[i++] != b->ptr[j++])
			return false;
	}
}

/*
 * Whether the window's last line moved up in the answer, leaving the
 * answer's blank lines at the end in its place (E402 taking an import to
 * the top): the snippet's last non-blank line is among the answer's lines
 * (its spaces aside), but not the last one. When it is still the last, or
 * is gone (edited, deleted), more line ends than the snippet had are a
 * model's slip.
 */
static bool window_end_moved(const struct shape *sh)
{
	const struct patch_snippet *s = sh->snippet;
	struct line l, last = { 0 };
	size_t pos = 0, i;
	bool any = false;

	while (pos < s->len) {
		pos = line_at(&l, s->text, s->len, pos);
		if (!line_blank(&l)) {
			last = l;
			any = true;
		}
	}
	if (!any || !sh->n || line_same_text(&sh->lines[sh->n - 1], &last))
		return false;
	for (i = 0; i + 1 < sh->n; i++)
		if (line_same_text(&sh->lines[i], &last))
			return true;
	return false;
}

/*
 * After the answer's last line (its line end already written): the file's
 * own end for a fix of it, the answer's blank lines where they are safe
 * (see patch_text.h), or else the snippet's end byte for byte.
 */
static int end_emit(struct buf *out, const struct shape *sh, size_t eol)
{
	const struct patch_snippet *s = sh->snippet;
	int i, error = 0;

	if (s->ends_file && s->at_end)
		return 0;
	if (!s->at_end && sh->blank_end > tail_blank_lines(sh) &&
	    sh->blank_end + s->blank_after <= s->blank_run && window_end_moved(sh)) {
		for (i = 0; i < sh->blank_end && !error; i++)
			error = buf_puts(out, sh->eol);
		return error;
	}
	out->len -= eol;
	return buf_put(out, s->text + sh->tail, s->len - sh->tail);
}

static int shape_emit(struct buf *out, const struct shape *sh)
{
	struct buf indent = BUF_INIT;
	size_t i, lead, pending = 0, eol = strlen(sh->eol);
	int error = 0;

	for (i = 0; i < sh->n && !error; i++) {
		const struct line *l = &sh->lines[i];

		if (!l->len && sh->fill) {
			pending++;
			continue;
		}
		if (!l->len) {
			error = buf_puts(out, sh->eol);
			continue;
		}
		lead = lead_len(l->ptr, l->len);
		if ((error = line_indent(&indent, sh, l)) < 0)
			break;
		for (; pending && !error; pending--)
			if (!(error = buf_put(out, indent.ptr, indent.len)))
				error = buf_puts(out, sh->eol);
		if (!error)
			error = buf_put(out, indent.ptr, indent.len);
		if (!error)
			error = buf_put(out, l->ptr + lead, l->len - lead);
		if (!error)
			error = buf_puts(out, sh->eol);
	}
	buf_release(&indent);
	if (error < 0 || !sh->n)
		return error;
	return end_emit(out, sh, eol);
}

int patch_reindent(struct buf *out, const struct patch_snippet *snippet, const char *code, size_t len)
{
	struct shape sh;
	int error;

	if ((error = shape_init(&sh, snippet, code, len)) == 0)
		error = shape_emit(out, &sh);
	free(sh.lines);
	return error;
}
