#include "store_location.h"
#include "status.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* libpq's test (uri_prefix_length, then recognized_connection_string). */
static size_t uri_prefix(const char *s)
{
	if (!strncmp(s, "postgresql://", 13))
		return 13;
	if (!strncmp(s, "postgres://", 11))
		return 11;
	return 0;
}

enum store_location_kind store_location_kind(const char *text)
{
	if (text && (uri_prefix(text) || strchr(text, '=')))
		return STORE_LOCATION_POSTGRES;
	return STORE_LOCATION_FILE;
}

static void hide(char *mask, size_t from, size_t to)
{
	if (from < to)
		memset(mask + from, 1, to - from);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Whether s[0..len) names a secret, as it is or percent-encoded; any case, to be safe. */
static bool secret_keyword(const char *s, size_t len, bool encoded)
{
	char key[16];
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (encoded && c == '%' && i + 2 < len && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			c = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		}
		if (n + 1 >= sizeof(key))
			return false;
		key[n++] = c;
	}
	key[n] = '\0';
	return !strcasecmp(key, "password") || !strcasecmp(key, "sslpassword");
}

/*
 * A URI: the password of user:password@, from the first ':' to the last '@'
 * before the later of the first '/' and the first '?' (whatever libpq takes
 * for one, and a password with a '/' or a '?' left unencoded, which libpq
 * misreads); and the value of every password parameter after any '?' or '&'.
 */
static void uri_hide(char *mask, const char *s, size_t n)
{
	size_t start = uri_prefix(s), slash, query, end, at = 0, i, key, eq, val;
	bool has_at = false;

	slash = start + strcspn(s + start, "/");
	query = start + strcspn(s + start, "?");
	end = slash > query ? slash : query;
	for (i = start; i < end; i++)
		if (s[i] == '@')
			at = i, has_at = true;
	for (i = start; has_at && i < at; i++) {
		if (s[i] == ':') {
			hide(mask, i + 1, at);
			break;
		}
	}
	for (i = start; i < n; i++) {
		if (s[i] != '?' && s[i] != '&')
			continue;
		key = eq = i + 1;
		while (eq < n && s[eq] != '=' && s[eq] != '&' && s[eq] != '?')
			eq++;
		if (eq >= n || s[eq] != '=' || !secret_keyword(s + key, eq - key, true))
			continue;
		for (val = eq + 1; val < n && s[val] != '&'; val++)
			;
		hide(mask, eq + 1, val);
	}
}

static size_t skip_space(const char *s, size_t i, size_t n)
{
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	return i;
}

/* A key/value value from s[i] as libpq reads it (quoted, or up to a space; backslash escapes); its end. */
static size_t kv_value_end(const char *s, size_t i, size_t n, bool *unterminated)
{
	bool quoted = i < n && s[i] == '\'';

	*unterminated = quoted;
	for (i += quoted; i < n; i++) {
		if (s[i] == '\\') {
			if (++i >= n)
				break;
		} else if (quoted && s[i] == '\'') {
			*unterminated = false;
			return i + 1;
		} else if (!quoted && isspace((unsigned char)s[i])) {
			return i;
		}
	}
	return n;
}

static bool holds_conninfo(const char *s, size_t len)
{
	return memchr(s, '=', len) || memmem(s, len, "://", 3);
}

/* A key/value string, parsed as libpq's conninfo_parse does. */
static void kv_hide(char *mask, const char *s, size_t n)
{
	size_t i = 0, key, key_end, val, val_end;
	bool unterminated;

	while ((i = skip_space(s, i, n)) < n) {
		key = i;
		while (i < n && s[i] != '=' && !isspace((unsigned char)s[i]))
			i++;
		key_end = i;
		i = skip_space(s, i, n);
		if (i >= n || s[i] != '=' || key == key_end) {
			hide(mask, key, n);  /* libpq refuses it: show nothing that follows */
			return;
		}
		val = skip_space(s, i + 1, n);
		val_end = i = kv_value_end(s, val, n, &unterminated);
		if (unterminated || secret_keyword(s + key, key_end - key, false) ||
		    (key_end - key == 6 && !strncmp(s + key, "dbname", 6) && holds_conninfo(s + val, val_end - val)))
			hide(mask, val, unterminated ? n : val_end);
	}
}

int store_location_display(struct buf *out, const char *text)
{
	size_t n = strlen(text), i;
	char *mask;
	int error = 0;

	if (store_location_kind(text) == STORE_LOCATION_FILE)
		return buf_puts(out, text);
	if (!(mask = calloc(n + 1, 1)))
		return error_nomem();
	if (uri_prefix(text))
		uri_hide(mask, text, n);
	else
		kv_hide(mask, text, n);
	for (i = 0; i < n && !error; i++) {
		if (!mask[i])
			error = buf_putc(out, text[i]);
		else if (i == 0 || !mask[i - 1])
			error = buf_puts(out, STORE_LOCATION_HIDDEN);
	}
	free(mask);
	return error;
}

int store_location_parse(struct store_location *out, const char *text)
{
	struct buf display = BUF_INIT;

	memset(out, 0, sizeof(*out));
	if (!text)
		return error_set(RL_EUSAGE, "no database location");
	out->kind = store_location_kind(text);
	if (store_location_display(&display, text) < 0 || !display.ptr || !(out->conninfo = strdup(text))) {
		buf_release(&display);
		store_location_release(out);
		return error_nomem();
	}
	out->display = buf_detach(&display);
	return 0;
}

void store_location_release(struct store_location *location)
{
	free(location->conninfo);
	free(location->display);
	location->conninfo = location->display = NULL;
}

/* Locations an option named (store_location_named), in the order they were named. */
static struct {
	const char *text, *setting;
} named[4];

void store_location_named(const char *text, const char *setting)
{
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!named[i].text || !strcmp(named[i].text, text)) {
			named[i].text = text;
			named[i].setting = setting;
			return;
		}
}

const char *store_location_setting(const char *text)
{
	const char *env = getenv("REVLINE_DB");
	size_t i;

	for (i = 0; text && i < sizeof(named) / sizeof(named[0]) && named[i].text; i++)
		if (!strcmp(named[i].text, text))
			return named[i].setting;
	return env && *env && text && !strcmp(env, text) ? "REVLINE_DB" : "revline.db";
}
