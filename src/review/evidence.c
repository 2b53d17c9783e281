#include "evidence.h"
#include "status.h"
#include "array.h"
#include "utf8.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Lines without their whitespace. */
struct lines {
	char **text;
	size_t count, alloc;
};

/* One side of a file as read: its lines, or why it could not be read. */
struct side {
	char *path;
	bool old_side;
	int error;              /* 0, or the reader's status */
	char *why;              /* the reader's message when error */
	struct lines lines;
};

struct evidence_files {
	struct file_reader reader;
	struct side *sides;
	size_t count, alloc;
};

static void lines_release(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->count; i++)
		free(l->text[i]);
	free(l->text);
	memset(l, 0, sizeof(*l));
}

static char *squeeze(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			*o++ = s[i];
	*o = '\0';
	return out;
}

static int lines_add(struct lines *l, const char *s, size_t len)
{
	int error;

	if ((error = ARRAY_GROW(l->text, l->alloc, l->count + 1)) < 0)
		return error;
	if (!(l->text[l->count] = squeeze(s, len)))
		return error_nomem();
	l->count++;
	return 0;
}

static int lines_split(struct lines *out, const char *text, size_t len)
{
	size_t start = 0, i;
	int error = 0;

	for (i = 0; i <= len && !error; i++)
		if (i == len || text[i] == '\n') {
			if (i > start || i < len)
				error = lines_add(out, text + start, i - start);
			start = i + 1;
		}
	return error;
}

/* Whether every non-blank line starts with a diff marker (and one is + or -). */
static bool all_marked(const struct lines *raw, const char *const *orig)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < raw->count; i++) {
		if (!*raw->text[i])
			continue;
		if (orig[i][0] != '+' && orig[i][0] != '-' && orig[i][0] != ' ')
			return false;
		changed |= orig[i][0] != ' ';
	}
	return changed;
}

/* "42: x" or "42 | x": a line-number prefix on every non-blank line. */
static size_t number_prefix(const char *line)
{
	size_t i = 0;

	while (line[i] == ' ')
		i++;
	if (!isdigit((unsigned char)line[i]))
		return 0;
	while (isdigit((unsigned char)line[i]))
		i++;
	while (line[i] == ' ')
		i++;
	return line[i] == ':' || line[i] == '|' ? i + 1 : 0;
}

static bool is_ellipsis(const char *squeezed)
{
	return !strcmp(squeezed, "...") || !strcmp(squeezed, "\xe2\x80\xa6") ||
		!strcmp(squeezed, "//...") || !strcmp(squeezed, "#...") || !strcmp(squeezed, "/*...*/");
}

/* The quoted code as squeezed lines, markers and numbers stripped, blanks dropped. */
static int needle_of(struct lines *out, const char *code)
{
	struct lines raw = { 0 };
	char **orig = NULL;
	size_t i;
	bool marked, numbered = true;
	int error;

	if ((error = lines_split(&raw, code, strlen(code))) < 0)
		goto done;
	/* The originals, for markers and numbers (squeezing removed leading blanks). */
	if (!(orig = calloc(raw.count + 1, sizeof(char *)))) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < raw.count; i++) {
		const char *nl = strchr(code, '\n');
		size_t len = nl ? (size_t)(nl - code) : strlen(code);

		orig[i] = strndup(code, len);
		code += len + (nl ? 1 : 0);
		if (*raw.text[i] && !number_prefix(orig[i]))
			numbered = false;
	}
	marked = all_marked(&raw, (const char *const *)orig);
	for (i = 0; i < raw.count && !error; i++) {
		const char *line = orig[i];

		if (numbered)
			line += number_prefix(line);
		if (marked && *line)
			line++;
		error = lines_add(out, line, strlen(line));
		if (!error && (!*out->text[out->count - 1] || is_ellipsis(out->text[out->count - 1]))) {
			free(out->text[--out->count]);
		}
	}
done:
	for (i = 0; orig && i < raw.count; i++)
		free(orig[i]);
	free(orig);
	lines_release(&raw);
	return error;
}

/*
 * Whether the needle matches the file at line `at`: the first and last
 * quoted lines may be fragments (the end or start of a long line), the
 * others must be whole; blank file lines between them are skipped.
 */
static bool match_at(const struct lines *file, const struct lines *needle, size_t at, size_t *end)
{
	size_t i = at, k;

	for (k = 0; k < needle->count; k++, i++) {
		const char *want = needle->text[k], *have;

		while (k > 0 && i < file->count && !*file->text[i])
			i++;
		if (i >= file->count)
			return false;
		have = file->text[i];
		if (needle->count == 1) {
			if (!strstr(have, want) || (strlen(want) < 8 && strcmp(have, want)))
				return false;
		} else if (k == 0) {
			size_t hl = strlen(have), wl = strlen(want);

			if (wl > hl || strcmp(have + hl - wl, want))
				return false;
		} else if (k == needle->count - 1) {
			if (strncmp(have, want, strlen(want)))
				return false;
		} else if (strcmp(have, want)) {
			return false;
		}
	}
	*end = i - 1;
	return true;
}

/* The match nearest to the claimed line: its first and last lines (1-based). */
static bool find_code(const struct lines *file, const struct lines *needle, int near,
		      int *first, int *last)
{
	size_t i, end;
	long best = -1, dist;

	for (i = 0; i < file->count; i++) {
		if (!match_at(file, needle, i, &end))
			continue;
		dist = labs((long)i + 1 - near);
		if (best < 0 || dist < best) {
			best = dist;
			*first = (int)i + 1;
			*last = (int)end + 1;
		}
	}
	return best >= 0;
}

static int note(struct finding *f, bool verified, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int note(struct finding *f, bool verified, const char *fmt, ...)
{
	struct buf text = BUF_INIT;
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = buf_vprintf(&text, fmt, ap);
	va_end(ap);
	free(f->verify_note);
	f->verify_note = buf_detach(&text);
	f->verified = verified;
	return error;
}

/* The diff's file for a path as models write it ("b/src/x.c", "/abs/.../src/x.c"). */
static long locate(const struct diff *diff, const char *path)
{
	long i = diff_find_file(diff, path), hit = -1;
	size_t k, n = strlen(path);

	if (i >= 0)
		return i;
	if (path[0] == '.' && path[1] == '/')
		return locate(diff, path + 2);
	if ((path[0] == 'a' || path[0] == 'b') && path[1] == '/' && (i = diff_find_file(diff, path + 2)) >= 0)
		return i;
	for (k = 0; k < diff->nfiles; k++) {
		const char *p = diff->files[k].path;
		size_t m = strlen(p);

		if (n > m && path[n - m - 1] == '/' && !strcmp(path + n - m, p)) {
			if (hit >= 0)
				return -1;  /* ambiguous */
			hit = (long)k;
		}
	}
	return hit;
}

int evidence_files_new(struct evidence_files **out, const struct file_reader *reader)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return error_nomem();
	(*out)->reader = *reader;
	return 0;
}

void evidence_files_free(struct evidence_files *files)
{
	size_t i;

	if (!files)
		return;
	for (i = 0; i < files->count; i++) {
		free(files->sides[i].path);
		free(files->sides[i].why);
		lines_release(&files->sides[i].lines);
	}
	free(files->sides);
	free(files);
}

static int side_read(struct side *side, const struct file_reader *reader)
{
	struct buf text = BUF_INIT;
	int error = reader->read(reader->ctx, side->path, side->old_side, &text);

	if (error == RL_ENOMEM)
		goto done;
	if (error < 0) {
		side->error = error;
		error = (side->why = strdup(error_message())) ? 0 : error_nomem();
		goto done;
	}
	error = lines_split(&side->lines, text.ptr ? text.ptr : "", text.len);
done:
	buf_release(&text);
	return error;
}

/* The side, read and split the first time it is asked for. */
static int side_get(const struct side **out, struct evidence_files *files, const char *path, bool old_side)
{
	struct side *side;
	size_t i;
	int error;

	for (i = 0; i < files->count; i++)
		if (files->sides[i].old_side == old_side && !strcmp(files->sides[i].path, path))
			return *out = &files->sides[i], 0;
	if ((error = ARRAY_GROW(files->sides, files->alloc, files->count + 1)) < 0)
		return error;
	side = &files->sides[files->count];
	memset(side, 0, sizeof(*side));
	side->old_side = old_side;
	if (!(side->path = strdup(path)))
		return error_nomem();
	files->count++;
	if ((error = side_read(side, &files->reader)) < 0)
		return error;
	*out = side;
	return 0;
}

/*
 * A side that does not exist has nothing to find; one that exists but was
 * not read (a FIFO, a link leading out of the working tree) is said in
 * skipped, so the note gives the reason rather than "not in the file".
 */
static int search_side(struct evidence_files *files, const char *path, bool old_side,
		       const struct lines *needle, int near, int *first, int *last, bool *found,
		       struct buf *skipped)
{
	const struct side *side = NULL;
	int error;

	*found = false;
	if ((error = side_get(&side, files, path, old_side)) < 0)
		return error;
	if (side->error)
		return side->error != RL_ENOTFOUND && !skipped->len ? buf_puts(skipped, side->why) : 0;
	*found = find_code(&side->lines, needle, near, first, last);
	return 0;
}

/* "line 7" or "lines 7-9". */
static void lines_text(char *out, size_t size, int first, int last)
{
	if (first == last)
		snprintf(out, size, "line %d", first);
	else
		snprintf(out, size, "lines %d-%d", first, last);
}

/* Where the needle is: the new side (unless the file was deleted), else the old one. */
struct place {
	int first, last;
	bool found, old_side;
};

static int search_sides(struct place *at, struct evidence_files *files, const struct diff *diff, long index,
			const struct finding *f, const struct lines *needle, struct buf *skipped)
{
	bool deleted = index >= 0 && diff->files[index].status == DIFF_DELETED;
	int error;

	memset(at, 0, sizeof(*at));
	if (!deleted && (error = search_side(files, f->file, false, needle, f->line, &at->first, &at->last,
					     &at->found, skipped)) < 0)
		return error;
	if (at->found)
		return 0;
	at->old_side = true;
	return search_side(files, index >= 0 ? diff->files[index].old_path : f->file, true, needle, f->line,
			   &at->first, &at->last, &at->found, skipped);
}

/*
 * The quoted code where it is: as quoted, else with its <U+XXXX> written
 * as the characters they name (how revline shows hidden characters, and
 * how a model may quote them).
 */
static int find_quoted(struct place *at, struct evidence_files *files, const struct diff *diff, long index,
		       const struct finding *f, bool *empty, struct buf *skipped)
{
	const char *code = f->evidence.code_examined;
	struct lines needle = { 0 };
	struct buf plain = BUF_INIT;
	int error;

	if ((error = needle_of(&needle, code)) < 0 || (*empty = !needle.count) ||
	    (error = search_sides(at, files, diff, index, f, &needle, skipped)) < 0 || at->found ||
	    !strstr(code, "<U+"))
		goto done;
	lines_release(&needle);
	if ((error = utf8_unreveal(&plain, code, strlen(code))) == 0 &&
	    (error = needle_of(&needle, plain.ptr)) == 0 && needle.count)
		error = search_sides(at, files, diff, index, f, &needle, skipped);
done:
	buf_release(&plain);
	lines_release(&needle);
	return error;
}

/* A path as models write it of a file outside the diff: without "./", or "a/" and "b/" when the file is not there. */
static int outside_path(struct evidence_files *files, struct finding *f)
{
	const struct side *side = NULL;
	char *plain;
	int error;

	while (f->file[0] == '.' && f->file[1] == '/')
		memmove(f->file, f->file + 2, strlen(f->file + 2) + 1);
	if ((error = side_get(&side, files, f->file, false)) < 0 || side->error != RL_ENOTFOUND ||
	    (f->file[0] != 'a' && f->file[0] != 'b') || f->file[1] != '/')
		return error;
	if ((error = side_get(&side, files, f->file + 2, false)) < 0 || side->error)
		return error;
	if (!(plain = strdup(f->file + 2)))
		return error_nomem();
	free(f->file);
	f->file = plain;
	return 0;
}

/*
 * An impact finding in a file outside the diff: the same on both sides of
 * the change, so looked for on the new one only, and said to be outside.
 */
static int check_outside(struct finding *f, struct evidence_files *files, const struct lines *needle)
{
	const struct side *side = NULL;
	int first = 0, last = 0, error;
	char span[48];

	if ((error = outside_path(files, f)) < 0 || (error = side_get(&side, files, f->file, false)) < 0)
		return error;
	if (side->error == RL_ENOTFOUND)
		return note(f, false, "%s is neither in the diff nor in the repository", f->file);
	if (side->error)
		return note(f, false, "the quoted code could not be looked for: %s", side->why);
	if (!find_code(&side->lines, needle, f->line, &first, &last))
		return note(f, false, "the quoted code is not in %s (outside the diff: an impact finding)", f->file);
	lines_text(span, sizeof(span), first, last);
	error = first == f->line || !f->line ?
		note(f, true, "the quoted code is at %s of %s, outside the diff (an impact finding)", span, f->file) :
		note(f, true, "the quoted code is at %s of %s (the answer said %d), outside the diff (an impact "
		     "finding)", span, f->file, f->line);
	f->line = first;
	f->end_line = last;
	return error;
}

/* An impact finding's quoted code looked for in the file outside the diff it names. */
static int impact_check(struct finding *f, struct evidence_files *files, const char *code)
{
	struct lines needle = { 0 };
	int error;

	if ((error = needle_of(&needle, code)) == 0)
		error = needle.count ? check_outside(f, files, &needle) : note(f, false, "the quoted code is empty");
	lines_release(&needle);
	return error;
}

int evidence_check(struct finding *f, const struct diff *diff, struct evidence_files *files)
{
	struct buf skipped = BUF_INIT;
	long index = locate(diff, f->file);
	const char *code = f->evidence.code_examined;
	struct place at;
	bool empty = false;
	char span[48];
	int error;

	if (index >= 0 && strcmp(f->file, diff->files[index].path)) {
		free(f->file);
		if (!(f->file = strdup(diff->files[index].path)))
			return error_nomem();
	}
	if (index < 0 && !f->evidence.impact)
		return note(f, false, "%s is not in the diff, and the finding is not marked as an "
			    "impact finding", f->file);
	if (index >= 0 && (diff->files[index].flags & DIFF_FILE_BINARY))
		return note(f, false, "%s is a binary file", f->file);
	if (!code || !*code)
		return note(f, false, "the answer quoted no code to check");
	if (index < 0) {
		error = impact_check(f, files, code);
		goto done;
	}
	if ((error = find_quoted(&at, files, diff, index, f, &empty, &skipped)) < 0)
		goto done;
	lines_text(span, sizeof(span), at.first, at.last);
	if (empty)
		error = note(f, false, "the quoted code is empty");
	else if (at.found && !at.old_side)
		error = at.first == f->line || !f->line ?
			note(f, true, "the quoted code is at %s of %s", span, f->file) :
			note(f, true, "the quoted code is at %s of %s (the answer said %d)", span, f->file, f->line);
	else if (at.found)
		error = note(f, true, "the quoted code is at %s of the old version of %s "
			     "(the change removes or alters it)", span, f->file);
	else if (skipped.len)
		error = note(f, false, "the quoted code could not be looked for: %s", skipped.ptr);
	else
		error = note(f, false, "the quoted code is not in %s", f->file);
	if (!error && at.found && !at.old_side) {
		f->line = at.first;
		f->end_line = at.last;
	}
done:
	buf_release(&skipped);
	return error;
}

/* --- an answer that gives the change's own words as its reason ------------- */

/* What a sentence may name as the source of a claim: the change's own words. */
static const char *const claim_sources[] = {
	"comment", "commit message", "commit", "docstring", "note", "author", "agents.md", "claude.md",
	"readme", "annotation", "pull request description", "pr description",
};
/* How it gives them as its reason. */
static const char *const attributions[] = {
	"says", "said", "saying", "states", "stated", "claims", "claimed", "notes", "noted", "indicates",
	"indicated", "mentions", "mentioned", "confirms", "confirmed", "asserts", "asserted", "according to",
	"per the", "as stated", "as noted", "marked", "labelled", "labeled", "annotated", "declares",
};
/* What the claim is: a verdict or an assurance that only the code can give. */
static const char *const assurances[] = {
	"audited", "reviewed", "approved", "vetted", "verified", "validated", "sanitized", "sanitised",
	"safe", "secure", "compliant", "trusted", "exempt", "signed off", "no issues", "intentional",
};
/* Words addressed to reviewers, repeated as a reason. */
static const char *const addressed[] = {
	"note to ai", "ai reviewer", "ai agent", "to reviewers", "previous instructions", "instructions above",
	"answer compliant", "asked to answer", "instructed to", "told to answer", "asks reviewers",
};

static bool has_word(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word), i;

	for (i = 0; i + n <= len; i++)
		if (!strncasecmp(s + i, word, n) && (i == 0 || !isalnum((unsigned char)s[i - 1])) &&
		    (i + n == len || !isalpha((unsigned char)s[i + n])))
			return true;
	return false;
}

static bool has_any(const char *s, size_t len, const char *const *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (has_word(s, len, words[i]))
			return true;
	return false;
}

/* "line 40", "lines 3-5", "a.c:40": the sentence points at code it read. */
static bool cites_lines(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		if (s[i] == ':' && isdigit((unsigned char)s[i + 1]) && i && isalpha((unsigned char)s[i - 1]))
			return true;
		if ((!strncasecmp(s + i, "line ", 5) && i + 5 < len && isdigit((unsigned char)s[i + 5])) ||
		    (!strncasecmp(s + i, "lines ", 6) && i + 6 < len && isdigit((unsigned char)s[i + 6])))
			return true;
	}
	return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool sentence_steered(const char *s, size_t len)
{
	if (has_any(s, len, addressed, COUNT(addressed)))
		return true;
	return has_any(s, len, claim_sources, COUNT(claim_sources)) &&
		has_any(s, len, attributions, COUNT(attributions)) &&
		has_any(s, len, assurances, COUNT(assurances)) && !cites_lines(s, len);
}

/* A sentence ends at "!", "?", a line's end, or a "." before a space or the end ("AGENTS.md" goes on). */
static size_t sentence_len(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (strchr("!?\n", s[i]) || (s[i] == '.' && (!s[i + 1] || isspace((unsigned char)s[i + 1]))))
			break;
	return i;
}

bool evidence_steered(struct buf *why, const char *reasoning)
{
	const char *p = reasoning ? reasoning : "";

	while (*p) {
		size_t len = sentence_len(p), keep;

		while (len && isspace((unsigned char)*p))
			p++, len--;
		if (len && sentence_steered(p, len)) {
			keep = len > EVIDENCE_WHY_MAX ? EVIDENCE_WHY_MAX : len;
			while (keep < len && keep && ((unsigned char)p[keep] & 0xc0) == 0x80)
				keep--;
			buf_clear(why);
			return buf_put(why, p, keep) == 0 && (keep == len || buf_puts(why, "...") == 0);
		}
		p += len;
		p += *p != '\0';
	}
	return false;
}
