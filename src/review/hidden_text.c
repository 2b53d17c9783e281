/* Text meant to fool a reviewer, found in a line: the hidden-text rule's check (hidden_text.h). */
#include "hidden_text.h"
#include "utf8.h"
#include "status.h"

#include <string.h>
#include <strings.h>

/* A line longer than this is shown around its hits, this many bytes either side. */
#define CODE_WHOLE_MAX 400
#define CODE_AROUND 120
/* The words a pattern matched, quoted in the issue at most this long. */
#define QUOTE_MAX 80

/* The characters that hide or reorder text, by name. */
static const struct {
	uint32_t cp;
	const char *name;
} hidden_names[] = {
	{ 0x200b, "ZERO WIDTH SPACE" }, { 0x200c, "ZERO WIDTH NON-JOINER" },
	{ 0x200d, "ZERO WIDTH JOINER" }, { 0x2060, "WORD JOINER" },
	{ 0x202a, "LEFT-TO-RIGHT EMBEDDING" }, { 0x202b, "RIGHT-TO-LEFT EMBEDDING" },
	{ 0x202c, "POP DIRECTIONAL FORMATTING" }, { 0x202d, "LEFT-TO-RIGHT OVERRIDE" },
	{ 0x202e, "RIGHT-TO-LEFT OVERRIDE" }, { 0x2066, "LEFT-TO-RIGHT ISOLATE" },
	{ 0x2067, "RIGHT-TO-LEFT ISOLATE" }, { 0x2068, "FIRST STRONG ISOLATE" },
	{ 0x2069, "POP DIRECTIONAL ISOLATE" }, { 0xfeff, "ZERO WIDTH NO-BREAK SPACE (byte order mark)" },
};

/*
 * Cyrillic and Greek letters that look like a Latin one (Unicode's
 * confusables, the ones fonts draw alike). An identifier mixes scripts to
 * deceive when its Latin letters come with Cyrillic or Greek ones that all
 * look Latin (as Unicode TR39 and rustc's mixed_script_confusables judge
 * it): `sayНello` does, while math's names (Δx, θ_max) and a word that
 * shows its other script (a visible Ж) do not.
 */
static const struct {
	uint32_t cp;
	char latin;
} lookalikes[] = {
	/* Cyrillic */
	{ 0x0405, 'S' }, { 0x0406, 'I' }, { 0x0408, 'J' }, { 0x0410, 'A' }, { 0x0412, 'B' },
	{ 0x0415, 'E' }, { 0x041a, 'K' }, { 0x041c, 'M' }, { 0x041d, 'H' }, { 0x041e, 'O' },
	{ 0x0420, 'P' }, { 0x0421, 'C' }, { 0x0422, 'T' }, { 0x0423, 'Y' }, { 0x0425, 'X' },
	{ 0x0430, 'a' }, { 0x0435, 'e' }, { 0x043e, 'o' }, { 0x0440, 'p' }, { 0x0441, 'c' },
	{ 0x0443, 'y' }, { 0x0445, 'x' }, { 0x0455, 's' }, { 0x0456, 'i' }, { 0x0458, 'j' },
	{ 0x04ae, 'Y' }, { 0x04af, 'y' }, { 0x04bb, 'h' }, { 0x04c0, 'I' }, { 0x04cf, 'l' },
	{ 0x0501, 'd' }, { 0x051a, 'Q' }, { 0x051b, 'q' }, { 0x051c, 'W' }, { 0x051d, 'w' },
	/* Greek */
	{ 0x037f, 'J' }, { 0x0391, 'A' }, { 0x0392, 'B' }, { 0x0395, 'E' }, { 0x0396, 'Z' },
	{ 0x0397, 'H' }, { 0x0399, 'I' }, { 0x039a, 'K' }, { 0x039c, 'M' }, { 0x039d, 'N' },
	{ 0x039f, 'O' }, { 0x03a1, 'P' }, { 0x03a4, 'T' }, { 0x03a5, 'Y' }, { 0x03a7, 'X' },
	{ 0x03bf, 'o' }, { 0x03f2, 'c' }, { 0x03f3, 'j' }, { 0x03f9, 'C' },
};

/* The files where such characters are prose, not code: by extension, or a bare name such as README. */
static const char *const prose_extensions[] = {
	"md", "markdown", "mdx", "txt", "text", "rst", "adoc", "asciidoc", "org", "tex",
	"po", "pot", "xlf", "xliff", "strings", "stringsdict", "arb", "resx",
};

enum script { SCRIPT_NONE, SCRIPT_OTHER, SCRIPT_LATIN, SCRIPT_GREEK, SCRIPT_CYRILLIC };

static bool is_bidi(uint32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* What a character is to an identifier: not part of one, or part of one of no script, or a letter of a script. */
static enum script script_of(uint32_t cp)
{
	if (cp < 0x80) {
		if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z')
			return SCRIPT_LATIN;
		return (cp >= '0' && cp <= '9') || cp == '_' || cp == '$' ? SCRIPT_OTHER : SCRIPT_NONE;
	}
	if ((cp >= 0xc0 && cp <= 0x24f && cp != 0xd7 && cp != 0xf7) || (cp >= 0x1e00 && cp <= 0x1eff) ||
	    (cp >= 0x2c60 && cp <= 0x2c7f) || (cp >= 0xa720 && cp <= 0xa7ff))
		return SCRIPT_LATIN;
	if ((cp >= 0x370 && cp <= 0x3ff && cp != 0x37e && cp != 0x387) || (cp >= 0x1f00 && cp <= 0x1fff))
		return SCRIPT_GREEK;
	if ((cp >= 0x400 && cp <= 0x52f) || (cp >= 0x1c80 && cp <= 0x1c8f) || (cp >= 0x2de0 && cp <= 0x2dff) ||
	    (cp >= 0xa640 && cp <= 0xa69f))
		return SCRIPT_CYRILLIC;
	return cp >= 0x300 && cp <= 0x36f ? SCRIPT_OTHER : SCRIPT_NONE;
}

static char lookalike_of(uint32_t cp)
{
	size_t i;

	for (i = 0; i < sizeof(lookalikes) / sizeof(lookalikes[0]); i++)
		if (lookalikes[i].cp == cp)
			return lookalikes[i].latin;
	return 0;
}

/* The character at s (U+FFFD for a byte that is not UTF-8) and its length. */
static size_t char_at(uint32_t *cp, const char *s, size_t len)
{
	size_t n;

	if ((unsigned char)*s < 0x80) {
		*cp = (unsigned char)*s;
		return 1;
	}
	if (!(n = utf8_decode(cp, s, len)))
		*cp = 0xfffd;
	return n ? n : 1;
}

/* A joiner between two characters of this kind joins them (an emoji sequence, Indic or Arabic text). */
static bool joinable(uint32_t cp)
{
	return cp >= 0x80 && cp != 0xfffd && script_of(cp) <= SCRIPT_OTHER && !utf8_hides(cp);
}

struct scan {
	struct hidden_hit *hits;
	size_t max, n;
	/* The identifier being read: Latin letters, Cyrillic or Greek ones, all of those lookalikes. */
	bool open, latin, foreign, all_look;
	size_t start;
	uint32_t first_foreign;
};

static void hit_add(struct scan *s, enum hidden_kind kind, size_t at, size_t len, uint32_t cp)
{
	if (s->n < s->max)
		s->hits[s->n++] = (struct hidden_hit){ kind, at, len, cp };
}

static void word_end(struct scan *s, size_t at)
{
	if (s->open && s->latin && s->foreign && s->all_look)
		hit_add(s, HIDDEN_MIXED_SCRIPT, s->start, at - s->start, s->first_foreign);
	s->open = s->latin = s->foreign = false;
	s->first_foreign = 0;
}

static void word_add(struct scan *s, size_t at, uint32_t cp, enum script script)
{
	if (!s->open) {
		s->open = s->all_look = true;
		s->start = at;
	}
	if (script == SCRIPT_LATIN)
		s->latin = true;
	if (script == SCRIPT_CYRILLIC || script == SCRIPT_GREEK) {
		s->foreign = true;
		s->all_look &= lookalike_of(cp) != 0;
		if (!s->first_foreign)
			s->first_foreign = cp;
	}
}

size_t hidden_text_scan(struct hidden_hit *hits, size_t max, const char *line, size_t len, bool first, bool code)
{
	struct scan s = { hits, max, 0, false, false, false, false, 0, 0 };
	uint32_t cp, prev = 0, next;
	size_t i = 0, step;

	if (!utf8_valid(line, len))
		return 0;
	while (i < len) {
		enum script script;

		step = char_at(&cp, line + i, len - i);
		script = code ? script_of(cp) : SCRIPT_NONE;
		if (script == SCRIPT_NONE)
			word_end(&s, i);
		else
			word_add(&s, i, cp, script);
		if (is_bidi(cp)) {
			hit_add(&s, HIDDEN_BIDI, i, step, cp);
		} else if (utf8_hides(cp) && !(cp == 0xfeff && first && i == 0)) {
			next = 0;
			if (i + step < len)
				char_at(&next, line + i + step, len - i - step);
			if (!((cp == 0x200c || cp == 0x200d) && joinable(prev) && joinable(next)))
				hit_add(&s, HIDDEN_ZERO_WIDTH, i, step, cp);
		}
		prev = cp;
		i += step;
	}
	word_end(&s, len);
	return s.n;
}

bool hidden_text_prose(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t i;

	base = base ? base + 1 : path;
	if (!(dot = strrchr(base, '.')) || dot == base)
		return true;    /* README, LICENSE, NEWS: no extension is no language */
	for (i = 0; i < sizeof(prose_extensions) / sizeof(prose_extensions[0]); i++)
		if (!strcasecmp(dot + 1, prose_extensions[i]))
			return true;
	return false;
}

static const char *hidden_name(uint32_t cp)
{
	size_t i;

	for (i = 0; i < sizeof(hidden_names) / sizeof(hidden_names[0]); i++)
		if (hidden_names[i].cp == cp)
			return hidden_names[i].name;
	return "";
}

static const char *kind_what(enum hidden_kind kind)
{
	switch (kind) {
#define HIDDEN_KIND_WHAT(id, title, what, todo) case id: return what;
	HIDDEN_KIND_LIST(HIDDEN_KIND_WHAT)
#undef HIDDEN_KIND_WHAT
	}
	return "";
}

/* "U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 ...": each character of a kind once, in order. */
static int characters_put(struct buf *out, const struct hidden_hit *hits, size_t n, enum hidden_kind kind)
{
	size_t i, k, named = 0;
	int error = 0;

	for (i = 0; i < n && !error; i++) {
		if (hits[i].kind != kind)
			continue;
		for (k = 0; k < i && !(hits[k].kind == kind && hits[k].cp == hits[i].cp); k++)
			;
		if (k == i)
			error = buf_printf(out, "%sU+%04X %s", named++ ? ", " : "", (unsigned)hits[i].cp,
					   hidden_name(hits[i].cp));
	}
	return error;
}

/* Text with its hidden characters made visible, and in [from, to) the Cyrillic and Greek letters too. */
static int reveal_put(struct buf *out, const char *text, size_t len, size_t from, size_t to)
{
	size_t i = from, start = from, step;
	uint32_t cp;
	int error;

	if ((error = utf8_reveal(out, text, from)) < 0)
		return error;
	while (i < to && !error) {
		step = char_at(&cp, text + i, to - i);
		if (script_of(cp) == SCRIPT_GREEK || script_of(cp) == SCRIPT_CYRILLIC) {
			if ((error = buf_put(out, text + start, i - start)) == 0)
				error = buf_printf(out, "<U+%04X>", (unsigned)cp);
			start = i + step;
		}
		i += step;
	}
	if (!error)
		error = buf_put(out, text + start, to - start);
	return error ? error : utf8_reveal(out, text + to, len - to);
}

static int identifier_put(struct buf *out, const char *line, const struct hidden_hit *hit)
{
	char latin = lookalike_of(hit->cp);
	int error = buf_putc(out, '`');

	if (!error)
		error = reveal_put(out, line + hit->at, hit->len, 0, hit->len);
	if (!error)
		error = buf_printf(out, "` (U+%04X is %s", (unsigned)hit->cp,
				   script_of(hit->cp) == SCRIPT_CYRILLIC ? "Cyrillic" : "Greek");
	if (!error && latin)
		error = buf_printf(out, ", drawn as Latin %c", latin);
	return error ? error : buf_putc(out, ')');
}

/* The words a pattern matched, quoted, made visible and cut at a character. */
static int quote_put(struct buf *out, const char *line, const struct hidden_hit *hit)
{
	size_t len = hit->len < QUOTE_MAX ? hit->len : QUOTE_MAX;
	int error;

	while (len < hit->len && len && ((unsigned char)line[hit->at + len] & 0xc0) == 0x80)
		len--;
	if ((error = buf_putc(out, '"')) == 0 && (error = utf8_reveal(out, line + hit->at, len)) == 0)
		error = buf_puts(out, len < hit->len ? "...\"" : "\"");
	return error;
}

/* The sentence of one kind: what was found, then what it does. */
static int kind_put(struct buf *out, const char *line, const struct hidden_hit *hits, size_t n,
		    enum hidden_kind kind)
{
	size_t i, k, shown = 0;
	int error = 0;

	for (i = 0; i < n && hits[i].kind != kind; i++)
		;
	if (i == n)
		return 0;
	if (out->len && (error = buf_putc(out, '\n')) < 0)
		return error;
	if (kind == HIDDEN_BIDI || kind == HIDDEN_ZERO_WIDTH)
		error = characters_put(out, hits, n, kind);
	for (; i < n && !error; i++) {
		if (hits[i].kind != kind || kind == HIDDEN_BIDI || kind == HIDDEN_ZERO_WIDTH)
			continue;
		for (k = 0; k < i && !(hits[k].kind == kind && hits[k].len == hits[i].len &&
				       !memcmp(line + hits[k].at, line + hits[i].at, hits[i].len)); k++)
			;
		if (k < i)
			continue;
		if (shown++ && (error = buf_puts(out, ", ")) < 0)
			break;
		error = kind == HIDDEN_MIXED_SCRIPT ? identifier_put(out, line, &hits[i]) :
			quote_put(out, line, &hits[i]);
	}
	if (!error)
		error = buf_printf(out, ": %s.", kind_what(kind));
	return error;
}

/* The evidence: the line made visible, or the part of a long line around its hits. */
static int code_put(struct buf *out, const char *line, size_t len, const struct hidden_hit *hits, size_t n)
{
	size_t from = 0, to = len, i, lo = len, hi = 0;
	int error = 0;

	for (i = 0; i < n; i++) {
		lo = hits[i].at < lo ? hits[i].at : lo;
		hi = hits[i].at + hits[i].len > hi ? hits[i].at + hits[i].len : hi;
	}
	if (len > CODE_WHOLE_MAX) {
		from = lo > CODE_AROUND ? lo - CODE_AROUND : 0;
		to = hi + CODE_AROUND < len ? hi + CODE_AROUND : len;
		while (from && ((unsigned char)line[from] & 0xc0) == 0x80)
			from--;
		while (to < len && ((unsigned char)line[to] & 0xc0) == 0x80)
			to++;
	}
	/* The identifiers' letters are made visible in their spans; everything else's hidden characters everywhere. */
	for (i = 0; i < n && !error; i++) {
		const struct hidden_hit *h = &hits[i];

		if (h->kind != HIDDEN_MIXED_SCRIPT || h->at < from || h->at + h->len > to)
			continue;
		error = reveal_put(out, line + from, h->at + h->len - from, h->at - from, h->at + h->len - from);
		from = h->at + h->len;
	}
	if (!error)
		error = utf8_reveal(out, line + from, to - from);
	return error;
}

int hidden_text_describe(struct hidden_finding *out, const char *line, size_t len, const struct hidden_hit *hits,
			 size_t n, enum severity base, bool code)
{
	static const char *const titles[] = {
#define HIDDEN_KIND_TITLE(id, title, what, todo) title,
		HIDDEN_KIND_LIST(HIDDEN_KIND_TITLE)
#undef HIDDEN_KIND_TITLE
	};
	static const char *const todos[] = {
#define HIDDEN_KIND_TODO(id, title, what, todo) todo,
		HIDDEN_KIND_LIST(HIDDEN_KIND_TODO)
#undef HIDDEN_KIND_TODO
	};
	enum hidden_kind worst = HIDDEN_ADDRESSED;
	size_t i;
	int error = 0, k;

	memset(out, 0, sizeof(*out));
	if (!n)
		return error_set(RL_EUSAGE, "no hidden text to describe");
	for (i = 0; i < n; i++)
		worst = hits[i].kind < worst ? hits[i].kind : worst;
	out->severity = worst == HIDDEN_BIDI && code && base < SEV_CRITICAL ? (enum severity)(base + 1) : base;
	out->suggestion = todos[worst];
	for (k = HIDDEN_BIDI; k <= HIDDEN_ADDRESSED && !error; k++)
		error = kind_put(&out->issue, line, hits, n, (enum hidden_kind)k);
	if (!error)
		error = buf_puts(&out->title, titles[worst]);
	if (!error)
		error = code_put(&out->code, line, len, hits, n);
	if (error)
		hidden_finding_release(out);
	return error;
}

void hidden_finding_release(struct hidden_finding *f)
{
	buf_release(&f->title);
	buf_release(&f->issue);
	buf_release(&f->code);
}
