/* YAML pulled event by event, for the lock file readers (lock_yaml.h). */
#include "lock_internal.h"
#include "lock_yaml.h"
#include "lock_json.h"

#include <stdio.h>
#include <string.h>

bool yaml_pull_init(struct yaml_pull *y, const char *text, size_t len)
{
	memset(y, 0, sizeof(*y));
	if (!yaml_parser_initialize(&y->parser)) {
		y->failed = y->nomem = true;
		snprintf(y->why, sizeof(y->why), "out of memory");
		return false;
	}
	yaml_parser_set_input_string(&y->parser, (const unsigned char *)text, len);
	return true;
}

void yaml_pull_release(struct yaml_pull *y)
{
	if (y->have)
		yaml_event_delete(&y->event);
	yaml_parser_delete(&y->parser);
	buf_release(&y->key);
}

void yaml_pull_fail(struct yaml_pull *y, const char *what)
{
	if (y->failed)
		return;
	y->failed = true;
	snprintf(y->why, sizeof(y->why), "line %zu, column %zu: %s", (size_t)y->parser.mark.line + 1,
		 (size_t)y->parser.mark.column + 1, what);
}

/* The next event, in y->event; false on an error or at the stream's end. */
static bool next(struct yaml_pull *y)
{
	if (y->failed)
		return false;
	if (y->have) {
		yaml_event_delete(&y->event);
		y->have = false;
	}
	if (!yaml_parser_parse(&y->parser, &y->event)) {
		if (y->parser.error == YAML_MEMORY_ERROR)
			y->nomem = true;
		snprintf(y->why, sizeof(y->why), "line %zu, column %zu: %s", (size_t)y->parser.problem_mark.line + 1,
			 (size_t)y->parser.problem_mark.column + 1,
			 y->parser.problem ? y->parser.problem : "not valid YAML");
		y->failed = true;
		return false;
	}
	y->have = true;
	if (y->event.type == YAML_MAPPING_START_EVENT || y->event.type == YAML_SEQUENCE_START_EVENT) {
		if (++y->depth > LOCK_JSON_DEPTH) {
			yaml_pull_fail(y, "nested deeper than 512 levels");
			return false;
		}
	} else if (y->event.type == YAML_MAPPING_END_EVENT || y->event.type == YAML_SEQUENCE_END_EVENT) {
		y->depth--;
	}
	return y->event.type != YAML_STREAM_END_EVENT;
}

bool yaml_pull_document(struct yaml_pull *y)
{
	while (next(y))
		if (y->event.type != YAML_STREAM_START_EVENT && y->event.type != YAML_DOCUMENT_START_EVENT &&
		    y->event.type != YAML_DOCUMENT_END_EVENT)
			break;
	/* An empty text is an empty lock file. */
	if (!y->failed && y->have && y->event.type == YAML_STREAM_END_EVENT)
		return false;
	if (!y->failed && (!y->have || y->event.type != YAML_MAPPING_START_EVENT))
		yaml_pull_fail(y, "the document is not a mapping");
	return !y->failed;
}

/* Pass over what the current event opened (it is a start), or nothing. */
static void skip_current(struct yaml_pull *y)
{
	size_t depth = y->depth;

	if (y->event.type != YAML_MAPPING_START_EVENT && y->event.type != YAML_SEQUENCE_START_EVENT)
		return;
	while (y->depth >= depth && next(y))
		;
}

bool yaml_pull_mapping(struct yaml_pull *y)
{
	if (!next(y))
		return false;
	if (y->event.type == YAML_MAPPING_START_EVENT)
		return true;
	skip_current(y);
	return false;
}

bool yaml_pull_key(struct yaml_pull *y, struct span *key)
{
	if (!next(y) || y->event.type == YAML_MAPPING_END_EVENT)
		return false;
	if (y->event.type != YAML_SCALAR_EVENT) {
		yaml_pull_fail(y, "a key that is not a plain string");
		return false;
	}
	buf_clear(&y->key);
	if (buf_put(&y->key, (const char *)y->event.data.scalar.value, y->event.data.scalar.length) < 0) {
		y->nomem = true;
		yaml_pull_fail(y, "out of memory");
		return false;
	}
	key->p = y->key.ptr ? y->key.ptr : "";
	key->end = key->p + y->key.len;
	return true;
}

bool yaml_pull_scalar(struct yaml_pull *y, struct span *value)
{
	if (!next(y))
		return false;
	if (y->event.type != YAML_SCALAR_EVENT) {
		skip_current(y);
		return false;
	}
	value->p = (const char *)y->event.data.scalar.value;
	value->end = value->p + y->event.data.scalar.length;
	return true;
}

void yaml_pull_skip(struct yaml_pull *y)
{
	if (next(y))
		skip_current(y);
}
