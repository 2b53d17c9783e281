/*
 * Fixes applied to files: snippets taken from a file, the model's answer
 * put back in the snippet's shape, previews, atomic writes and undo. See
 * patch.h for the decisions on blank lines, units and deletions.
 */
#include "patch.h"
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* The hashing state on the stack: xxHash declares it for this. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

/* What names a temporary file of an apply: .NAME.revline-XXXXXX beside the file. */
#define LEFTOVER_MARK ".revline-"

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

/*
 * After the answer's last line (its line end already written): the file's
 * own end for a fix of it, the answer's blank lines where they are safe
 * (see patch.h), or else the snippet's end byte for byte.
 */
static int end_emit(struct buf *out, const struct shape *sh, size_t eol)
{
	const struct patch_snippet *s = sh->snippet;
	int i, error = 0;

	if (s->ends_file && s->at_end)
		return 0;
	if (!s->at_end && sh->blank_end > tail_blank_lines(sh) &&
	    sh->blank_end + s->blank_after <= s->blank_run) {
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

/*
 * A file's contents in pieces (the file after a change is the bytes
 * before it, the replacement, the bytes after it), so that neither the
 * id nor the write needs the whole new file copied into one buffer.
 */
struct span {
	const char *ptr;
	size_t len;
};

#define ID_PREFIX "xxh64:"

static void id_of(char out[PATCH_ID_SIZE], const struct span *s, size_t n)
{
	XXH64_state_t state;
	size_t i, total = 0;

	XXH64_reset(&state, 0);
	for (i = 0; i < n; i++) {
		XXH64_update(&state, s[i].ptr, s[i].len);
		total += s[i].len;
	}
	snprintf(out, PATCH_ID_SIZE, ID_PREFIX "%016" PRIx64 ":%zu", (uint64_t)XXH64_digest(&state), total);
}

void patch_file_id(char out[PATCH_ID_SIZE], const char *data, size_t len)
{
	struct span s = { data, len };

	id_of(out, &s, 1);
}

/* An id stored by an older revline: the git blob id, 40 hex digits. */
static bool id_is_blob(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return n == 40 && !id[n];
}

static bool blob_matches(const char *id, const struct span *s, size_t n)
{
	struct buf all = BUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	size_t i;
	bool same = false;

	for (i = 0; i < n; i++)
		if (buf_put(&all, s[i].ptr, s[i].len) < 0)
			goto done;
	git_libgit2_init();
	if (git_odb_hash(&oid, all.ptr ? all.ptr : "", all.len, GIT_OBJECT_BLOB) == 0)
		same = !strcmp(git_oid_tostr(hex, sizeof(hex), &oid), id);
	git_libgit2_shutdown();
done:
	buf_release(&all);
	return same;
}

/*
 * Whether some contents have this id, in the id's own kind. The size in
 * the id is compared first: a file of another size is not read through.
 * An empty or unknown id matches nothing.
 */
static bool id_matches(const char *id, const struct span *s, size_t n)
{
	char now[PATCH_ID_SIZE];
	const char *size;
	size_t i, total = 0;

	if (id_is_blob(id))
		return blob_matches(id, s, n);
	if (strncmp(id, ID_PREFIX, strlen(ID_PREFIX)) || !(size = strchr(id + strlen(ID_PREFIX), ':')))
		return false;
	for (i = 0; i < n; i++)
		total += s[i].len;
	if (strtoull(size + 1, NULL, 10) != total)
		return false;
	id_of(now, s, n);
	return !strcmp(now, id);
}

static int snippet_fits(const struct patch_snippet *s, const char *text, size_t len)
{
	if (s->start > s->end || s->end > len || s->end - s->start != s->len ||
	    memcmp(text + s->start, s->text, s->len))
		return error_set(RL_ECONFLICT, "%s changed since the fix was proposed; ask for the fix again",
				 s->path);
	return 0;
}

/*
 * The bytes a replacement takes the place of: the snippet's, and, when it
 * deletes the last lines of a file that ends without a newline, the line
 * end before them, so that the file still ends without one.
 */
static void range_of(size_t *from, size_t *to, const struct patch_snippet *s, const char *text,
		     size_t len, size_t rlen)
{
	*from = s->start;
	*to = s->end;
	if (rlen || s->end != len || !s->len || s->text[s->len - 1] == '\n' || !s->start ||
	    text[s->start - 1] != '\n')
		return;
	*from = s->start - 1;
	if (*from && text[*from - 1] == '\r')
		(*from)--;
}

static int bytes_splice(struct buf *out, const char *text, size_t len, size_t from, size_t to,
			const char *r, size_t rlen)
{
	int error;

	if ((error = buf_grow(out, from + rlen + (len - to))) < 0)
		return error;
	buf_put(out, text, from);
	buf_put(out, r, rlen);
	return buf_put(out, text + to, len - to);
}

int patch_preview(struct buf *out, const struct patch_snippet *snippet, const char *text, size_t len,
		  const char *replacement, size_t rlen)
{
	git_diff_options opts;
	git_patch *patch = NULL;
	git_buf diff = { 0 };
	struct buf next = BUF_INIT;
	size_t from, to;
	int error;

	if ((error = snippet_fits(snippet, text, len)) < 0)
		return error;
	range_of(&from, &to, snippet, text, len, rlen);
	if ((error = bytes_splice(&next, text, len, from, to, replacement, rlen)) < 0)
		return error;
	git_libgit2_init();
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 3;
	if (git_patch_from_buffers(&patch, text, len, snippet->path, next.ptr, next.len, snippet->path,
				   &opts) < 0 || git_patch_to_buf(&diff, patch) < 0) {
		const git_error *e = git_error_last();

		error = error_set(RL_ERROR, "%s: cannot compute the diff: %s", snippet->path,
				  e && e->message ? e->message : "libgit2 error");
		goto done;
	}
	error = buf_put(out, diff.ptr, diff.size);
done:
	git_buf_dispose(&diff);
	git_patch_free(patch);
	git_libgit2_shutdown();
	buf_release(&next);
	return error;
}

/* A working-tree file a fix may write: where it really is, and what it is now. */
struct target {
	char *dir;              /* its real directory */
	char *full;             /* dir/name */
	struct stat st;
};

static void target_release(struct target *t)
{
	free(t->dir);
	free(t->full);
	memset(t, 0, sizeof(*t));
}

/* A path that cannot leave the working tree by its spelling, nor go into .git. */
static int path_check(const char *path)
{
	const char *p = path, *slash;
	size_t n;

	if (!*path)
		return error_set(RL_EUSAGE, "no file named: give a path inside the working tree");
	if (*path == '/')
		return error_set(RL_EUSAGE, "%s: an absolute path; give the file's path inside the working tree",
				 path);
	for (;; p = slash + 1) {
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && !memcmp(p, "..", 2))
			return error_set(RL_EUSAGE, "%s: '..' leads outside the working tree; "
					 "give the file's path inside it", path);
		if (n == 4 && !memcmp(p, ".git", 4))
			return error_set(RL_EUSAGE, "%s: inside .git, which is not the working tree", path);
		if (!slash)
			break;
	}
	if (!n)
		return error_set(RL_EUSAGE, "%s: a directory, not a file", path);
	return 0;
}

static int open_fail(const char *path, int err)
{
	if (err == ENOENT || err == ENOTDIR)
		return error_set(RL_ENOTFOUND, "%s: no such file in the working tree", path);
	if (err == ELOOP)
		return error_set(RL_EUSAGE, "%s: a symbolic link; revline does not write through links: "
				 "fix the file it points to", path);
	return error_set(RL_EIO, "%s: %s", path, strerror(err));
}

/* Where the file's directory really is; it must be inside the (real) working tree. */
static int target_dir(struct target *t, const char *workdir, const char *path)
{
	char root[PATH_MAX], dir[PATH_MAX];
	struct buf parent = BUF_INIT;
	const char *slash = strrchr(path, '/');
	size_t n;
	int error = 0;

	if (!realpath(workdir, root))
		return error_set(RL_EIO, "%s: cannot open the working tree: %s", workdir, strerror(errno));
	if ((error = buf_printf(&parent, "%s/%.*s", root, slash ? (int)(slash - path) : 0, path)) < 0)
		return error;
	if (!realpath(parent.ptr, dir)) {
		error = open_fail(path, errno);
		goto done;
	}
	n = strlen(root);
	if (n > 1 && (strncmp(dir, root, n) || (dir[n] != '/' && dir[n]))) {
		error = error_set(RL_EUSAGE, "%s: its directory leads outside the working tree (to %s); "
				  "revline only writes inside it", path, dir);
		goto done;
	}
	if (!(t->dir = strdup(dir))) {
		error = error_nomem();
		goto done;
	}
	buf_clear(&parent);
	if ((error = buf_printf(&parent, "%s/%s", dir, slash ? slash + 1 : path)) < 0)
		goto done;
	t->full = buf_detach(&parent);
done:
	buf_release(&parent);
	return error;
}

static int read_all(struct buf *out, int fd, const char *path, size_t hint)
{
	ssize_t n;
	int error;

	if ((error = buf_grow(out, hint + 1)) < 0)
		return error;
	for (;;) {
		if (out->cap - out->len < 2 && (error = buf_grow(out, out->cap)) < 0)
			return error;
		n = read(fd, out->ptr + out->len, out->cap - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_set(RL_EIO, "%s: cannot read it: %s", path, strerror(errno));
		if (n == 0)
			break;
		out->len += (size_t)n;
	}
	out->ptr[out->len] = '\0';
	return 0;
}

/*
 * Open the file without following a link, and check that what was opened
 * is a regular file: a FIFO must not block us, a device must not be read.
 */
static int target_read(struct target *t, struct buf *out, const char *workdir, const char *path)
{
	struct stat st;
	int fd = -1, error;

	memset(t, 0, sizeof(*t));
	if ((error = path_check(path)) < 0 || (error = target_dir(t, workdir, path)) < 0)
		goto done;
	if (lstat(t->full, &st) < 0) {
		error = open_fail(path, errno);
		goto done;
	}
	if (S_ISLNK(st.st_mode)) {
		error = open_fail(path, ELOOP);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error = error_set(RL_EUSAGE, "%s: not a regular file; revline only fixes files", path);
		goto done;
	}
	if ((fd = open(t->full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		error = open_fail(path, errno);
		goto done;
	}
	if (fstat(fd, &t->st) < 0 || !S_ISREG(t->st.st_mode) || t->st.st_ino != st.st_ino ||
	    t->st.st_dev != st.st_dev) {
		error = error_set(RL_ECONFLICT, "%s changed while revline read it; try again", path);
		goto done;
	}
	error = read_all(out, fd, path, (size_t)t->st.st_size);
done:
	if (fd >= 0)
		close(fd);
	if (error < 0)
		target_release(t);
	return error;
}

int patch_read(struct buf *out, const char *workdir, const char *path)
{
	struct target t;
	int error = target_read(&t, out, workdir, path);

	target_release(&t);
	return error;
}

static int write_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Make a rename in the directory last; it has happened, so a failure here changes nothing. */
static void dir_sync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	(void)fsync(fd);
	close(fd);
}

/*
 * Replace the file's bytes all at once: a temporary file beside it (a
 * dotfile, so that tools watching the tree skip it), written, synced and
 * given the file's mode and owner, renamed over it. Whatever fails, the
 * temporary file goes and the file is as it was.
 */
static int target_write(const struct target *t, const char *path, const struct span *data, size_t n)
{
	struct buf tmp = BUF_INIT;
	const char *name = strrchr(t->full, '/') + 1;
	size_t i;
	int fd, error = 0, failed = 0;

	if ((error = buf_printf(&tmp, "%s/.%.200s" LEFTOVER_MARK "XXXXXX", t->dir, name)) < 0)
		return error;
	if ((fd = mkostemp(tmp.ptr, O_CLOEXEC)) < 0) {
		error = error_set(RL_EIO, "cannot write %s: cannot create a file in its directory: %s; "
				  "the file is unchanged", path, strerror(errno));
		goto done;
	}
	/*
	 * Root fixing someone's file should leave it theirs. Others cannot give
	 * a file away; theirs becomes their own, as with any editor's save.
	 */
	if (t->st.st_uid != geteuid() || t->st.st_gid != getegid()) {
		if (fchown(fd, t->st.st_uid, t->st.st_gid) < 0 && geteuid() == 0) {
			error = error_set(RL_EIO, "cannot write %s: cannot keep its owner: %s; the file is unchanged",
					  path, strerror(errno));
			close(fd);
			unlink(tmp.ptr);
			goto done;
		}
	}
	for (i = 0; i < n && !failed; i++)
		failed = write_all(fd, data[i].ptr, data[i].len);
	if (failed || fchmod(fd, t->st.st_mode & 07777) < 0 || fsync(fd) < 0) {
		error = error_set(RL_EIO, "cannot write %s: %s; the file is unchanged", path, strerror(errno));
		close(fd);
		unlink(tmp.ptr);
		goto done;
	}
	if (close(fd) < 0 || rename(tmp.ptr, t->full) < 0) {
		error = error_set(RL_EIO, "cannot write %s: %s; the file is unchanged", path, strerror(errno));
		unlink(tmp.ptr);
		goto done;
	}
	dir_sync(t->dir);
done:
	buf_release(&tmp);
	return error;
}

static int copy_of(char **out, const char *data, size_t len)
{
	struct buf b = BUF_INIT;
	int error = buf_put(&b, data, len);

	*out = error ? NULL : buf_detach(&b);
	return error;
}

/* An apply read and checked, not written yet. */
struct patch_pending {
	struct target t;
	struct buf now;                 /* the file as read */
	char *path;
	struct span next[3];            /* the file as it will be: now's head, the replacement, now's tail */
	char *replacement;
};

void patch_pending_free(struct patch_pending *p)
{
	if (!p)
		return;
	target_release(&p->t);
	buf_release(&p->now);
	free(p->path);
	free(p->replacement);
	free(p);
}

/* The file after replacing from..to of text with r: three pieces, nothing copied. */
static void spans_spliced(struct span out[3], const char *text, size_t len, size_t from, size_t to,
			  const char *r, size_t rlen)
{
	out[0] = (struct span){ text, from };
	out[1] = (struct span){ r, rlen };
	out[2] = (struct span){ text + to, len - to };
}

/*
 * One reading of the file and two digests: the conflict check (the file
 * as it is now against the snippet's id) and the id of the file to be.
 */
int patch_prepare(struct patch_pending **out, struct patch_undo *undo, const char *workdir,
		  const struct patch_snippet *snippet, const char *replacement, size_t len)
{
	struct patch_pending *p;
	struct span now;
	size_t from, to;
	int error;

	*out = NULL;
	memset(undo, 0, sizeof(*undo));
	if (!(p = calloc(1, sizeof(*p))))
		return error_nomem();
	if ((error = target_read(&p->t, &p->now, workdir, snippet->path)) < 0)
		goto done;
	now = (struct span){ p->now.ptr, p->now.len };
	if (!id_matches(snippet->file_id, &now, 1)) {
		error = error_set(RL_ECONFLICT, "%s changed since the fix was proposed; ask for the fix again",
				  snippet->path);
		goto done;
	}
	if ((error = snippet_fits(snippet, p->now.ptr, p->now.len)) < 0)
		goto done;
	range_of(&from, &to, snippet, p->now.ptr, p->now.len, len);
	if (len == to - from && !memcmp(replacement, p->now.ptr + from, len)) {
		error = error_set(RL_EUSAGE, "%s: the fix changes nothing; nothing was written", snippet->path);
		goto done;
	}
	undo->offset = from;
	undo->before_len = to - from;
	undo->after_len = len;
	if ((error = copy_of(&undo->path, snippet->path, strlen(snippet->path))) < 0 ||
	    (error = copy_of(&undo->before, p->now.ptr + from, to - from)) < 0 ||
	    (error = copy_of(&undo->after, replacement, len)) < 0 ||
	    (error = copy_of(&p->path, snippet->path, strlen(snippet->path))) < 0 ||
	    (error = copy_of(&p->replacement, replacement, len)) < 0)
		goto done;
	/* The check passed: the file's id now is the snippet's. */
	memcpy(undo->id_before, snippet->file_id, PATCH_ID_SIZE);
	spans_spliced(p->next, p->now.ptr, p->now.len, from, to, p->replacement, len);
	id_of(undo->id_after, p->next, 3);
done:
	if (error < 0) {
		patch_undo_release(undo);
		patch_pending_free(p);
		return error;
	}
	*out = p;
	return 0;
}

int patch_pending_write(struct patch_pending *p)
{
	return target_write(&p->t, p->path, p->next, 3);
}

int patch_apply(struct patch_undo *out, const char *workdir, const struct patch_snippet *snippet,
		const char *replacement, size_t len)
{
	struct patch_pending *p;
	int error;

	if ((error = patch_prepare(&p, out, workdir, snippet, replacement, len)) < 0)
		return error;
	if ((error = patch_pending_write(p)) < 0)
		patch_undo_release(out);
	patch_pending_free(p);
	return error;
}

/* Whether text holds the record's bytes at its offset, and is then the whole file the id names. */
static bool side_holds(const char *text, size_t len, const struct patch_undo *u, const char *bytes,
		       size_t n, const char *id)
{
	struct span all = { text, len };

	return u->offset <= len && n <= len - u->offset && !memcmp(text + u->offset, bytes, n) &&
	       id_matches(id, &all, 1);
}

static enum patch_side side_of(const char *text, size_t len, const struct patch_undo *u)
{
	if (side_holds(text, len, u, u->after, u->after_len, u->id_after))
		return PATCH_AFTER;
	if (side_holds(text, len, u, u->before, u->before_len, u->id_before))
		return PATCH_BEFORE;
	return PATCH_NEITHER;
}

int patch_side(enum patch_side *out, const char *workdir, const struct patch_undo *undo)
{
	struct buf now = BUF_INIT;
	struct target t;
	int error;

	*out = PATCH_NEITHER;
	if ((error = target_read(&t, &now, workdir, undo->path)) == 0)
		*out = side_of(now.ptr, now.len, undo);
	target_release(&t);
	buf_release(&now);
	return error;
}

/* A temporary file of target_write's for name: ".NAME.revline-" and mkostemp's six characters. */
static bool leftover_of(const char *entry, const char *name)
{
	size_t n = strnlen(name, 200), mark = strlen(LEFTOVER_MARK);

	return entry[0] == '.' && !strncmp(entry + 1, name, n) &&
	       !strncmp(entry + 1 + n, LEFTOVER_MARK, mark) && strlen(entry + 1 + n + mark) == 6;
}

int patch_leftovers_remove(size_t *removed, const char *workdir, const char *path)
{
	struct target t = { 0 };
	struct dirent *e;
	struct stat st;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	DIR *dir = NULL;
	int error;

	*removed = 0;
	if ((error = path_check(path)) < 0 || (error = target_dir(&t, workdir, path)) < 0)
		goto done;
	if (!(dir = opendir(t.dir))) {
		error = error_set(RL_EIO, "%s: cannot list its directory: %s", path, strerror(errno));
		goto done;
	}
	while ((e = readdir(dir)))
		if (leftover_of(e->d_name, name) && fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && unlinkat(dirfd(dir), e->d_name, 0) == 0)
			(*removed)++;
done:
	if (dir)
		closedir(dir);
	target_release(&t);
	return error;
}

/* A stored record that does not lead from the file back to the original: never guess. */
static int record_mismatch(const char *path)
{
	return error_set(RL_EUSAGE, "the record of the fix to %s does not match the file; "
			 "revline left it as it is", path);
}

int patch_undo(const char *workdir, const struct patch_undo *undo)
{
	struct buf now = BUF_INIT;
	struct span prev[3], all;
	struct target t;
	int error;

	if ((error = target_read(&t, &now, workdir, undo->path)) < 0)
		goto done;
	all = (struct span){ now.ptr, now.len };
	if (!id_matches(undo->id_after, &all, 1)) {
		/* An undo interrupted after its write: the file is already as it was. */
		if (side_of(now.ptr, now.len, undo) == PATCH_BEFORE)
			goto done;
		error = error_set(RL_ECONFLICT, "%s changed since the fix was applied; revline left it as it is: "
				  "undo the fix by hand", undo->path);
		goto done;
	}
	if (undo->offset > now.len || undo->after_len > now.len - undo->offset ||
	    memcmp(now.ptr + undo->offset, undo->after, undo->after_len)) {
		error = record_mismatch(undo->path);
		goto done;
	}
	spans_spliced(prev, now.ptr, now.len, undo->offset, undo->offset + undo->after_len, undo->before,
		      undo->before_len);
	if (!id_matches(undo->id_before, prev, 3)) {
		error = record_mismatch(undo->path);
		goto done;
	}
	error = target_write(&t, undo->path, prev, 3);
done:
	target_release(&t);
	buf_release(&now);
	return error;
}

void patch_undo_release(struct patch_undo *undo)
{
	free(undo->path);
	free(undo->before);
	free(undo->after);
	memset(undo, 0, sizeof(*undo));
}
