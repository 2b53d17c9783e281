/*
 * Fuzz the store's location: the classifier and the display form that
 * hides passwords. Besides not crashing: the kind is libpq's (a URI prefix
 * or an '='), a file path is shown as it is, and a password put in front of
 * or after any text, in the URI's user:password@, a password= keyword or a
 * password parameter, never shows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "store_location.h"

#define SECRET "Zq9s3cretQz"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_hidden(const char *fmt, const char *text)
{
	struct buf out = BUF_INIT;
	char *in;

	if (asprintf(&in, fmt, text) < 0)
		abort();
	if (store_location_display(&out, in) < 0 || !out.ptr)
		abort();
	if (strstr(out.ptr, SECRET)) {
		fprintf(stderr, "shown: [%s] as [%s]\n", in, out.ptr);
		abort();
	}
	buf_release(&out);
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store_location loc;
	char *text = strndup((const char *)data, size);
	int prefixed;

	if (!text)
		abort();
	if (store_location_parse(&loc, text) < 0 || strcmp(loc.conninfo, text))
		abort();
	prefixed = !strncmp(text, "postgresql://", 13) || !strncmp(text, "postgres://", 11);
	if ((loc.kind == STORE_LOCATION_POSTGRES) != (prefixed || strchr(text, '=')))
		abort();
	if (loc.kind == STORE_LOCATION_FILE && strcmp(loc.display, text))
		abort();
	store_location_release(&loc);
	if (!strstr(text, SECRET)) {
		check_hidden("postgresql://u:" SECRET "@%s", text);
		check_hidden("postgresql://%s?password=" SECRET, text);
		check_hidden("postgres://%s&password=" SECRET, text);
		check_hidden("postgresql://h/d?password=" SECRET "&%s", text);
		check_hidden("password=" SECRET " %s", text);
		check_hidden("password='" SECRET "' %s", text);
	}
	free(text);
	return 0;
}
