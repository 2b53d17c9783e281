/* References by a word search over a side's files, the index's filters deciding which to read. */
#include "refs.h"
#include "array.h"
#include "buf.h"
#include "clock.h"
#include "index.h"
#include "status.h"
#include "words.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (64u << 10)

struct sought {
	const char *name;
	size_t len;
	uint64_t hash;
	bool open;              /* still sought: under its bound */
};

struct search {
	const struct index *index;
	struct refs *out;
	struct sought *names;
	size_t n, open;
	size_t per_symbol, total;
	bool definitions;
	size_t alloc;
	size_t *candidates;     /* the names the file being read may hold */
	size_t ncandidates;
	/* The file being read: where the line count stands. */
	const char *text, *counted;
	uint32_t line;
};

/* Whether a word is the whole of name: words_next finds it as it is. */
static bool one_word(const char *name)
{
	const char *p = name, *e = name + strlen(name), *w;
	size_t n = words_next(&p, e, &w);

	return n && w == name && n == (size_t)(e - name);
}

static int search_init(struct search *s, const char *const *symbols, size_t n)
{
	size_t i;

	if (!(s->names = calloc(n + 1, sizeof(*s->names))) || !(s->candidates = calloc(n + 1, sizeof(size_t))) ||
	    !(s->out->per_symbol = calloc(n + 1, sizeof(size_t))))
		return error_nomem();
	s->out->nsymbols = s->n = n;
	for (i = 0; i < n; i++) {
		s->names[i].name = symbols[i];
		s->names[i].len = strlen(symbols[i]);
		s->names[i].hash = words_hash(symbols[i], s->names[i].len);
		s->names[i].open = one_word(symbols[i]);
		s->open += s->names[i].open;
	}
	return 0;
}

/* The names still sought that the file's filter lets through: how many. */
static size_t may_hold(struct search *s, const struct index_file *f)
{
	size_t i;

	s->ncandidates = 0;
	for (i = 0; i < s->n; i++)
		if (s->names[i].open && words_filter_has(f->words, f->words_len, s->names[i].hash))
			s->candidates[s->ncandidates++] = i;
	return s->ncandidates;
}

/* Whether the index says the name is defined on this line of the file. */
static bool defined_here(const struct index *index, const struct index_file *f, const char *name, uint32_t line)
{
	size_t count, i;
	const struct def *defs = index_defs(index, &count);

	for (i = 0; i < f->ndefs; i++) {
		const struct def *d = &defs[f->first_def + i];

		if (d->line > line)
			break;
		if (d->line == line && !strcmp(d->name, name))
			return true;
	}
	return false;
}

/* The line that holds at, counted on from the last count. */
static uint32_t line_at(struct search *s, const char *at)
{
	const char *p = s->counted;

	while ((p = memchr(p, '\n', (size_t)(at - p)))) {
		s->line++;
		p++;
	}
	s->counted = at;
	return s->line;
}

/* The line around at, cut at a character's start, control characters as spaces. */
static const char *line_text(struct search *s, const char *at, const char *e, uint32_t *column)
{
	const char *start = at, *end = memchr(at, '\n', (size_t)(e - at));
	size_t n, i;
	char *copy;

	while (start > s->text && start[-1] != '\n')
		start--;
	*column = (uint32_t)(at - start) + 1;
	n = (size_t)((end ? end : e) - start);
	if (n && start[n - 1] == '\r')
		n--;
	if (n > REFS_TEXT_MAX) {
		n = REFS_TEXT_MAX;
		while (n && ((unsigned char)start[n] & 0xc0) == 0x80)
			n--;
	}
	if (!(copy = arena_alloc(&s->out->arena, n + 1, 1)))
		return NULL;
	for (i = 0; i < n; i++)
		copy[i] = (unsigned char)start[i] < 0x20 && start[i] != '\t' ? ' ' : start[i];
	copy[n] = '\0';
	return copy;
}

static int hit(struct search *s, const struct index_file *f, size_t which, const char *at, const char *e)
{
	struct sought *name = &s->names[which];
	uint32_t line = line_at(s, at), column;
	struct ref *r;

	for (size_t k = s->out->count; k-- > 0 && s->out->items[k].file == f && s->out->items[k].line == line;)
		if (s->out->items[k].symbol == which)
			return 0;       /* once a line */
	if (!s->definitions && defined_here(s->index, f, name->name, line))
		return 0;
	if (ARRAY_GROW(s->out->items, s->alloc, s->out->count + 1) < 0)
		return -1;
	r = &s->out->items[s->out->count];
	r->symbol = which;
	r->file = f;
	r->line = line;
	if (!(r->text = line_text(s, at, e, &column)))
		return error_nomem();
	r->column = column;
	s->out->count++;
	if (++s->out->per_symbol[which] >= s->per_symbol) {
		name->open = false;
		s->open--;
		s->out->complete = false;
	}
	if (s->out->count >= s->total) {
		s->open = 0;
		s->out->complete = false;
	}
	return 0;
}

/* Each word compared with the few names the file may hold: its length, its first byte, its bytes. */
static int file_search(struct search *s, const struct index_file *f, const char *text, size_t len)
{
	const char *p = text, *e = text + len, *w;
	size_t n, i;
	int error = 0;

	s->text = s->counted = text;
	s->line = 1;
	while (!error && s->open && (n = words_next(&p, e, &w)))
		for (i = 0; i < s->ncandidates && !error; i++) {
			const struct sought *name = &s->names[s->candidates[i]];

			if (name->len == n && name->open && name->name[0] == w[0] && !memcmp(w, name->name, n))
				error = hit(s, f, s->candidates[i], w, e);
		}
	return error;
}

int refs_find(struct refs *out, const struct index *index, const char *const *symbols, size_t n,
	      const struct refs_options *opts)
{
	struct search s = { .index = index, .out = out };
	const struct index_file *files;
	struct buf text = BUF_INIT;
	size_t nfiles, i;
	int error;

	memset(out, 0, sizeof(*out));
	arena_init(&out->arena, ARENA_BLOCK);
	out->complete = true;
	if (n > REFS_SYMBOLS_MAX)
		return error_set(RL_EUSAGE, "%zu names sought at once (at most %d)", n, REFS_SYMBOLS_MAX);
	s.per_symbol = opts && opts->per_symbol ? opts->per_symbol : REFS_PER_SYMBOL;
	s.total = opts && opts->total ? opts->total : REFS_TOTAL;
	s.definitions = opts && opts->definitions;
	if ((error = search_init(&s, symbols, n)) < 0)
		goto done;
	files = index_files(index, &nfiles);
	for (i = 0; i < nfiles && s.open && !error; i++) {
		if (!index_file_readable(&files[i]) || !may_hold(&s, &files[i]))
			continue;
		if (opts && opts->deadline_ms && clock_ms() >= opts->deadline_ms) {
			out->complete = false;
			break;
		}
		buf_clear(&text);
		if (index_file_read(&text, index, &files[i]) < 0) {
			error_clear();
			continue;
		}
		out->files_read++;
		out->bytes_read += text.len;
		error = file_search(&s, &files[i], text.ptr ? text.ptr : "", text.len);
	}
done:
	free(s.names);
	free(s.candidates);
	buf_release(&text);
	if (error < 0)
		refs_release(out);
	return error;
}

void refs_release(struct refs *refs)
{
	free(refs->items);
	free(refs->per_symbol);
	arena_release(&refs->arena);
	memset(refs, 0, sizeof(*refs));
}
