/*
 * Unified diff text to the diff model: git's extended format (renames,
 * copies, modes, binary, quoted paths, type changes) and plain "--- / +++"
 * diffs. The text is copied into the diff's arena once; headers and lines
 * point into that copy.
 */
#include "diff.h"
#include "array.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

struct cursor {
	const char *p;
	const char *end;
	size_t lineno;          /* of the line at p, 1-based */
};

struct line {
	const char *s;
	size_t len;             /* without the '\n' */
	bool eol;               /* a '\n' ended it */
};

/* One "diff --git" section (a type change has two). */
struct part {
	const char *header;
	size_t header_len;
	const char *old_path;
	const char *new_path;
	enum diff_status status;
	uint32_t old_mode, new_mode, similarity;
	bool binary;
};

struct parser {
	struct diff *diff;
	struct cursor cur;
	struct diff_line *lines;
	size_t nlines, lines_alloc;
	struct diff_hunk *hunks;
	size_t nhunks, hunks_alloc;
	uint32_t additions, deletions;
};

static bool peek(const struct cursor *cur, struct line *line)
{
	const char *nl;

	if (cur->p >= cur->end)
		return false;
	nl = memchr(cur->p, '\n', (size_t)(cur->end - cur->p));
	line->s = cur->p;
	line->len = nl ? (size_t)(nl - cur->p) : (size_t)(cur->end - cur->p);
	line->eol = nl != NULL;
	return true;
}

static void advance(struct cursor *cur, const struct line *line)
{
	cur->p = line->s + line->len + (line->eol ? 1 : 0);
	cur->lineno++;
}

static bool starts(const struct line *line, const char *prefix)
{
	size_t n = strlen(prefix);

	return line->len >= n && memcmp(line->s, prefix, n) == 0;
}

static int parse_error(struct parser *p, const char *what)
{
	return error_set(RL_EPARSE, "diff line %zu: %s", p->cur.lineno, what);
}

static int octal_digit(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

/* Undo git's C-style quoting of a path ("a/t\303\251st"). */
static char *unquote(struct arena *arena, const char *s, size_t len, size_t *used)
{
	char *out = arena_alloc(arena, len + 1, 1), *o = out;
	size_t i = 1;

	if (!out)
		return NULL;
	for (; i < len && s[i] != '"'; i++) {
		if (s[i] != '\\' || i + 1 >= len) {
			*o++ = s[i];
			continue;
		}
		i++;
		switch (s[i]) {
		case 'a': *o++ = '\a'; break;
		case 'b': *o++ = '\b'; break;
		case 't': *o++ = '\t'; break;
		case 'n': *o++ = '\n'; break;
		case 'v': *o++ = '\v'; break;
		case 'f': *o++ = '\f'; break;
		case 'r': *o++ = '\r'; break;
		default:
			if (octal_digit(s[i]) >= 0 && i + 2 < len &&
			    octal_digit(s[i + 1]) >= 0 && octal_digit(s[i + 2]) >= 0) {
				*o++ = (char)(octal_digit(s[i]) * 64 +
					      octal_digit(s[i + 1]) * 8 + octal_digit(s[i + 2]));
				i += 2;
			} else {
				*o++ = s[i];
			}
		}
	}
	*o = '\0';
	if (used)
		*used = i < len ? i + 1 : len;
	return out;
}

/* A path token from a header line: quoted, or the rest of the line. */
static const char *path_token(struct arena *arena, const char *s, size_t len, bool cut_tab)
{
	const char *tab;

	if (len && s[0] == '"')
		return unquote(arena, s, len, NULL);
	if (cut_tab && (tab = memchr(s, '\t', len)))
		len = (size_t)(tab - s);
	return arena_strndup(arena, s, len);
}

/* "a/x" -> "x" when the diff uses one-letter prefixes (a/ b/, or c/ i/ w/ o/). */
static const char *strip_prefix(const char *path, bool strip)
{
	if (strip && path[0] && path[1] == '/')
		return path + 2;
	return path;
}

static bool has_letter_prefix(const char *s)
{
	return s[0] >= 'a' && s[0] <= 'z' && s[1] == '/';
}

/*
 * The two names of "diff --git A B". Quoted names are unambiguous; for
 * unquoted ones with spaces, the split is where both halves name the same
 * path, as git apply does. Renames get their names from later lines.
 */
static int git_names(struct parser *p, struct part *part, const char *s, size_t len, bool *strip)
{
	struct arena *arena = &p->diff->arena;
	const char *a = NULL, *b = NULL;
	size_t used, i;

	if (len && s[0] == '"') {
		a = unquote(arena, s, len, &used);
		if (!a)
			return error_nomem();
		while (used < len && s[used] == ' ')
			used++;
		b = path_token(arena, s + used, len - used, false);
	} else {
		for (i = 0; i < len; i++) {
			if (s[i] != ' ')
				continue;
			if (i + 1 < len && s[i + 1] == '"') {
				a = arena_strndup(arena, s, i);
				b = path_token(arena, s + i + 1, len - i - 1, false);
				break;
			}
			if (len - i - 1 == i && (i < 2 || memcmp(s + 2, s + i + 3, i - 2) == 0)) {
				a = arena_strndup(arena, s, i);
				b = arena_strndup(arena, s + i + 1, len - i - 1);
				break;
			}
		}
		if (!a) {
			/* Different names without rename lines: take the first space. */
			const char *sp = memchr(s, ' ', len);

			if (!sp)
				return parse_error(p, "cannot read the file names of 'diff --git'");
			a = arena_strndup(arena, s, (size_t)(sp - s));
			b = arena_strndup(arena, sp + 1, len - (size_t)(sp - s) - 1);
		}
	}
	if (!a || !b)
		return error_nomem();
	*strip = has_letter_prefix(a) && has_letter_prefix(b) && a[0] != b[0];
	part->old_path = strip_prefix(a, *strip);
	part->new_path = strip_prefix(b, *strip);
	return 0;
}

static uint32_t parse_mode(const char *s, size_t len)
{
	uint32_t mode = 0;
	size_t i;

	for (i = 0; i < len && s[i] >= '0' && s[i] <= '7'; i++)
		mode = mode * 8 + (uint32_t)(s[i] - '0');
	return mode;
}

static uint32_t parse_percent(const char *s, size_t len)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9' && n < 1000; i++)
		n = n * 10 + (uint32_t)(s[i] - '0');
	return n;
}

/* The mode at the end of "index abc..def 100644", if any. */
static void index_mode(struct part *part, const struct line *line)
{
	const char *sp = memchr(line->s + 6, ' ', line->len - 6);

	if (sp) {
		uint32_t mode = parse_mode(sp + 1, line->len - (size_t)(sp + 1 - line->s));

		if (!part->old_mode)
			part->old_mode = mode;
		if (!part->new_mode)
			part->new_mode = mode;
	}
}

/* "--- a/x" or "+++ b/x": NULL for /dev/null. */
static int side_path(struct parser *p, const struct line *line, bool strip, const char **out)
{
	const char *s = line->s + 4;
	size_t len = line->len - 4;
	const char *path;

	if (len >= 9 && memcmp(s, "/dev/null", 9) == 0 && (len == 9 || s[9] == '\t')) {
		*out = NULL;
		return 0;
	}
	path = path_token(&p->diff->arena, s, len, true);
	if (!path)
		return error_nomem();
	*out = strip_prefix(path, strip);
	return 0;
}

struct header_key {
	const char *prefix;
	int kind;
};

enum {
	H_OLD_MODE, H_NEW_MODE, H_DELETED, H_NEW_FILE, H_COPY_FROM, H_COPY_TO,
	H_RENAME_FROM, H_RENAME_TO, H_SIMILARITY, H_DISSIMILARITY, H_INDEX,
	H_BINARY, H_BINARY_PATCH,
};

static const struct header_key header_keys[] = {
	{ "old mode ", H_OLD_MODE },
	{ "new mode ", H_NEW_MODE },
	{ "deleted file mode ", H_DELETED },
	{ "new file mode ", H_NEW_FILE },
	{ "copy from ", H_COPY_FROM },
	{ "copy to ", H_COPY_TO },
	{ "rename from ", H_RENAME_FROM },
	{ "rename to ", H_RENAME_TO },
	{ "similarity index ", H_SIMILARITY },
	{ "dissimilarity index ", H_DISSIMILARITY },
	{ "index ", H_INDEX },
	{ "Binary files ", H_BINARY },
	{ "GIT binary patch", H_BINARY_PATCH },
};

static int header_kind(const struct line *line)
{
	size_t i;

	for (i = 0; i < sizeof(header_keys) / sizeof(header_keys[0]); i++)
		if (starts(line, header_keys[i].prefix))
			return header_keys[i].kind;
	return -1;
}

static int extended_line(struct parser *p, struct part *part, const struct line *line, int kind)
{
	struct arena *arena = &p->diff->arena;
	size_t skip = strlen(header_keys[kind].prefix);
	const char *rest = line->s + skip;
	size_t len = line->len - skip;

	switch (kind) {
	case H_OLD_MODE: part->old_mode = parse_mode(rest, len); break;
	case H_NEW_MODE: part->new_mode = parse_mode(rest, len); break;
	case H_DELETED:
		part->old_mode = parse_mode(rest, len);
		part->status = DIFF_DELETED;
		break;
	case H_NEW_FILE:
		part->new_mode = parse_mode(rest, len);
		part->status = DIFF_ADDED;
		break;
	case H_COPY_FROM: case H_RENAME_FROM:
		if (!(part->old_path = path_token(arena, rest, len, false)))
			return error_nomem();
		part->status = kind == H_COPY_FROM ? DIFF_COPIED : DIFF_RENAMED;
		break;
	case H_COPY_TO: case H_RENAME_TO:
		if (!(part->new_path = path_token(arena, rest, len, false)))
			return error_nomem();
		break;
	case H_SIMILARITY: case H_DISSIMILARITY:
		part->similarity = parse_percent(rest, len);
		break;
	case H_INDEX: index_mode(part, line); break;
	case H_BINARY: case H_BINARY_PATCH: part->binary = true; break;
	}
	return 0;
}

/* A "GIT binary patch" runs to the next file; it stays in the header verbatim. */
static void skip_binary_patch(struct parser *p)
{
	struct line line;

	while (peek(&p->cur, &line) && !starts(&line, "diff --git "))
		advance(&p->cur, &line);
}

static int git_header(struct parser *p, struct part *part)
{
	struct line line;
	bool strip = false;
	int kind, error;

	if (!peek(&p->cur, &line))
		return parse_error(p, "expected a 'diff --git' line");
	if ((error = git_names(p, part, line.s + 11, line.len - 11, &strip)) < 0)
		return error;
	advance(&p->cur, &line);
	while (peek(&p->cur, &line)) {
		if (starts(&line, "--- ")) {
			struct line next;
			struct cursor after = p->cur;
			const char *path;

			advance(&after, &line);
			if (!peek(&after, &next) || !starts(&next, "+++ "))
				return parse_error(p, "'---' line without a '+++' line after it");
			if ((error = side_path(p, &line, strip, &path)) < 0)
				return error;
			if (path)
				part->old_path = path;
			if ((error = side_path(p, &next, strip, &path)) < 0)
				return error;
			if (path)
				part->new_path = path;
			advance(&p->cur, &line);
			advance(&p->cur, &next);
			break;
		}
		if ((kind = header_kind(&line)) < 0)
			break;
		if ((error = extended_line(p, part, &line, kind)) < 0)
			return error;
		advance(&p->cur, &line);
		if (kind == H_BINARY_PATCH)
			skip_binary_patch(p);
		if (kind == H_BINARY || kind == H_BINARY_PATCH)
			break;
	}
	return 0;
}

static int plain_header(struct parser *p, struct part *part)
{
	struct line minus, plus;
	const char *old_path, *new_path;
	bool strip;
	int error;

	if (!peek(&p->cur, &minus))
		return parse_error(p, "expected a '---' line");
	advance(&p->cur, &minus);
	if (!peek(&p->cur, &plus))
		return parse_error(p, "expected a '+++' line");
	advance(&p->cur, &plus);
	if ((error = side_path(p, &minus, false, &old_path)) < 0 ||
	    (error = side_path(p, &plus, false, &new_path)) < 0)
		return error;
	if (!old_path && !new_path)
		return parse_error(p, "both sides are /dev/null");
	/* "a/x" and "b/x" as git writes them; with /dev/null on one side,
	 * the other side's "a/" or "b/" alone tells. */
	strip = old_path && new_path ? has_letter_prefix(old_path) &&
		has_letter_prefix(new_path) && old_path[0] != new_path[0] :
		(old_path && !strncmp(old_path, "a/", 2)) || (new_path && !strncmp(new_path, "b/", 2));
	part->status = !old_path ? DIFF_ADDED : !new_path ? DIFF_DELETED : DIFF_MODIFIED;
	part->old_path = old_path ? strip_prefix(old_path, strip) : strip_prefix(new_path, strip);
	part->new_path = new_path ? strip_prefix(new_path, strip) : part->old_path;
	if (!old_path)
		part->old_path = part->new_path;
	part->old_mode = part->status == DIFF_ADDED ? 0 : 0100644;
	part->new_mode = part->status == DIFF_DELETED ? 0 : 0100644;
	return 0;
}

static bool file_start(struct cursor *cur, bool *git)
{
	struct line line, next;
	struct cursor after = *cur;

	if (!peek(cur, &line))
		return false;
	if (starts(&line, "diff --git ")) {
		*git = true;
		return true;
	}
	if (!starts(&line, "--- "))
		return false;
	advance(&after, &line);
	*git = false;
	return peek(&after, &next) && starts(&next, "+++ ");
}

static int part_header(struct parser *p, struct part *part)
{
	bool git = false;
	int error;

	memset(part, 0, sizeof(*part));
	part->status = DIFF_MODIFIED;
	part->header = p->cur.p;
	file_start(&p->cur, &git);
	error = git ? git_header(p, part) : plain_header(p, part);
	if (error < 0)
		return error;
	part->header_len = (size_t)(p->cur.p - part->header);
	if (!part->old_path)
		part->old_path = part->new_path;
	if (!part->new_path)
		part->new_path = part->old_path;
	if (part->status == DIFF_ADDED)
		part->old_mode = 0;
	if (part->status == DIFF_DELETED)
		part->new_mode = 0;
	return 0;
}

static bool parse_range(const char **s, const char *end, uint32_t *start, uint32_t *count)
{
	uint64_t n = 0;
	const char *q = *s;

	if (q >= end || *q < '0' || *q > '9')
		return false;
	for (; q < end && *q >= '0' && *q <= '9'; q++)
		if ((n = n * 10 + (uint64_t)(*q - '0')) > INT32_MAX)
			return false;
	*start = (uint32_t)n;
	*count = 1;
	if (q < end && *q == ',') {
		n = 0;
		if (++q >= end || *q < '0' || *q > '9')
			return false;
		for (; q < end && *q >= '0' && *q <= '9'; q++)
			if ((n = n * 10 + (uint64_t)(*q - '0')) > INT32_MAX)
				return false;
		*count = (uint32_t)n;
	}
	*s = q;
	return true;
}

static int hunk_header(struct parser *p, const struct line *line, struct diff_hunk *hunk)
{
	const char *s = line->s + 4, *end = line->s + line->len;

	memset(hunk, 0, sizeof(*hunk));
	if (!parse_range(&s, end, &hunk->old_start, &hunk->old_lines) ||
	    end - s < 3 || memcmp(s, " +", 2) != 0)
		return parse_error(p, "malformed hunk header (expected '@@ -A,B +C,D @@')");
	s += 2;
	if (!parse_range(&s, end, &hunk->new_start, &hunk->new_lines) ||
	    end - s < 3 || memcmp(s, " @@", 3) != 0)
		return parse_error(p, "malformed hunk header (expected '@@ -A,B +C,D @@')");
	hunk->header = line->s;
	hunk->header_len = (uint32_t)line->len;
	return 0;
}

static int add_line(struct parser *p, const struct line *line, char origin,
		    int32_t old_lineno, int32_t new_lineno)
{
	struct diff_line *dl;
	int error;

	if ((error = ARRAY_GROW(p->lines, p->lines_alloc, p->nlines + 1)) < 0)
		return error;
	dl = &p->lines[p->nlines++];
	dl->text = line->len ? line->s + 1 : line->s;
	dl->len = line->len ? (uint32_t)(line->len - 1) : 0;
	dl->origin = origin;
	dl->old_lineno = old_lineno;
	dl->new_lineno = new_lineno;
	dl->flags = line->eol ? 0 : DIFF_LINE_NO_EOL;
	return 0;
}

static int hunk_body(struct parser *p, struct diff_hunk *hunk)
{
	uint32_t old_left = hunk->old_lines, new_left = hunk->new_lines;
	int32_t old_no = (int32_t)hunk->old_start, new_no = (int32_t)hunk->new_start;
	struct line line;
	int error;

	while (old_left || new_left) {
		char origin;

		if (!peek(&p->cur, &line))
			return parse_error(p, "the diff ends inside a hunk");
		origin = line.len ? line.s[0] : ' ';
		if (origin == '\\' && p->nlines > hunk->first_line) {
			p->lines[p->nlines - 1].flags |= DIFF_LINE_NO_EOL;
			advance(&p->cur, &line);
			continue;
		}
		if ((origin == ' ' && (!old_left || !new_left)) ||
		    (origin == '-' && !old_left) || (origin == '+' && !new_left) ||
		    (origin != ' ' && origin != '-' && origin != '+'))
			return parse_error(p, "line does not fit the hunk's line counts");
		error = add_line(p, &line, origin,
				 origin == '+' ? -1 : old_no, origin == '-' ? -1 : new_no);
		if (error < 0)
			return error;
		if (origin != '+')
			old_no++, old_left--;
		if (origin != '-')
			new_no++, new_left--;
		if (origin == '+')
			p->additions++;
		if (origin == '-')
			p->deletions++;
		advance(&p->cur, &line);
	}
	if (peek(&p->cur, &line) && line.len && line.s[0] == '\\' && p->nlines > hunk->first_line) {
		p->lines[p->nlines - 1].flags |= DIFF_LINE_NO_EOL;
		advance(&p->cur, &line);
	}
	hunk->nlines = (uint32_t)(p->nlines - hunk->first_line);
	return 0;
}

static int part_hunks(struct parser *p)
{
	struct line line;
	int error;

	while (peek(&p->cur, &line) && starts(&line, "@@ ")) {
		struct diff_hunk hunk;

		if ((error = hunk_header(p, &line, &hunk)) < 0)
			return error;
		advance(&p->cur, &line);
		hunk.first_line = (uint32_t)p->nlines;
		if ((error = hunk_body(p, &hunk)) < 0)
			return error;
		if ((error = ARRAY_GROW(p->hunks, p->hunks_alloc, p->nhunks + 1)) < 0)
			return error;
		p->hunks[p->nhunks++] = hunk;
	}
	return 0;
}

static bool mode_type_differs(uint32_t a, uint32_t b)
{
	return (a & 0170000) != (b & 0170000);
}

/* Move the scratch hunks and lines into the arena, onto the file. */
static int file_flush(struct parser *p, struct diff_file *file)
{
	struct arena *arena = &p->diff->arena;

	file->nhunks = (uint32_t)p->nhunks;
	file->nlines = (uint32_t)p->nlines;
	file->hunks = NULL;
	file->lines = NULL;
	if (p->nhunks) {
		file->hunks = arena_alloc(arena, p->nhunks * sizeof(*p->hunks), _Alignof(struct diff_hunk));
		if (!file->hunks)
			return error_nomem();
		memcpy(file->hunks, p->hunks, p->nhunks * sizeof(*p->hunks));
	}
	if (p->nlines) {
		file->lines = arena_alloc(arena, p->nlines * sizeof(*p->lines), _Alignof(struct diff_line));
		if (!file->lines)
			return error_nomem();
		memcpy(file->lines, p->lines, p->nlines * sizeof(*p->lines));
	}
	if (!(file->flags & DIFF_FILE_COUNTED)) {
		file->additions = p->additions;
		file->deletions = p->deletions;
		file->flags |= DIFF_FILE_COUNTED;
		p->diff->counted++;
		p->diff->additions += p->additions;
		p->diff->deletions += p->deletions;
	}
	file->flags |= DIFF_FILE_LOADED | DIFF_FILE_BINARY_KNOWN;
	p->nhunks = p->nlines = 0;
	p->additions = p->deletions = 0;
	return 0;
}

/*
 * Parse one file at the cursor: its header, its hunks and, for a type
 * change, the creation part that follows the deletion (its hunks start at
 * *split).
 */
static int file_parse(struct parser *p, struct part *part, struct part *second, uint32_t *split)
{
	struct cursor save;
	bool git;
	int error;

	second->header = NULL;
	*split = 0;
	if ((error = part_header(p, part)) < 0 || (error = part_hunks(p)) < 0)
		return error;
	if (part->status != DIFF_DELETED || !file_start(&p->cur, &git) || !git)
		return 0;
	save = p->cur;
	if ((error = part_header(p, second)) < 0)
		return error;
	if (second->status != DIFF_ADDED || strcmp(second->new_path, part->old_path) != 0 ||
	    !mode_type_differs(part->old_mode, second->new_mode)) {
		p->cur = save;
		second->header = NULL;
		return 0;
	}
	*split = (uint32_t)p->nhunks;
	return part_hunks(p);
}

static void part_apply(struct diff_file *file, const struct part *part, const struct part *second,
		       uint32_t split)
{
	file->header = part->header;
	file->header_len = part->header_len;
	if (part->binary || (second->header && second->binary))
		file->flags |= DIFF_FILE_BINARY;
	if (second->header) {
		file->header2 = second->header;
		file->header2_len = second->header_len;
		file->split_hunk = split;
	}
}

static void parser_release(struct parser *p)
{
	free(p->lines);
	free(p->hunks);
}

int diff_from_text(struct diff **out, const char *text, size_t len)
{
	struct parser p = { 0 };
	struct diff *diff = NULL;
	char *copy;
	bool git, any_text = false;
	size_t i;
	int error;

	*out = NULL;
	if ((error = diff_new(&diff)) < 0)
		return error;
	p.diff = diff;
	if (!(copy = arena_alloc(&diff->arena, len + 1, 1))) {
		error = error_nomem();
		goto done;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	p.cur.p = copy;
	p.cur.end = copy + len;
	p.cur.lineno = 1;
	for (i = 0; i < len && !any_text; i++)
		any_text = text[i] != ' ' && text[i] != '\n' && text[i] != '\t' && text[i] != '\r';

	while (p.cur.p < p.cur.end) {
		struct part part, second;
		struct diff_file *file;
		struct line line;
		uint32_t split;

		if (!file_start(&p.cur, &git)) {
			if (!peek(&p.cur, &line))
				break;
			if (starts(&line, "diff --cc ") || starts(&line, "diff --combined ")) {
				error = parse_error(&p, "combined diffs (merge commits) are not supported; "
						    "diff against one parent instead");
				goto done;
			}
			advance(&p.cur, &line);
			continue;
		}
		if ((error = file_parse(&p, &part, &second, &split)) < 0)
			goto done;
		if (second.header) {
			error = diff_file_add(&file, diff, DIFF_TYPECHANGE, part.old_path, part.old_path,
					      part.old_mode, second.new_mode);
		} else {
			error = diff_file_add(&file, diff, part.status, part.old_path, part.new_path,
					      part.old_mode, part.new_mode);
		}
		if (error < 0)
			goto done;
		file->similarity = part.similarity;
		part_apply(file, &part, &second, split);
		if ((error = file_flush(&p, file)) < 0)
			goto done;
	}
	if (!diff->nfiles && any_text) {
		error = error_set(RL_EPARSE, "no diff found: expected a line starting with "
				  "'diff --git' or a '---' line followed by '+++'");
		goto done;
	}
	*out = diff;
	diff = NULL;
done:
	parser_release(&p);
	diff_free(diff);
	return error;
}

int diff_file_parse(struct diff *diff, struct diff_file *file, const char *text, size_t len)
{
	struct parser p = { 0 };
	struct part part, second;
	uint32_t split;
	char *copy;
	bool git;
	int error;

	p.diff = diff;
	if (!(copy = arena_alloc(&diff->arena, len + 1, 1)))
		return error_nomem();
	memcpy(copy, text, len);
	copy[len] = '\0';
	p.cur.p = copy;
	p.cur.end = copy + len;
	p.cur.lineno = 1;
	/* git's line for an unmerged path with nothing to show is the whole text (repo_diff.c). */
	if (len > 16 && !memcmp(copy, "* Unmerged path ", 16)) {
		file->header = copy;
		file->header_len = len;
		error = file_flush(&p, file);
		goto done;
	}
	if (!file_start(&p.cur, &git)) {
		error = parse_error(&p, "expected the start of a file's diff");
		goto done;
	}
	if ((error = file_parse(&p, &part, &second, &split)) < 0)
		goto done;
	part_apply(file, &part, &second, split);
	error = file_flush(&p, file);
done:
	parser_release(&p);
	return error;
}
