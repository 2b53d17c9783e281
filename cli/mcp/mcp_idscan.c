/* The id of a line too long to keep, read as it goes by (mcp_idscan.h). */
#include "mcp_idscan.h"

#include <string.h>

/* Where the scan is among the top-level members of the object. */
enum {
	SCAN_START,     /* before the object's '{' */
	SCAN_NAME,      /* a member's name is next */
	SCAN_IN_NAME,
	SCAN_COLON,
	SCAN_VALUE,     /* a member's value is next */
	SCAN_IN_VALUE,  /* a string (in_string), a nested value (depth), or a number or literal */
	SCAN_AFTER,     /* a ',' or the object's end is next */
	SCAN_OFF,       /* the object ended, or went wrong: nothing more to learn */
};

void mcp_idscan_init(struct mcp_idscan *s)
{
	memset(s, 0, sizeof(*s));
	s->state = SCAN_START;
}

void mcp_idscan_release(struct mcp_idscan *s)
{
	json_decref(s->id);
	mcp_idscan_init(s);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void token_begin(struct mcp_idscan *s)
{
	s->token_len = 0;
	s->token_long = false;
}

static void token_put(struct mcp_idscan *s, char c)
{
	if (s->token_len < sizeof(s->token))
		s->token[s->token_len++] = c;
	else
		s->token_long = true;
}

/* The token as JSON (a string with its quotes, or a number), or NULL. */
static json_t *token_json(const struct mcp_idscan *s)
{
	json_error_t error;

	return s->token_long ? NULL : json_loadb(s->token, s->token_len, JSON_DECODE_ANY, &error);
}

static bool name_is(const struct mcp_idscan *s, const char *name)
{
	size_t n = strlen(name);
	json_t *decoded;
	bool same;

	if (!memchr(s->token, '\\', s->token_len))
		return !s->token_long && s->token_len == n + 2 && !memcmp(s->token + 1, name, n);
	decoded = token_json(s);
	same = json_is_string(decoded) && !strcmp(json_string_value(decoded), name);
	json_decref(decoded);
	return same;
}

static void name_end(struct mcp_idscan *s)
{
	s->id_next = name_is(s, "id");
	if (name_is(s, "result") || name_is(s, "error"))
		s->response = true;
	s->state = SCAN_COLON;
}

static void value_end(struct mcp_idscan *s)
{
	json_t *id;

	if (s->id_next && !s->id) {
		id = token_json(s);
		if (json_is_string(id) || json_is_integer(id))
			s->id = id;
		else
			json_decref(id);
	}
	s->id_next = false;
	s->state = SCAN_AFTER;
}

/* A string's byte (its quotes included); true at its closing quote. */
static bool string_byte(struct mcp_idscan *s, char c, bool keep)
{
	if (keep)
		token_put(s, c);
	if (s->escape)
		s->escape = false;
	else if (c == '\\')
		s->escape = true;
	else if (c == '"')
		return true;
	return false;
}

static void value_start(struct mcp_idscan *s, char c)
{
	token_begin(s);
	s->state = SCAN_IN_VALUE;
	if (c == '"') {
		s->in_string = true;
		token_put(s, c);
	} else if (c == '{' || c == '[') {
		s->depth = 1;
	} else if (!c || strchr("}],:", c)) {
		s->state = SCAN_OFF;
	} else {
		token_put(s, c);
	}
}

static void byte(struct mcp_idscan *s, char c);

/* Inside a value: a string, a nested value, or a number or literal up to what ends it. */
static void value_byte(struct mcp_idscan *s, char c)
{
	if (s->in_string) {
		if (string_byte(s, c, !s->depth)) {
			s->in_string = false;
			if (!s->depth)
				value_end(s);
		}
	} else if (s->depth) {
		if (c == '"')
			s->in_string = true;
		else if (c == '{' || c == '[')
			s->depth++;
		else if ((c == '}' || c == ']') && !--s->depth)
			value_end(s);
	} else if (blank(c) || c == ',' || c == '}') {
		value_end(s);
		byte(s, c);
	} else if (!c || strchr("]{[\":", c)) {
		s->state = SCAN_OFF;
	} else {
		token_put(s, c);
	}
}

static void byte(struct mcp_idscan *s, char c)
{
	switch (s->state) {
	case SCAN_START:
		if (!blank(c))
			s->state = c == '{' ? SCAN_NAME : SCAN_OFF;
		break;
	case SCAN_NAME:
		if (blank(c))
			break;
		token_begin(s);
		token_put(s, c);
		s->state = c == '"' ? SCAN_IN_NAME : SCAN_OFF;
		break;
	case SCAN_IN_NAME:
		if (string_byte(s, c, true))
			name_end(s);
		break;
	case SCAN_COLON:
		if (!blank(c))
			s->state = c == ':' ? SCAN_VALUE : SCAN_OFF;
		break;
	case SCAN_VALUE:
		if (!blank(c))
			value_start(s, c);
		break;
	case SCAN_IN_VALUE:
		value_byte(s, c);
		break;
	case SCAN_AFTER:
		if (!blank(c))
			s->state = c == ',' ? SCAN_NAME : SCAN_OFF;
		break;
	}
}

void mcp_idscan_feed(struct mcp_idscan *s, const char *data, size_t len)
{
	size_t i;

	for (i = 0; i < len && s->state != SCAN_OFF; i++)
		byte(s, data[i]);
}
