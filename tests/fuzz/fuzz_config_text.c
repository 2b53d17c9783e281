/*
 * Fuzz the reading of git config text for a key's line and a dotted name.
 * Besides not crashing and not reading past the input (it has no NUL at
 * its end): a line found is a line of the input, a key found again in the
 * same text with a header and the variable written out after it is found
 * at that line, and the dotted name found is within its sizes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t lines_of(const char *text, size_t len)
{
	size_t n = 1, i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of its own size: a read past the end is ASan's to see. */
	char *text = malloc(size ? size : 1), *more, section[32], name[16];
	const char *keys[] = { "revline.theme", "revline.lint.ruff", "revline.Lint.x", "core.editor" };
	static const char tail[] = "\n[revline \"lint\"]\n\truff = x\n";
	size_t i, n, line, total;

	if (!text)
		abort();
	memcpy(text, data, size);
	total = lines_of(text, size);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((line = config_text_line(text, size, keys[i])) > total)
			abort();
	line = config_text_dotted(section, sizeof(section), name, sizeof(name), text, size);
	if (line > total || strlen(section) >= sizeof(section) || strlen(name) >= sizeof(name) ||
	    (line && !strchr(name, '.') && strlen(name) < sizeof(name) - 1))
		abort();
	/*
	 * What follows a complete line and is read as git reads it is found:
	 * only when the input ends its last line and leaves no quote or
	 * continuation open (else the tail is part of a value).
	 */
	if (size && text[size - 1] == '\n' && !memchr(text, '"', size) && !memchr(text, '\\', size) &&
	    (more = malloc(size + sizeof(tail)))) {
		memcpy(more, text, size);
		memcpy(more + size, tail, sizeof(tail) - 1);
		n = size + sizeof(tail) - 1;
		if (config_text_line(more, n, "revline.lint.ruff") != total + 2)
			abort();
		free(more);
	}
	free(text);
	return 0;
}
