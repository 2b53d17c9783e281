/*
 * libFuzzer target: what a hostile file can make ctags say (tags.h), read
 * within bounds. The bytes are fed to the JSON-lines reader whole and in
 * pieces cut where the first byte says; both readings must agree, every
 * tag kept must be within the bounds (a name of 1 to TAGS_NAME_MAX bytes
 * without control characters, a line from 1, an end 0 or from the line,
 * texts cut to TAGS_TEXT_MAX), at most TAGS_PER_FILE_MAX kept a file. The
 * bytes are also read as `ctags --version`'s text, and as a file's
 * content whose JavaScript and Rust tags get their ends from braces.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "tags.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t files, tags, errors;
	unsigned long long sum;         /* of the lines and ends kept: the two readings must agree */
};

static void check_tag(const struct tag *t)
{
	const char *p;

	if (!*t->name || strlen(t->name) > TAGS_NAME_MAX || !*t->kind || strlen(t->kind) > TAGS_WORD_MAX ||
	    strlen(t->scope) > TAGS_TEXT_MAX || strlen(t->signature) > TAGS_TEXT_MAX ||
	    strlen(t->language) > TAGS_WORD_MAX || t->line < 1 || t->line > TAGS_LINE_NO_MAX ||
	    (t->end && t->end < t->line))
		abort();
	for (p = t->name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static int done(void *ctx, struct tag_list *tags, const char *error)
{
	struct seen *s = ctx;
	size_t i;

	if (tags->count > TAGS_PER_FILE_MAX)
		abort();
	for (i = 0; i < tags->count; i++) {
		check_tag(&tags->items[i]);
		s->sum += tags->items[i].line * 3ull + tags->items[i].end;
	}
	s->files++;
	s->tags += tags->count;
	s->errors += error != NULL;
	return 0;
}

static void read_all(struct seen *s, const uint8_t *data, size_t size, size_t piece)
{
	struct tags_reader r = { BUF_INIT, false, { 0 } };
	size_t at;

	memset(s, 0, sizeof(*s));
	for (at = 0; at < size; at += piece)
		if (tags_reader_feed(&r, (const char *)data + at, size - at < piece ? size - at : piece, done, s) < 0 &&
		    error_status() != RL_ENOMEM)
			abort();
	tags_reader_release(&r);
}

static void ends(const uint8_t *data, size_t size)
{
	struct tag_list list = { 0 };
	size_t i;

	for (i = 1; i < 6; i++) {
		tag_list_add(&list, "f", "function", NULL, NULL, i % 2 ? "JavaScript" : "Rust", (uint32_t)i, 0, 0);
		tag_list_add(&list, "c", "class", NULL, NULL, "TypeScript", (uint32_t)(i * 7), 0, 0);
	}
	tags_fill_ends(&list, (const char *)data, size);
	for (i = 0; i < list.count; i++)
		check_tag(&list.items[i]);
	tag_list_release(&list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen whole, pieces;
	struct tags_program p = { 0 };

	read_all(&whole, data, size, size ? size : 1);
	read_all(&pieces, data, size, size ? (size_t)data[0] % 17 + 1 : 1);
	if (whole.files != pieces.files || whole.tags != pieces.tags || whole.errors != pieces.errors ||
	    whole.sum != pieces.sum)
		abort();
	p.path = strdup("ctags");
	if (tags_program_check(&p, (const char *)data, size) == 0 &&
	    (!p.version || strncmp(p.version, "Universal Ctags", 15) || !p.identity))
		abort();
	tags_program_release(&p);
	ends(data, size);
	error_clear();
	return 0;
}
